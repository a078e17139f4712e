/*
 * cmdutil.h: what the cdyn program's commands share (cmdutil.c), at the
 * bottom of the program: text that grows, atomic files, reading a file,
 * output directories and their walks, and the JSON and CSV quoting of
 * every file the program writes.
 *
 * Atomic files.  Every file the program writes is written under a
 * temporary name in its directory (DIR/.NAME.tmp) and renamed into place
 * when it is complete and every write succeeded; otherwise the temporary
 * file is removed.  So an interrupted or failed command leaves nothing
 * that looks finished, and a reader never sees half a file.
 *
 * Output directories.  `cdyn run`, `cdyn export` and `cdyn sweep` write
 * into a directory that is absent (then created), empty, or, with
 * --force, cleared of what they write themselves: exp_prepare_outdir,
 * with a walk that first checks every entry and only then removes
 * (exp_clear_fn; exp_clear_dir for a run's directory, a sweep's own walk
 * for a sweep's).
 *
 * Command-line conventions (doc/cli.md).  Every option that takes a
 * value takes it as the next word or after '=' (--h=0.01): main.c splits
 * the second form into the first before a command sees its arguments
 * (exp_split_long_options).  A word the program does not know (a command,
 * option, scheme, experiment, parameter or option key) is reported with
 * the nearest known word within two edits (exp_near: the optimal string
 * alignment distance, i.e. Damerau-Levenshtein without edits across a
 * transposed pair), when one is that near.
 */
#ifndef CDYN_CMDUTIL_H
#define CDYN_CMDUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

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

/* ---- files ------------------------------------------------------------------------------- */

/* A file written under DIR/.NAME.tmp and renamed to DIR/NAME when complete. */
typedef struct exp_afile {
  FILE *f;
  char path[4096], tmp[4200];
} exp_afile;

/* Open it; CDYN_EIO with a message (cdyn_errmsg) when the temporary file
   cannot be made.  `executable`: mode 0777 rather than 0666 (before the
   umask). */
int exp_afile_open(exp_afile *a, const char *dir, const char *name, int executable);
/* Flush it and check that every write so far succeeded: CDYN_EIO with a
   message when one did not (the file stays open, for exp_afile_close). */
int exp_afile_flush(exp_afile *a);
/* Finish it.  With ok: rename into place when every write succeeded
   (CDYN_EIO with a message when one did not, or the rename failed: the
   temporary file is then removed); without: remove the temporary file
   and return CDYN_OK (the caller's error is the one to report). */
int exp_afile_close(exp_afile *a, int ok);
/* The same for a command that prints its messages: 0, or 1 with "WHO:
   message" printed. */
int exp_afile_create(exp_afile *a, const char *who, const char *dir, const char *name, int executable);
int exp_afile_finish(exp_afile *a, const char *who, int ok);

int exp_is_regular(const char *path);
/* The whole of a (small) file as a string (malloc'ed; its length into
   *len, may be NULL); NULL with errno on failure. */
char *exp_read_file(const char *path, size_t *len);

/* ---- output directories --------------------------------------------------------------------- */

/*
 * Walk the entries of `dir` (not . and ..): fn(ctx, path, name, sb) for
 * each, path being DIR/NAME and sb its lstat (NULL when that failed),
 * until fn returns non-zero, which exp_walk_dir returns; 1 with a message
 * beginning with `who` when dir cannot be read.
 */
typedef int (*exp_walk_fn)(void *ctx, const char *path, const char *name, const struct stat *sb);
int exp_walk_dir(const char *who, const char *dir, exp_walk_fn fn, void *ctx);

/* Is `dir` an existing directory with no entries? */
int exp_dir_empty(const char *dir);

/* Is `name` a file a cdyn run (or make figures, cdyn plot, cdyn animate, cdyn
   view) writes? */
int exp_output_name(const char *name);

/* Clears a directory of output, or (check_only) only checks that it
   holds nothing else; returns 0, or 1 with a message naming the first
   entry it refuses (the message ends with `why`; none when why is NULL).
   Messages begin with `who` ("cdyn run"). */
typedef int (*exp_clear_fn)(const char *who, const char *dir, int check_only, const char *why);

/* That of a run's directory: every entry a regular file exp_output_name
   accepts. */
int exp_clear_dir(const char *who, const char *dir, int check_only, const char *why);

/*
 * Make output directory `dir` ready: absent (then created: *created),
 * empty, or, with `force`, cleared by `clear`, which first checks that it
 * holds only what it may remove, then removes it.  Returns 0, or 1 with a
 * message beginning with `who`.
 */
int exp_prepare_outdir(const char *who, const char *dir, int force, int *created, exp_clear_fn clear);

#endif
