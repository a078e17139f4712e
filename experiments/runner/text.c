/*
 * text.c: text that grows, the commands' messages, strings, and the
 * JSON and CSV quoting of what the program writes (text.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runner/text.h"

/* ---- text ------------------------------------------------------------------------------- */

void exp_text_add(exp_text *b, const char *s, size_t n)
{
  if (b->failed)
    return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
      cap *= 2;
    char *p = realloc(b->s, cap);
    if (!p) {
      b->failed = 1;
      return;
    }
    b->s = p;
    b->cap = cap;
  }
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = '\0';
}

void exp_text_puts(exp_text *b, const char *s) { exp_text_add(b, s, strlen(s)); }
void exp_text_putc(exp_text *b, char c) { exp_text_add(b, &c, 1); }

void exp_text_printf(exp_text *b, const char *fmt, ...)
{
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) {
    b->failed = 1;
    return;
  }
  if ((size_t)n < sizeof buf) {
    exp_text_add(b, buf, (size_t)n);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) {
    b->failed = 1;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  exp_text_add(b, big, (size_t)n);
  free(big);
}

void exp_text_clear(exp_text *b)
{
  b->len = 0;
  if (b->s)
    b->s[0] = '\0';
}

void exp_text_free(exp_text *b)
{
  free(b->s);
  memset(b, 0, sizeof *b);
}

void exp_text_shell(exp_text *b, const char *s)
{
  static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-";
  if (*s && strspn(s, safe) == strlen(s)) {
    exp_text_puts(b, s);
    return;
  }
  exp_text_putc(b, '\'');
  for (; *s; s++)
    if (*s == '\'')
      exp_text_puts(b, "'\\''");
    else
      exp_text_putc(b, *s);
  exp_text_putc(b, '\'');
}

int exp_vcomplain(const char *who, int rc, const char *fmt, va_list ap)
{
  fprintf(stderr, "%s: ", who);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  return rc;
}

int exp_complain(const char *who, int rc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  exp_vcomplain(who, rc, fmt, ap);
  va_end(ap);
  return rc;
}

int exp_ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), l = strlen(suffix);
  return n >= l && !strcmp(s + n - l, suffix);
}

int exp_str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void exp_strv_free(char **v, int n)
{
  for (int k = 0; v && k < n; k++)
    free(v[k]);
  free(v);
}

/* A shell word for printing (a static buffer: one use at a time). */
const char *exp_shell_word(const char *s)
{
  static exp_text b;
  exp_text_clear(&b);
  exp_text_shell(&b, s);
  return b.failed ? s : b.s;
}

int exp_has_control(const char *s)
{
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f)
      return 1;
  return 0;
}

void exp_json_str(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

void exp_csv_field(FILE *f, const char *s)
{
  if (!strpbrk(s, ",\"\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}
