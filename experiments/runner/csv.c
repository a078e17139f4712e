/*
 * csv.c: the reader of the CSV files the program writes, to the rule of
 * its writer, exp_csv_field (text.h; csv.h states the rule).
 */
#include <stdlib.h>
#include <string.h>
#include "runner/csv.h"

/* Start field n at `at`. */
static int add_field(exp_csv_record *r, int *n, char *at)
{
  if (*n == r->fieldcap) {
    int cap = r->fieldcap ? 2 * r->fieldcap : 32;
    char **v = realloc(r->field, (size_t)cap * sizeof *v);
    if (!v)
      return -1;
    r->field = v;
    r->fieldcap = cap;
  }
  r->field[(*n)++] = at;
  return 0;
}

int exp_csv_split(const char *text, exp_csv_record *r)
{
  size_t len = strlen(text);
  /* The fields' text is never longer than the record's: a separator
     becomes a NUL, quotes go. */
  if (len + 1 > r->datacap) {
    char *d = realloc(r->data, len + 1);
    if (!d)
      return -1;
    r->data = d;
    r->datacap = len + 1;
  }
  char *out = r->data;
  int n = 0, quoted = 0;
  if (add_field(r, &n, out))
    return -1;
  for (const char *p = text; *p; p++) {
    if (*p == '"') {
      if (quoted && p[1] == '"')
        *out++ = *++p;
      else
        quoted = !quoted;
    } else if (*p == ',' && !quoted) {
      *out++ = '\0';
      if (add_field(r, &n, out))
        return -1;
    } else {
      *out++ = *p;
    }
  }
  *out = '\0';
  r->nfields = n;
  return quoted ? -2 : 0;
}

int exp_csv_read(FILE *f, exp_csv_record *r)
{
  exp_text_clear(&r->text);
  r->nfields = 0;
  r->line = r->lines + 1;
  int c, quoted = 0, any = 0;
  while ((c = getc(f)) != EOF) {
    any = 1;
    if (c == '\n')
      r->lines++;
    if (c == '"')
      quoted = !quoted;
    else if (!quoted && c == '\n')
      break;
    exp_text_putc(&r->text, (char)c);
  }
  if (ferror(f) || r->text.failed)
    return -1;
  if (!any)
    return 0;
  if (quoted)
    return -2;
  if (c == '\n' && r->text.len && r->text.s[r->text.len - 1] == '\r')
    r->text.s[--r->text.len] = '\0';
  if (!r->text.s)
    exp_text_puts(&r->text, "");
  if (r->text.failed)
    return -1;
  return exp_csv_split(r->text.s, r) ? -1 : 1;
}

void exp_csv_record_free(exp_csv_record *r)
{
  exp_text_free(&r->text);
  free(r->field);
  free(r->data);
  memset(r, 0, sizeof *r);
}
