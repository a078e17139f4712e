/*
 * text.h: what the cdyn program's files are written with (text.c): text
 * that grows, the messages of its commands (exp_complain), strings and
 * the JSON and CSV quoting of every file the program writes.
 */
#ifndef CDYN_EXP_TEXT_H
#define CDYN_EXP_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* ---- text ------------------------------------------------------------------------------- */

/* A growing NUL-terminated string; `failed` once an allocation failed
   (the text is then incomplete, and the caller reports it). */
typedef struct exp_text {
  char *s;
  size_t len, cap;
  int failed;
} exp_text;

void exp_text_add(exp_text *b, const char *s, size_t n);
void exp_text_puts(exp_text *b, const char *s);
void exp_text_putc(exp_text *b, char c);
void exp_text_clear(exp_text *b);
/* Append printf-style text. */
void exp_text_printf(exp_text *b, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
void exp_text_free(exp_text *b);
/* s as one shell word: as it is when no shell treats any of its
   characters specially, else in single quotes (a quote within as '\''). */
void exp_text_shell(exp_text *b, const char *s);
/* s as one shell word, for printing (a static buffer: one use at a time). */
const char *exp_shell_word(const char *s);
/* Does s hold a control character (a newline would split a line)? */
int exp_has_control(const char *s);

/* Print "WHO: message" on stderr and return rc (exp_vcomplain: the
   message's arguments as a va_list). */
int exp_vcomplain(const char *who, int rc, const char *fmt, va_list ap);
int exp_complain(const char *who, int rc, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;

/* Does s end with suffix? */
int exp_ends_with(const char *s, const char *suffix);
/* strcmp for qsort of an array of strings. */
int exp_str_cmp(const void *a, const void *b);
/* Free n strings and the array that holds them (v may be NULL). */
void exp_strv_free(char **v, int n);

/* Write s as a JSON string (quotes, backslashes and control characters
   escaped). */
void exp_json_str(FILE *f, const char *s);
/* Write one CSV field, quoted when it holds a comma, quote or newline. */
void exp_csv_field(FILE *f, const char *s);

#endif
