/*
 * cli.c: the command-line conventions of the cdyn program (cli.h): the
 * nearest known word, unknown options, --opt=value.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cdyn/error.h>
#include "runner/cli.h"
#include "runner/text.h"

/* ---- command-line conventions ------------------------------------------------------------- */

void exp_near_init(exp_near *n, const char *word)
{
  n->word = word;
  n->best = NULL;
  n->dist = (size_t)-1;
}

void exp_near_try(exp_near *n, const char *candidate)
{
  if (!candidate || !n->word)
    return;
  size_t d = cdyn_word_distance(n->word, candidate);
  if (d < n->dist) {
    n->dist = d;
    n->best = candidate;
  }
}

void exp_near_list(exp_near *n, const char *const *candidates)
{
  for (; candidates && *candidates; candidates++)
    exp_near_try(n, *candidates);
}

const char *exp_near_best(const exp_near *n)
{
  if (!n->best || !cdyn_word_near(n->word, n->dist))
    return NULL;
  return n->best;
}

const char *exp_near_hint(const exp_near *n)
{
  static char buf[160];
  const char *best = exp_near_best(n);
  if (!best)
    return "";
  snprintf(buf, sizeof buf, "; did you mean '%.100s'?", best);
  return buf;
}

int exp_unknown_option(const char *who, const char *a, const char *const *options)
{
  exp_near near;
  exp_near_init(&near, a);
  exp_near_list(&near, options);
  fprintf(stderr, "%s: unknown option '%s'%s\n", who, a, exp_near_hint(&near));
  return 2;
}

static int in_list(const char *const *list, const char *s, size_t len)
{
  for (; list && *list; list++)
    if (strlen(*list) == len && !strncmp(*list, s, len))
      return 1;
  return 0;
}

int exp_split_long_options(int *argc, char ***argv, int first, const char *const *value_options,
                           const char *const *flags)
{
  char **v = *argv;
  int n = *argc, extra = 0;
  for (int k = first; k < n; k++) {
    const char *a = v[k];
    if (in_list(value_options, a, strlen(a))) {
      k++; /* its value, whatever it looks like */
      continue;
    }
    const char *eq = strncmp(a, "--", 2) ? NULL : strchr(a, '=');
    if (!eq)
      continue;
    if (in_list(flags, a, (size_t)(eq - a))) {
      fprintf(stderr, "cdyn: option '%.*s' takes no value\n", (int)(eq - a), a);
      return 2;
    }
    extra++;
  }
  if (!extra)
    return 0;
  char **w = malloc(((size_t)n + (size_t)extra + 1) * sizeof *w);
  if (!w) {
    fprintf(stderr, "cdyn: out of memory\n");
    return 1;
  }
  int m = 0;
  for (int k = 0; k < n; k++) {
    char *a = v[k];
    if (k >= first && in_list(value_options, a, strlen(a)) && k + 1 < n) {
      w[m++] = a;
      w[m++] = v[++k];
      continue;
    }
    char *eq = k < first || strncmp(a, "--", 2) ? NULL : strchr(a, '=');
    if (eq) {
      /* The word's '=' becomes the end of the option's name. */
      *eq = '\0';
      w[m++] = a;
      w[m++] = eq + 1;
    } else {
      w[m++] = a;
    }
  }
  w[m] = NULL;
  *argc = m;
  *argv = w;
  return 0;
}
