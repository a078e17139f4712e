/*
 * sweep.c: `cdyn sweep`, the jobs of a grid of runs for an existing engine
 * to run, and `cdyn collect`, their results in one table.
 *
 *   cdyn sweep (EXPERIMENT | scene FILE.json) --out DIR [--scheme LIST]
 *              [--h LIST] [--steps N] [--grid KEY=V1,V2,...]...
 *              [--set KEY=VALUE]... [--force] [--run make|parallel] [--jobs N]
 *   cdyn collect DIR [--file NAME.csv] [--allow-missing]
 *
 * A point is one element of the cartesian product of the schemes (each
 * alone: one `--scheme S` per job; without --scheme the experiment's or
 * the scene's own), the step sizes of --h, and the values of each --grid
 * KEY (what `--set KEY=VALUE` takes: an experiment parameter or a scheme
 * option).  Job j is point j, the last --grid varying fastest, and is one
 * `cdyn run` writing into DIR/jobs/NNNNNN (j, six digits) with its output
 * in DIR/logs/NNNNNN.log.  The sweep writes
 *
 *   points.csv       job,scheme,h,KEY... : the point of every job (an empty
 *                    scheme or h: the experiment's or scene's own);
 *   jobs.txt         one complete shell command a line, with absolute
 *                    paths (the running program's, the scene's, the jobs'),
 *                    for GNU parallel, on one machine or with --sshlogin on
 *                    several that share the filesystem;
 *   Makefile         one target per job, its run.meta.json, which `cdyn run`
 *                    writes last, when the run is complete: `make -C DIR -j N
 *                    -k` runs the jobs not complete, and again after a failure
 *                    only those that failed;
 *   slurm.sh         a Slurm array job whose task i runs line i + 1 of
 *                    jobs.txt;
 *   sweep.meta.json  the command, the version and build, what is swept and
 *                    the axes of the points (written last: its presence
 *                    marks a complete sweep directory).
 *
 * Design.  No scheduler of its own: the jobs are plain commands and the
 * files above are the inputs of engines that already schedule, retry and
 * spread work over machines well.  `--run make|parallel` only starts one
 * of them (posix_spawn) on the files it wrote, and counts what completed.
 * A job is complete when its run.meta.json exists (a failed `cdyn run`
 * removes what it wrote), so every engine and `cdyn collect` agree on
 * what is done, and a job can run again (`--force`) after a failure or an
 * interruption.
 *
 * Everything is checked before anything is written: the options, the
 * number of points, the directory, and every job: `cdyn run`'s own checks
 * (exp_run_check, main.c) on the arguments of the job's command line, so
 * that a sweep accepts exactly the points `cdyn run` accepts.  Every file
 * is written under a temporary name and renamed when complete; --force
 * clears only what a sweep, its jobs and collect write.
 *
 * `cdyn collect` reads points.csv and, of every job, one CSV file (--file;
 * for a scene sweep the scene's NAME-summary.csv by default), and writes
 * collected-NAME.csv: the point's columns, then the file's, each row of
 * each job, every field copied as text exactly as the job wrote it (so
 * quoting is kept).  Its header is job, then the other columns of
 * points.csv prefixed with "point." (point.scheme, point.h, point.KEY...),
 * then the file's header: a column of the file keeps its name, and no
 * name is given twice (a file whose header would repeat one is refused).
 * A job that is not complete, or that did not write the file, is an
 * error naming it (--allow-missing: collect the rest and record the
 * missing in collected-NAME.meta.json).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "experiment.h"
#include "scene_run.h"
#include "sweep.h"

extern char **environ;

#define SW_MAX_POINTS 100000L /* jobs of one sweep (six-digit job directories) */
#define SW_MAX_GRIDS 16       /* --grid options */
#define SW_MAX_SETS EXP_MAX_SETS
#define SW_MAX_DIR 2900       /* DIR, so that DIR/jobs/NNNNNN is within cdyn run's 3000 bytes */
#define SW_MAX_NAMED 20       /* missing jobs a message names */
/* The arguments of a job's `cdyn run`, after "run" and before --out. */
#define SW_MAX_ARGS (8 + 2 * (SW_MAX_SETS + SW_MAX_GRIDS) + 1)

/* The command whose messages these are: "cdyn sweep" or "cdyn collect". */
static const char *prog = "cdyn sweep";

static int fail(int rc, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;

/* Print "PROG: message" on stderr and return rc. */
static int fail(int rc, const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "%s: ", prog);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return rc;
}

/* ---- text ------------------------------------------------------------------------------- */

/* A growing string; `failed` once an allocation failed (the text is then
   incomplete, and the caller reports it). */
typedef struct {
  char *s;
  size_t len, cap;
  int failed;
} sbuf;

static void sb_add(sbuf *b, const char *s, size_t n)
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

static void sb_puts(sbuf *b, const char *s) { sb_add(b, s, strlen(s)); }
static void sb_putc(sbuf *b, char c) { sb_add(b, &c, 1); }

static void sb_clear(sbuf *b)
{
  b->len = 0;
  if (b->s)
    b->s[0] = '\0';
}

static void sb_free(sbuf *b)
{
  free(b->s);
  memset(b, 0, sizeof *b);
}

/* s as one shell word: as it is when no shell treats any of its
   characters specially, else in single quotes (a quote within as '\''). */
static void sb_shell(sbuf *b, const char *s)
{
  static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-";
  if (*s && strspn(s, safe) == strlen(s)) {
    sb_puts(b, s);
    return;
  }
  sb_putc(b, '\'');
  for (; *s; s++)
    if (*s == '\'')
      sb_puts(b, "'\\''");
    else
      sb_putc(b, *s);
  sb_putc(b, '\'');
}

/* A shell word for printing (a static buffer: one use at a time). */
static const char *shell_word(const char *s)
{
  static sbuf b;
  sb_clear(&b);
  sb_shell(&b, s);
  return b.failed ? s : b.s;
}


/* Does s hold a control character (a newline would split a job's line)? */
static int has_control(const char *s)
{
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f)
      return 1;
  return 0;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_list(char **v, int n)
{
  for (int k = 0; k < n; k++)
    free(v[k]);
  free(v);
}

/*
 * Split `text` into items separated by any character of `seps`, into new
 * strings (*items)[0 .. *n - 1].  `escapes`: a backslash takes the next
 * character as it is ("\," is a comma within an item).  `collapse`:
 * separators in a row, and at either end, separate nothing (a scheme list
 * "a, b"); otherwise an empty item is an error.  An item given twice, or
 * a control character, is an error; messages name `what`.
 */
static int split_list(const char *text, const char *seps, int escapes, int collapse, const char *what, char ***items,
                      int *n)
{
  *items = NULL;
  *n = 0;
  if (has_control(text))
    return fail(2, "%s: holds a control character (a newline, a tab, ...)", what);
  char **v = NULL;
  int nv = 0, cap = 0, rc = 0;
  sbuf cur = {0};
  int had = 0; /* the current item has a character (an escaped one counts) */
  for (const char *p = text;; p++) {
    if (*p && !strchr(seps, *p)) {
      if (escapes && *p == '\\') {
        if (!p[1]) {
          rc = fail(2, "%s: a backslash at the end (\\, is a comma within a value, \\\\ a backslash)", what);
          break;
        }
        p++;
      }
      sb_putc(&cur, *p);
      had = 1;
      continue;
    }
    if (!had && collapse) {
      if (!*p)
        break;
      continue;
    }
    if (!had) {
      rc = fail(2, "%s: an empty value in '%s'", what, text);
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
    if (cur.failed || !(v[nv] = strdup(cur.s))) {
      cur.failed = 1;
      break;
    }
    nv++;
    sb_clear(&cur);
    had = 0;
    if (nv > SW_MAX_POINTS) {
      rc = fail(2, "%s: more than %ld values", what, SW_MAX_POINTS);
      break;
    }
    if (!*p)
      break;
  }
  if (!rc && cur.failed)
    rc = fail(1, "%s: out of memory", what);
  sb_free(&cur);
  if (!rc && nv == 0)
    rc = fail(2, "%s: no value given", what);
  if (!rc) {
    /* A value twice would make two identical jobs: a slip, surely. */
    char **sorted = malloc((size_t)nv * sizeof *sorted);
    if (!sorted) {
      rc = fail(1, "%s: out of memory", what);
    } else {
      memcpy(sorted, v, (size_t)nv * sizeof *sorted);
      qsort(sorted, (size_t)nv, sizeof *sorted, cmp_str);
      for (int k = 1; k < nv && !rc; k++)
        if (!strcmp(sorted[k - 1], sorted[k]))
          rc = fail(2, "%s: '%s' is given twice", what, sorted[k]);
      free(sorted);
    }
  }
  if (rc) {
    free_list(v, nv);
    return rc;
  }
  *items = v;
  *n = nv;
  return 0;
}

/* ---- files -------------------------------------------------------------------------------- */

/* A file written under a temporary name (DIR/.NAME.tmp), renamed when complete. */
typedef struct {
  FILE *f;
  char path[4096], tmp[4096];
} afile;

static int af_open(afile *a, const char *dir, const char *name, int executable)
{
  memset(a, 0, sizeof *a);
  snprintf(a->path, sizeof a->path, "%s/%s", dir, name);
  snprintf(a->tmp, sizeof a->tmp, "%s/.%s.tmp", dir, name);
  int fd = open(a->tmp, O_WRONLY | O_CREAT | O_TRUNC, executable ? 0777 : 0666);
  if (fd < 0)
    return fail(1, "cannot write %s: %s", a->tmp, strerror(errno));
  a->f = fdopen(fd, "w");
  if (!a->f) {
    int e = errno;
    close(fd);
    remove(a->tmp);
    return fail(1, "cannot write %s: %s", a->tmp, strerror(e));
  }
  return 0;
}

/* Finish: rename into place when ok and every write succeeded, else remove. */
static int af_close(afile *a, int ok)
{
  if (!a->f)
    return ok ? 1 : 0;
  errno = 0;
  int bad = ferror(a->f);
  bad |= fclose(a->f);
  a->f = NULL;
  int rc = 0;
  if (ok && bad)
    rc = fail(1, "error writing %s: %s", a->tmp, errno ? strerror(errno) : "write error");
  else if (ok && rename(a->tmp, a->path))
    rc = fail(1, "cannot rename %s to %s: %s", a->tmp, a->path, strerror(errno));
  if (!ok || rc)
    remove(a->tmp);
  return ok ? rc : 0;
}

static int is_regular(const char *path)
{
  struct stat sb;
  return !stat(path, &sb) && S_ISREG(sb.st_mode);
}

/* The whole of a (small) file as a string; NULL with errno on failure. */
static char *read_all(const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  sbuf b = {0};
  char buf[8192];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    sb_add(&b, buf, n);
  int bad = ferror(f) || b.failed;
  fclose(f);
  if (bad || !b.s) {
    sb_free(&b);
    errno = bad ? EIO : 0;
    return bad ? NULL : strdup("");
  }
  return b.s;
}

/* ---- the sweep ---------------------------------------------------------------------------- */

typedef struct {
  char *key;
  char **values;
  char **args; /* KEY=VALUE of each value: a job's --set */
  int n;
} sw_axis;

typedef struct {
  const cdyn_experiment *exp; /* NULL: a scene */
  const char *scene_arg;
  char *scene;                /* its absolute path */
  /* Which schemes --scheme all means: exp's, or for a scene those of
     the experiment that runs scenes (scene_run.c), with the file's
     defaults. */
  const cdyn_experiment *rules;
  char **schemes;             /* registered names; none: the experiment's or scene's own */
  int nschemes;
  char **hs;                  /* as given; none: the default */
  int nh;
  const char *steps;          /* NULL: the default */
  sw_axis grid[SW_MAX_GRIDS];
  int ngrid;
  char *set_keys[SW_MAX_SETS];
  const char *set_values[SW_MAX_SETS], *set_args[SW_MAX_SETS];
  int nsets;
  const char *out_arg, *engine, *scheme_arg, *h_arg;
  char *out;                  /* absolute */
  char *exe;                  /* the program the jobs run, absolute */
  char *engine_path;          /* the program of --run */
  int force, jobs;
  long npoints;
  const char *command;
} sweep;

static void sweep_free(sweep *s)
{
  free(s->scene);
  free_list(s->schemes, s->nschemes);
  free_list(s->hs, s->nh);
  for (int k = 0; k < s->ngrid; k++) {
    free(s->grid[k].key);
    free_list(s->grid[k].values, s->grid[k].n);
    free_list(s->grid[k].args, s->grid[k].args ? s->grid[k].n : 0);
  }
  for (int k = 0; k < s->nsets; k++)
    free(s->set_keys[k]);
  free(s->out);
  free(s->exe);
  free(s->engine_path);
}

/* The point of job `job`: its scheme, step and grid value indices. */
static void point_of(const sweep *s, long job, int *is, int *ih, int *ig)
{
  long r = job;
  for (int k = s->ngrid - 1; k >= 0; k--) {
    ig[k] = (int)(r % s->grid[k].n);
    r /= s->grid[k].n;
  }
  int nh = s->nh ? s->nh : 1;
  *ih = (int)(r % nh);
  *is = (int)(r / nh);
}

/* "scheme=S, h=H, KEY=V" of a job, for messages. */
static void describe_point(const sweep *s, long job, char *buf, size_t len)
{
  int is, ih, ig[SW_MAX_GRIDS];
  point_of(s, job, &is, &ih, ig);
  size_t used = 0;
  buf[0] = '\0';
  if (s->nschemes)
    used += (size_t)snprintf(buf + used, len - used, "scheme=%s", s->schemes[is]);
  if (s->nh && used < len)
    used += (size_t)snprintf(buf + used, len - used, "%sh=%s", used ? ", " : "", s->hs[ih]);
  for (int k = 0; k < s->ngrid && used < len; k++)
    used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", used ? ", " : "", s->grid[k].key,
                             s->grid[k].values[ig[k]]);
}

static void sweep_usage(FILE *f)
{
  fprintf(f,
          "usage: cdyn sweep (EXPERIMENT | scene FILE.json) --out DIR [--scheme LIST] [--h LIST] [--steps N]\n"
          "                  [--grid KEY=V1,V2,...]... [--set KEY=VALUE]... [--force]\n"
          "                  [--run make|parallel] [--jobs N]\n"
          "       cdyn collect DIR [--file NAME.csv] [--allow-missing]\n"
          "\n"
          "sweep    writes into DIR one `cdyn run` job per point of the product of the schemes\n"
          "         of --scheme (each alone; without it the experiment's or scene's own), the\n"
          "         steps of --h (comma separated) and the values of every --grid KEY (what\n"
          "         --set KEY=VALUE takes; comma separated, \\, a comma within a value), each\n"
          "         job writing DIR/jobs/NNNNNN and its output DIR/logs/NNNNNN.log; --set\n"
          "         and --steps apply to every job.  It writes DIR/points.csv (the point of\n"
          "         every job), jobs.txt (one shell command a line), Makefile, slurm.sh and\n"
          "         sweep.meta.json, and prints how to run them:\n"
          "           make -C DIR -j 2 -k                   runs the jobs not complete\n"
          "           parallel --jobs 2 < DIR/jobs.txt      GNU parallel on this machine\n"
          "           parallel --sshlogin H1,H2 < DIR/jobs.txt   on machines sharing the files\n"
          "           sbatch DIR/slurm.sh                   a Slurm job array\n"
          "         --run make|parallel runs them itself through that engine, --jobs N at a\n"
          "         time (default 2).  DIR must be empty or absent, unless --force, which\n"
          "         clears a directory holding only what a sweep wrote.  Every job is first\n"
          "         checked as `cdyn run` checks its arguments: nothing is written if one fails.\n"
          "collect  writes DIR/collected-NAME.csv: for every job, the rows of its NAME.csv\n"
          "         (--file; for a scene sweep its NAME-summary.csv by default), each after\n"
          "         the job's point, with collected-NAME.meta.json.  The columns: job,\n"
          "         point.scheme, point.h, point.KEY... (points.csv's, prefixed), then the\n"
          "         file's own.  A job without run.meta.json or without the file is an error\n"
          "         naming it, unless --allow-missing, which collects the others and records\n"
          "         the missing.\n");
}

/* ---- the jobs ------------------------------------------------------------------------------ */

/* The arguments of job `job`'s `cdyn run` after "run", without --out
   and --force, into argv (SW_MAX_ARGS, NULL-terminated); returns their
   number. */
static int job_args(const sweep *s, long job, char **argv)
{
  int is, ih, ig[SW_MAX_GRIDS], n = 0;
  point_of(s, job, &is, &ih, ig);
  if (s->exp) {
    argv[n++] = (char *)s->exp->name;
  } else {
    argv[n++] = "scene";
    argv[n++] = s->scene;
  }
  if (s->nschemes) {
    argv[n++] = "--scheme";
    argv[n++] = s->schemes[is];
  }
  if (s->nh) {
    argv[n++] = "--h";
    argv[n++] = s->hs[ih];
  }
  if (s->steps) {
    argv[n++] = "--steps";
    argv[n++] = (char *)s->steps;
  }
  for (int k = 0; k < s->nsets; k++) {
    argv[n++] = "--set";
    argv[n++] = (char *)s->set_args[k];
  }
  for (int g = 0; g < s->ngrid; g++) {
    argv[n++] = "--set";
    argv[n++] = s->grid[g].args[ig[g]];
  }
  argv[n] = NULL;
  return n;
}

/* Would `cdyn run` start every job?  Its checks on each job's arguments;
   a job it refuses is named after `cdyn run`'s message. */
static int check_jobs(const sweep *s)
{
  char *argv[SW_MAX_ARGS];
  for (long job = 0; job < s->npoints; job++) {
    int argc = job_args(s, job, argv);
    int rc = exp_run_check(argc, argv);
    cdyn_error_clear();
    if (!rc)
      continue;
    char point[1024];
    describe_point(s, job, point, sizeof point);
    sbuf b = {0};
    sb_puts(&b, "cdyn run");
    for (int k = 0; k < argc; k++) {
      sb_putc(&b, ' ');
      sb_shell(&b, argv[k]);
    }
    fail(rc, "job %ld (%s) is refused by cdyn run (above):\n  %s", job, *point ? point : "the defaults",
         b.failed ? "" : b.s);
    sb_free(&b);
    return rc;
  }
  return 0;
}

/* ---- the directory ---------------------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), l = strlen(suffix);
  return n >= l && !strcmp(s + n - l, suffix);
}

static int six_digits(const char *s)
{
  return strlen(s) == 6 && strspn(s, "0123456789") == 6;
}

/* What a sweep writes at the top of DIR (files), and what collect adds. */
static int sweep_file_name(const char *name)
{
  static const char *const names[] = {"points.csv", "jobs.txt", "Makefile", "slurm.sh", "sweep.meta.json"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (!strcmp(name, names[k]))
      return 1;
  if (name[0] == '.' && ends_with(name, ".tmp"))
    return 1;
  return !strncmp(name, "collected-", 10) && (ends_with(name, ".csv") || ends_with(name, ".meta.json"));
}

enum walk_level { WALK_TOP, WALK_JOBS, WALK_LOGS };

/*
 * Clear a sweep's directory (or one of its parts), or (check_only) check
 * that it holds only what a sweep, its jobs and collect write: the files
 * above, jobs/NNNNNN (each a run's directory, exp_clear_dir) and logs/
 * (the jobs' *.log, Slurm's *.out).  As exp_clear_dir for a run's.
 */
static int walk_sweep_dir(const char *who, const char *dir, enum walk_level level, int check_only, const char *why)
{
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "%s: cannot read %s: %s\n", who, dir, strerror(errno));
    return 1;
  }
  struct dirent *ent;
  int rc = 0;
  while (!rc && (ent = readdir(d))) {
    const char *name = ent->d_name;
    if (!strcmp(name, ".") || !strcmp(name, ".."))
      continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat sb;
    int isdir = 0, isreg = 0, ok;
    if (!lstat(path, &sb)) {
      isdir = S_ISDIR(sb.st_mode);
      isreg = S_ISREG(sb.st_mode);
    }
    if (level == WALK_TOP)
      ok = isdir ? !strcmp(name, "jobs") || !strcmp(name, "logs") : isreg && sweep_file_name(name);
    else if (level == WALK_JOBS)
      ok = isdir && six_digits(name);
    else
      ok = isreg && (ends_with(name, ".log") || ends_with(name, ".out"));
    if (!ok) {
      if (why)
        fprintf(stderr, "%s: %s holds %s, which no sweep writes: %s\n", who, dir, name, why);
      rc = 1;
    } else if (isdir) {
      rc = level == WALK_JOBS ? exp_clear_dir(who, path, check_only, why)
                              : walk_sweep_dir(who, path, !strcmp(name, "jobs") ? WALK_JOBS : WALK_LOGS,
                                               check_only, why);
      if (!rc && !check_only && rmdir(path)) {
        fprintf(stderr, "%s: cannot remove %s: %s\n", who, path, strerror(errno));
        rc = 1;
      }
    } else if (!check_only && remove(path)) {
      fprintf(stderr, "%s: cannot remove %s: %s\n", who, path, strerror(errno));
      rc = 1;
    }
  }
  closedir(d);
  return rc;
}

/* A sweep's directory, as an exp_clear_fn for exp_prepare_outdir. */
static int clear_sweep_dir(const char *who, const char *dir, int check_only, const char *why)
{
  return walk_sweep_dir(who, dir, WALK_TOP, check_only, why);
}

/* The absolute path of `dir`, which may not exist yet (its parent must). */
static int absolute_dir(const char *dir, char **out)
{
  *out = NULL;
  struct stat sb;
  if (!stat(dir, &sb)) {
    if (!S_ISDIR(sb.st_mode))
      return fail(1, "--out %s exists and is not a directory", dir);
    if (!(*out = realpath(dir, NULL)))
      return fail(1, "--out %s: %s", dir, strerror(errno));
    return 0;
  }
  if (errno != ENOENT)
    return fail(1, "--out %s: %s", dir, strerror(errno));
  char *copy = strdup(dir);
  if (!copy)
    return fail(1, "out of memory");
  size_t n = strlen(copy);
  while (n > 1 && copy[n - 1] == '/')
    copy[--n] = '\0';
  char *slash = strrchr(copy, '/');
  const char *parent = ".", *base = copy;
  if (slash) {
    *slash = '\0';
    parent = slash == copy ? "/" : copy;
    base = slash + 1;
  }
  char *rp = realpath(parent, NULL);
  if (!rp) {
    fail(1, "cannot create --out %s: its parent %s: %s", dir, parent, strerror(errno));
    free(copy);
    return 1;
  }
  size_t len = strlen(rp) + strlen(base) + 2;
  *out = malloc(len);
  if (*out)
    snprintf(*out, len, "%s%s%s", rp, strcmp(rp, "/") ? "/" : "", base);
  free(rp);
  free(copy);
  return *out ? 0 : fail(1, "out of memory");
}

/*
 * The running program's absolute path, for the jobs.  A program that
 * libtool linked against the uninstalled library runs as .libs/NAME (or
 * .libs/lt-NAME), which needs the library path that its wrapper script,
 * NAME beside .libs, sets: then the jobs run the wrapper.
 */
static int program_path(char **out)
{
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0 || (size_t)n >= sizeof buf - 1)
    return fail(1, "cannot find the running program's path (/proc/self/exe): %s",
                n < 0 ? strerror(errno) : "too long");
  buf[n] = '\0';
  char *slash = strrchr(buf, '/');
  char wrapper[4200];
  const char *path = buf;
  if (slash && slash - buf >= 6 && !strncmp(slash - 6, "/.libs", 6)) {
    const char *base = slash + 1;
    if (!strncmp(base, "lt-", 3))
      base += 3;
    snprintf(wrapper, sizeof wrapper, "%.*s/%s", (int)(slash - 6 - buf), buf, base);
    if (is_regular(wrapper) && !access(wrapper, X_OK))
      path = wrapper;
  }
  *out = strdup(path);
  return *out ? 0 : fail(1, "out of memory");
}

/* Make DIR ready: created, empty, or cleared of an earlier sweep with
   --force; then its jobs/ and logs/.  *created: DIR was made here. */
static int prepare_dir(const sweep *s, int *created)
{
  if (exp_prepare_outdir(prog, s->out, s->force, created, clear_sweep_dir))
    return 1;
  char path[4096];
  const char *const sub[2] = {"jobs", "logs"};
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/%s", s->out, sub[k]);
    if (mkdir(path, 0777))
      return fail(1, "cannot create %s: %s", path, strerror(errno));
  }
  return 0;
}

/* ---- writing the sweep --------------------------------------------------------------------- */

/* Job `job`'s command, one line of jobs.txt. */
static void job_command(const sweep *s, long job, sbuf *b)
{
  char *argv[SW_MAX_ARGS], path[4096];
  job_args(s, job, argv);
  sb_clear(b);
  sb_shell(b, s->exe);
  sb_puts(b, " run");
  for (int k = 0; argv[k]; k++) {
    sb_putc(b, ' ');
    sb_shell(b, argv[k]);
  }
  snprintf(path, sizeof path, "%s/jobs/%06ld", s->out, job);
  sb_puts(b, " --out ");
  sb_shell(b, path);
  /* --force: a job that was interrupted (killed, a node lost) runs again
     over what it left; cdyn run clears only its own kind of files. */
  sb_puts(b, " --force > ");
  snprintf(path, sizeof path, "%s/logs/%06ld.log", s->out, job);
  sb_shell(b, path);
  sb_puts(b, " 2>&1");
}

static int write_points(const sweep *s)
{
  afile a;
  if (af_open(&a, s->out, "points.csv", 0))
    return 1;
  fprintf(a.f, "job,scheme,h");
  for (int g = 0; g < s->ngrid; g++) {
    fputc(',', a.f);
    exp_csv_field(a.f, s->grid[g].key);
  }
  fputc('\n', a.f);
  for (long job = 0; job < s->npoints; job++) {
    int is, ih, ig[SW_MAX_GRIDS];
    point_of(s, job, &is, &ih, ig);
    fprintf(a.f, "%ld,", job);
    exp_csv_field(a.f, s->nschemes ? s->schemes[is] : "");
    fputc(',', a.f);
    exp_csv_field(a.f, s->nh ? s->hs[ih] : "");
    for (int g = 0; g < s->ngrid; g++) {
      fputc(',', a.f);
      exp_csv_field(a.f, s->grid[g].values[ig[g]]);
    }
    fputc('\n', a.f);
  }
  return af_close(&a, 1);
}

/* jobs.txt and the Makefile, whose recipes are the same commands ('$'
   doubled for make). */
static int write_jobs(const sweep *s)
{
  afile jobs, mk;
  if (af_open(&jobs, s->out, "jobs.txt", 0))
    return 1;
  if (af_open(&mk, s->out, "Makefile", 0)) {
    af_close(&jobs, 0);
    return 1;
  }
  fprintf(mk.f, "# Written by cdyn sweep (cdyn %s): one target per job, the run.meta.json\n"
                "# that `cdyn run` writes last, when the job is complete.  `make -C DIR -j N -k`\n"
                "# runs the jobs not complete, N at a time (again after a failure: only those).\n"
                "# Each job's output is in logs/NNNNNN.log.\n"
                ".SUFFIXES:\n"
                "SHELL = /bin/sh\n"
                "JOBS =",
          cdyn_version());
  for (long job = 0; job < s->npoints; job++)
    fprintf(mk.f, " \\\n\tjobs/%06ld/run.meta.json", job);
  fprintf(mk.f, "\n\nall: $(JOBS)\n.PHONY: all\n");
  sbuf b = {0};
  for (long job = 0; job < s->npoints && !b.failed; job++) {
    job_command(s, job, &b);
    if (b.failed)
      break;
    fprintf(jobs.f, "%s\n", b.s);
    fprintf(mk.f, "\njobs/%06ld/run.meta.json:\n\t@echo 'cdyn sweep: job %06ld'; ", job, job);
    for (const char *p = b.s; *p; p++) {
      if (*p == '$')
        fputc('$', mk.f);
      fputc(*p, mk.f);
    }
    fputc('\n', mk.f);
  }
  int ok = !b.failed;
  sb_free(&b);
  if (!ok) {
    af_close(&jobs, 0);
    af_close(&mk, 0);
    return fail(1, "out of memory writing the jobs");
  }
  int rc = af_close(&jobs, 1);
  if (rc) {
    af_close(&mk, 0);
    return rc;
  }
  return af_close(&mk, 1);
}

static int write_slurm(const sweep *s)
{
  afile a;
  if (af_open(&a, s->out, "slurm.sh", 1))
    return 1;
  char path[4096];
  fprintf(a.f, "#!/bin/sh\n"
               "# Written by cdyn sweep (cdyn %s): a Slurm array job, `sbatch %s/slurm.sh`.\n"
               "# Task i runs line i + 1 of jobs.txt (plus CDYN_SWEEP_OFFSET, 0 by default:\n"
               "# where the cluster's MaxArraySize is below %ld, submit in parts, e.g.\n"
               "#   sbatch --array=0-999 --export=ALL,CDYN_SWEEP_OFFSET=1000 slurm.sh\n"
               "# for jobs 1000 to 1999).  The paths are absolute: the nodes must see this\n"
               "# filesystem, and the program at the same path.\n"
               "#SBATCH --job-name=cdyn-sweep\n"
               "#SBATCH --array=0-%ld\n",
          cdyn_version(), shell_word(s->out), s->npoints, s->npoints - 1);
  /* #SBATCH lines are not read by a shell: a path is written there only
     when it needs no quoting, with % (a Slurm file name pattern) as %%. */
  snprintf(path, sizeof path, "%s/logs", s->out);
  if (!strcmp(shell_word(path), path)) {
    fprintf(a.f, "#SBATCH --output=");
    for (const char *p = path; *p; p++) {
      if (*p == '%')
        fputc('%', a.f);
      fputc(*p, a.f);
    }
    fprintf(a.f, "/slurm-%%A_%%a.out\n");
  }
  snprintf(path, sizeof path, "%s/jobs.txt", s->out);
  fprintf(a.f, "set -u\n"
               "jobs=%s\n"
               "task=${SLURM_ARRAY_TASK_ID:?not a Slurm array task: submit with sbatch}\n"
               "n=$((task + ${CDYN_SWEEP_OFFSET:-0} + 1))\n"
               "line=$(sed -n \"${n}p\" \"$jobs\")\n"
               "if [ -z \"$line\" ]; then\n"
               "  echo \"slurm.sh: $jobs has no line $n (task $task)\" >&2\n"
               "  exit 1\n"
               "fi\n"
               "exec /bin/sh -c \"$line\"\n",
          shell_word(path));
  return af_close(&a, 1);
}

static void json_axis(FILE *f, const char *name, char **values, int n, const char *none)
{
  fprintf(f, "\n    {\"name\": ");
  exp_json_str(f, name);
  fprintf(f, ", \"values\": [");
  for (int v = 0; v < n; v++) {
    fprintf(f, "%s", v ? ", " : "");
    exp_json_str(f, values[v]);
  }
  if (!n)
    fprintf(f, "\"\"");
  fprintf(f, "]");
  if (none) {
    fprintf(f, ", \"empty\": ");
    exp_json_str(f, none);
  }
  fprintf(f, "}");
}

static int write_sweep_meta(const sweep *s)
{
  afile a;
  if (af_open(&a, s->out, "sweep.meta.json", 0))
    return 1;
  FILE *f = a.f;
  fprintf(f, "{\n  \"sweep_of\": \"%s\",\n", s->exp ? "experiment" : "scene");
  exp_meta_program(f, s->command);
  if (s->exp) {
    fprintf(f, ",\n  \"experiment\": ");
    exp_json_str(f, s->exp->name);
  } else {
    fprintf(f, ",\n  \"scene\": ");
    exp_json_str(f, s->scene);
  }
  fprintf(f, ",\n  \"program_path\": ");
  exp_json_str(f, s->exe);
  fprintf(f, ",\n  \"out\": ");
  exp_json_str(f, s->out);
  fprintf(f, ",\n  \"jobs\": %ld,\n  \"steps\": ", s->npoints);
  if (s->steps)
    exp_json_str(f, s->steps);
  else
    fprintf(f, "null");
  fprintf(f, ",\n  \"set\": [");
  for (int k = 0; k < s->nsets; k++) {
    fprintf(f, "%s{\"key\": ", k ? ", " : "");
    exp_json_str(f, s->set_keys[k]);
    fprintf(f, ", \"value\": ");
    exp_json_str(f, s->set_values[k]);
    fprintf(f, "}");
  }
  fprintf(f, "],\n  \"axes\": [");
  const char *own = s->exp ? "the experiment's own" : "the scene's own";
  json_axis(f, "scheme", s->schemes, s->nschemes, own);
  fputc(',', f);
  json_axis(f, "h", s->hs, s->nh, own);
  for (int g = 0; g < s->ngrid; g++) {
    fputc(',', f);
    json_axis(f, s->grid[g].key, s->grid[g].values, s->grid[g].n, NULL);
  }
  fprintf(f, "\n  ],\n  \"order\": \"job j is the point of index j in the product of the axes, the last varying "
             "fastest\",\n"
             "  \"files\": {\"points\": \"points.csv\", \"jobs\": \"jobs.txt\", \"make\": \"Makefile\", "
             "\"slurm\": \"slurm.sh\", \"job_dir\": \"jobs/NNNNNN\", \"job_log\": \"logs/NNNNNN.log\", "
             "\"complete\": \"jobs/NNNNNN/run.meta.json\"}\n}\n");
  return af_close(&a, 1);
}

/* ---- running the jobs through an engine ------------------------------------------------- */

/* The path of program `name` on PATH, or NULL. */
static char *find_program(const char *name)
{
  const char *path = getenv("PATH");
  if (!path || !*path)
    path = "/usr/bin:/bin";
  while (*path) {
    size_t len = strcspn(path, ":");
    size_t n = len + strlen(name) + 2;
    char *cand = malloc(n);
    if (!cand)
      return NULL;
    snprintf(cand, n, "%.*s%s%s", (int)len, len ? path : ".", "/", name);
    if (is_regular(cand) && !access(cand, X_OK))
      return cand;
    free(cand);
    path += len;
    if (*path == ':')
      path++;
  }
  return NULL;
}

static long count_complete(const sweep *s, long *first_missing, int print)
{
  long done = 0, named = 0;
  *first_missing = -1;
  for (long job = 0; job < s->npoints; job++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/jobs/%06ld/run.meta.json", s->out, job);
    if (is_regular(path)) {
      done++;
      continue;
    }
    if (*first_missing < 0)
      *first_missing = job;
    if (print && named++ < SW_MAX_NAMED)
      fprintf(stderr, "  job %ld (jobs/%06ld): not complete; see %s/logs/%06ld.log\n", job, job, s->out, job);
  }
  if (print && named > SW_MAX_NAMED)
    fprintf(stderr, "  ... and %ld more\n", named - SW_MAX_NAMED);
  return done;
}

/* The engine of --run, found before anything is written: its path in
   s->engine_path. */
static int find_engine(sweep *s)
{
  const char *name = s->engine;
  if (!(s->engine_path = find_program(name)))
    return fail(1, "--run %s: there is no program '%s' on PATH (install %s; or leave out --run, and run the "
                   "jobs another way)",
                name, name, !strcmp(name, "make") ? "GNU make" : "GNU parallel");
  return 0;
}

static int run_engine(const sweep *s)
{
  const char *name = s->engine;
  char *prog_path = s->engine_path;
  char jobs_n[32], jobs_txt[4096];
  snprintf(jobs_n, sizeof jobs_n, "%d", s->jobs);
  snprintf(jobs_txt, sizeof jobs_txt, "%s/jobs.txt", s->out);
  char *make_argv[] = {prog_path, "-C", s->out, "-k", "-j", jobs_n, NULL};
  char *par_argv[] = {prog_path, "--jobs", jobs_n, "--arg-file", jobs_txt, NULL};
  char **argv = !strcmp(name, "make") ? make_argv : par_argv;
  printf("\n%s: running the %ld jobs: %s", prog, s->npoints, shell_word(name));
  for (int k = 1; argv[k]; k++)
    printf(" %s", shell_word(argv[k]));
  printf("\n");
  fflush(stdout);
  pid_t pid;
  int rc = posix_spawn(&pid, prog_path, NULL, NULL, argv, environ);
  if (rc)
    return fail(1, "--run %s: cannot run %s: %s", name, prog_path, strerror(rc));
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return fail(1, "--run %s: waiting for it: %s", name, strerror(errno));
  long first;
  long done = count_complete(s, &first, 0);
  printf("%s: %ld of %ld jobs complete (%s %s)\n", prog, done, s->npoints, name,
         WIFEXITED(status) && !WEXITSTATUS(status) ? "succeeded" : "reported failures");
  if (done < s->npoints) {
    fprintf(stderr, "%s: %ld of %ld jobs did not complete:\n", prog, s->npoints - done, s->npoints);
    count_complete(s, &first, 1);
    fprintf(stderr, "  (make -C %s -j %d -k runs them again)\n", shell_word(s->out), s->jobs);
    return 1;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status))
    return fail(1, "--run %s: every job is complete, but %s exited with status %d", name, name,
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}

/* ---- sweep: the command ------------------------------------------------------------------- */

/* Add registered scheme idx to the sweep's schemes, once. */
static int add_scheme(sweep *s, size_t idx)
{
  const char *name = cdyn_scheme_name(idx);
  for (int j = 0; j < s->nschemes; j++)
    if (!strcmp(s->schemes[j], name))
      return 0;
  if (!(s->schemes[s->nschemes] = strdup(name)))
    return fail(1, "out of memory");
  s->nschemes++;
  return 0;
}

/* The scene file: its absolute path (the jobs run it from anywhere), and
   its defaults, read by the code that runs scenes (which schemes
   --scheme all means). */
static int prepare_scene(sweep *s)
{
  static char scheme[128];
  if (!(s->scene = realpath(s->scene_arg, NULL)))
    return fail(2, "scene %s: %s", s->scene_arg, strerror(errno));
  if (has_control(s->scene))
    return fail(2, "scene %s: its absolute path %s holds a control character", s->scene_arg, s->scene);
  if (exp_scene_prepare(s->scene, scheme, sizeof scheme))
    return fail(2, "scene %s: %s", s->scene_arg, cdyn_errmsg());
  exp_scene_experiment.schemes = scheme;
  s->rules = &exp_scene_experiment;
  return 0;
}

static int parse_sweep_args(sweep *s, int argc, char **argv)
{
  int k0, rc;
  if (!strcmp(argv[0], "scene")) {
    if (argc < 2 || !strncmp(argv[1], "--", 2))
      return fail(2, "scene: which scene file? (cdyn sweep scene FILE.json --out DIR ...)");
    s->scene_arg = argv[1];
    if ((rc = prepare_scene(s)))
      return rc;
    k0 = 2;
  } else {
    s->exp = exp_find(argv[0]);
    if (!s->exp)
      return fail(2, "unknown experiment '%s' (cdyn list shows them; a scene file: cdyn sweep scene FILE.json)",
                  argv[0]);
    s->rules = s->exp;
    k0 = 1;
  }
  const char *jobs_arg = NULL;
  for (int k = k0; k < argc; k++) {
    const char *a = argv[k];
    const char *val = k + 1 < argc ? argv[k + 1] : NULL;
    if (!strcmp(a, "--force")) {
      s->force = 1;
      continue;
    }
    const char **once = !strcmp(a, "--out")      ? &s->out_arg
                        : !strcmp(a, "--scheme") ? &s->scheme_arg
                        : !strcmp(a, "--h")      ? &s->h_arg
                        : !strcmp(a, "--steps")  ? &s->steps
                        : !strcmp(a, "--run")    ? &s->engine
                        : !strcmp(a, "--jobs")   ? &jobs_arg
                                                 : NULL;
    if (!once && strcmp(a, "--grid") && strcmp(a, "--set")) {
      fprintf(stderr, "%s: unknown option '%s'\n", prog, a);
      sweep_usage(stderr);
      return 2;
    }
    if (!val)
      return fail(2, "%s needs a value", a);
    k++;
    if (once) {
      if (*once)
        return fail(2, "%s is given twice", a);
      *once = val;
      continue;
    }
    const char *eq = strchr(val, '=');
    if (!eq || eq == val)
      return fail(2, "%s %s: expected KEY=%s", a, val, !strcmp(a, "--grid") ? "V1,V2,..." : "VALUE");
    size_t kl = (size_t)(eq - val);
    char *key = strndup(val, kl);
    if (!key)
      return fail(1, "out of memory");
    if (kl != strcspn(key, ",\"' \t\n\r") || has_control(key)) {
      fail(2, "%s %s: the key '%s' holds a comma, quote, space or control character", a, val, key);
      free(key);
      return 2;
    }
    /* One value per key and job: a key twice is a slip. */
    int dup = 0;
    for (int j = 0; j < s->nsets; j++)
      dup |= !strcmp(s->set_keys[j], key);
    for (int j = 0; j < s->ngrid; j++)
      dup |= !strcmp(s->grid[j].key, key);
    if (dup) {
      fail(2, "%s %s: the key %s is given twice (by --set or --grid)", a, val, key);
      free(key);
      return 2;
    }
    if (!strcmp(a, "--set")) {
      if (s->nsets == SW_MAX_SETS) {
        free(key);
        return fail(2, "at most %d --set options", SW_MAX_SETS);
      }
      if (has_control(eq + 1)) {
        free(key);
        return fail(2, "--set %s: the value holds a control character", val);
      }
      s->set_keys[s->nsets] = key;
      s->set_values[s->nsets] = eq + 1;
      s->set_args[s->nsets++] = val;
      continue;
    }
    if (!strcmp(key, "job") || !strcmp(key, "scheme") || !strcmp(key, "h")) {
      fail(2, "--grid %s: %s is a column of points.csv; use --%s LIST%s", val, key, key,
           !strcmp(key, "job") ? " (no such option: choose another key)" : "");
      free(key);
      return 2;
    }
    if (s->ngrid == SW_MAX_GRIDS) {
      free(key);
      return fail(2, "at most %d --grid options", SW_MAX_GRIDS);
    }
    sw_axis *ax = &s->grid[s->ngrid];
    ax->key = key;
    s->ngrid++;
    char what[300];
    snprintf(what, sizeof what, "--grid %s", key);
    if ((rc = split_list(eq + 1, ",", 1, 0, what, &ax->values, &ax->n)))
      return rc;
    if (!(ax->args = calloc((size_t)ax->n, sizeof *ax->args)))
      return fail(1, "out of memory");
    for (int v = 0; v < ax->n; v++) {
      size_t len = kl + strlen(ax->values[v]) + 2;
      if (!(ax->args[v] = malloc(len)))
        return fail(1, "out of memory");
      snprintf(ax->args[v], len, "%s=%s", key, ax->values[v]);
    }
  }
  if (!s->out_arg)
    return fail(2, "--out DIR is required: the directory of the sweep's files and jobs");
  if (!*s->out_arg || has_control(s->out_arg))
    return fail(2, "--out: an empty directory name, or one with a control character");
  if (s->engine && strcmp(s->engine, "make") && strcmp(s->engine, "parallel"))
    return fail(2, "--run %s: the engines are make and parallel", s->engine);
  s->jobs = 2;
  if (jobs_arg) {
    char *end;
    errno = 0;
    long j = strtol(jobs_arg, &end, 10);
    if (end == jobs_arg || *end || errno || j < 1 || j > 4096)
      return fail(2, "--jobs %s: expected an integer in [1, 4096]", jobs_arg);
    s->jobs = (int)j;
  }
  if (s->steps && has_control(s->steps))
    return fail(2, "--steps: the value holds a control character");
  if (s->h_arg && (rc = split_list(s->h_arg, ", ", 0, 1, "--h", &s->hs, &s->nh)))
    return rc;
  if (s->scheme_arg) {
    char **names;
    int n;
    if ((rc = split_list(s->scheme_arg, ", ", 0, 1, "--scheme", &names, &n)))
      return rc;
    /* Registered names, "all" expanded (for an experiment, to the schemes
       it can run), each once. */
    size_t cap = (size_t)n + cdyn_scheme_count();
    s->schemes = calloc(cap, sizeof *s->schemes);
    if (!s->schemes) {
      free_list(names, n);
      return fail(1, "out of memory");
    }
    for (int k = 0; k < n && !rc; k++) {
      size_t idx;
      if (strcmp(names[k], "all")) {
        if (cdyn_scheme_find(names[k], &idx)) {
          cdyn_error_clear();
          rc = fail(2, "--scheme: unknown scheme '%s' (cdyn list shows them)", names[k]);
        } else {
          rc = add_scheme(s, idx);
        }
        continue;
      }
      /* "all": the schemes the experiment (or scene) can run, as cdyn
         run --scheme all skips the others. */
      int left_out = 0;
      for (size_t i = 0; i < cdyn_scheme_count() && !rc; i++) {
        if (!exp_scheme_unfit(s->rules, i)) {
          rc = add_scheme(s, i);
          continue;
        }
        if (!left_out++)
          printf("%s: --scheme all: leaving out the schemes %s cannot run:", prog,
                 s->scene_arg ? s->scene_arg : s->rules->name);
        printf(" %s", cdyn_scheme_name(i));
      }
      if (left_out)
        printf(" (cdyn list SCHEME says what each enforces)\n");
    }
    free_list(names, n);
    if (rc)
      return rc;
    if (!s->nschemes)
      return fail(2, "--scheme %s: no scheme left to run", s->scheme_arg);
  }
  return 0;
}

static int sweep_main(sweep *s, int argc, char **argv, const char *command)
{
  s->command = command;
  if (argc < 1)
    return fail(2, "what to sweep? cdyn sweep EXPERIMENT ... or cdyn sweep scene FILE.json ... "
                   "(cdyn sweep --help)");
  if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
    sweep_usage(stdout);
    return 0;
  }
  for (int k = 1; k < argc; k++)
    if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
      sweep_usage(stdout);
      return 0;
    }
  int rc = parse_sweep_args(s, argc, argv);
  if (rc)
    return rc;
  /* The number of points. */
  long n = s->nschemes ? s->nschemes : 1;
  if (s->nh > SW_MAX_POINTS / n)
    return fail(2, "more than %ld points", SW_MAX_POINTS);
  n *= s->nh ? s->nh : 1;
  for (int g = 0; g < s->ngrid; g++) {
    if (s->grid[g].n > SW_MAX_POINTS / n)
      return fail(2, "more than %ld points: split the sweep", SW_MAX_POINTS);
    n *= s->grid[g].n;
  }
  s->npoints = n;
  if ((rc = check_jobs(s)))
    return rc;
  if ((rc = absolute_dir(s->out_arg, &s->out)))
    return rc;
  if (strlen(s->out) > SW_MAX_DIR)
    return fail(2, "--out: the absolute path %s is %zu bytes, more than %d", s->out, strlen(s->out), SW_MAX_DIR);
  if (has_control(s->out))
    return fail(2, "--out: the absolute path %s holds a control character", s->out);
  if ((rc = program_path(&s->exe)))
    return rc;
  if (has_control(s->exe))
    return fail(1, "the program's path %s holds a control character", s->exe);
  if (s->engine && (rc = find_engine(s)))
    return rc;

  /* Everything is checked: now the directory. */
  int created;
  if (prepare_dir(s, &created)) {
    if (created) {
      clear_sweep_dir(prog, s->out, 0, NULL);
      rmdir(s->out);
    }
    return 1;
  }
  rc = write_points(s);
  if (!rc)
    rc = write_jobs(s);
  if (!rc)
    rc = write_slurm(s);
  if (!rc)
    rc = write_sweep_meta(s);
  if (rc) {
    /* Leave nothing that looks like a sweep. */
    clear_sweep_dir(prog, s->out, 0, NULL);
    if (created)
      rmdir(s->out);
    return 1;
  }

  const char *dir = shell_word(s->out);
  char dirq[8192];
  snprintf(dirq, sizeof dirq, "%s", dir);
  char jobs_txt[4200];
  snprintf(jobs_txt, sizeof jobs_txt, "%s/jobs.txt", s->out);
  char jobsq[8400];
  snprintf(jobsq, sizeof jobsq, "%s", shell_word(jobs_txt));
  printf("%s: %ld job%s of %s%s in %s (points.csv: the point of every job)\n", prog, s->npoints,
         s->npoints == 1 ? "" : "s", s->exp ? "" : "scene ", s->exp ? s->exp->name : s->scene, s->out);
  if (!s->engine) {
    printf("Run them with one of:\n"
           "  make -C %s -j %d -k\n"
           "      on this machine; run again, it runs only the jobs not complete\n"
           "  parallel --jobs %d < %s\n"
           "      GNU parallel, on this machine\n"
           "  parallel --jobs %d --sshlogin HOST1,HOST2 < %s\n"
           "      on machines that see this directory and %s at the same paths\n"
           "  sbatch %s/slurm.sh\n"
           "      a Slurm job array of %ld tasks\n"
           "Each job writes %s/jobs/NNNNNN, its output in %s/logs/NNNNNN.log.\n",
           dirq, s->jobs, s->jobs, jobsq, s->jobs, jobsq, s->exe, dirq, s->npoints, dirq, dirq);
  }
  printf("%s: collect the results of every job into one table with\n  cdyn collect %s%s\n", prog, dirq,
         s->exp ? " --file NAME.csv   (NAME.csv: one of the CSV files of a job)" : "");
  fflush(stdout);
  if (s->engine)
    return run_engine(s);
  return 0;
}

int exp_cmd_sweep(int argc, char **argv, const char *command)
{
  static sweep s;
  prog = "cdyn sweep";
  memset(&s, 0, sizeof s);
  int rc = sweep_main(&s, argc, argv, command);
  sweep_free(&s);
  return rc;
}

/* ---- collect ------------------------------------------------------------------------------ */

/*
 * Read one CSV record of f into b, as text, without its line end (\n or
 * \r\n): a newline inside a quoted field belongs to the record.
 * *nfields gets its number of fields; *line counts the lines read (the
 * record starts on line *line + 1 of the file).  Returns 1 for a record,
 * 0 at the end of the file, -1 for a read error, -2 for a quote left open.
 */
static int csv_record(FILE *f, sbuf *b, int *nfields, long *line)
{
  sb_clear(b);
  int c, quoted = 0, any = 0, nf = 1;
  while ((c = getc(f)) != EOF) {
    any = 1;
    if (c == '\n')
      (*line)++;
    if (c == '"')
      quoted = !quoted;
    else if (!quoted && c == ',')
      nf++;
    else if (!quoted && c == '\n')
      break;
    sb_putc(b, (char)c);
  }
  if (ferror(f) || b->failed)
    return -1;
  if (!any)
    return 0;
  if (quoted)
    return -2;
  if (c == '\n' && b->len && b->s[b->len - 1] == '\r')
    b->s[--b->len] = '\0';
  if (!b->s)
    sb_puts(b, "");
  *nfields = nf;
  return 1;
}

typedef struct {
  long job;
  char *reason;
} sw_missing;

typedef struct {
  const char *dir, *file_arg, *command;
  int allow_missing;
  char *meta;          /* sweep.meta.json */
  int scene;           /* a scene sweep */
  char **points;       /* the rows of points.csv, as text */
  long npoints;
  char *header;        /* points.csv's */
  int point_cols;
  char file[512];      /* the CSV collected from every job */
  sw_missing *missing;
  long nmissing;
  unsigned char *done; /* by job: collected */
} collect;

static void collect_free(collect *c)
{
  free(c->meta);
  for (long k = 0; k < c->npoints; k++)
    free(c->points[k]);
  free(c->points);
  free(c->header);
  for (long k = 0; k < c->nmissing; k++)
    free(c->missing[k].reason);
  free(c->missing);
  free(c->done);
}

static void job_dir(const collect *c, long job, char *buf, size_t len)
{
  snprintf(buf, len, "%s/jobs/%06ld", c->dir, job);
}

static int job_complete(const collect *c, long job)
{
  char path[4200];
  snprintf(path, sizeof path, "%s/jobs/%06ld/run.meta.json", c->dir, job);
  return is_regular(path);
}

/* The files of a job's directory whose names end with `suffix`, sorted. */
static int list_files(const char *dir, const char *suffix, char ***names, int *n)
{
  *names = NULL;
  *n = 0;
  DIR *d = opendir(dir);
  if (!d)
    return fail(1, "cannot read %s: %s", dir, strerror(errno));
  struct dirent *ent;
  int cap = 0, rc = 0;
  while ((ent = readdir(d)) && !rc) {
    if (ent->d_name[0] == '.' || !ends_with(ent->d_name, suffix))
      continue;
    if (*n == cap) {
      cap = cap ? 2 * cap : 16;
      char **v = realloc(*names, (size_t)cap * sizeof *v);
      if (!v) {
        rc = fail(1, "out of memory");
        break;
      }
      *names = v;
    }
    if (!((*names)[*n] = strdup(ent->d_name)))
      rc = fail(1, "out of memory");
    else
      (*n)++;
  }
  closedir(d);
  if (!rc && *n)
    qsort(*names, (size_t)*n, sizeof **names, cmp_str);
  return rc;
}

static int read_points(collect *c)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/sweep.meta.json", c->dir);
  if (!(c->meta = read_all(path)))
    return fail(1, "%s is not a complete sweep's directory: cannot read %s: %s (cdyn sweep writes it last)", c->dir,
                path, strerror(errno));
  c->scene = strstr(c->meta, "\"sweep_of\": \"scene\"") != NULL;
  snprintf(path, sizeof path, "%s/points.csv", c->dir);
  FILE *f = fopen(path, "r");
  if (!f)
    return fail(1, "cannot read %s: %s", path, strerror(errno));
  sbuf b = {0};
  int nf = 0, r, rc = 0;
  long cap = 0, lines = 0, line = 1;
  if ((r = csv_record(f, &b, &nf, &lines)) != 1 || strncmp(b.s, "job,scheme,h", 12) || strchr(b.s, '"')) {
    rc = fail(1, "%s: %s", path, r == 1 ? "its header is not job,scheme,h,... (unquoted)" : "no header");
  } else {
    /* The collected header's: job, then point.NAME for the others. */
    sbuf hb = {0};
    for (const char *p = b.s; *p; p++)
      if (*p == ',')
        sb_puts(&hb, ",point.");
      else
        sb_putc(&hb, *p);
    if (hb.failed)
      rc = fail(1, "out of memory");
    c->header = hb.s;
  }
  c->point_cols = nf;
  for (line = lines + 1; !rc && (r = csv_record(f, &b, &nf, &lines)) == 1; line = lines + 1) {
    char *end;
    long job = strtol(b.s, &end, 10);
    if (end == b.s || *end != ',' || job != c->npoints || nf != c->point_cols) {
      rc = fail(1, "%s line %ld: expected job %ld with %d fields", path, line, c->npoints, c->point_cols);
      break;
    }
    if (c->npoints == cap) {
      cap = cap ? 2 * cap : 1024;
      char **v = realloc(c->points, (size_t)cap * sizeof *v);
      if (!v) {
        rc = fail(1, "out of memory");
        break;
      }
      c->points = v;
    }
    if (!(c->points[c->npoints] = strdup(b.s))) {
      rc = fail(1, "out of memory");
      break;
    }
    c->npoints++;
  }
  if (!rc && r < 0)
    rc = fail(1, "%s line %ld: %s", path, line, r == -2 ? "a quoted field is not closed" : "read error");
  fclose(f);
  sb_free(&b);
  if (!rc && !c->npoints)
    rc = fail(1, "%s: no jobs", path);
  return rc;
}

/* Which file to collect: --file, or a scene's NAME-summary.csv. */
static int choose_file(collect *c)
{
  if (c->file_arg) {
    const char *f = c->file_arg;
    if (!*f || strchr(f, '/') || f[0] == '.' || has_control(f) || strlen(f) > 400)
      return fail(2, "--file %s: expected the name of a CSV file of a job (NAME.csv, no directory)", f);
    snprintf(c->file, sizeof c->file, "%s%s", f, ends_with(f, ".csv") ? "" : ".csv");
    return 0;
  }
  long first = -1;
  for (long job = 0; job < c->npoints && first < 0; job++)
    if (job_complete(c, job))
      first = job;
  char dir[4200];
  char **names;
  int n, rc;
  if (first < 0) {
    if (c->scene)
      return fail(1, "no job of %s is complete (none has run.meta.json): nothing to collect", c->dir);
    return fail(2, "which file? The jobs of an experiment write several CSV files: name one with --file "
                   "NAME.csv (no job is complete yet, to list them)");
  }
  job_dir(c, first, dir, sizeof dir);
  if (c->scene) {
    if ((rc = list_files(dir, "-summary.csv", &names, &n)))
      return rc;
    if (n == 1)
      snprintf(c->file, sizeof c->file, "%s", names[0]);
    else if (n == 0)
      rc = fail(1, "job %ld (%s) wrote no NAME-summary.csv; name the file with --file NAME.csv", first, dir);
    else
      rc = fail(2, "job %ld (%s) wrote %d files *-summary.csv (%s, %s, ...); name one with --file NAME.csv", first,
                dir, n, names[0], names[1]);
    free_list(names, n);
    return rc;
  }
  if ((rc = list_files(dir, ".csv", &names, &n)))
    return rc;
  fprintf(stderr, "%s: which file? The jobs of an experiment write several CSV files: name one with --file "
                  "NAME.csv.\n  Job %ld wrote: ", prog, first);
  for (int k = 0; k < n; k++)
    fprintf(stderr, "%s%s", k ? ", " : "", names[k]);
  fprintf(stderr, "%s\n", n ? "" : "no CSV file");
  free_list(names, n);
  return 2;
}

static int add_missing(collect *c, long job, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;

static int add_missing(collect *c, long job, const char *fmt, ...)
{
  char reason[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  sw_missing *m = &c->missing[c->nmissing];
  m->job = job;
  if (!(m->reason = strdup(reason)))
    return fail(1, "out of memory");
  c->nmissing++;
  return 0;
}

/* The first field of CSV record `rec` (its text) given twice, unquoted,
   into a new string *dup (NULL: none).  Returns 0, or 1 out of memory. */
static int repeated_field(const char *rec, char **dup)
{
  size_t len = strlen(rec), n = 0;
  char *buf = malloc(len + 1), *q = buf;
  char **field = malloc((len + 1) * sizeof *field);
  *dup = NULL;
  if (!buf || !field) {
    free(buf);
    free(field);
    return 1;
  }
  field[n++] = buf;
  for (int quoted = 0; *rec; rec++) {
    if (*rec == '"' && quoted && rec[1] == '"')
      *q++ = *rec++;
    else if (*rec == '"')
      quoted = !quoted;
    else if (*rec == ',' && !quoted) {
      *q++ = '\0';
      field[n++] = q;
    } else
      *q++ = *rec;
  }
  *q = '\0';
  qsort(field, n, sizeof *field, cmp_str);
  int rc = 0;
  for (size_t k = 1; k < n && !*dup && !rc; k++)
    if (!strcmp(field[k - 1], field[k]))
      rc = !(*dup = strdup(field[k]));
  free(field);
  free(buf);
  return rc;
}

/* Copy job's file into out, each row after the job's point; the header
   must be `header` (NULL: the first job's, returned in *header). */
static int copy_job(collect *c, long job, FILE *out, char **header, long *rows)
{
  char dir[4200], path[4800];
  job_dir(c, job, dir, sizeof dir);
  snprintf(path, sizeof path, "%s/%s", dir, c->file);
  FILE *f = fopen(path, "r");
  if (!f)
    return fail(1, "job %ld: cannot read %s: %s", job, path, strerror(errno));
  sbuf b = {0};
  int nf = 0, ncols = 0, r, rc = 0;
  long lines = 0, line = 1;
  r = csv_record(f, &b, &nf, &lines);
  if (r != 1) {
    rc = fail(1, "job %ld: %s: %s", job, path, r == 0 ? "empty (no header)" : r == -2 ? "a quoted field is not closed"
                                                                                        : "read error");
  } else if (!*header) {
    sbuf all = {0};
    char *dup = NULL;
    sb_puts(&all, c->header);
    sb_putc(&all, ',');
    sb_puts(&all, b.s);
    if (all.failed || repeated_field(all.s, &dup) || !(*header = strdup(b.s)))
      rc = fail(1, "out of memory");
    else if (dup)
      rc = fail(1, "job %ld: %s: the collected header\n  %s\nwould name the column %s twice", job, path, all.s, dup);
    else
      fprintf(out, "%s\n", all.s);
    free(dup);
    sb_free(&all);
  } else if (strcmp(*header, b.s)) {
    rc = fail(1, "job %ld: the header of %s\n  %s\ndiffers from the first job's\n  %s", job, path, b.s, *header);
  }
  ncols = nf;
  for (line = lines + 1; !rc && (r = csv_record(f, &b, &nf, &lines)) == 1; line = lines + 1) {
    if (!b.len)
      continue;
    if (nf != ncols) {
      rc = fail(1, "job %ld: %s line %ld has %d fields, its header %d", job, path, line, nf, ncols);
      break;
    }
    fprintf(out, "%s,%s\n", c->points[job], b.s);
    (*rows)++;
  }
  if (!rc && r < 0)
    rc = fail(1, "job %ld: %s line %ld: %s", job, path, line, r == -2 ? "a quoted field is not closed" : "read error");
  sb_free(&b);
  fclose(f);
  return rc;
}

static int write_collected(collect *c)
{
  char stem[512], name[600], meta_name[700];
  snprintf(stem, sizeof stem, "%.*s", (int)(strlen(c->file) - 4), c->file);
  snprintf(name, sizeof name, "collected-%s.csv", stem);
  snprintf(meta_name, sizeof meta_name, "collected-%s.meta.json", stem);
  afile csv, meta;
  if (af_open(&csv, c->dir, name, 0))
    return 1;
  char *header = NULL;
  long rows = 0, ncollected = 0;
  int rc = 0;
  for (long job = 0; job < c->npoints && !rc; job++)
    if (c->done[job]) {
      rc = copy_job(c, job, csv.f, &header, &rows);
      ncollected++;
    }
  if (rc) {
    af_close(&csv, 0);
    free(header);
    return rc;
  }
  if (af_open(&meta, c->dir, meta_name, 0)) {
    af_close(&csv, 0);
    free(header);
    return 1;
  }
  FILE *f = meta.f;
  fprintf(f, "{\n  \"collected\": ");
  exp_json_str(f, name);
  fprintf(f, ",\n");
  exp_meta_program(f, c->command);
  fprintf(f, ",\n  \"sweep_dir\": ");
  exp_json_str(f, c->dir);
  fprintf(f, ",\n  \"file\": ");
  exp_json_str(f, c->file);
  fprintf(f, ",\n  \"point_columns\": ");
  exp_json_str(f, c->header);
  fprintf(f, ",\n  \"file_columns\": ");
  exp_json_str(f, header ? header : "");
  fprintf(f, ",\n  \"note\": \"each row: the job's point (the first %d columns, from points.csv: job, then "
             "its other columns named point.NAME), then a row of the job's %s (its columns under their own "
             "names), its fields copied as the job wrote them\"",
          c->point_cols, c->file);
  fprintf(f, ",\n  \"rows\": %ld,\n  \"jobs\": %ld,\n  \"jobs_collected\": [", rows, c->npoints);
  long k = 0;
  for (long job = 0; job < c->npoints; job++)
    if (c->done[job])
      fprintf(f, "%s%ld", k++ ? ", " : "", job);
  fprintf(f, "],\n  \"jobs_missing\": [");
  for (long m = 0; m < c->nmissing; m++) {
    fprintf(f, "%s\n    {\"job\": %ld, \"reason\": ", m ? "," : "", c->missing[m].job);
    exp_json_str(f, c->missing[m].reason);
    fprintf(f, "}");
  }
  fprintf(f, "%s],\n  \"sweep\": ", c->nmissing ? "\n  " : "");
  /* The sweep's record as it is (JSON), without its final newline. */
  size_t ml = strlen(c->meta);
  while (ml && (c->meta[ml - 1] == '\n' || c->meta[ml - 1] == '\r'))
    ml--;
  fwrite(c->meta, 1, ml, f);
  fprintf(f, "\n}\n");
  free(header);
  /* The metadata first: a collected CSV is never without its record. */
  if ((rc = af_close(&meta, 1))) {
    af_close(&csv, 0);
    return rc;
  }
  if ((rc = af_close(&csv, 1))) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", c->dir, meta_name);
    remove(path);
    return rc;
  }
  printf("%s: %ld of %ld jobs, %ld rows of %s: %s/%s\n", prog, ncollected, c->npoints, rows, c->file, c->dir, name);
  if (c->nmissing)
    printf("%s: %ld job%s missing (listed in %s/%s)\n", prog, c->nmissing, c->nmissing == 1 ? "" : "s", c->dir,
           meta_name);
  return 0;
}

static int collect_main(collect *c, int argc, char **argv, const char *command)
{
  c->command = command;
  for (int k = 0; k < argc; k++) {
    const char *a = argv[k];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      sweep_usage(stdout);
      return -1;
    } else if (!strcmp(a, "--allow-missing")) {
      c->allow_missing = 1;
    } else if (!strcmp(a, "--file")) {
      if (k + 1 >= argc)
        return fail(2, "--file needs a value (NAME.csv)");
      if (c->file_arg)
        return fail(2, "--file is given twice");
      c->file_arg = argv[++k];
    } else if (!strncmp(a, "--", 2)) {
      fprintf(stderr, "%s: unknown option '%s'\n", prog, a);
      sweep_usage(stderr);
      return 2;
    } else if (c->dir) {
      return fail(2, "one directory only ('%s' and '%s')", c->dir, a);
    } else {
      c->dir = a;
    }
  }
  if (!c->dir)
    return fail(2, "which sweep? cdyn collect DIR [--file NAME.csv] [--allow-missing]");
  if (strlen(c->dir) > SW_MAX_DIR || has_control(c->dir))
    return fail(2, "%s: too long a path, or one with a control character", c->dir);
  int rc = read_points(c);
  if (!rc)
    rc = choose_file(c);
  if (rc)
    return rc;
  c->missing = calloc((size_t)c->npoints, sizeof *c->missing);
  c->done = calloc((size_t)c->npoints, 1);
  if (!c->missing || !c->done)
    return fail(1, "out of memory");
  for (long job = 0; job < c->npoints && !rc; job++) {
    char dir[4200], path[4800];
    job_dir(c, job, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s", dir, c->file);
    if (!job_complete(c, job))
      rc = add_missing(c, job, "not complete (no run.meta.json: not run, running, or failed; see logs/%06ld.log)",
                       job);
    else if (!is_regular(path))
      rc = add_missing(c, job, "complete, but it wrote no %s", c->file);
    else
      c->done[job] = 1;
  }
  if (rc)
    return rc;
  if (c->nmissing && !c->allow_missing) {
    fprintf(stderr, "%s: %ld of %ld jobs of %s have no %s to collect:\n", prog, c->nmissing, c->npoints, c->dir,
            c->file);
    for (long m = 0; m < c->nmissing && m < SW_MAX_NAMED; m++)
      fprintf(stderr, "  job %ld (jobs/%06ld): %s\n", c->missing[m].job, c->missing[m].job, c->missing[m].reason);
    if (c->nmissing > SW_MAX_NAMED)
      fprintf(stderr, "  ... and %ld more\n", c->nmissing - SW_MAX_NAMED);
    int incomplete = 0;
    for (long m = 0; m < c->nmissing; m++)
      incomplete |= !job_complete(c, c->missing[m].job);
    if (incomplete)
      fprintf(stderr, "  (make -C %s -j 2 -k runs the jobs not complete again)\n", shell_word(c->dir));
    fprintf(stderr, "  (--allow-missing collects the others, and records the missing)\n");
    return 1;
  }
  if (c->nmissing == c->npoints)
    return fail(1, "no job of %s has %s: nothing to collect", c->dir, c->file);
  return write_collected(c);
}

int exp_cmd_collect(int argc, char **argv, const char *command)
{
  static collect c;
  prog = "cdyn collect";
  memset(&c, 0, sizeof c);
  int rc = collect_main(&c, argc, argv, command);
  collect_free(&c);
  return rc < 0 ? 0 : rc;
}
