/*
 * tests/experiments/test_parsers.c: the cdyn program's readers of its own
 * text: the CSV reader (experiments/runner/csv.c) against the writer
 * (exp_csv_field), fields with commas, quotes, newlines and none at all
 * written and read back; and the list parser (experiments/runner/lists.c):
 * its separators, its one rule for long lists, its typed layers.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "runner/csv.h"
#include "runner/lists.h"
#include "../testutil.h"

/* Fields the writer quotes and fields it does not. */
static const char *const fields[] = {
  "plain", "", "a,b", "say \"hi\"", "\"", "\"\"", ",", "line\nbreak", "two\n\nlines", "x,\"y\"\n,z", "1e-3", " spaced ",
};
#define NF ((int)(sizeof fields / sizeof fields[0]))

START_TEST(test_csv_round_trip)
{
  FILE *f = tmpfile();
  ck_assert_ptr_nonnull(f);
  /* Records of 1 .. NF fields, each a rotation of the list, then the
     same fields one a record. */
  for (int n = 1; n <= NF; n++) {
    for (int k = 0; k < n; k++) {
      if (k)
        fputc(',', f);
      exp_csv_field(f, fields[(k + n) % NF]);
    }
    fputc('\n', f);
  }
  rewind(f);
  exp_csv_record r = {0};
  long line = 1;
  for (int n = 1; n <= NF; n++) {
    ck_assert_int_eq(exp_csv_read(f, &r), 1);
    ck_assert_int_eq(r.line, line);
    ck_assert_int_eq(r.nfields, n);
    int newlines = 1;
    for (int k = 0; k < n; k++) {
      ck_assert_str_eq(r.field[k], fields[(k + n) % NF]);
      for (const char *p = fields[(k + n) % NF]; *p; p++)
        newlines += *p == '\n';
    }
    line += newlines;
    /* The record's text splits to the same fields. */
    exp_csv_record s = {0};
    ck_assert_int_eq(exp_csv_split(r.text.s, &s), 0);
    ck_assert_int_eq(s.nfields, n);
    for (int k = 0; k < n; k++)
      ck_assert_str_eq(s.field[k], r.field[k]);
    exp_csv_record_free(&s);
  }
  ck_assert_int_eq(exp_csv_read(f, &r), 0);
  exp_csv_record_free(&r);
  fclose(f);
}
END_TEST

/* Line ends, empty records and fields, an unclosed quote, no final newline. */
START_TEST(test_csv_edges)
{
  FILE *f = tmpfile();
  ck_assert_ptr_nonnull(f);
  fputs("a,b\r\n\n,,\n\"x\"\"\",y\n\"open,end", f);
  rewind(f);
  exp_csv_record r = {0};
  ck_assert_int_eq(exp_csv_read(f, &r), 1);
  ck_assert_str_eq(r.text.s, "a,b");
  ck_assert_int_eq(r.nfields, 2);
  ck_assert_int_eq(exp_csv_read(f, &r), 1);
  ck_assert_str_eq(r.text.s, "");
  ck_assert_int_eq(r.nfields, 1);
  ck_assert_str_eq(r.field[0], "");
  ck_assert_int_eq(exp_csv_read(f, &r), 1);
  ck_assert_int_eq(r.line, 3);
  ck_assert_int_eq(r.nfields, 3);
  for (int k = 0; k < 3; k++)
    ck_assert_str_eq(r.field[k], "");
  ck_assert_int_eq(exp_csv_read(f, &r), 1);
  ck_assert_str_eq(r.text.s, "\"x\"\"\",y");
  ck_assert_str_eq(r.field[0], "x\"");
  ck_assert_str_eq(r.field[1], "y");
  ck_assert_int_eq(exp_csv_read(f, &r), -2);
  ck_assert_int_eq(exp_csv_read(f, &r), 0);
  exp_csv_record_free(&r);
  fclose(f);
  /* No newline at the end: the last record is whole. */
  f = tmpfile();
  fputs("h\n1,2", f);
  rewind(f);
  ck_assert_int_eq(exp_csv_read(f, &r), 1);
  ck_assert_int_eq(exp_csv_read(f, &r), 1);
  ck_assert_int_eq(r.line, 2);
  ck_assert_str_eq(r.field[1], "2");
  ck_assert_int_eq(exp_csv_read(f, &r), 0);
  exp_csv_record_free(&r);
  fclose(f);
}
END_TEST

START_TEST(test_lists)
{
  char **v;
  int n;
  /* Commas and spaces, runs of them separating nothing more. */
  ck_assert_int_eq(exp_list_split(" a, b,,c ", "x", EXP_LIST_SPACES, 10, &v, &n), 0);
  ck_assert_int_eq(n, 3);
  ck_assert_str_eq(v[2], "c");
  exp_strv_free(v, n);
  ck_assert_int_eq(exp_list_split(", ,", "x", EXP_LIST_SPACES, 10, &v, &n), CDYN_EINVAL);
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "x: no value given"));
  ck_assert_int_eq(exp_list_split(", ,", "x", EXP_LIST_SPACES | EXP_LIST_EMPTY_OK, 10, &v, &n), 0);
  ck_assert_int_eq(n, 0);
  /* Commas only: an empty item is an error, a space is a character. */
  ck_assert_int_eq(exp_list_split("a,,b", "x", 0, 10, &v, &n), CDYN_EINVAL);
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "x: an empty value"));
  ck_assert_int_eq(exp_list_split("a,", "x", 0, 10, &v, &n), CDYN_EINVAL);
  ck_assert_int_eq(exp_list_split("a b,c", "x", 0, 10, &v, &n), 0);
  ck_assert_str_eq(v[0], "a b");
  exp_strv_free(v, n);
  /* No text at all is a list of no item, with either separators. */
  ck_assert_int_eq(exp_list_split("", "x", 0, 10, &v, &n), CDYN_EINVAL);
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "x: no value given"));
  ck_assert_int_eq(exp_list_split("", "x", EXP_LIST_EMPTY_OK, 10, &v, &n), 0);
  ck_assert_int_eq(n, 0);
  ck_assert_int_eq(exp_list_split("", "x", EXP_LIST_SPACES | EXP_LIST_EMPTY_OK, 10, &v, &n), 0);
  ck_assert_int_eq(n, 0);
  /* Escapes, duplicates, the count. */
  ck_assert_int_eq(exp_list_split("a\\,b,c\\\\", "x", EXP_LIST_ESCAPES, 10, &v, &n), 0);
  ck_assert_str_eq(v[0], "a,b");
  ck_assert_str_eq(v[1], "c\\");
  exp_strv_free(v, n);
  ck_assert_int_eq(exp_list_split("a,b,a", "x", EXP_LIST_UNIQUE, 10, &v, &n), CDYN_EINVAL);
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "'a' is given twice"));
  ck_assert_int_eq(exp_list_split("a,b,c", "x", 0, 2, &v, &n), CDYN_EINVAL);
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "x: more than 2 values"));
  /* The one rule for long lists: refused, never cut. */
  char *big = malloc(EXP_LIST_MAX_CHARS + 2);
  memset(big, 'a', EXP_LIST_MAX_CHARS);
  big[EXP_LIST_MAX_CHARS] = '\0';
  ck_assert_int_eq(exp_list_split(big, "x", 0, 10, &v, &n), 0);
  ck_assert_uint_eq(strlen(v[0]), EXP_LIST_MAX_CHARS);
  exp_strv_free(v, n);
  strcat(big, "a");
  ck_assert_int_eq(exp_list_split(big, "big", 0, 10, &v, &n), CDYN_EINVAL);
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "big: the list is longer than 65536 characters"));
  free(big);
  /* Names into slots. */
  char names[4][EXP_LIST_NAME];
  ck_assert_int_eq(exp_list_names("ab,cd", "x", 0, names, 4, &n), 0);
  ck_assert_int_eq(n, 2);
  ck_assert_str_eq(names[1], "cd");
  ck_assert_int_eq(exp_list_names("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "x", 0, names, 4, &n), CDYN_EINVAL);
  ck_assert_int_eq(n, 0);
  /* Numbers with ranges, p/q, increasing. */
  double d[4];
  ck_assert_int_eq(exp_list_reals("1/60, 0.5", "h", EXP_LIST_SPACES | EXP_LIST_RATIO | EXP_LIST_ABOVE_LO, 0, INFINITY,
                                  d, 4, &n),
                   0);
  ck_assert(n == 2 && d[0] == 1.0 / 60 && d[1] == 0.5);
  ck_assert_int_eq(exp_list_reals("0", "h", EXP_LIST_ABOVE_LO, 0, INFINITY, d, 4, &n), CDYN_EINVAL);
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "h: '0' is not a number > 0"));
  ck_assert_int_eq(exp_list_reals("1,x", "t", 0, 0, INFINITY, d, 4, &n), CDYN_EINVAL);
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "t: 'x' is not a number >= 0"));
  ck_assert_int_eq(exp_list_reals("1,1", "t", EXP_LIST_INCREASING, 0, INFINITY, d, 4, &n), CDYN_EINVAL);
  ck_assert_int_eq(exp_list_reals("inf", "t", 0, 0, INFINITY, d, 4, &n), CDYN_EINVAL);
  long g[4];
  ck_assert_int_eq(exp_list_longs("4,8,512", "grids", EXP_LIST_INCREASING, 4, 512, g, 4, &n), 0);
  ck_assert(n == 3 && g[2] == 512);
  ck_assert_int_eq(exp_list_longs("4,513", "grids", 0, 4, 512, g, 4, &n), CDYN_EINVAL);
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "grids: '513' is not an integer in [4, 512]"));
  ck_assert_int_eq(exp_list_longs("8,4", "grids", EXP_LIST_INCREASING, 4, 512, g, 4, &n), CDYN_EINVAL);
  ck_assert_int_eq(exp_list_longs("4.5", "grids", 0, 4, 512, g, 4, &n), CDYN_EINVAL);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("experiments_parsers");
  TCase *tc = tcase_create("parsers");
  tcase_add_test(tc, test_csv_round_trip);
  tcase_add_test(tc, test_csv_edges);
  tcase_add_test(tc, test_lists);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
