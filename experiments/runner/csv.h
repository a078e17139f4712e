/*
 * csv.h: the reader of the CSV files the program writes (csv.c), to the
 * writer's rule (exp_csv_field, text.h): fields separated by commas,
 * records by newlines; a field holding a comma, a double quote or a
 * newline is written in double quotes, a double quote within doubled.
 *
 * The reader is lenient where the writer never goes: a double quote
 * anywhere opens a quoted stretch, which the next lone double quote
 * closes (a"b,c"d is the one field ab,cd).  A record ends at a newline
 * outside quotes, or at the end of the file; "\r\n" counts as "\n".
 */
#ifndef CDYN_EXP_CSV_H
#define CDYN_EXP_CSV_H

#include <stdio.h>
#include "runner/text.h"

typedef struct exp_csv_record {
  exp_text text;   /* the record as in the file, quotes kept, without its line end */
  char **field;    /* its fields, unquoted: field[0 .. nfields - 1] */
  int nfields;
  long line;       /* the line of the file the record starts on (1: the first) */
  long lines;      /* lines read so far (set to 0 to read a file again) */
  char *data;      /* (the fields' text) */
  size_t datacap;
  int fieldcap;
} exp_csv_record;

/*
 * Read the next record of f into r (which starts zeroed, and is reused
 * from record to record).  Returns 1 for a record, 0 at the end of the
 * file, -1 for a read error or out of memory, -2 for a quote left open
 * at the end of the file.
 */
int exp_csv_read(FILE *f, exp_csv_record *r);

/* Split the text of one record (no line end outside quotes) into r's
   fields (r->text is left alone).  0, -1 out of memory, -2 for a quote
   left open. */
int exp_csv_split(const char *text, exp_csv_record *r);

void exp_csv_record_free(exp_csv_record *r);

#endif
