/*
 * sweep.c: `cdyn sweep`, the jobs of a grid of runs for an existing
 * engine to run (`cdyn collect`, which gathers their results into one
 * table, is collect.c).
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
 * (exp_run_check, runargs.c) on the arguments of the job's command line, so
 * that a sweep accepts exactly the points `cdyn run` accepts.  Every file
 * is written under a temporary name and renamed when complete; --force
 * clears only what a sweep, its jobs and collect write.
 *
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "runargs.h"
#include "studies/table.h"
#include "runner/cli.h"
#include "runner/files.h"

extern char **environ;

#define SW_MAX_POINTS 100000L /* jobs of one sweep (six-digit job directories) */
#define SW_MAX_GRIDS 16       /* --grid options */
#define SW_MAX_SETS EXP_MAX_SETS
/* The arguments of a job's `cdyn run`, after "run" and before --out. */
#define SW_MAX_ARGS (8 + 2 * (SW_MAX_SETS + SW_MAX_GRIDS) + 1)


/* Messages: "cdyn sweep: ..." on stderr, and the status. */
static const char *const prog = "cdyn sweep";
#define fail(rc, ...) exp_complain(prog, rc, __VA_ARGS__)

/* ---- text ------------------------------------------------------------------------------- */

/*
 * Split `text` into items (runner/lists.h: `flags`), at most SW_MAX_POINTS,
 * each given once, into new strings (*items)[0 .. *n - 1].  A control
 * character is an error; messages name `what`.
 */
static int split_list(const char *text, unsigned flags, const char *what, char ***items, int *n)
{
  *items = NULL;
  *n = 0;
  if (exp_has_control(text))
    return fail(2, "%s: holds a control character (a newline, a tab, ...)", what);
  int rc = exp_list_split(text, what, flags | EXP_LIST_UNIQUE, (int)SW_MAX_POINTS, items, n);
  if (rc)
    return fail(rc == CDYN_ENOMEM ? 1 : 2, "%s", cdyn_errmsg());
  return 0;
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
     the experiment that runs scenes (runner/scene.c), with the file's
     defaults. */
  const cdyn_experiment *rules;
  exp_scene_src *src;         /* the scene file, read once */
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
  exp_scene_free(s->src);
  exp_strv_free(s->schemes, s->nschemes);
  exp_strv_free(s->hs, s->nh);
  for (int k = 0; k < s->ngrid; k++) {
    free(s->grid[k].key);
    exp_strv_free(s->grid[k].values, s->grid[k].n);
    exp_strv_free(s->grid[k].args, s->grid[k].args ? s->grid[k].n : 0);
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
    exp_text b = {0};
    exp_text_puts(&b, "cdyn run");
    for (int k = 0; k < argc; k++) {
      exp_text_putc(&b, ' ');
      exp_text_shell(&b, argv[k]);
    }
    fail(rc, "job %ld (%s) is refused by cdyn run (above):\n  %s", job, *point ? point : "the defaults",
         b.failed ? "" : b.s);
    exp_text_free(&b);
    return rc;
  }
  return 0;
}

/* ---- the directory ---------------------------------------------------------------------- */

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
  if (name[0] == '.' && exp_ends_with(name, ".tmp"))
    return 1;
  return !strncmp(name, "collected-", 10) && (exp_ends_with(name, ".csv") || exp_ends_with(name, ".meta.json"));
}

enum walk_level { WALK_TOP, WALK_JOBS, WALK_LOGS };

/*
 * Clear a sweep's directory (or one of its parts), or (check_only) check
 * that it holds only what a sweep, its jobs and collect write: the files
 * above, jobs/NNNNNN (each a run's directory, exp_clear_dir) and logs/
 * (the jobs' *.log, Slurm's *.out).  As exp_clear_dir for a run's.
 */
typedef struct {
  const char *who, *dir, *why;
  enum walk_level level;
  int check_only;
} sweep_walk;

static int walk_sweep_dir(const char *who, const char *dir, enum walk_level level, int check_only, const char *why);

static int sweep_entry(void *ctx, const char *path, const char *name, const struct stat *sb)
{
  const sweep_walk *w = ctx;
  int isdir = sb && S_ISDIR(sb->st_mode), isreg = sb && S_ISREG(sb->st_mode), ok, rc = 0;
  if (w->level == WALK_TOP)
    ok = isdir ? !strcmp(name, "jobs") || !strcmp(name, "logs") : isreg && sweep_file_name(name);
  else if (w->level == WALK_JOBS)
    ok = isdir && six_digits(name);
  else
    ok = isreg && (exp_ends_with(name, ".log") || exp_ends_with(name, ".out"));
  if (!ok) {
    if (w->why)
      fprintf(stderr, "%s: %s holds %s, which no sweep writes: %s\n", w->who, w->dir, name, w->why);
    return 1;
  }
  if (isdir) {
    rc = w->level == WALK_JOBS ? exp_clear_dir(w->who, path, w->check_only, w->why)
                               : walk_sweep_dir(w->who, path, !strcmp(name, "jobs") ? WALK_JOBS : WALK_LOGS,
                                                w->check_only, w->why);
    if (!rc && !w->check_only && rmdir(path)) {
      fprintf(stderr, "%s: cannot remove %s: %s\n", w->who, path, strerror(errno));
      rc = 1;
    }
  } else if (!w->check_only && remove(path)) {
    fprintf(stderr, "%s: cannot remove %s: %s\n", w->who, path, strerror(errno));
    rc = 1;
  }
  return rc;
}

static int walk_sweep_dir(const char *who, const char *dir, enum walk_level level, int check_only, const char *why)
{
  sweep_walk w = {who, dir, why, level, check_only};
  return exp_walk_dir(who, dir, sweep_entry, &w);
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
    if (exp_is_regular(wrapper) && !access(wrapper, X_OK))
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
static void job_command(const sweep *s, long job, exp_text *b)
{
  char *argv[SW_MAX_ARGS], path[4096];
  job_args(s, job, argv);
  exp_text_clear(b);
  exp_text_shell(b, s->exe);
  exp_text_puts(b, " run");
  for (int k = 0; argv[k]; k++) {
    exp_text_putc(b, ' ');
    exp_text_shell(b, argv[k]);
  }
  snprintf(path, sizeof path, "%s/jobs/%06ld", s->out, job);
  exp_text_puts(b, " --out ");
  exp_text_shell(b, path);
  /* --force: a job that was interrupted (killed, a node lost) runs again
     over what it left; cdyn run clears only its own kind of files. */
  /* --failed-runs-ok: a run that fails is a point of the sweep's map,
     not a failed job. */
  exp_text_puts(b, " --force --failed-runs-ok > ");
  snprintf(path, sizeof path, "%s/logs/%06ld.log", s->out, job);
  exp_text_shell(b, path);
  exp_text_puts(b, " 2>&1");
}

static int write_points(const sweep *s)
{
  exp_afile a;
  if (exp_afile_create(&a, prog, s->out, "points.csv", 0))
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
  return exp_afile_finish(&a, prog, 1);
}

/* jobs.txt and the Makefile, whose recipes are the same commands ('$'
   doubled for make). */
static int write_jobs(const sweep *s)
{
  exp_afile jobs, mk;
  if (exp_afile_create(&jobs, prog, s->out, "jobs.txt", 0))
    return 1;
  if (exp_afile_create(&mk, prog, s->out, "Makefile", 0)) {
    exp_afile_finish(&jobs, prog, 0);
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
  exp_text b = {0};
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
  exp_text_free(&b);
  if (!ok) {
    exp_afile_finish(&jobs, prog, 0);
    exp_afile_finish(&mk, prog, 0);
    return fail(1, "out of memory writing the jobs");
  }
  int rc = exp_afile_finish(&jobs, prog, 1);
  if (rc) {
    exp_afile_finish(&mk, prog, 0);
    return rc;
  }
  return exp_afile_finish(&mk, prog, 1);
}

static int write_slurm(const sweep *s)
{
  exp_afile a;
  if (exp_afile_create(&a, prog, s->out, "slurm.sh", 1))
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
          cdyn_version(), exp_shell_word(s->out), s->npoints, s->npoints - 1);
  /* #SBATCH lines are not read by a shell: a path is written there only
     when it needs no quoting, with % (a Slurm file name pattern) as %%. */
  snprintf(path, sizeof path, "%s/logs", s->out);
  if (!strcmp(exp_shell_word(path), path)) {
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
          exp_shell_word(path));
  return exp_afile_finish(&a, prog, 1);
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
  exp_afile a;
  if (exp_afile_create(&a, prog, s->out, "sweep.meta.json", 0))
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
  return exp_afile_finish(&a, prog, 1);
}

/* ---- running the jobs through an engine ------------------------------------------------- */

static long count_complete(const sweep *s, long *first_missing, int print)
{
  long done = 0, named = 0;
  *first_missing = -1;
  for (long job = 0; job < s->npoints; job++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/jobs/%06ld/run.meta.json", s->out, job);
    if (exp_is_regular(path)) {
      done++;
      continue;
    }
    if (*first_missing < 0)
      *first_missing = job;
    if (print && named++ < EXP_SWEEP_MAX_NAMED)
      fprintf(stderr, "  job %ld (jobs/%06ld): not complete; see %s/logs/%06ld.log\n", job, job, s->out, job);
  }
  if (print && named > EXP_SWEEP_MAX_NAMED)
    fprintf(stderr, "  ... and %ld more\n", named - EXP_SWEEP_MAX_NAMED);
  return done;
}

/* The engine of --run, found before anything is written: its path in
   s->engine_path. */
static int find_engine(sweep *s)
{
  const char *name = s->engine;
  if (!(s->engine_path = exp_find_program(name)))
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
  printf("\n%s: running the %ld jobs: %s", prog, s->npoints, exp_shell_word(name));
  for (int k = 1; argv[k]; k++)
    printf(" %s", exp_shell_word(argv[k]));
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
    fprintf(stderr, "  (make -C %s -j %d -k runs them again)\n", exp_shell_word(s->out), s->jobs);
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
  /* A scene file missing, unreadable or invalid is an input error (1),
     as under cdyn run scene and cdyn check. */
  if (!(s->scene = realpath(s->scene_arg, NULL)))
    return fail(1, "scene %s: %s", s->scene_arg, strerror(errno));
  if (exp_has_control(s->scene))
    return fail(2, "scene %s: its absolute path %s holds a control character", s->scene_arg, s->scene);
  if (exp_scene_read(&s->src, s->scene))
    return fail(1, "scene %s: %s", s->scene_arg, cdyn_errmsg());
  s->rules = &s->src->exp;
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
      return fail(2, "unknown experiment '%s'%s (cdyn list experiments shows them; a scene file: cdyn sweep scene "
                  "FILE.json)", argv[0], exp_experiment_hint(argv[0]));
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
      static const char *const options[] = {"--out", "--scheme", "--h",    "--steps", "--run",
                                            "--jobs", "--grid",  "--set",  "--force", "--help", NULL};
      exp_near near;
      exp_near_init(&near, a);
      exp_near_list(&near, options);
      return fail(2, "unknown option '%s'%s", a, exp_near_hint(&near));
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
    if (kl != strcspn(key, ",\"' \t\n\r") || exp_has_control(key)) {
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
      if (exp_has_control(eq + 1)) {
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
    if ((rc = split_list(eq + 1, EXP_LIST_ESCAPES, what, &ax->values, &ax->n)))
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
  if (!*s->out_arg || exp_has_control(s->out_arg))
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
  if (s->steps && exp_has_control(s->steps))
    return fail(2, "--steps: the value holds a control character");
  if (s->h_arg && (rc = split_list(s->h_arg, EXP_LIST_SPACES, "--h", &s->hs, &s->nh)))
    return rc;
  if (s->scheme_arg) {
    char **names;
    int n;
    if ((rc = split_list(s->scheme_arg, EXP_LIST_SPACES, "--scheme", &names, &n)))
      return rc;
    /* Registered names, "all" expanded (for an experiment, to the schemes
       it can run), each once. */
    size_t cap = (size_t)n + cdyn_scheme_count();
    s->schemes = calloc(cap, sizeof *s->schemes);
    if (!s->schemes) {
      exp_strv_free(names, n);
      return fail(1, "out of memory");
    }
    for (int k = 0; k < n && !rc; k++) {
      size_t idx;
      if (strcmp(names[k], "all")) {
        if (cdyn_scheme_find(names[k], &idx)) {
          cdyn_error_clear();
          exp_near near;
          exp_near_init(&near, names[k]);
          for (size_t i = 0; i < cdyn_scheme_count(); i++)
            exp_near_try(&near, cdyn_scheme_name(i));
          exp_near_try(&near, "all");
          rc = fail(2, "--scheme: unknown scheme '%s'%s (cdyn list schemes shows them)", names[k],
                    exp_near_hint(&near));
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
    exp_strv_free(names, n);
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
    exp_sweep_usage(stdout);
    return 0;
  }
  for (int k = 1; k < argc; k++)
    if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
      exp_sweep_usage(stdout);
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
  if (strlen(s->out) > EXP_SWEEP_MAX_DIR)
    return fail(2, "--out: the absolute path %s is %zu bytes, more than %d", s->out, strlen(s->out), EXP_SWEEP_MAX_DIR);
  if (exp_has_control(s->out))
    return fail(2, "--out: the absolute path %s holds a control character", s->out);
  if ((rc = program_path(&s->exe)))
    return rc;
  if (exp_has_control(s->exe))
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

  const char *dir = exp_shell_word(s->out);
  char dirq[8192];
  snprintf(dirq, sizeof dirq, "%s", dir);
  char jobs_txt[4200];
  snprintf(jobs_txt, sizeof jobs_txt, "%s/jobs.txt", s->out);
  char jobsq[8400];
  snprintf(jobsq, sizeof jobsq, "%s", exp_shell_word(jobs_txt));
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
  memset(&s, 0, sizeof s);
  int rc = sweep_main(&s, argc, argv, command);
  sweep_free(&s);
  return rc;
}
