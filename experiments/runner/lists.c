/*
 * lists.c: the comma-separated lists of the cdyn program's parameters and
 * options: the splitter and its typed layers (lists.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cdyn/error.h>
#include "runner/text.h"
#include "runner/lists.h"

static int oom(const char *what)
{
  return cdyn_error(CDYN_ENOMEM, "%s: out of memory", what);
}

int exp_list_split(const char *text, const char *what, unsigned flags, int max, char ***items, int *n)
{
  *items = NULL;
  *n = 0;
  if (!text)
    text = "";
  if (strlen(text) > EXP_LIST_MAX_CHARS)
    return cdyn_error(CDYN_EINVAL, "%s: the list is longer than %d characters", what, EXP_LIST_MAX_CHARS);
  /* No text is a list of no item, whatever the separators: accepted with
     EXP_LIST_EMPTY_OK, else "no value given" (below). */
  if (!*text && (flags & EXP_LIST_EMPTY_OK))
    return CDYN_OK;
  if (!*text)
    return cdyn_error(CDYN_EINVAL, "%s: no value given", what);
  const char *seps = flags & EXP_LIST_SPACES ? ", " : ",";
  int collapse = !!(flags & EXP_LIST_SPACES), escapes = !!(flags & EXP_LIST_ESCAPES);
  char **v = NULL;
  int nv = 0, cap = 0, rc = 0;
  exp_text cur = {0};
  int had = 0; /* the current item has a character (an escaped one counts) */
  for (const char *p = text;; p++) {
    if (*p && !strchr(seps, *p)) {
      if (escapes && *p == '\\') {
        if (!p[1]) {
          rc = cdyn_error(CDYN_EINVAL, "%s: a backslash at the end (\\, is a comma within a value, \\\\ a backslash)",
                          what);
          break;
        }
        p++;
      }
      exp_text_putc(&cur, *p);
      had = 1;
      continue;
    }
    if (!had && collapse) {
      if (!*p)
        break;
      continue;
    }
    if (!had) {
      rc = cdyn_error(CDYN_EINVAL, "%s: an empty value in '%s'", what, text);
      break;
    }
    if (nv == max) {
      rc = cdyn_error(CDYN_EINVAL, "%s: more than %d values", what, max);
      break;
    }
    if (nv == cap) {
      int ncap = cap ? 2 * cap : 16;
      char **nvv = realloc(v, (size_t)ncap * sizeof *v);
      if (!nvv) {
        cur.failed = 1;
        break;
      }
      v = nvv;
      cap = ncap;
    }
    if (cur.failed || !(v[nv] = strdup(cur.s ? cur.s : ""))) {
      cur.failed = 1;
      break;
    }
    nv++;
    exp_text_clear(&cur);
    had = 0;
    if (!*p)
      break;
  }
  if (!rc && cur.failed)
    rc = oom(what);
  exp_text_free(&cur);
  if (!rc && nv == 0 && !(flags & EXP_LIST_EMPTY_OK))
    rc = cdyn_error(CDYN_EINVAL, "%s: no value given", what);
  if (!rc && nv > 1 && (flags & EXP_LIST_UNIQUE)) {
    char **sorted = malloc((size_t)nv * sizeof *sorted);
    if (!sorted) {
      rc = oom(what);
    } else {
      memcpy(sorted, v, (size_t)nv * sizeof *sorted);
      qsort(sorted, (size_t)nv, sizeof *sorted, exp_str_cmp);
      for (int k = 1; k < nv && !rc; k++)
        if (!strcmp(sorted[k - 1], sorted[k]))
          rc = cdyn_error(CDYN_EINVAL, "%s: '%s' is given twice", what, sorted[k]);
      free(sorted);
    }
  }
  if (rc) {
    exp_strv_free(v, nv);
    return rc;
  }
  *items = v;
  *n = nv;
  return CDYN_OK;
}

int exp_list_names(const char *text, const char *what, unsigned flags, char (*out)[EXP_LIST_NAME], int max, int *n)
{
  char **v;
  int nv, rc = exp_list_split(text, what, flags, max, &v, &nv);
  *n = 0;
  if (rc)
    return rc;
  for (int k = 0; k < nv && !rc; k++)
    if (strlen(v[k]) >= EXP_LIST_NAME)
      rc = cdyn_error(CDYN_EINVAL, "%s: '%s' is longer than %d characters", what, v[k], EXP_LIST_NAME - 1);
    else
      memcpy(out[k], v[k], strlen(v[k]) + 1);
  if (!rc)
    *n = nv;
  exp_strv_free(v, nv);
  return rc;
}

/* "a number in [0, 1]", "an integer > 0", ...: what an item must be. */
static const char *range_text(char *buf, size_t size, int integer, unsigned flags, double lo, double hi)
{
  const char *kind = integer ? "an integer" : "a number";
  const char *ratio = !integer && (flags & EXP_LIST_RATIO) ? " (or p/q)" : "";
  int above = !!(flags & EXP_LIST_ABOVE_LO);
  if (isinf(hi))
    snprintf(buf, size, "%s %s %g%s", kind, above ? ">" : ">=", lo, ratio);
  else
    snprintf(buf, size, "%s in %c%g, %g]%s", kind, above ? '(' : '[', lo, hi, ratio);
  return buf;
}

int exp_list_reals(const char *text, const char *what, unsigned flags, double lo, double hi, double *out, int max,
                   int *n)
{
  char **v;
  int nv, rc = exp_list_split(text, what, flags, max, &v, &nv);
  *n = 0;
  if (rc)
    return rc;
  for (int k = 0; k < nv && !rc; k++) {
    const char *tok = v[k];
    char *end;
    double x = strtod(tok, &end);
    int bad = end == tok;
    if (!bad && *end == '/' && (flags & EXP_LIST_RATIO)) {
      const char *den = end + 1;
      double y = strtod(den, &end);
      bad = end == den || !(y > 0) || !isfinite(y);
      x /= y;
    }
    bad = bad || *end || !isfinite(x) || ((flags & EXP_LIST_ABOVE_LO) ? !(x > lo) : !(x >= lo)) || !(x <= hi);
    if (bad) {
      char r[128];
      rc = cdyn_error(CDYN_EINVAL, "%s: '%s' is not %s", what, tok, range_text(r, sizeof r, 0, flags, lo, hi));
    } else if (k && (flags & EXP_LIST_INCREASING) && !(x > out[k - 1])) {
      rc = cdyn_error(CDYN_EINVAL, "%s: '%s' is not greater than the value before it", what, tok);
    } else {
      out[k] = x;
    }
  }
  if (!rc)
    *n = nv;
  exp_strv_free(v, nv);
  return rc;
}

int exp_list_longs(const char *text, const char *what, unsigned flags, long lo, long hi, long *out, int max, int *n)
{
  char **v;
  int nv, rc = exp_list_split(text, what, flags, max, &v, &nv);
  *n = 0;
  if (rc)
    return rc;
  for (int k = 0; k < nv && !rc; k++) {
    const char *tok = v[k];
    char *end;
    errno = 0;
    long x = strtol(tok, &end, 10);
    if (end == tok || *end || errno == ERANGE || ((flags & EXP_LIST_ABOVE_LO) ? x <= lo : x < lo) || x > hi) {
      char r[128];
      rc = cdyn_error(CDYN_EINVAL, "%s: '%s' is not %s", what, tok,
                      range_text(r, sizeof r, 1, flags, (double)lo, (double)hi));
    } else if (k && (flags & EXP_LIST_INCREASING) && x <= out[k - 1]) {
      rc = cdyn_error(CDYN_EINVAL, "%s: '%s' is not greater than the value before it", what, tok);
    } else {
      out[k] = x;
    }
  }
  if (!rc)
    *n = nv;
  exp_strv_free(v, nv);
  return rc;
}

/* Snapshot times (lists.h). */
int exp_parse_times(const char *text, double *ts, int max, int *n)
{
  return exp_list_reals(text, "snapshots", EXP_LIST_SPACES | EXP_LIST_EMPTY_OK | EXP_LIST_INCREASING, 0, INFINITY, ts,
                        max, n);
}
