/*
 * cli.h: the command-line conventions of the cdyn program (cli.c;
 * doc/cli.md).  Every option that takes a value takes it as the next word
 * or after '=' (--h=0.01): main.c splits the second form into the first
 * before a command sees its arguments (exp_split_long_options).  A word
 * the program does not know (a command, option, scheme, experiment,
 * parameter or option key) is reported with the nearest known word within
 * two edits (exp_near: the optimal string alignment distance, i.e.
 * Damerau-Levenshtein without edits across a transposed pair), when one is
 * that near.
 */
#ifndef CDYN_EXP_CLI_H
#define CDYN_EXP_CLI_H

#include <stddef.h>

/*
 * The program's exit statuses, the same for the same error in every
 * command (doc/cli.md lists them):
 *
 *   EXP_EXIT_OK      0  done
 *   EXP_EXIT_FAIL    1  an error: an input file missing, unreadable or
 *                       invalid, an output that cannot be written, a
 *                       replay that differs, out of memory
 *   EXP_EXIT_USAGE   2  a usage error: an unknown command, option, name
 *                       or key, a missing or malformed argument
 *   EXP_EXIT_RUNFAIL 3  `cdyn run scene` (or `cdyn run` of a scene)
 *                       wrote its results, but a run failed a step or
 *                       went non-finite (each reported on stderr)
 *
 * Experiments, whose diverging runs are results, exit 0 and report them
 * in their summary.
 */
#define EXP_EXIT_OK 0
#define EXP_EXIT_FAIL 1
#define EXP_EXIT_USAGE 2
#define EXP_EXIT_RUNFAIL 3

/* ---- command-line conventions ------------------------------------------------------------- */

/* (The distance and the rule of "near enough" are the library's,
   cdyn_word_distance and cdyn_word_near in cdyn/error.h, which the scene
   reader's suggestions use as well.) */

/* The known word nearest `word`: exp_near_init, exp_near_try for each
   candidate (the first of equally near ones is kept), then exp_near_hint. */
typedef struct exp_near {
  const char *word, *best;
  size_t dist;
} exp_near;
void exp_near_init(exp_near *n, const char *word);
void exp_near_try(exp_near *n, const char *candidate);
/* Try every entry of a NULL-terminated list. */
void exp_near_list(exp_near *n, const char *const *candidates);
/* "; did you mean 'BEST'?" when a candidate is within 2 edits of the word
   and fewer edits than half its length (so that "x" suggests nothing),
   else "" (a static buffer: one use at a time). */
const char *exp_near_hint(const exp_near *n);
/* Report an unknown option `a` ("WHO: unknown option 'A'; did you mean
   ...?", from `options`, NULL-terminated) and return 2 (a usage error). */
int exp_unknown_option(const char *who, const char *a, const char *const *options);
/* The nearest known word alone (NULL when none is near enough). */
const char *exp_near_best(const exp_near *n);

/*
 * Split every --NAME=VALUE word of argv[first..] into --NAME and VALUE,
 * except a word that is the value of the option before it (an option of
 * `value_options`, NULL-terminated, takes the next word as its value).
 * *argv is replaced by a new array (malloc'ed, the words themselves
 * shared with the old one; free it with free()) when a word was split.
 * Returns 0, or 2 with a message beginning with "cdyn" when --NAME is one
 * of `flags` (an option without a value).
 */
int exp_split_long_options(int *argc, char ***argv, int first, const char *const *value_options,
                           const char *const *flags);

#endif
