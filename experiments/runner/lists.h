/*
 * lists.h: the comma-separated lists of the cdyn program's parameters and
 * options (lists.c): one splitter, one rule for long lists, and typed
 * layers on it (names into fixed-size slots, numbers with ranges).
 *
 * A list longer than EXP_LIST_MAX_CHARS characters is refused, never cut.
 * Every function reports a refused list through cdyn_error, naming `what`
 * (the parameter or option) in the message, and returns CDYN_EINVAL
 * (CDYN_ENOMEM when out of memory); the caller prints cdyn_errmsg().
 */
#ifndef CDYN_EXP_LISTS_H
#define CDYN_EXP_LISTS_H

#define EXP_LIST_MAX_CHARS 65536 /* the longest list accepted, in characters */
#define EXP_LIST_NAME 32         /* the size of a name's slot, with its NUL */

/* Flags of a list. */
enum {
  /* Commas and spaces separate, and separators in a row, or at either
     end, separate nothing ("a, b").  Without it only commas separate,
     and an empty item is an error. */
  EXP_LIST_SPACES = 1,
  /* A backslash takes the next character as it is ("\," is a comma
     within an item). */
  EXP_LIST_ESCAPES = 2,
  /* A list of no item is accepted (otherwise: an error). */
  EXP_LIST_EMPTY_OK = 4,
  /* An item given twice is an error. */
  EXP_LIST_UNIQUE = 8,
  /* Numbers: each greater than the one before. */
  EXP_LIST_INCREASING = 16,
  /* Numbers: the lower bound itself is out of range (x > lo). */
  EXP_LIST_ABOVE_LO = 32,
  /* Real numbers: p/q (1/60) is accepted too, q a finite number > 0. */
  EXP_LIST_RATIO = 64
};

/* Split `text` into at most max items, new strings (*items)[0 .. *n - 1]
   (free with exp_strv_free; NULL when none). */
int exp_list_split(const char *text, const char *what, unsigned flags, int max, char ***items, int *n);

/* Names, each shorter than EXP_LIST_NAME, into out[0 .. *n - 1], at most
   max. */
int exp_list_names(const char *text, const char *what, unsigned flags, char (*out)[EXP_LIST_NAME], int max,
                   int *n);

/* Finite real numbers in [lo, hi] (strtod's syntax) into out, at most
   max. */
int exp_list_reals(const char *text, const char *what, unsigned flags, double lo, double hi, double *out, int max,
                   int *n);

/* Integers in [lo, hi] (decimal) into out, at most max. */
int exp_list_longs(const char *text, const char *what, unsigned flags, long lo, long hi, long *out, int max,
                   int *n);

/* Parse a list of increasing times >= 0 (snapshot times), separated by
   commas or spaces, possibly empty, into ts (at most max); CDYN_EINVAL naming the
   parameter snapshots for a bad or surplus entry (the caller names the
   experiment). */
int exp_parse_times(const char *text, double *ts, int max, int *n);

#endif
