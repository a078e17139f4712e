/*
 * files.h: the files and directories of the cdyn program (files.c).
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
 */
#ifndef CDYN_EXP_FILES_H
#define CDYN_EXP_FILES_H

#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

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

/* The path of program `name` on $PATH, as a shell finds it: the first
   executable regular file DIR/name, an empty entry being the current
   directory and an unset or empty PATH /usr/bin:/bin (malloc'ed); NULL
   when none is. */
char *exp_find_program(const char *name);

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
