/*
 * tests/test_experiments.c: the cdyn program, end to end.
 *
 * The built program (its path in CDYN_PROGRAM, which `make check` sets) is
 * run as a child process and what it writes is read back and checked:
 *
 * - `--help`, `--version` and `list` (every registered scheme and
 *   experiment is listed);
 * - a short arm2-drift run: the files, their exact header and row count,
 *   the step, time and running-sum columns, the exact initial state, the
 *   metadata beside every CSV and the claim verdicts;
 * - that the same command gives byte-identical output;
 * - --scheme (only the named scheme runs, no claims are judged) and --set
 *   (the value reaches the scheme and the metadata);
 * - a short arm2-trajectory run: the reference keeps the link lengths, the
 *   tracking summary agrees with the per-run files it summarises, and each
 *   run's deviation column is y2 - y_ref against the same reference;
 * - bad input is refused with a message and a non-zero status, leaving no
 *   files;
 * - `cdyn report` merges the verdicts into claims.csv and claims.md with
 *   every claim listed;
 * - the verification experiments, each restricted with --scheme and --set
 *   to a run of a fraction of a second, against independent facts:
 *   convergence (the table's shape, h halving, the fitted orders
 *   recomputed from the rows and within bands of the schemes' orders, and
 *   one run repeated here through the public API against
 *   reference/nlink.h); stability (every probe's verdict against the
 *   rules, the order of the search, and the two deciding probes repeated
 *   here); bad-initial (the rows against the summary, implicit's
 *   quadratic return to the manifold); bead-circle (C and r from x and y,
 *   the exact motion of reference/bead.h, implicit's C = |step|^2 / 2, and
 *   the claim verdicts recomputed from the rows); stiff-pendulum (the
 *   searches, and h_max of the symplectic-Euler spring against the
 *   stability limit 2 / omega of its radial mode; the PBD stretch);
 *   their bad parameters are refused before anything is written, and a
 *   restricted convergence run is deterministic;
 * - chain10-stability: the perturbed starts (the saw tooth, exact ends,
 *   link lengths to rounding, each node turned about its neighbours' axis
 *   by the angle GSL's mt19937 gives for the trial's seed, different
 *   starts for different seeds, the same bytes on rerun); every table
 *   recomputed from the per-step files and from failures.csv (the
 *   failure rule, the order statistics, the survival steps, the claim
 *   verdicts); the mass-weighted post-stabilisation equal bit for bit to
 *   the unit one with equal masses; failure detection against known
 *   answers (a threshold crossed at a step read off an earlier run, one
 *   below every error, and implicit's bounded error);
 * - ccd-census, a quick run: no false negative or late contact, the
 *   constructed queries as built, the family rows against the totals,
 *   every disagreement replayed from its hex floats through the library
 *   and the exact reference, the same bytes on rerun but for the times.
 *
 * Each test works in a fresh directory tests/out-XXXXXX under the current
 * directory (the build tree under `make check`) and removes it when the
 * test passes.  A failing test may leave its directory behind, which is
 * what one wants to inspect; `make clean` removes tests/out-*.
 *
 * Each test works in a fresh directory tests/out-XXXXXX under the current
 * directory (the build tree under `make check`) and removes it when the
 * test passes.  A failing test may leave its directory behind, which is
 * what one wants to inspect; `make clean` removes tests/out-*.
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include <cdyn/cdyn.h>

#include "bead.h"
#include "ccd_exact.h"
#include "claims.h"
#include "hoop.h"
#include "nlink.h"
#include "testutil.h"

/* The header every arm run writes (2 links, so nodes 0, 1, 2). */
#define ARM_COLUMNS "step,t,e,e_sum,x0,y0,z0,x1,y1,z1,x2,y2,z2,E"
enum { C_STEP, C_T, C_E, C_ESUM, C_X0, C_Y0, C_Z0, C_X1, C_Y1, C_Z1, C_X2, C_Y2, C_Z2, C_EN, C_YREF, C_DEV };

/* The claims are those of the table (experiments/claimdefs.c), which the
   report must list in its order; their verdicts are recomputed here from
   the runs' files with the table's own rules (exp_verdict). */
#define NCLAIMS exp_nclaims
#define claim_id(k) (exp_claim_defs[k].id)

static const char *const drift_claims[] = {"arm2.baumgarte_grows", "arm2.poststab_to_zero",
                                           "arm2.implicit_tight"};

/* ---- the work directory ---------------------------------------------------- */

static char wd[64];            /* tests/out-XXXXXX, relative to the cwd */
static char program[PATH_MAX]; /* absolute, because the child runs in wd */

/* A path into buf (PATH_MAX bytes), printf-style; a path that does not
   fit fails the test rather than being silently cut short. */
static char *vpathf(char *buf, const char *fmt, va_list ap)
{
  int n = vsnprintf(buf, PATH_MAX, fmt, ap);
  ck_assert_msg(n >= 0 && n < PATH_MAX, "path too long: %s...", buf);
  return buf;
}

static char *pathf(char *buf, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vpathf(buf, fmt, ap);
  va_end(ap);
  return buf;
}

/* wd/NAME, NAME given printf-style. */
static char *wp(char *buf, const char *fmt, ...)
{
  char name[PATH_MAX];
  va_list ap;
  va_start(ap, fmt);
  vpathf(name, fmt, ap);
  va_end(ap);
  return pathf(buf, "%s/%s", wd, name);
}

static void setup(void)
{
  const char *p = getenv("CDYN_PROGRAM");
  ck_assert_msg(p && *p, "CDYN_PROGRAM is not set: it must name the built cdyn program "
                         "(make check sets it to the build tree's ./cdyn)");
  ck_assert_msg(realpath(p, program) != NULL, "CDYN_PROGRAM=%s: %s", p, strerror(errno));
  ck_assert_msg(access(program, X_OK) == 0, "CDYN_PROGRAM=%s is not an executable file", program);
  /* The cwd is the build directory under make check; its tests/ exists
     there, but not necessarily when the program is run by hand. */
  ck_assert_msg(mkdir("tests", 0777) == 0 || errno == EEXIST, "cannot create tests/: %s", strerror(errno));
  snprintf(wd, sizeof wd, "tests/out-XXXXXX");
  ck_assert_msg(mkdtemp(wd) != NULL, "mkdtemp %s: %s", wd, strerror(errno));
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path) ? -1 : 0;
}

/* Remove a directory tree (what a test made inside its work directory). */
static void remove_tree(const char *path) { nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

static void teardown(void)
{
  /* FTW_DEPTH: a directory's entries go before the directory itself;
     FTW_PHYS: never follow a symbolic link out of the work directory. */
  ck_assert_msg(nftw(wd, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0, "cannot remove %s: %s", wd,
                strerror(errno));
}

/* ---- files ---------------------------------------------------------------------- */

/* The whole file, NUL-terminated (NULL if it cannot be read). */
static char *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  ck_assert_ptr_nonnull(buf);
  size_t got;
  while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (cap - n - 1 == 0) {
      cap *= 2;
      buf = realloc(buf, cap);
      ck_assert_ptr_nonnull(buf);
    }
  }
  int bad = ferror(f);
  fclose(f);
  ck_assert_msg(!bad, "error reading %s", path);
  buf[n] = '\0';
  if (len)
    *len = n;
  return buf;
}

static char *must_slurp(const char *path)
{
  char *s = slurp(path, NULL);
  ck_assert_msg(s != NULL, "cannot read %s: %s", path, strerror(errno));
  return s;
}

static int exists(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0;
}

static int has_suffix(const char *s, const char *suffix)
{
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

typedef struct {
  size_t n;
  char **name;
} dirlist;

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of a directory other than . and .., sorted. */
static dirlist list_dir(const char *path)
{
  dirlist l = {0, NULL};
  DIR *d = opendir(path);
  ck_assert_msg(d != NULL, "cannot open directory %s: %s", path, strerror(errno));
  size_t cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    if (l.n == cap) {
      cap = cap ? 2 * cap : 16;
      l.name = realloc(l.name, cap * sizeof *l.name);
      ck_assert_ptr_nonnull(l.name);
    }
    l.name[l.n] = strdup(e->d_name);
    ck_assert_ptr_nonnull(l.name[l.n]);
    l.n++;
  }
  closedir(d);
  if (l.n)
    qsort(l.name, l.n, sizeof *l.name, cmp_str);
  return l;
}

static void dirlist_free(dirlist *l)
{
  for (size_t k = 0; k < l->n; k++)
    free(l->name[k]);
  free(l->name);
  l->n = 0;
  l->name = NULL;
}

static size_t count_suffix(const dirlist *l, const char *suffix)
{
  size_t c = 0;
  for (size_t k = 0; k < l->n; k++)
    c += has_suffix(l->name[k], suffix);
  return c;
}

/* ---- running the program ---------------------------------------------------- */

typedef struct {
  int status; /* exit status, or 128 + the signal that ended it */
  char *out, *err;
} proc;

static void proc_free(proc *p)
{
  free(p->out);
  free(p->err);
  p->out = p->err = NULL;
}

/*
 * Run cdyn with `args` (NULL-terminated) in the work directory, so that
 * relative output paths (and the default ./EXPERIMENT) land there; stdout
 * and stderr go to wd/.stdout and wd/.stderr and are read back.  fork and
 * exec rather than system(), so no shell ever sees the paths.
 */
static proc run_argv(const char *const *args)
{
  const char *argv[64];
  int argc = 0;
  argv[argc++] = program;
  for (const char *const *a = args; *a; a++) {
    ck_assert_int_lt(argc, 63);
    argv[argc++] = *a;
  }
  argv[argc] = NULL;
  char out_path[PATH_MAX], err_path[PATH_MAX];
  wp(out_path, ".stdout");
  wp(err_path, ".stderr");
  /* Flush so the child does not inherit and repeat buffered output. */
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
  if (pid == 0) {
    int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fo < 0 || fe < 0 || dup2(fo, STDOUT_FILENO) < 0 || dup2(fe, STDERR_FILENO) < 0 || chdir(wd))
      _exit(127);
    close(fo);
    close(fe);
    execv(argv[0], (char *const *)argv);
    /* Only async-signal-safe calls between fork and _exit. */
    static const char msg[] = "test_experiments: cannot execute the program named by CDYN_PROGRAM\n";
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    ck_assert_msg(errno == EINTR, "waitpid: %s", strerror(errno));
  proc p;
  p.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  p.out = must_slurp(out_path);
  p.err = must_slurp(err_path);
  return p;
}

#define run_cdyn(...) run_argv((const char *const[]){__VA_ARGS__, NULL})

/* Run and require success; the output is not needed. */
#define run_ok(...)                                                                            \
  do {                                                                                         \
    proc p_ = run_cdyn(__VA_ARGS__);                                                           \
    ck_assert_msg(p_.status == 0, "cdyn exited with %d; stderr:\n%s", p_.status, p_.err);      \
    proc_free(&p_);                                                                            \
  } while (0)

/* ---- CSV ----------------------------------------------------------------------------- */

/* A numeric CSV file, optionally with a text label in the first column. */
typedef struct {
  size_t nrows, ncol;
  double *v;    /* nrows x ncol, row-major; NaN in the label column */
  char **label; /* the text fields of each row when labeled, joined by commas */
} table;

static double tv(const table *t, size_t r, size_t c)
{
  return t->v[r * t->ncol + c];
}

static void table_free(table *t)
{
  if (t->label)
    for (size_t r = 0; r < t->nrows; r++)
      free(t->label[r]);
  free(t->label);
  free(t->v);
}

/*
 * Read a CSV file whose first line must be exactly `header`; every other
 * line must have as many fields as the header and end with a newline.
 * The first `labeled` fields are text, the row's label (joined by commas
 * when there are several); every other field must be a finite number, or
 * NaN with `allow_nan`.
 */
static table read_table_ex(const char *path, const char *header, int labeled, int allow_nan)
{
  table t = {0, 1, NULL, NULL};
  for (const char *c = header; *c; c++)
    t.ncol += *c == ',';
  char *text = must_slurp(path);
  char *nl = strchr(text, '\n');
  ck_assert_msg(nl != NULL, "%s: no header line", path);
  *nl = '\0';
  ck_assert_msg(!strcmp(text, header), "%s: header\n  '%s'\nexpected\n  '%s'", path, text, header);
  size_t cap = 0;
  for (char *line = nl + 1; *line; line = nl + 1) {
    nl = strchr(line, '\n');
    ck_assert_msg(nl != NULL, "%s: row %zu does not end with a newline", path, t.nrows + 1);
    *nl = '\0';
    if (t.nrows == cap) {
      cap = cap ? 2 * cap : 64;
      t.v = realloc(t.v, cap * t.ncol * sizeof *t.v);
      ck_assert_ptr_nonnull(t.v);
      if (labeled) {
        t.label = realloc(t.label, cap * sizeof *t.label);
        ck_assert_ptr_nonnull(t.label);
      }
    }
    double *row = t.v + t.nrows * t.ncol;
    char *p = line;
    for (size_t c = 0; c < t.ncol; c++) {
      char *end = strchr(p, ',');
      ck_assert_msg((end != NULL) == (c + 1 < t.ncol), "%s: row %zu has %s than %zu fields: '%s'", path,
                    t.nrows + 1, end ? "more" : "fewer", t.ncol, line);
      if (end)
        *end = '\0';
      if (c == 0 && labeled) {
        t.label[t.nrows] = strdup(p);
        ck_assert_ptr_nonnull(t.label[t.nrows]);
        row[c] = NAN;
      } else if (c < (size_t)labeled) {
        /* A further text field joins the label after a comma. */
        char *l = t.label[t.nrows];
        size_t n = strlen(l);
        l = realloc(l, n + strlen(p) + 2);
        ck_assert_ptr_nonnull(l);
        l[n] = ',';
        strcpy(l + n + 1, p);
        t.label[t.nrows] = l;
        row[c] = NAN;
      } else {
        char *stop;
        errno = 0;
        row[c] = strtod(p, &stop);
        /* ERANGE with a subnormal result is a number, only smaller than a
           normal double; an overflow is not. */
        int range = errno == ERANGE && fabs(row[c]) >= DBL_MIN;
        ck_assert_msg(stop != p && !*stop && !range && (isfinite(row[c]) || (allow_nan && isnan(row[c]))),
                      "%s: row %zu, field %zu is '%s', not a finite number", path, t.nrows + 1, c + 1, p);
      }
      p = end ? end + 1 : p;
    }
    t.nrows++;
  }
  free(text);
  return t;
}

static table read_table(const char *path, const char *header, int labeled)
{
  return read_table_ex(path, header, labeled, 0);
}

/* The same, but a number may also be NaN ("nan"), which some files write
   for "not measured" (a run that never settled, a search off the grid). */
static table read_table_nan(const char *path, const char *header, int labeled)
{
  return read_table_ex(path, header, labeled, 1);
}

/*
 * Split one CSV line in place into at most `max` fields, undoing the
 * quoting ("..." with "" for a quote) the program uses for fields that
 * hold commas.  Returns the field count, -1 if malformed.
 */
static int split_csv(char *line, char **f, int max)
{
  char *out = line, *p = line;
  int n = 0;
  f[n++] = out;
  while (*p) {
    if (*p == '"') {
      for (p++;; p++) {
        if (!*p)
          return -1;
        if (*p == '"') {
          if (p[1] != '"')
            break;
          p++;
        }
        *out++ = *p;
      }
      p++;
    } else if (*p == ',') {
      *out++ = '\0';
      p++;
      if (n == max)
        return -1;
      f[n++] = out;
    } else {
      *out++ = *p++;
    }
  }
  *out = '\0';
  return n;
}

/* The lines of a text, split in place; every line must end with '\n'. */
static size_t split_lines(const char *what, char *text, char **lines, size_t max)
{
  size_t n = 0;
  for (char *p = text; *p;) {
    char *nl = strchr(p, '\n');
    ck_assert_msg(nl != NULL, "%s: last line has no newline", what);
    ck_assert_msg(n < max, "%s: more than %zu lines", what, max);
    *nl = '\0';
    lines[n++] = p;
    p = nl + 1;
  }
  return n;
}

static int is_verdict(const char *v)
{
  return !strcmp(v, "holds") || !strcmp(v, "partly") || !strcmp(v, "does-not-hold");
}

/* The fields of claim `id` in DIR/claims.part.csv (fields[6], pointing into
   *text, which the caller frees); fails the test when it is not there
   exactly once. */
static void claim_fields(const char *dir, const char *id, char **text, char **fields)
{
  char path[PATH_MAX];
  pathf(path, "%s/claims.part.csv", dir);
  *text = must_slurp(path);
  char *lines[64];
  size_t n = split_lines(path, *text, lines, 64), found = 0;
  for (size_t k = 0; k < n; k++) {
    char *f[8];
    ck_assert_msg(split_csv(lines[k], f, 8) == 6, "%s: line %zu does not have 6 fields", path, k + 1);
    ck_assert_msg(exp_claim_find(f[0]) != NULL, "%s: %s is not a claim of the table", path, f[0]);
    if (strcmp(f[0], id))
      continue;
    found++;
    memcpy(fields, f, 6 * sizeof *f);
  }
  ck_assert_msg(found == 1, "%s: claim %s found %zu times", path, id, found);
}

/*
 * Claim `id` of DIR/claims.part.csv against the table's rule applied to
 * the sub-measures v, recomputed by the caller from the runs' files: the
 * verdict must be the rule's, the measured value the rule's measured
 * sub-measure (printed with 6 significant digits: within rel), and the
 * threshold text the rule's.
 */
static void check_claim(const char *dir, const char *id, const exp_value *v, size_t n, double rel)
{
  const exp_claim_def *c = exp_claim_find(id);
  ck_assert_msg(c != NULL, "no claim %s in the table", id);
  enum exp_verdict verdict;
  double measured = NAN;
  ck_assert_msg(exp_verdict(c, v, n, &verdict, &measured) == CDYN_OK, "%s: %s", id, cdyn_errmsg());
  char *text, *f[6], rule[1024];
  claim_fields(dir, id, &text, f);
  ck_assert_str_eq(f[1], c->experiment);
  ck_assert_msg(!strcmp(f[4], exp_verdict_name(verdict)), "%s: %s is '%s', but its rule on the runs gives '%s'", dir,
                id, f[4], exp_verdict_name(verdict));
  char *end;
  double m = strtod(f[2], &end);
  ck_assert_msg(end != f[2] && !*end, "%s: %s measured '%s'", dir, id, f[2]);
  ck_assert_msg((isnan(m) && isnan(measured)) || m == measured || fabs(m - measured) <= rel * fabs(measured),
                "%s: %s measured %s, the runs give %.6g", dir, id, f[2], measured);
  exp_rule_text(c, rule, sizeof rule);
  ck_assert_str_eq(f[3], rule);
  free(text);
}

/* The run names of DIR/run.meta.json, in order; *n gets their number. */
static void read_runs(const char *dir, char names[][64], size_t max, size_t *n)
{
  char path[PATH_MAX];
  pathf(path, "%s/run.meta.json", dir);
  char *json = must_slurp(path);
  const char *s = strstr(json, "\"runs\": [");
  ck_assert_msg(s != NULL, "%s: no runs", path);
  const char *end = strstr(s, "\n  ]");
  ck_assert_msg(end != NULL, "%s: runs not closed", path);
  *n = 0;
  for (const char *p = strstr(s, "{\"name\": \""); p && p < end; p = strstr(p + 1, "{\"name\": \"")) {
    p += strlen("{\"name\": \"");
    size_t len = strcspn(p, "\"");
    ck_assert_msg(*n < max && len < 64, "%s: too many or too long run names", path);
    memcpy(names[*n], p, len);
    names[*n][len] = '\0';
    (*n)++;
  }
  free(json);
}

static int run_listed(char names[][64], size_t n, const char *name)
{
  for (size_t k = 0; k < n; k++)
    if (!strcmp(names[k], name))
      return 1;
  return 0;
}

/*
 * DIR/claims.part.csv holds exactly the claims the table gives
 * `experiment`, in the table's order: each a verdict when every run it
 * needs is in DIR/run.meta.json, else not-run with the reason.  Returns
 * the number judged.
 */
static size_t check_claims_part(const char *dir, const char *experiment)
{
  char names[64][64], path[PATH_MAX];
  size_t nr, judged = 0, want = 0;
  read_runs(dir, names, 64, &nr);
  pathf(path, "%s/claims.part.csv", dir);
  char *text = must_slurp(path);
  char *lines[64], *fields[64][8];
  size_t n = split_lines(path, text, lines, 64);
  for (size_t j = 0; j < n; j++)
    ck_assert_msg(split_csv(lines[j], fields[j], 8) == 6, "%s: line %zu does not have 6 fields", path, j + 1);
  for (size_t k = 0; k < NCLAIMS; k++) {
    const exp_claim_def *c = &exp_claim_defs[k];
    if (!c->experiment || strcmp(c->experiment, experiment))
      continue;
    want++;
    char **f = NULL;
    size_t found = 0;
    for (size_t j = 0; j < n; j++)
      if (!strcmp(fields[j][0], c->id)) {
        found++;
        f = fields[j];
      }
    ck_assert_msg(found == 1, "%s: claim %s found %zu times", path, c->id, found);
    ck_assert_str_eq(f[1], experiment);
    int ready = 1;
    for (const char *r = c->runs; *r;) {
      char run[64];
      size_t len = strcspn(r, ",");
      snprintf(run, sizeof run, "%.*s", (int)len, r);
      ready &= run_listed(names, nr, run);
      r += len + (r[len] == ',');
    }
    if (ready) {
      ck_assert_msg(is_verdict(f[4]), "%s: %s has verdict '%s' though its runs %s ran", path, c->id, f[4], c->runs);
      judged++;
    } else {
      ck_assert_msg(!strcmp(f[4], "not-run") && !*f[2] && strstr(f[5], c->runs),
                    "%s: %s needs runs %s, not all in the run, but is '%s' (%s)", path, c->id, c->runs, f[4], f[5]);
    }
  }
  ck_assert_msg(n == want, "%s: %zu lines, expected the %zu claims of %s", path, n, want, experiment);
  free(text);
  return judged;
}

/* ---- metadata ---------------------------------------------------------------- */

/* The value of the first "key": NUMBER in a JSON text. */
static double json_number(const char *path, const char *json, const char *key)
{
  char pat[128];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *s = strstr(json, pat);
  ck_assert_msg(s != NULL, "%s: no %s", path, pat);
  s += strlen(pat);
  char *end;
  double x = strtod(s, &end);
  ck_assert_msg(end != s && (*end == ',' || *end == '\n' || *end == '}'), "%s: %s is not a number", path, key);
  return x;
}

/* Does the JSON text hold "key": "value" (a string)? */
static int json_has_string(const char *json, const char *key, const char *value)
{
  char pat[512];
  snprintf(pat, sizeof pat, "\"%s\": \"%s\"", key, value);
  return strstr(json, pat) != NULL;
}

/*
 * Check DIR/NAME.meta.json: the version, the exact command, h and steps
 * (h = 0: both null, the experiment chooses them per run), and the
 * experiment parameter `param` = `value` inside "params" (the scheme
 * options may hold a field of the same name, so the search is bounded;
 * `param` NULL for an experiment without parameters).
 */
static void check_meta(const char *dir, const char *name, const char *command, double h, long steps,
                       const char *param, const char *value)
{
  char path[PATH_MAX];
  pathf(path, "%s/%s.meta.json", dir, name);
  char *json = must_slurp(path);
  ck_assert_msg(json_has_string(json, "version", cdyn_version()), "%s: no \"version\": \"%s\"", path,
                cdyn_version());
  ck_assert_msg(json_has_string(json, "command", command), "%s: no \"command\": \"%s\":\n%s", path, command,
                json);
  if (h == 0) {
    /* An experiment that chooses its step sizes per run says null. */
    ck_assert_msg(strstr(json, "\n  \"h\": null,\n  \"steps\": null,") != NULL, "%s: h and steps are not null:\n%s",
                  path, json);
  } else {
    ck_assert_msg(json_number(path, json, "h") == h, "%s: h is %.17g, expected %.17g", path,
                  json_number(path, json, "h"), h);
    ck_assert_msg(json_number(path, json, "steps") == (double)steps, "%s: steps is %g, expected %ld", path,
                  json_number(path, json, "steps"), steps);
  }
  char *params = strstr(json, "\"params\": {");
  ck_assert_msg(params != NULL, "%s: no \"params\"", path);
  if (!param) {
    free(json);
    return;
  }
  char *close = strchr(params, '}');
  ck_assert_ptr_nonnull(close);
  *close = '\0';
  ck_assert_msg(json_has_string(params, param, value), "%s: params do not hold \"%s\": \"%s\":\n%s", path,
                param, value, params);
  free(json);
}

/* A metadata text without its "command" line, which names the --out dir. */
static char *strip_command(const char *json)
{
  char *copy = strdup(json);
  ck_assert_ptr_nonnull(copy);
  char *line = strstr(copy, "\n  \"command\": ");
  ck_assert_msg(line != NULL, "metadata without a command line:\n%s", json);
  char *next = strchr(line + 1, '\n');
  ck_assert_ptr_nonnull(next);
  memmove(line, next, strlen(next) + 1);
  return copy;
}

/* ---- checks of an arm run ------------------------------------------------------------ */

/*
 * The columns every arm run must satisfy: step = 0 .. steps, t = step h,
 * e >= 0, e_sum the running sum of e; the arm starts on its constraints
 * (e = 0) and at rest in the horizontal, where V = -m g.y = 0 (E = 0).
 */
static void check_arm_run(const char *path, const table *t, double h, long steps)
{
  ck_assert_msg(t->nrows == (size_t)steps + 1, "%s: %zu rows, expected %ld", path, t->nrows, steps + 1);
  double sum = 0;
  for (size_t r = 0; r < t->nrows; r++) {
    double e = tv(t, r, C_E);
    sum += e;
    ck_assert_msg(tv(t, r, C_STEP) == (double)r, "%s: row %zu has step %g", path, r, tv(t, r, C_STEP));
    double want_t = (double)r * h;
    ck_assert_msg(fabs(tv(t, r, C_T) - want_t) <= 1e-15 * fmax(1, want_t), "%s: step %zu at t = %.17g, not %.17g",
                  path, r, tv(t, r, C_T), want_t);
    ck_assert_msg(e >= 0, "%s: step %zu has e = %g < 0", path, r, e);
    ck_assert_msg(fabs(tv(t, r, C_ESUM) - sum) <= 1e-12 * sum, "%s: step %zu: e_sum %.17g, running sum %.17g",
                  path, r, tv(t, r, C_ESUM), sum);
  }
  ck_assert_msg(tv(t, 0, C_E) == 0, "%s: e at step 0 is %g, not 0", path, tv(t, 0, C_E));
  ck_assert_msg(tv(t, 0, C_EN) == 0, "%s: E at step 0 is %g, not 0", path, tv(t, 0, C_EN));
}

/* No half-written file (".NAME.tmp", "NAME.tmp") may survive a run. */
static void check_no_temporaries(const char *dir)
{
  dirlist l = list_dir(dir);
  for (size_t k = 0; k < l.n; k++)
    ck_assert_msg(l.name[k][0] != '.' && !has_suffix(l.name[k], ".tmp"), "%s: temporary file %s left behind",
                  dir, l.name[k]);
  dirlist_free(&l);
}

/* ---- 1. --help, --version, list ----------------------------------------------- */

/* Is `name` the first word of a line in the section that starts with the
   line beginning `heading` (a section ends at an empty line)? */
static int listed_in(const char *out, const char *heading, const char *name)
{
  const char *s = out;
  while (s && strncmp(s, heading, strlen(heading))) {
    s = strchr(s, '\n');
    s = s ? s + 1 : NULL;
  }
  if (!s)
    return 0;
  for (s = strchr(s, '\n'); s && s[1] && s[1] != '\n'; s = strchr(s + 1, '\n')) {
    const char *w = s + 1;
    while (*w == ' ')
      w++;
    size_t n = strlen(name);
    if (!strncmp(w, name, n) && (w[n] == ' ' || w[n] == '\n'))
      return 1;
  }
  return 0;
}

START_TEST(test_help_and_list)
{
  proc p = run_cdyn("--help");
  ck_assert_msg(p.status == 0, "cdyn --help exited with %d", p.status);
  ck_assert_msg(strstr(p.out, "usage") != NULL, "cdyn --help does not print usage:\n%s", p.out);
  proc_free(&p);

  p = run_cdyn("--version");
  ck_assert_int_eq(p.status, 0);
  char want[128];
  snprintf(want, sizeof want, "cdyn %s (commit ", cdyn_version());
  ck_assert_msg(!strncmp(p.out, want, strlen(want)), "cdyn --version: %s", p.out);
  proc_free(&p);

  /* A scheme in full: every option a stepper of it has, with its default
     and doc (cdyn_scheme_option, the same list cdyn_stepper_option_* gives). */
  for (size_t i = 0; i < cdyn_scheme_count(); i++) {
    p = run_cdyn("list", cdyn_scheme_name(i));
    ck_assert_msg(p.status == 0, "cdyn list %s exited with %d: %s", cdyn_scheme_name(i), p.status, p.err);
    for (size_t k = 0; k < cdyn_scheme_option_count(i); k++) {
      const char *name, *def, *doc;
      ck_assert_int_eq(cdyn_scheme_option(i, k, &name, &def, &doc), CDYN_OK);
      char line[512];
      snprintf(line, sizeof line, "%-14s = %-18s %s\n", name, def, doc);
      ck_assert_msg(strstr(p.out, line) != NULL, "cdyn list %s lacks the line '%s':\n%s", cdyn_scheme_name(i), line,
                    p.out);
    }
    proc_free(&p);
  }
  /* An experiment in full, twice the same way; nothing is written. */
  p = run_cdyn("list", "chain10-stability");
  proc q = run_cdyn("run", "chain10-stability", "--help");
  ck_assert_msg(p.status == 0 && q.status == 0, "list/--help exited with %d/%d: %s%s", p.status, q.status, p.err,
                q.err);
  ck_assert_str_eq(p.out, q.out);
  static const char *const want_help[] = {"sawtooth       = 45       (0, 90)", "trials         = 20       integer [0, 100000]",
                                          "companion run poststab-mass: poststab weighting=mass",
                                          "chain10.poststab_fails", "--h 0.001 (default)"};
  for (size_t k = 0; k < sizeof want_help / sizeof want_help[0]; k++)
    ck_assert_msg(strstr(p.out, want_help[k]) != NULL, "cdyn list chain10-stability lacks '%s':\n%s", want_help[k],
                  p.out);
  proc_free(&p);
  proc_free(&q);
  char dir[PATH_MAX];
  ck_assert_msg(!exists(wp(dir, "chain10-stability")), "--help wrote %s", dir);
  p = run_cdyn("list", "nosuch");
  ck_assert_msg(p.status == 2 && strstr(p.err, "nosuch"), "cdyn list nosuch: %d %s", p.status, p.err);
  proc_free(&p);

  p = run_cdyn("list");
  ck_assert_msg(p.status == 0, "cdyn list exited with %d: %s", p.status, p.err);
  ck_assert_uint_gt(cdyn_scheme_count(), 0);
  for (size_t i = 0; i < cdyn_scheme_count(); i++)
    ck_assert_msg(listed_in(p.out, "schemes", cdyn_scheme_name(i)), "cdyn list does not list scheme %s:\n%s",
                  cdyn_scheme_name(i), p.out);
  for (size_t i = 0; i < cdyn_activeset_count(); i++)
    ck_assert_msg(listed_in(p.out, "active-set algorithms", cdyn_activeset_name(i)),
                  "cdyn list does not list active-set algorithm %s:\n%s", cdyn_activeset_name(i), p.out);
  static const char *const exps[] = {"arm2-drift", "arm2-trajectory", "step-cost",   "convergence",
                                     "stability",  "bad-initial",     "bead-circle", "stiff-pendulum",
                                     "chain10-stability", "corner", "billiard", "active-set-census", "ccd-census"};
  for (size_t i = 0; i < sizeof exps / sizeof exps[0]; i++)
    ck_assert_msg(listed_in(p.out, "experiments", exps[i]), "cdyn list does not list experiment %s:\n%s",
                  exps[i], p.out);
  proc_free(&p);
}
END_TEST

/* ---- 2. arm2-drift, short run ------------------------------------------------------- */

START_TEST(test_drift_short_run)
{
  run_ok("run", "arm2-drift", "--steps", "40", "--out", "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  /* The paper's three schemes and Baumgarte without feedback are among
     the runs; each run is one file, and nothing else pretends to be data. */
  char runs[64][64];
  size_t nr;
  read_runs(dir, runs, 64, &nr);
  static const char *const paper[] = {"baumgarte", "poststab", "implicit", "baumgarte-a0b0"};
  for (size_t k = 0; k < 4; k++)
    ck_assert_msg(run_listed(runs, nr, paper[k]), "%s: no run %s", dir, paper[k]);
  for (size_t k = 0; k < nr; k++) {
    pathf(path, "%s/%s.csv", dir, runs[k]);
    table t = read_table(path, ARM_COLUMNS, 0);
    check_arm_run(path, &t, 0.05, 40);
    table_free(&t);
    check_meta(dir, runs[k], "cdyn run arm2-drift --steps 40 --out a", 0.05, 40, "alpha", "2");
  }
  /* A file per run, runs.csv and the claims; each CSV with its record, and
     run.meta.json. */
  dirlist l = list_dir(dir);
  ck_assert_uint_eq(count_suffix(&l, ".csv"), nr + 2);
  ck_assert_uint_eq(count_suffix(&l, ".meta.json"), nr + 2);
  dirlist_free(&l);
  check_no_temporaries(dir);
  ck_assert_uint_eq(check_claims_part(dir, "arm2-drift"), 3);
  /* runs.csv lists the same runs, with their schemes and roles. */
  pathf(path, "%s/runs.csv", dir);
  char *rtext = must_slurp(path), *rl[64];
  size_t nl = split_lines(path, rtext, rl, 64);
  ck_assert_msg(nl == nr + 1 && !strcmp(rl[0], "run,scheme,role"), "%s: %zu lines", path, nl);
  for (size_t k = 0; k < nr; k++) {
    char *f[4];
    ck_assert_int_eq(split_csv(rl[k + 1], f, 4), 3);
    ck_assert_str_eq(f[0], runs[k]);
    ck_assert_str_eq(f[1], strcmp(runs[k], "baumgarte-a0b0") ? runs[k] : "baumgarte");
    ck_assert_str_eq(f[2], strcmp(runs[k], "baumgarte-a0b0") ? "paper" : "companion");
  }
  free(rtext);

  pathf(path, "%s/claims.part.csv", dir);
  char *text = must_slurp(path);
  char *lines[16];
  size_t n = split_lines(path, text, lines, 16);
  ck_assert_msg(n == 3, "%s: %zu lines, expected 3", path, n);
  for (size_t k = 0; k < 3; k++) {
    char *f[8];
    int nf = split_csv(lines[k], f, 8);
    ck_assert_msg(nf == 6, "%s: line %zu has %d fields, expected 6", path, k + 1, nf);
    ck_assert_str_eq(f[0], drift_claims[k]);
    ck_assert_str_eq(f[1], "arm2-drift");
    char *end;
    double measured = strtod(f[2], &end);
    ck_assert_msg(end != f[2] && !*end && isfinite(measured), "%s: %s measured '%s'", path, f[0], f[2]);
    ck_assert_msg(is_verdict(f[4]), "%s: %s has verdict '%s'", path, f[0], f[4]);
  }
  free(text);
}
END_TEST

/* ---- 3. determinism ---------------------------------------------------------------------- */

/*
 * The directories wd/a and wd/b, written by the same command but for
 * --out, must hold the same files with the same bytes (the metadata
 * differing only in the command line, which names the --out directory),
 * among them at least `min_csv` CSV files.
 */
static void check_same_output(size_t min_csv)
{
  char da[PATH_MAX], db[PATH_MAX];
  wp(da, "a");
  wp(db, "b");
  dirlist la = list_dir(da), lb = list_dir(db);
  ck_assert_uint_eq(la.n, lb.n);
  ck_assert_uint_ge(count_suffix(&la, ".csv"), min_csv);
  for (size_t k = 0; k < la.n; k++) {
    ck_assert_str_eq(la.name[k], lb.name[k]);
    char pa[PATH_MAX], pb[PATH_MAX];
    pathf(pa, "%s/%s", da, la.name[k]);
    pathf(pb, "%s/%s", db, lb.name[k]);
    size_t na, nb;
    char *a = slurp(pa, &na), *b = slurp(pb, &nb);
    ck_assert_msg(a && b, "cannot read %s or %s", pa, pb);
    if (has_suffix(la.name[k], ".meta.json")) {
      ck_assert_msg(strstr(a, "--out a\"") && strstr(b, "--out b\""), "%s: the command does not name its --out",
                    la.name[k]);
      char *sa = strip_command(a), *sb = strip_command(b);
      ck_assert_msg(!strcmp(sa, sb), "%s differs between runs beyond the command:\n%s\n---\n%s", la.name[k], a, b);
      free(sa);
      free(sb);
    } else {
      /* CSV data and the claim verdicts: the same command gives the same bytes. */
      ck_assert_msg(na == nb && !memcmp(a, b, na), "%s differs between two identical runs", la.name[k]);
    }
    free(a);
    free(b);
  }
  dirlist_free(&la);
  dirlist_free(&lb);
}

START_TEST(test_drift_deterministic)
{
  run_ok("run", "arm2-drift", "--steps", "40", "--out", "a");
  run_ok("run", "arm2-drift", "--steps", "40", "--out", "b");
  check_same_output(5);
}
END_TEST

/* ---- 4. --scheme ------------------------------------------------------------------------ */

START_TEST(test_scheme_restricts_run)
{
  run_ok("run", "arm2-drift", "--scheme", "implicit", "--steps", "40", "--out", "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  /* implicit, and the companion run, which belongs to the experiment. */
  char runs[64][64];
  size_t nr;
  read_runs(dir, runs, 64, &nr);
  ck_assert_msg(nr == 2 && !strcmp(runs[0], "implicit") && !strcmp(runs[1], "baumgarte-a0b0"),
                "%s: runs %zu (%s ...)", dir, nr, runs[0]);
  for (size_t k = 0; k < nr; k++) {
    pathf(path, "%s/%s.csv", dir, runs[k]);
    table t = read_table(path, ARM_COLUMNS, 0);
    check_arm_run(path, &t, 0.05, 40);
    table_free(&t);
  }
  pathf(path, "%s/baumgarte.csv", dir);
  ck_assert_msg(!exists(path), "%s written by a --scheme implicit run", path);
  /* Every claim needs a scheme that did not run: all not-run, with why. */
  ck_assert_uint_eq(check_claims_part(dir, "arm2-drift"), 0);
  check_no_temporaries(dir);
}
END_TEST

/* A scheme beside the paper's: in the files and the metadata, the paper's
   claims judged as before, and its options reach it alone. */
START_TEST(test_extra_scheme)
{
  run_ok("run", "arm2-drift", "--steps", "40", "--out", "a");
  run_ok("run", "arm2-drift", "--steps", "40", "--extra-schemes", "rattle,baumgarte", "--set", "rattle.tol=1e-6",
         "--set", "solver=pcg", "--out", "b");
  char da[PATH_MAX], db[PATH_MAX], pa[PATH_MAX], pb[PATH_MAX];
  wp(da, "a");
  wp(db, "b");
  char runs[64][64];
  size_t nr;
  read_runs(db, runs, 64, &nr);
  ck_assert_msg(nr == 5 && !strcmp(runs[3], "rattle") && !strcmp(runs[4], "baumgarte-a0b0"),
                "%s: %zu runs, the fourth %s", db, nr, runs[3]);
  pathf(pb, "%s/rattle.csv", db);
  table t = read_table(pb, ARM_COLUMNS, 0);
  check_arm_run(pb, &t, 0.05, 40);
  table_free(&t);
  pathf(pa, "%s/rattle.meta.json", db);
  char *meta = must_slurp(pa);
  ck_assert_msg(strstr(meta, "\"tol\": \"9.9999999999999995e-07\"") && strstr(meta, "\"solver\": \"pcg\""),
                "%s: rattle.tol=1e-6 and solver=pcg did not reach rattle:\n%s", pa, meta);
  free(meta);
  /* The solver reaches every run, the tolerance only rattle; pcg changes
     the last bits of implicit's error, and the verdicts stay the table's. */
  pathf(pa, "%s/implicit.meta.json", db);
  meta = must_slurp(pa);
  ck_assert_msg(strstr(meta, "\"solver\": \"pcg\"") && !strstr(meta, "\"tol\""), "%s:\n%s", pa, meta);
  free(meta);
  ck_assert_uint_eq(check_claims_part(db, "arm2-drift"), 3);
  char *text, *f[6];
  claim_fields(db, "arm2.implicit_tight", &text, f);
  ck_assert_msg(strstr(f[5], "with --set solver=pcg") != NULL, "the note does not say the runs were modified: %s",
                f[5]);
  free(text);
  /* Without --set, the paper's runs are the same bytes with or without an
     extra scheme beside them. */
  run_ok("run", "arm2-drift", "--steps", "40", "--extra-schemes", "rattle", "--out", "c");
  static const char *const same[] = {"baumgarte", "poststab", "implicit", "baumgarte-a0b0", "claims.part"};
  for (size_t k = 0; k < 5; k++) {
    size_t na, nc;
    pathf(pa, "%s/%s.csv", da, same[k]);
    pathf(pb, "%s/c/%s.csv", wd, same[k]);
    char *a = slurp(pa, &na), *c = slurp(pb, &nc);
    ck_assert_msg(a && c && na == nc && !memcmp(a, c, na), "%s differs with an extra scheme", pb);
    free(a);
    free(c);
  }
}
END_TEST

/* ---- 5. --set ---------------------------------------------------------------------------- */

START_TEST(test_set_reaches_scheme)
{
  run_ok("run", "arm2-drift", "--scheme", "baumgarte", "--steps", "100", "--out", "def");
  run_ok("run", "arm2-drift", "--set", "alpha=0", "--set", "beta=0", "--scheme", "baumgarte", "--steps", "100",
         "--out", "zero");
  /* The full default run writes baumgarte-a0b0 (alpha = beta = 0 set by
     the experiment itself): the --set run must reproduce it exactly. */
  run_ok("run", "arm2-drift", "--steps", "100", "--out", "all");
  char pd[PATH_MAX], pz[PATH_MAX], pa[PATH_MAX];
  wp(pd, "def/baumgarte.csv");
  wp(pz, "zero/baumgarte.csv");
  wp(pa, "all/baumgarte-a0b0.csv");
  table td = read_table(pd, ARM_COLUMNS, 0), tz = read_table(pz, ARM_COLUMNS, 0);
  check_arm_run(pd, &td, 0.05, 100);
  check_arm_run(pz, &tz, 0.05, 100);
  size_t differ = 0;
  for (size_t r = 0; r < td.nrows; r++)
    differ += tv(&td, r, C_E) != tv(&tz, r, C_E);
  ck_assert_msg(differ > 0, "--set alpha=0 --set beta=0 did not change Baumgarte's error column");
  table_free(&td);
  table_free(&tz);

  size_t nz, na;
  char *z = slurp(pz, &nz), *a = slurp(pa, &na);
  ck_assert_msg(z && a, "cannot read %s or %s", pz, pa);
  ck_assert_msg(nz == na && !memcmp(z, a, nz), "%s differs from %s", pz, pa);
  free(z);
  free(a);

  char dir[PATH_MAX];
  check_meta(wp(dir, "zero"), "baumgarte",
             "cdyn run arm2-drift --set alpha=0 --set beta=0 --scheme baumgarte --steps 100 --out zero", 0.05, 100,
             "alpha", "0");
  check_meta(dir, "baumgarte",
             "cdyn run arm2-drift --set alpha=0 --set beta=0 --scheme baumgarte --steps 100 --out zero", 0.05, 100,
             "beta", "0");
  check_meta(wp(dir, "def"), "baumgarte", "cdyn run arm2-drift --scheme baumgarte --steps 100 --out def", 0.05,
             100, "alpha", "2");
}
END_TEST

/* ---- 6. arm2-trajectory, short run -------------------------------------------------- */

START_TEST(test_trajectory_short_run)
{
  run_ok("run", "arm2-trajectory", "--steps", "20", "--out", "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);

  /* The reference: rigid links of length 1 from the pivot at the origin,
     energy conserved (it starts at rest in the horizontal, E = 0). */
  pathf(path, "%s/reference.csv", dir);
  table ref = read_table(path, "t,x1,y1,x2,y2,E", 0);
  ck_assert_msg(ref.nrows == 21, "%s: %zu rows, expected 21", path, ref.nrows);
  for (size_t r = 0; r < ref.nrows; r++) {
    double t = tv(&ref, r, 0), x1 = tv(&ref, r, 1), y1 = tv(&ref, r, 2), x2 = tv(&ref, r, 3), y2 = tv(&ref, r, 4);
    ck_assert_msg(fabs(t - (double)r * 0.05) <= 1e-15, "%s: row %zu at t = %.17g", path, r, t);
    ck_assert_msg(fabs(hypot(x1, y1) - 1) <= 1e-10, "%s: t = %g: |x1 - x0| = %.17g", path, t, hypot(x1, y1));
    ck_assert_msg(fabs(hypot(x2 - x1, y2 - y1) - 1) <= 1e-10, "%s: t = %g: |x2 - x1| = %.17g", path, t,
                  hypot(x2 - x1, y2 - y1));
    ck_assert_msg(fabs(tv(&ref, r, 5)) <= 1e-8, "%s: t = %g: E = %g, not conserved", path, t, tv(&ref, r, 5));
  }
  check_meta(dir, "reference", "cdyn run arm2-trajectory --steps 20 --out a", 0.05, 20, "track_tol", "0.1");

  /* The tracking summary: each scheme at h, h/2, h/4, h/8 over the same
     1 s, and each row must agree with the run file it summarises. */
  pathf(path, "%s/tracking.csv", dir);
  table tr = read_table(path, "scheme,h,steps,t_track,tracked_all,max_e,E_end", 1);
  ck_assert_msg(tr.nrows == 12, "%s: %zu rows, expected 12", path, tr.nrows);
  static const char *const schemes[] = {"baumgarte", "poststab", "implicit"};
  static const char *const hname[] = {"0.05", "0.025", "0.0125", "0.00625"};
  const double tol = 0.1;
  for (size_t s = 0; s < 3; s++)
    for (size_t d = 0; d < 4; d++) {
      size_t r = 4 * s + d;
      double h = 0.05 / (double)(1 << d);
      long steps = 20L << d;
      ck_assert_str_eq(tr.label[r], schemes[s]);
      ck_assert_msg(tv(&tr, r, 1) == h, "%s: row %zu: h = %.17g, expected %.17g", path, r + 1, tv(&tr, r, 1), h);
      ck_assert_msg(tv(&tr, r, 2) == (double)steps, "%s: row %zu: steps = %g, expected %ld", path, r + 1,
                    tv(&tr, r, 2), steps);
      double t_track = tv(&tr, r, 3), all = tv(&tr, r, 4);
      ck_assert_msg(all == 0 || all == 1, "%s: row %zu: tracked_all = %g", path, r + 1, all);

      char run[PATH_MAX];
      pathf(run, "%s/%s_h%s.csv", dir, schemes[s], hname[d]);
      table t = read_table(run, ARM_COLUMNS ",y_ref,dev", 0);
      check_arm_run(run, &t, h, steps);
      double max_e = 0, first_out = -1;
      for (size_t k = 0; k < t.nrows; k++) {
        double dev = tv(&t, k, C_DEV);
        ck_assert_msg(fabs(dev - (tv(&t, k, C_Y2) - tv(&t, k, C_YREF))) <= 1e-12,
                      "%s: step %zu: dev %.17g != y2 - y_ref", run, k, dev);
        max_e = fmax(max_e, tv(&t, k, C_E));
        if (first_out < 0 && fabs(dev) > tol)
          first_out = tv(&t, k, C_T);
        /* Every run compares with the same reference: where its time grid
           meets the base grid, y_ref is the reference's y2 (exactly at h,
           to the reference's accuracy at h/2^d, whose integration stops at
           other times). */
        if (k % (1u << d) == 0) {
          size_t rr = k >> d;
          ck_assert_msg(tv(&t, k, C_T) == tv(&ref, rr, 0), "%s: step %zu at t = %.17g, reference at %.17g", run, k,
                        tv(&t, k, C_T), tv(&ref, rr, 0));
          double diff = fabs(tv(&t, k, C_YREF) - tv(&ref, rr, 4));
          ck_assert_msg(diff <= (d == 0 ? 1e-12 : 1e-9), "%s: t = %g: y_ref %.17g, reference y2 %.17g", run,
                        tv(&t, k, C_T), tv(&t, k, C_YREF), tv(&ref, rr, 4));
        }
      }
      ck_assert_msg(tv(&tr, r, 5) == max_e, "%s: row %zu: max_e %.17g, but %s has %.17g", path, r + 1,
                    tv(&tr, r, 5), run, max_e);
      ck_assert_msg(tv(&tr, r, 6) == tv(&t, t.nrows - 1, C_EN), "%s: row %zu: E_end %.17g, but %s ends at %.17g",
                    path, r + 1, tv(&tr, r, 6), run, tv(&t, t.nrows - 1, C_EN));
      if (first_out < 0) {
        ck_assert_msg(all == 1 && t_track == (double)steps * h,
                      "%s: row %zu: %s stays within %g, but tracked_all = %g, t_track = %g", path, r + 1, run, tol,
                      all, t_track);
      } else {
        ck_assert_msg(all == 0 && t_track == first_out,
                      "%s: row %zu: %s leaves the band at t = %g, but tracked_all = %g, t_track = %g", path, r + 1, run,
                      first_out, all, t_track);
      }
      table_free(&t);
      pathf(run, "%s_h%s", schemes[s], hname[d]);
      check_meta(dir, run, "cdyn run arm2-trajectory --steps 20 --out a", 0.05, 20, "track_tol", "0.1");
    }
  table_free(&tr);
  table_free(&ref);

  pathf(path, "%s/claims.part.csv", dir);
  char *text = must_slurp(path);
  ck_assert_msg(strstr(text, "arm2.implicit_tracks_reference,") && strstr(text, "arm2.poststab_deviates,"),
                "%s lacks the trajectory claims:\n%s", path, text);
  free(text);
}
END_TEST

/* ---- 7. bad input ---------------------------------------------------------------------- */

typedef struct {
  const char *args[12];
  const char *names;   /* what stderr must mention */
  const char *outdir;  /* the --out directory, if any */
} bad_case;

/* Every one is refused before anything is written: the parameters against
   their table, scheme options on a scratch stepper, the experiment's own
   checks across parameters. */
static const bad_case bad_cases[] = {
  {{"run", "nope", "--out", "o1", NULL}, "nope", "o1"},
  {{"run", "arm2-drift", "--scheme", "nope", "--out", "o2", NULL}, "nope", "o2"},
  {{"run", "arm2-drift", "--h", "0", "--out", "o3", NULL}, "--h", "o3"},
  {{"run", "arm2-drift", "--h", "-1", "--out", "o4", NULL}, "--h", "o4"},
  {{"run", "arm2-drift", "--h", "nan", "--out", "o5", NULL}, "--h", "o5"},
  {{"run", "arm2-drift", "--steps", "0", "--out", "o6", NULL}, "--steps", "o6"},
  {{"run", "arm2-drift", "--set", "nokey=1", "--out", "o7", NULL}, "nokey", "o7"},
  {{"run", "arm2-drift", "--steps", "5", "--set", "alpha=abc", "--out", "o8", NULL}, "alpha = 'abc'", "o8"},
  {{"run", "arm2-drift", "--steps", "5", "--set", "mass=-1", "--out", "o9", NULL}, "mass = '-1'", "o9"},
  {{"run", "arm2-drift", "--steps", "5", "--set", "links=0", "--out", "o10", NULL}, "links = '0'", "o10"},
  {{"run", "chain-scale-stability", "--set", "links_min=20", "--set", "links_max=10", "--out", "o10b", NULL},
   "links_min = 20 is above links_max", "o10b"},
  {{"run", "chain-scale-stability", "--set", "links_min=1", "--set", "links_max=100000", "--out", "o10c", NULL},
   "more than 16 sizes", "o10c"},
  {{"run", "chain-scale-stability", "--h", "0.01", "--out", "o10d", NULL}, "--h", "o10d"},
  {{"run", "cloth-elongation", "--set", "snapshots=0.1,x", "--out", "o11a", NULL}, "snapshots", "o11a"},
  {{"run", "cloth-vs-implicit-ode", "--set", "grids=32,16", "--out", "o11b", NULL}, "grids", "o11b"},
  {{"run", "cloth-vs-implicit-ode", "--h", "0.01", "--out", "o11c", NULL}, "--h", "o11c"},
  {{"run", "cloth-contact", "--set", "snapshots=x", "--out", "o11e", NULL}, "snapshots", "o11e"},
  {{"run", "collision-cost", "--set", "grids=1", "--out", "o11f", NULL}, "grids", "o11f"},
  {{"run", "collision-cost", "--steps", "5", "--out", "o11g", NULL}, "--steps", "o11g"},
  {{"run", "arm2-drift", "--scheme", "baraff-witkin", "--out", "o11d", NULL}, "pins only", "o11d"},
  /* Without its value --out must not fall back to ./arm2-drift. */
  {{"run", "arm2-drift", "--steps", "5", "--out", NULL}, "--out", "arm2-drift"},
  {{"run", "convergence", "--set", "levels=1", "--out", "o11", NULL}, "levels = '1'", "o11"},
  {{"run", "convergence", "--set", "levels=x", "--out", "o12", NULL}, "levels = 'x'", "o12"},
  {{"run", "convergence", "--set", "n0=2.5", "--out", "o13", NULL}, "n0 = '2.5'", "o13"},
  {{"run", "stability", "--set", "err_frac=-1", "--out", "o14", NULL}, "err_frac = '-1'", "o14"},
  {{"run", "stability", "--set", "energy_frac=0", "--out", "o15", NULL}, "energy_frac = '0'", "o15"},
  {{"run", "bead-circle", "--set", "theta0=4", "--out", "o16", NULL}, "theta0 = '4'", "o16"},
  {{"run", "stiff-pendulum", "--set", "damping=-1", "--out", "o18", NULL}, "damping = '-1'", "o18"},
  {{"run", "bad-initial", "--set", "levels=3", "--out", "o19", NULL}, "levels", "o19"},
  {{"run", "arm5-improved", "--set", "order_levels=1", "--out", "o20", NULL}, "order_levels = '1'", "o20"},
  {{"run", "arm5-improved", "--set", "diverge_frac=0", "--out", "o21", NULL}, "diverge_frac = '0'", "o21"},
  {{"run", "arm5-improved", "--set", "mass_heavy=-1", "--out", "o22", NULL}, "mass_heavy = '-1'", "o22"},
  /* 5 steps of 0.01 s are not 10 steps of the coarse 0.1 s. */
  {{"run", "arm5-improved", "--steps", "5", "--out", "o23", NULL}, "at least 10 steps", "o23"},
  {{"run", "arm5-baumgarte", "--set", "err_frac=0", "--out", "o24", NULL}, "err_frac = '0'", "o24"},
  {{"run", "arm5-baumgarte", "--set", "links=0", "--out", "o25", NULL}, "links = '0'", "o25"},
  {{"run", "arm5-improved", "--set", "h_coarse=0.01", "--out", "o36", NULL}, "h_coarse = 0.01", "o36"},
  {{"run", "arm5-improved", "--set", "mass_heavy=0.5", "--out", "o37", NULL}, "mass_heavy = 0.5", "o37"},
  {{"run", "arm5-baumgarte", "--set", "g=0", "--out", "o38", NULL}, "g = '0'", "o38"},
  {{"run", "arm5-baumgarte", "--set", "order_T=0.05", "--out", "o39", NULL}, "order_T = 0.05", "o39"},
  {{"run", "chain10-stability", "--set", "trials=-1", "--out", "o26", NULL}, "trials = '-1'", "o26"},
  {{"run", "chain10-stability", "--set", "trials=2.5", "--out", "o27", NULL}, "trials = '2.5'", "o27"},
  {{"run", "chain10-stability", "--set", "fail_tol=0", "--out", "o28", NULL}, "fail_tol = '0'", "o28"},
  {{"run", "chain10-stability", "--set", "fail_tol=-0.1", "--out", "o29", NULL}, "fail_tol = '-0.1'", "o29"},
  {{"run", "chain10-stability", "--set", "sawtooth=0", "--out", "o30", NULL}, "sawtooth = '0'", "o30"},
  {{"run", "chain10-stability", "--set", "sawtooth=90", "--out", "o31", NULL}, "sawtooth = '90'", "o31"},
  {{"run", "chain10-stability", "--set", "sawtooth=-30", "--out", "o32", NULL}, "sawtooth = '-30'", "o32"},
  {{"run", "chain10-stability", "--set", "perturb=-1e-3", "--out", "o33", NULL}, "perturb = '-1e-3'", "o33"},
  {{"run", "chain10-stability", "--set", "fail_tol=abc", "--out", "o34", NULL}, "fail_tol = 'abc'", "o34"},
  {{"run", "chain10-stability", "--steps", "3", "--out", "o35", NULL}, "--steps 3", "o35"},
  {{"run", "corner", "--set", "tau_over_h=-1", "--out", "o40", NULL}, "tau_over_h = '-1'", "o40"},
  {{"run", "corner", "--steps", "1", "--out", "o41", NULL}, "--steps 1", "o41"},
  {{"run", "active-set-census", "--set", "problems=0", "--out", "o42", NULL}, "problems = '0'", "o42"},
  {{"run", "active-set-census", "--set", "max_rows=17", "--out", "o43", NULL}, "max_rows = '17'", "o43"},
  {{"run", "active-set-census", "--set", "min_rows=5", "--set", "max_rows=4", "--out", "o54", NULL},
   "min_rows = 5 must not exceed max_rows = 4", "o54"},
  {{"run", "billiard", "--set", "radius=0", "--out", "o44", NULL}, "radius = '0'", "o44"},
  {{"run", "billiard", "--set", "mass=-0.17", "--out", "o45", NULL}, "mass = '-0.17'", "o45"},
  {{"run", "billiard", "--set", "restitution=1.5", "--out", "o46", NULL}, "restitution = '1.5'", "o46"},
  {{"run", "billiard", "--set", "restitution_low=-0.5", "--out", "o47", NULL}, "restitution_low = '-0.5'", "o47"},
  {{"run", "billiard", "--set", "tilt=-1", "--out", "o48", NULL}, "tilt = '-1'", "o48"},
  {{"run", "billiard", "--set", "tau=-0.01", "--out", "o49", NULL}, "tau = '-0.01'", "o49"},
  {{"run", "billiard", "--set", "rack_gap=-1", "--out", "o50", NULL}, "rack_gap = '-1'", "o50"},
  {{"run", "billiard", "--set", "algorithms=nope", "--out", "o51", NULL}, "unknown active-set algorithm 'nope'", "o51"},
  {{"run", "billiard", "--set", "snapshots=0.2,0.1", "--out", "o52", NULL}, "snapshots = '0.2,0.1'", "o52"},
  /* A scheme that cannot enforce the walls, asked for by name. */
  {{"run", "billiard", "--scheme", "implicit", "--out", "o53", NULL}, "implicit does not enforce inequality", "o53"},
  /* Scheme lists that name nothing, and parameters an experiment does not use. */
  {{"run", "arm2-drift", "--scheme", "", "--out", "o55", NULL}, "no scheme named", "o55"},
  {{"run", "arm2-drift", "--scheme", ",,,", "--out", "o56", NULL}, "no scheme named", "o56"},
  {{"run", "convergence", "--h", "0.01", "--out", "o57", NULL}, "does not use --h", "o57"},
  {{"run", "stability", "--steps", "10", "--out", "o58", NULL}, "does not use --steps", "o58"},
  {{"run", "active-set-census", "--scheme", "implicit", "--out", "o59", NULL}, "runs no schemes", "o59"},
  {{"run", "ccd-census", "--set", "random=0", "--set", "degenerate=0", "--out", "o74", NULL}, "no query", "o74"},
  {{"run", "ccd-census", "--set", "tol=0", "--out", "o75", NULL}, "tol = '0'", "o75"},
  {{"run", "ccd-census", "--set", "tol=0.75", "--out", "o76", NULL}, "tol = '0.75'", "o76"},
  {{"run", "ccd-census", "--set", "random=-1", "--out", "o77", NULL}, "random = '-1'", "o77"},
  {{"run", "ccd-census", "--h", "0.01", "--out", "o78", NULL}, "--h", "o78"},
  {{"run", "ccd-census", "--scheme", "implicit", "--out", "o79", NULL}, "runs no schemes", "o79"},
  /* Scheme options: of a scheme not in the run, unknown, out of range. */
  {{"run", "arm2-drift", "--set", "rattle.tol=1e-6", "--out", "o60", NULL}, "rattle is a scheme, but not in this run",
   "o60"},
  {{"run", "arm2-drift", "--set", "nosuch.tol=1", "--out", "o61", NULL}, "nosuch is not a scheme or run", "o61"},
  {{"run", "arm2-drift", "--set", "implicit.nosuch=1", "--out", "o62", NULL}, "implicit has no option 'nosuch'",
   "o62"},
  {{"run", "arm2-drift", "--set", "baumgarte.alpha=-1", "--out", "o63", NULL}, "--set baumgarte.alpha=-1", "o63"},
  {{"run", "arm2-drift", "--set", "tol=1e-6", "--out", "o64", NULL}, "no scheme of the run has such an option",
   "o64"},
  {{"run", "chain10-stability", "--set", "tol=-1", "--out", "o65", NULL}, "--set rattle.tol=-1", "o65"},
  {{"run", "arm2-drift", "--set", ".tol=1", "--out", "o66", NULL}, "expected SCHEME.KEY=VALUE", "o66"},
  /* Integers at and beyond the range of long, and numbers as text: refused,
     never clamped or overflowed into an allocation. */
  {{"run", "arm2-drift", "--steps", "9223372036854775807", "--out", "o67", NULL}, "--steps", "o67"},
  {{"run", "arm2-drift", "--steps", "99999999999999999999", "--out", "o68", NULL}, "--steps", "o68"},
  {{"run", "chain10-stability", "--steps", "1e20", "--out", "o69", NULL}, "--steps", "o69"},
  {{"run", "arm2-drift", "--h", "1e400", "--out", "o70", NULL}, "--h", "o70"},
  {{"run", "convergence", "--set", "n0=1e20", "--out", "o71", NULL}, "n0 = '1e20'", "o71"},
  {{"run", "chain10-stability", "--set", "trials=9223372036854775807", "--out", "o72", NULL}, "trials", "o72"},
  {{"run", "arm2-drift", "--steps", "-5", "--out", "o73", NULL}, "--steps", "o73"},
};
#define NBAD (sizeof bad_cases / sizeof bad_cases[0])

START_TEST(test_bad_input)
{
  for (size_t k = 0; k < NBAD; k++) {
    const bad_case *c = &bad_cases[k];
    proc p = run_argv(c->args);
    ck_assert_msg(p.status != 0 && p.status < 128, "case %zu (%s): exit status %d", k + 1, c->names, p.status);
    ck_assert_msg(*p.err, "case %zu (%s): nothing on stderr", k + 1, c->names);
    ck_assert_msg(strstr(p.err, c->names), "case %zu: stderr does not mention '%s':\n%s", k + 1, c->names, p.err);
    proc_free(&p);
    char dir[PATH_MAX];
    wp(dir, "%s", c->outdir);
    ck_assert_msg(!exists(dir), "case %zu (%s): %s created before the input was checked", k + 1, c->names, dir);
  }
  /* Nothing at all was written in the work directory but the captured
     output. */
  dirlist l = list_dir(wd);
  for (size_t k = 0; k < l.n; k++)
    ck_assert_msg(!strcmp(l.name[k], ".stdout") || !strcmp(l.name[k], ".stderr"), "%s/%s written by a refused run",
                  wd, l.name[k]);
  dirlist_free(&l);
}
END_TEST

/* --out: an empty or absent directory, or --force on one holding only a
   cdyn run's files; a run that fails removes what it wrote. */
START_TEST(test_out_dir)
{
  char dir[PATH_MAX], path[PATH_MAX];
  run_ok("run", "arm2-drift", "--steps", "8", "--out", "a");
  proc p = run_cdyn("run", "arm2-drift", "--steps", "8", "--out", "a");
  ck_assert_msg(p.status == 1 && strstr(p.err, "not empty") && strstr(p.err, "--force"), "rerun into a: %d %s",
                p.status, p.err);
  proc_free(&p);
  /* --force clears it: a shorter run leaves nothing of the longer one. */
  run_ok("run", "arm2-drift", "--steps", "8", "--scheme", "implicit", "--out", "a", "--force");
  pathf(path, "%s/poststab.csv", wp(dir, "a"));
  ck_assert_msg(!exists(path), "--force left %s", path);
  /* A directory with a file of the user's is never cleared. */
  ck_assert_int_eq(mkdir(wp(dir, "mine"), 0777), 0);
  FILE *f = fopen(pathf(path, "%s/notes.txt", dir), "w");
  ck_assert_ptr_nonnull(f);
  fputs("keep me\n", f);
  fclose(f);
  p = run_cdyn("run", "arm2-drift", "--steps", "8", "--out", "mine", "--force");
  ck_assert_msg(p.status == 1 && strstr(p.err, "notes.txt"), "--force into mine: %d %s", p.status, p.err);
  proc_free(&p);
  ck_assert_msg(exists(path), "--force removed %s", path);
  /* A directory name the file system refuses: its reason is said. */
  char longname[320];
  memset(longname, 'n', 300);
  longname[300] = '\0';
  p = run_cdyn("run", "arm2-drift", "--steps", "8", "--out", longname);
  ck_assert_msg(p.status == 1 && strstr(p.err, "File name too long"), "--out of 300 bytes: %d %s", p.status, p.err);
  proc_free(&p);
  char toolong[3100];
  memset(toolong, 'x', 3050);
  toolong[3050] = '\0';
  p = run_cdyn("run", "arm2-drift", "--steps", "8", "--out", toolong);
  ck_assert_msg(p.status == 2 && strstr(p.err, "too long"), "--out of 3050 bytes: %d %s", p.status, p.err);
  proc_free(&p);
  /* --out into a file is refused. */
  p = run_cdyn("run", "arm2-drift", "--steps", "8", "--out", "mine/notes.txt");
  ck_assert_msg(p.status == 1 && strstr(p.err, "not a directory"), "--out a file: %d %s", p.status, p.err);
  proc_free(&p);
}
END_TEST

/*
 * The program pins OpenBLAS to one thread itself: the same command gives
 * the same bytes whatever OPENBLAS_NUM_THREADS says (billiard solves many
 * small dense problems, where a threaded BLAS would change the last bits).
 */
START_TEST(test_blas_threads)
{
  const char *old = getenv("OPENBLAS_NUM_THREADS");
  char saved[32];
  snprintf(saved, sizeof saved, "%s", old ? old : "1");
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  run_ok("run", "billiard", "--steps", "200", "--set", "algorithms=lcp,iterative", "--out", "a");
  setenv("OPENBLAS_NUM_THREADS", "2", 1);
  run_ok("run", "billiard", "--steps", "200", "--set", "algorithms=lcp,iterative", "--out", "b");
  unsetenv("OPENBLAS_NUM_THREADS");
  run_ok("run", "billiard", "--steps", "200", "--set", "algorithms=lcp,iterative", "--out", "c");
  setenv("OPENBLAS_NUM_THREADS", saved, 1);
  dirlist la = list_dir(wp((char[PATH_MAX]){0}, "a"));
  size_t ncsv = 0;
  for (size_t k = 0; k < la.n; k++) {
    if (!has_suffix(la.name[k], ".csv"))
      continue;
    ncsv++;
    for (int other = 0; other < 2; other++) {
      char pa[PATH_MAX], pb[PATH_MAX];
      size_t na, nb;
      char *a = slurp(wp(pa, "a/%s", la.name[k]), &na), *b = slurp(wp(pb, "%s/%s", other ? "c" : "b", la.name[k]), &nb);
      ck_assert_msg(a && b && na == nb && !memcmp(a, b, na), "%s differs with OPENBLAS_NUM_THREADS %s", la.name[k],
                    other ? "unset" : "2");
      free(a);
      free(b);
    }
  }
  ck_assert_uint_ge(ncsv, 8);
  dirlist_free(&la);
}
END_TEST

/*
 * No lost output.  The cdyn program runs with a write (or a rename) of its
 * files failing, as on a full disk, for every k-th one in turn
 * (tests/failwrite.c, preloaded).  Every such run must exit non-zero with
 * a message and leave nothing behind (the directory it created is gone);
 * the first k past the run's last write must be a complete run.
 */
#if defined(__SANITIZE_ADDRESS__)
#define FAILWRITE_CAN_RUN 0 /* AddressSanitizer must be the first library loaded */
#else
#define FAILWRITE_CAN_RUN 1
#endif

static void failing_writes(const char *var, const char *experiment)
{
  const char *lib = getenv("CDYN_FAILWRITE");
  long k;
  for (k = 1; k <= 2000; k++) {
    char n[32], dir[PATH_MAX];
    snprintf(n, sizeof n, "%ld", k);
    setenv("LD_PRELOAD", lib, 1);
    setenv(var, n, 1);
    proc p = run_cdyn("run", experiment, "--steps", "8", "--out", "w");
    unsetenv("LD_PRELOAD");
    unsetenv(var);
    wp(dir, "w");
    if (p.status == 0) {
      /* Past the last one: a complete run, which a later k repeats. */
      ck_assert_msg(k > 1, "%s: %s=1 did not fail the run", experiment, var);
      char path[PATH_MAX];
      pathf(path, "%s/run.meta.json", dir);
      ck_assert_msg(exists(path), "%s: exit 0 without run.meta.json", experiment);
      proc_free(&p);
      break;
    }
    ck_assert_msg(p.status == 1 && strstr(p.err, "No space left on device"),
                  "%s, %s=%ld: exit %d, stderr:\n%s", experiment, var, k, p.status, p.err);
    ck_assert_msg(!exists(dir), "%s, %s=%ld: a failed run left %s behind", experiment, var, k, dir);
    proc_free(&p);
  }
  ck_assert_msg(k > 3 && k <= 2000, "%s: %ld %s calls in a run?", experiment, k - 1, var);
  printf("# %s: each of %ld %s calls failed in turn\n", experiment, k - 1, var);
  char dir[PATH_MAX];
  remove_tree(wp(dir, "w"));
}

/* The report: every failure leaves neither claims.csv nor claims.md. */
static void failing_report(const char *var)
{
  const char *lib = getenv("CDYN_FAILWRITE");
  long k;
  char dir[PATH_MAX], csv[PATH_MAX], md[PATH_MAX];
  wp(dir, "rep");
  pathf(csv, "%s/claims.csv", dir);
  pathf(md, "%s/claims.md", dir);
  for (k = 1; k <= 50; k++) {
    char n[32];
    snprintf(n, sizeof n, "%ld", k);
    setenv("LD_PRELOAD", lib, 1);
    setenv(var, n, 1);
    proc p = run_cdyn("report", "rep");
    unsetenv("LD_PRELOAD");
    unsetenv(var);
    if (p.status == 0) {
      ck_assert_msg(exists(csv) && exists(md), "report exit 0 without its files");
      proc_free(&p);
      break;
    }
    ck_assert_msg(p.status == 1 && strstr(p.err, "No space left on device"), "report %s=%ld: %d %s", var, k,
                  p.status, p.err);
    ck_assert_msg(!exists(csv) && !exists(md), "report %s=%ld: a failed report left a file behind", var, k);
    check_no_temporaries(dir);
    proc_free(&p);
  }
  ck_assert_msg(k > 1 && k <= 50, "report: %ld %s calls?", k - 1, var);
  remove(csv);
  remove(md);
}

START_TEST(test_failed_writes)
{
  char rep[PATH_MAX];
  ck_assert_int_eq(mkdir(wp(rep, "rep"), 0777), 0);
  run_ok("run", "arm2-drift", "--steps", "8", "--out", "rep/a");
  failing_report("FAILOPEN_AT");
  failing_report("FAILCLOSE_AT");
  failing_report("FAILRENAME_AT");
  static const char *const ops[] = {"FAILOPEN_AT", "FAILCLOSE_AT", "FAILRENAME_AT"};
  for (int k = 0; k < 3; k++) {
    failing_writes(ops[k], "arm2-drift");
    failing_writes(ops[k], "bead-circle");
  }
}
END_TEST

/* ---- 8. the claims report ---------------------------------------------------------- */

/* Read DIR/claims.csv: the header and one row per claim, in order; return
   the number of not-run rows.  `part` (may be NULL) is the arm2-drift
   claims.part.csv whose rows must reappear unchanged. */
static size_t check_claims_csv(const char *dir, const char *part)
{
  char path[PATH_MAX];
  pathf(path, "%s/claims.csv", dir);
  char *text = must_slurp(path);
  char *lines[64];
  size_t n = split_lines(path, text, lines, 64);
  ck_assert_msg(n == NCLAIMS + 1, "%s: %zu lines, expected a header and %zu claims", path, n, NCLAIMS);
  ck_assert_str_eq(lines[0], "id,experiment,measured,threshold,verdict,note");
  char *ptext = part ? must_slurp(part) : NULL;
  char *plines[8];
  size_t np = ptext ? split_lines(part, ptext, plines, 8) : 0;
  size_t notrun = 0;
  for (size_t k = 0; k < NCLAIMS; k++) {
    char *f[8];
    int nf = split_csv(lines[k + 1], f, 8);
    ck_assert_msg(nf == 6, "%s: row %zu has %d fields", path, k + 1, nf);
    ck_assert_msg(!strcmp(f[0], claim_id(k)), "%s: row %zu is %s, expected %s", path, k + 1, f[0], claim_id(k));
    char *pf[8] = {NULL};
    for (size_t j = 0; j < np; j++) {
      size_t len = strlen(claim_id(k));
      if (!strncmp(plines[j], claim_id(k), len) && plines[j][len] == ',') {
        ck_assert_int_eq(split_csv(plines[j], pf, 8), 6);
        break;
      }
    }
    const exp_claim_def *c = &exp_claim_defs[k];
    if (pf[0]) {
      ck_assert_str_eq(f[1], "arm2-drift");
      ck_assert_msg(is_verdict(f[4]), "%s: %s has verdict '%s'", path, f[0], f[4]);
      for (int i = 2; i < 6; i++)
        ck_assert_msg(!strcmp(f[i], pf[i]), "%s: %s field %d is '%s', the experiment wrote '%s'", path, f[0], i + 1,
                      f[i], pf[i]);
    } else {
      /* Not run: its experiment and rule (if it has them), nothing measured. */
      char rule[1024] = "";
      if (c->experiment)
        exp_rule_text(c, rule, sizeof rule);
      ck_assert_msg(!strcmp(f[4], "not-run") && !strcmp(f[1], c->experiment ? c->experiment : "") && !*f[2] &&
                      !strcmp(f[3], rule),
                    "%s: %s is '%s' from '%s' (threshold '%s'), but no run judged it", path, f[0], f[4], f[1], f[3]);
      notrun++;
    }
  }
  free(ptext);
  free(text);
  return notrun;
}

static void check_claims_md(const char *dir, size_t notrun)
{
  char path[PATH_MAX];
  pathf(path, "%s/claims.md", dir);
  char *md = must_slurp(path);
  for (size_t k = 0; k < NCLAIMS; k++) {
    char id[128];
    snprintf(id, sizeof id, "`%s`", claim_id(k));
    ck_assert_msg(strstr(md, id) != NULL, "%s does not mention %s", path, id);
  }
  char tally[64];
  snprintf(tally, sizeof tally, "%zu not run", notrun);
  ck_assert_msg(strstr(md, tally) != NULL, "%s does not say '%s'", path, tally);
  free(md);
}

START_TEST(test_report)
{
  char dir[PATH_MAX], part[PATH_MAX];
  ck_assert_int_eq(mkdir(wp(dir, "r"), 0777), 0);
  /* The report finds runs by their metadata, whatever the directory is
     called; a directory without a complete run is not one. */
  run_ok("run", "arm2-drift", "--steps", "40", "--out", "r/some-name");
  ck_assert_int_eq(mkdir(wp(part, "r/not-a-run"), 0777), 0);
  FILE *f = fopen(wp(part, "r/not-a-run/claims.part.csv"), "w");
  ck_assert_ptr_nonnull(f);
  fputs("arm2.poststab_deviates,arm2-trajectory,1,x,holds,forged\n", f);
  fclose(f);
  wp(part, "r/some-name/claims.part.csv");
  ck_assert_msg(exists(part), "%s not written", part);
  run_ok("report", "r");
  size_t notrun = check_claims_csv(dir, part);
  ck_assert_uint_eq(notrun, NCLAIMS - 3);
  check_claims_md(dir, notrun);
  check_no_temporaries(dir);
  /* Each claim's rule, sub-measures and reason are in the Markdown. */
  char path[PATH_MAX];
  char *md = must_slurp(pathf(path, "%s/claims.md", dir));
  for (size_t k = 0; k < NCLAIMS; k++)
    if (exp_claim_defs[k].reason)
      ck_assert_msg(strstr(md, exp_claim_defs[k].reason) != NULL, "%s lacks the reason of %s", path, claim_id(k));
  free(md);

  /* Two runs of one experiment: the report cannot choose, and says so. */
  run_ok("run", "arm2-drift", "--steps", "40", "--out", "r/again");
  proc p = run_cdyn("report", "r");
  ck_assert_msg(p.status == 1 && strstr(p.err, "two runs of arm2-drift"), "report of two runs: %d %s", p.status,
                p.err);
  proc_free(&p);

  /* Nothing measured: every claim is listed, as not run. */
  ck_assert_int_eq(mkdir(wp(dir, "empty"), 0777), 0);
  run_ok("report", "empty");
  ck_assert_uint_eq(check_claims_csv(dir, NULL), NCLAIMS);
  check_claims_md(dir, NCLAIMS);
}
END_TEST

/* ---- 9. the verification experiments: what they share --------------------------- */

/* The problems of experiments/problems.h: gravity 9.81 m/s^2 along -y,
   1 m links, 1 kg particles. */
static const double G = 9.81;
static const double PI = 3.14159265358979323846;

/* |a - b| <= tol, NaN equal to NaN (a value "not measured" on both sides). */
static int same(double a, double b, double tol)
{
  return (isnan(a) && isnan(b)) || fabs(a - b) <= tol;
}

/* stability.c's step-size grid: h_j = 1e-3 2^(j/4), j = -13 .. 36. */
#define GRID_JMIN (-13)
#define GRID_JMAX 36
static double grid_h(int j)
{
  return 1e-3 * pow(2.0, j / 4.0);
}

/* The grid index of h; fails unless h is a grid point (to rounding). */
static int grid_index(const char *path, double h)
{
  ck_assert_msg(h > 0, "%s: h = %g is not a step size", path, h);
  int j = (int)lround(4 * log2(h / 1e-3));
  ck_assert_msg(j >= GRID_JMIN && j <= GRID_JMAX && fabs(h - grid_h(j)) <= 1e-15 * h,
                "%s: h = %.17g is not a grid point 1e-3 2^(j/4), j in [%d, %d]", path, h, GRID_JMIN, GRID_JMAX);
  return j;
}

/* stability.c's rules for one problem: a run of T seconds is stable when
   every step succeeds without CDYN_NOCONV, e_n <= e_limit and
   E - E(0) <= dE_limit throughout. */
typedef struct {
  double T, e_limit, dE_limit;
} stab_rules;

/* The probe logs (stability-probes.csv, stiff-probes.csv). */
#define PROBE_COLUMNS "scheme,problem,h,stable,status,steps,e_max,energy_gain,noconv"
enum { P_H = 2, P_STABLE, P_STATUS, P_STEPS, P_EMAX, P_GAIN, P_NOCONV };

/*
 * One logged probe: its stable flag must be what the rules say of its own
 * columns.  A run stops at the first step that breaks a rule, so it is
 * stable exactly when it completed all ceil(T/h) steps with status 0, no
 * CDYN_NOCONV, e_max within the limit and the final energy gain within
 * its limit (a gain past the limit would have stopped it earlier); and a
 * run that stopped early must show why.
 */
static int check_probe(const char *path, const table *t, size_t r, const stab_rules *ru)
{
  double h = tv(t, r, P_H), steps = tv(t, r, P_STEPS), status = tv(t, r, P_STATUS);
  double emax = tv(t, r, P_EMAX), gain = tv(t, r, P_GAIN), noconv = tv(t, r, P_NOCONV);
  long N = (long)ceil(ru->T / h - 1e-9);
  ck_assert_msg(steps >= 0 && steps <= (double)N && steps == floor(steps), "%s: row %zu: %g steps of at most %ld",
                path, r + 1, steps, N);
  if (steps < (double)N)
    ck_assert_msg(status < 0 || emax > ru->e_limit || gain > ru->dE_limit,
                  "%s: row %zu stopped after %g of %ld steps without a failed step or a broken rule", path, r + 1,
                  steps, N);
  int ok = status == 0 && steps == (double)N && noconv == 0 && emax <= ru->e_limit && gain <= ru->dE_limit;
  ck_assert_msg(tv(t, r, P_STABLE) == ok, "%s: row %zu (h = %g): stable = %g, but its columns say %d", path, r + 1, h,
                tv(t, r, P_STABLE), ok);
  return ok;
}

/*
 * The search of stability.c, starting at row r of a probe log: it probes
 * 1e-3 first; from an unstable start it goes down the grid until a stable
 * h (or the grid's end), from a stable one up until the first unstable h
 * (or the grid's end).  Every probe must be the search's next grid point,
 * with the same label; *h_max and *h_fail receive what the search finds
 * (NaN where stability.c writes NaN).  Returns the row after the search.
 */
static size_t check_search(const char *path, const table *t, size_t r, const stab_rules *ru, double *h_max,
                           double *h_fail)
{
  ck_assert_msg(r < t->nrows, "%s: a search is missing", path);
  const char *label = t->label[r];
  int j = 0, dir = 0;
  for (;; r++) {
    ck_assert_msg(r < t->nrows, "%s: the search for %s ends without a result", path, label);
    ck_assert_msg(!strcmp(t->label[r], label), "%s: row %zu is %s inside the search for %s", path, r + 1,
                  t->label[r], label);
    int jr = grid_index(path, tv(t, r, P_H));
    ck_assert_msg(jr == j, "%s: row %zu probes grid point %d where the search's next is %d", path, r + 1, jr, j);
    int stable = check_probe(path, t, r, ru);
    if (!dir)
      dir = stable ? 1 : -1;
    if (dir < 0 && stable) {
      *h_max = grid_h(j);
      *h_fail = grid_h(j + 1);
      return r + 1;
    }
    if (dir < 0 && j == GRID_JMIN) {
      *h_max = NAN;
      *h_fail = grid_h(j);
      return r + 1;
    }
    if (dir > 0 && !stable) {
      *h_max = grid_h(j - 1);
      *h_fail = grid_h(j);
      return r + 1;
    }
    if (dir > 0 && j == GRID_JMAX) {
      *h_max = grid_h(j);
      *h_fail = NAN;
      return r + 1;
    }
    j += dir;
  }
}

/* ---- 10. convergence ----------------------------------------------------------------- */

#define CONV_COLUMNS "scheme,problem,h,steps,status,pos_err,vel_err,e_max,e_end,drift,max_energy_err,lam_err,lam_t"
#define ORDER_COLUMNS                                                                                   \
  "scheme,problem,declared_order,declared_order_constant_force,fitted_order,local_order,points,err_coarse," \
  "err_fine,e_max_fine,drift_fine,declared_velocity_order,fitted_velocity_order,velocity_points,"          \
  "declared_lambda_order,lambda_time,lambda_force,fitted_lambda_order,lambda_points,lambda_err_fine"
enum { CV_H = 2, CV_STEPS, CV_STATUS, CV_POS, CV_VEL, CV_EMAX, CV_EEND, CV_DRIFT, CV_DEMAX, CV_LAM, CV_LAMT };
enum {
  OR_DECL = 2, OR_DECL_CF, OR_FIT, OR_LOCAL, OR_POINTS, OR_COARSE, OR_FINE, OR_EMAX, OR_DRIFT, OR_DECL_V, OR_FIT_V,
  OR_POINTS_V, OR_DECL_L, OR_LTIME, OR_LFORCE, OR_FIT_L, OR_POINTS_L, OR_LFINE
};

/*
 * The pendulum of problems.h (L = 1 m, 1 kg, pinned at the origin,
 * released at rest from 1.2 rad) built through the public API, stepped N
 * times at h = 1/N with `scheme`, against reference/nlink.h's solution at
 * T = 1 s: what convergence.csv reports for that run.
 */
static void pendulum_run(const char *scheme, long N, double *pos_err, double *e_max, double *e_end, double *drift,
                         double *lam)
{
  const double theta0 = 1.2, one = 1.0;
  cdyn_system *sys;
  cdyn_stepper *st;
  ck_assert_int_eq(tu_chain(&sys, 1, 1.0, 1.0, &theta0), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, scheme), CDYN_OK);
  double T, V, E0;
  ck_assert_int_eq(cdyn_system_energy(sys, &T, &V), CDYN_OK);
  E0 = T + V;
  ck_assert_int_eq(cdyn_system_constraint_error(sys, e_max), CDYN_OK);
  for (long k = 0; k < N; k++) {
    ck_assert_int_eq(cdyn_stepper_step(st, 1.0 / (double)N), CDYN_OK);
    ck_assert_int_eq(cdyn_system_constraint_error(sys, e_end), CDYN_OK);
    *e_max = fmax(*e_max, *e_end);
  }
  ck_assert_int_eq(cdyn_system_energy(sys, &T, &V), CDYN_OK);
  *drift = (T + V - E0) / (1.0 * G * 1.0); /* relative to m g L */
  const double *q = cdyn_system_positions(sys);
  ck_assert_int_eq(cdyn_stepper_multipliers(st, lam), CDYN_OK); /* 3 pin rows, the link */

  cdyn_ref_nlink_params rp = {1, &one, &one, G, {0, 0}, &theta0, NULL, 1e-13, 1e-13};
  cdyn_ref_nlink *ref;
  double xy[2];
  ck_assert_int_eq(cdyn_ref_nlink_new(&ref, &rp), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_nlink_advance(ref, 1.0), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_nlink_positions(ref, xy), CDYN_OK);
  cdyn_ref_nlink_free(ref);
  /* The pinned node's reference is the pivot; the bob's is in the x-y plane. */
  *pos_err = fmax(hypot(hypot(q[0], q[1]), q[2]), hypot(hypot(q[3] - xy[0], q[4] - xy[1]), q[5]));
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}

/* The least-squares slope of y against x (n points), summed about the
   means: the test's own fit of what orders.csv reports. */
static double ls_slope(const double *x, const double *y, size_t n)
{
  double mx = 0, my = 0, sxx = 0, sxy = 0;
  for (size_t k = 0; k < n; k++) {
    mx += x[k] / (double)n;
    my += y[k] / (double)n;
  }
  for (size_t k = 0; k < n; k++) {
    sxx += (x[k] - mx) * (x[k] - mx);
    sxy += (x[k] - mx) * (y[k] - my);
  }
  return sxy / sxx;
}

START_TEST(test_convergence_restricted)
{
  /* The two schemes asked for, then the experiment's companion run. */
  static const char *const schemes[] = {"implicit", "baumgarte-rk4", "poststab-pv"};
  static const char *const scheme_of[] = {"implicit", "baumgarte-rk4", "poststab"};
  static const char *const problems[] = {"pendulum", "double", "bead", "hoop"};
  enum { NS = 2, NP = 4, LEVELS = 4, N0 = 40 };
  const double floor_err = 1e-10; /* convergence.c's default `floor` */
  run_ok("run", "convergence", "--scheme", "implicit,baumgarte-rk4", "--set", "levels=4", "--set", "n0=40", "--out",
         "a");
  const char *cmd = "cdyn run convergence --scheme implicit,baumgarte-rk4 --set levels=4 --set n0=40 --out a";
  char dir[PATH_MAX], path[PATH_MAX], opath[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  /* The experiment has no step size or count of its own: null in the metadata. */
  check_meta(dir, "convergence", cmd, 0, 0, "levels", "4");
  check_meta(dir, "orders", cmd, 0, 0, "n0", "40");
  /* Claims whose runs did not all run are listed as not run. */
  check_claims_part(dir, "convergence");

  pathf(path, "%s/convergence.csv", dir);
  pathf(opath, "%s/orders.csv", dir);
  table c = read_table_nan(path, CONV_COLUMNS, 2), o = read_table_nan(opath, ORDER_COLUMNS, 2);
  ck_assert_msg(c.nrows == (NS + 1) * NP * LEVELS, "%s: %zu rows, expected %d runs x %d problems x %d levels", path,
                c.nrows, NS + 1, NP, LEVELS);
  ck_assert_msg(o.nrows == (NS + 1) * NP, "%s: %zu rows, expected %d", opath, o.nrows, (NS + 1) * NP);
  /* The companion's rows come last (its runs may be unstable at these h:
     the rows below check the two schemes asked for). */
  for (size_t p = 0; p < NP; p++) {
    char label[64];
    snprintf(label, sizeof label, "poststab-pv,%s", problems[p]);
    ck_assert_msg(!strcmp(o.label[NS * NP + p], label), "%s: row %zu is %s, expected %s", opath, NS * NP + p + 1,
                  o.label[NS * NP + p], label);
  }
  for (size_t s = 0; s < NS; s++) {
    size_t idx;
    ck_assert_int_eq(cdyn_scheme_find(scheme_of[s], &idx), CDYN_OK);
    for (size_t p = 0; p < NP; p++) {
      char label[64];
      snprintf(label, sizeof label, "%s,%s", schemes[s], problems[p]);
      double lh[LEVELS], le[LEVELS], lv[LEVELS], ll[LEVELS];
      size_t r0 = (s * NP + p) * LEVELS;
      for (size_t k = 0; k < LEVELS; k++) {
        size_t r = r0 + k;
        long N = (long)N0 << k;
        ck_assert_msg(!strcmp(c.label[r], label), "%s: row %zu is %s, expected %s", path, r + 1, c.label[r], label);
        /* T = 1 s in N steps; each h half the previous one, exactly. */
        ck_assert_msg(tv(&c, r, CV_H) == 1.0 / (double)N, "%s: row %zu: h = %.17g, expected 1/%ld", path, r + 1,
                      tv(&c, r, CV_H), N);
        if (k)
          ck_assert_msg(tv(&c, r, CV_H) == 0.5 * tv(&c, r - 1, CV_H), "%s: row %zu: h does not halve", path, r + 1);
        ck_assert_msg(tv(&c, r, CV_STEPS) == (double)N && tv(&c, r, CV_STATUS) == 0,
                      "%s: row %zu: %g steps with status %g, expected %ld with 0", path, r + 1, tv(&c, r, CV_STEPS),
                      tv(&c, r, CV_STATUS), N);
        ck_assert_msg(tv(&c, r, CV_POS) > floor_err, "%s: row %zu: pos_err %g at the floor", path, r + 1,
                      tv(&c, r, CV_POS));
        ck_assert_msg(tv(&c, r, CV_EMAX) >= tv(&c, r, CV_EEND) && tv(&c, r, CV_EEND) >= 0,
                      "%s: row %zu: e_max %g below e_end %g", path, r + 1, tv(&c, r, CV_EMAX), tv(&c, r, CV_EEND));
        lh[k] = log(tv(&c, r, CV_H));
        le[k] = log(tv(&c, r, CV_POS));
        lv[k] = log(tv(&c, r, CV_VEL));
        ll[k] = log(tv(&c, r, CV_LAM));
      }
      /* orders.csv summarises these rows: the least-squares slope of
         log pos_err on log h over all levels (all above the floor), the
         slope between the two finest, and the end values. */
      size_t r = s * NP + p;
      ck_assert_msg(!strcmp(o.label[r], label), "%s: row %zu is %s, expected %s", opath, r + 1, o.label[r], label);
      double fit = ls_slope(lh, le, LEVELS);
      double local = (le[LEVELS - 2] - le[LEVELS - 1]) / (lh[LEVELS - 2] - lh[LEVELS - 1]);
      /* The same slopes of the velocity and multiplier errors (all above
         their floors here: the smallest, rk4's multiplier at h = 1/320, is
         ~1e-6 N). */
      double fit_v = ls_slope(lh, lv, LEVELS), fit_l = ls_slope(lh, ll, LEVELS);
      ck_assert_msg(fabs(tv(&o, r, OR_FIT_V) - fit_v) <= 1e-12 && tv(&o, r, OR_POINTS_V) == LEVELS,
                    "%s: %s: fitted velocity order %.17g (%g points), the rows give %.17g", opath, label,
                    tv(&o, r, OR_FIT_V), tv(&o, r, OR_POINTS_V), fit_v);
      ck_assert_msg(fabs(tv(&o, r, OR_FIT_L) - fit_l) <= 1e-12 && tv(&o, r, OR_POINTS_L) == LEVELS,
                    "%s: %s: fitted multiplier order %.17g (%g points), the rows give %.17g", opath, label,
                    tv(&o, r, OR_FIT_L), tv(&o, r, OR_POINTS_L), fit_l);
      ck_assert_msg(tv(&o, r, OR_LFINE) == tv(&c, r0 + LEVELS - 1, CV_LAM), "%s: %s: lambda_err_fine is not the finest row's",
                    opath, label);
      /* Both slopes come from logs of the same doubles; the two ways of
         summing differ by rounding, ~1e-15 relative on sums of size ~10. */
      ck_assert_msg(fabs(tv(&o, r, OR_FIT) - fit) <= 1e-12, "%s: %s: fitted order %.17g, the rows give %.17g", opath,
                    label, tv(&o, r, OR_FIT), fit);
      ck_assert_msg(fabs(tv(&o, r, OR_LOCAL) - local) <= 1e-12, "%s: %s: local order %.17g, the rows give %.17g",
                    opath, label, tv(&o, r, OR_LOCAL), local);
      ck_assert_msg(tv(&o, r, OR_POINTS) == LEVELS, "%s: %s: %g points fitted, all %d are above the floor", opath,
                    label, tv(&o, r, OR_POINTS), LEVELS);
      ck_assert_msg(tv(&o, r, OR_DECL) == cdyn_scheme_order(idx) &&
                      tv(&o, r, OR_DECL_CF) == cdyn_scheme_order_constant_force(idx),
                    "%s: %s: declared orders %g, %g; the registry says %g, %g", opath, label, tv(&o, r, OR_DECL),
                    tv(&o, r, OR_DECL_CF), cdyn_scheme_order(idx), cdyn_scheme_order_constant_force(idx));
      size_t rf = r0 + LEVELS - 1; /* the finest run */
      ck_assert_msg(tv(&o, r, OR_COARSE) == tv(&c, r0, CV_POS) && tv(&o, r, OR_FINE) == tv(&c, rf, CV_POS) &&
                      tv(&o, r, OR_EMAX) == tv(&c, rf, CV_EMAX) && tv(&o, r, OR_DRIFT) == tv(&c, rf, CV_DRIFT),
                    "%s: %s: the coarse and fine values are not those of %s", opath, label, path);
    }
  }

  /*
   * The fitted orders on the pendulum, over h = 1/40 .. 1/320.  A scheme
   * of order p has the global error C h^p (1 + a h + ...), whose log-log
   * slope is p + a h / (1 + a h): the fit sees p plus what is left of the
   * next term at these h.
   * - implicit (first order): the band 0.25 admits a second-order part of
   *   a fifth to a third of the first-order one at the middle h (as it
   *   lowers or raises the slope), and still tells order 1 from the 0 or
   *   2 a broken or a different scheme gives.
   * - baumgarte-rk4 (RK4 on the index-reduced equations, fourth order with
   *   a constant force): the errors run from ~1e-6 down to ~3e-10, three
   *   times the 1e-10 floor and a hundred times the reference's own
   *   ~1e-12 (rk8pd at 1e-13), which can move the slope by at most
   *   log(1.01)/log(8) < 0.01; the band 0.4 (a tenth of the order) is
   *   again the next term's share, and tells 4 from 3 or 5.
   */
  double fi = tv(&o, 0, OR_FIT), fr = tv(&o, NP, OR_FIT);
  ck_assert_msg(fabs(fi - 1) <= 0.25, "implicit on the pendulum: fitted order %.4f, expected 1 +- 0.25", fi);
  ck_assert_msg(fabs(fr - 4) <= 0.4, "baumgarte-rk4 on the pendulum: fitted order %.4f, expected 4 +- 0.4", fr);

  /* The coarsest implicit pendulum run, repeated here through the public
     API.  The same operations in the same order give the same state, and
     the reference is the same rk8pd solution at 1e-13: 1e-12 leaves room
     for the reference's own error and nothing more. */
  double pos_err, e_max, e_end, drift, lam[4];
  pendulum_run("implicit", N0, &pos_err, &e_max, &e_end, &drift, lam);
  /* Its multipliers: implicit's belong to the midpoint of the last step
     (t = 1 - h/2, lam_t), where the link's tension is T = m g cos theta +
     m L theta'^2 (1 kg, 1 m) in closed form from the reference's angle,
     and the pivot's pin rows hold it: lambda_pin = m_0 g_v - n_0 T with
     n_0 = (x_0 - x_1) / L = (-sin theta, cos theta, 0).  lam_err is the
     largest error over the four rows; the experiment's reference takes T
     from Newton's law on the reduced model's accelerations instead, which
     agrees to ~1e-12 N. */
  {
    const double theta0 = 1.2, one = 1.0, h = 1.0 / (double)N0, tl = 1.0 - h + 0.5 * h; /* as convergence.c */
    cdyn_ref_nlink_params rp = {1, &one, &one, G, {0, 0}, &theta0, NULL, 1e-13, 1e-13};
    cdyn_ref_nlink *ref;
    double th, om;
    ck_assert_int_eq(cdyn_ref_nlink_new(&ref, &rp), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_nlink_advance(ref, tl), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_nlink_angles(ref, &th, &om), CDYN_OK);
    cdyn_ref_nlink_free(ref);
    double tension = G * cos(th) + om * om;
    double exact[4] = {sin(th) * tension, -G - cos(th) * tension, 0, tension}, err = 0;
    for (int k = 0; k < 4; k++)
      err = fmax(err, fabs(lam[k] - exact[k]));
    ck_assert_msg(tv(&c, 0, CV_LAMT) == tl, "%s: lam_t %.17g, expected 1 - h/2 = %.17g", path, tv(&c, 0, CV_LAMT), tl);
    ck_assert_msg(fabs(tv(&c, 0, CV_LAM) - err) <= 1e-10,
                  "%s: implicit pendulum at h = 1/%d: lam_err %.17g; the same run's error here is %.17g", path, N0,
                  tv(&c, 0, CV_LAM), err);
  }
  /* The declared velocity and multiplier orders are the registry's. */
  for (size_t r = 0; r < o.nrows; r++) {
    size_t idx;
    ck_assert_int_eq(cdyn_scheme_find(scheme_of[r / NP], &idx), CDYN_OK);
    double frac = cdyn_scheme_lambda_time(idx) == CDYN_LAMBDA_MID ? 0.5 : cdyn_scheme_lambda_time(idx) == CDYN_LAMBDA_END ? 1 : 0;
    ck_assert_msg(tv(&o, r, OR_DECL_V) == cdyn_scheme_velocity_order_constant_force(idx) &&
                    tv(&o, r, OR_DECL_L) == cdyn_scheme_lambda_order(idx) && tv(&o, r, OR_LTIME) == frac &&
                    tv(&o, r, OR_LFORCE) == 1.0,
                  "%s: row %zu: declared velocity / multiplier orders and time are not the registry's", opath, r + 1);
  }
  ck_assert_msg(fabs(tv(&c, 0, CV_POS) - pos_err) <= 1e-12, "%s: implicit pendulum at h = 1/%d: pos_err %.17g, "
                "the same run here gives %.17g", path, N0, tv(&c, 0, CV_POS), pos_err);
  ck_assert_msg(fabs(tv(&c, 0, CV_EMAX) - e_max) <= 1e-15 && fabs(tv(&c, 0, CV_EEND) - e_end) <= 1e-15 &&
                  fabs(tv(&c, 0, CV_DRIFT) - drift) <= 1e-13,
                "%s: implicit pendulum at h = 1/%d: e_max %.17g, e_end %.17g, drift %.17g; here %.17g, %.17g, %.17g",
                path, N0, tv(&c, 0, CV_EMAX), tv(&c, 0, CV_EEND), tv(&c, 0, CV_DRIFT), e_max, e_end, drift);
  table_free(&c);
  table_free(&o);
}
END_TEST

START_TEST(test_convergence_deterministic)
{
  run_ok("run", "convergence", "--scheme", "implicit,baumgarte-rk4", "--set", "levels=3", "--out", "a");
  run_ok("run", "convergence", "--scheme", "implicit,baumgarte-rk4", "--set", "levels=3", "--out", "b");
  check_same_output(2);
}
END_TEST

/* ---- 10b. spinning-hoop ---------------------------------------------------------------- */

#define HOOP_SUMMARY_COLUMNS "run,h,steps,status,stopped,left,period,freq_err,centre,amp_ratio,max_dev,u_max,e_max"
enum { HS_H = 1, HS_STEPS, HS_STATUS, HS_STOPPED, HS_LEFT, HS_PERIOD, HS_FREQ, HS_CENTRE, HS_AMP, HS_MAXDEV, HS_UMAX };

/*
 * The spinning hoop with rattle, implicit and poststab (and the companion
 * poststab-pv) at h = 0.01 and 0.005 over 20 s.  Against the closed form
 * (reference/hoop.h), to second order in the amplitude: with x = theta -
 * theta* the motion is x'' = -Omega^2 x + a x^2 + c x^3 with Omega^2 =
 * 3 g / 2, a = f''/2 = -(3 sqrt 3 / 4) g and c = f'''/6 = (3/4) g (f =
 * sin theta (omega^2 cos theta - g/R), omega^2 = 2 g / R, R = 1), whose
 * mean is a delta^2 / (2 Omega^2) = -0.433 delta^2 and whose frequency
 * shift is, in Landau and Lifshitz's form x'' + Omega^2 x = -alpha x^2 -
 * beta x^3 (alpha = -a, beta = -c), d omega / Omega = (3 beta / (8
 * Omega^2) - 5 alpha^2 / (12 Omega^4)) delta^2 = (-0.1875 - 0.3125)
 * delta^2 = -0.5 delta^2.  So the reference's period is (2 pi / Omega)
 * (1 + 0.5 delta^2) and its centre -0.433 delta^2, each to 10 % (the
 * next terms are O(delta) relative); its amplitude ratio is 1.  rattle's
 * frequency error is second order: halving h divides it by 4 within 10 %
 * (measured 3.98), and it keeps the amplitude to 1e-3.  implicit keeps the
 * bead at its equilibrium at both h.  poststab in 001's reading (positions
 * only) leaves the relative equilibrium at h = 0.01 (it swings around the
 * hoop: max |theta - theta*| above 1 rad), while with the velocity
 * projection it stays: the finding the README reports for
 * arm2.poststab_deviates.  The trace's reference rows are the reference
 * itself.
 */
START_TEST(test_spinning_hoop)
{
  run_ok("run", "spinning-hoop", "--scheme", "rattle,implicit,poststab", "--set", "levels=2", "--out", "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  check_meta(dir, "hoop-summary", "cdyn run spinning-hoop --scheme rattle,implicit,poststab --set levels=2 --out a",
             0.01, 2000, "levels", "2");
  pathf(path, "%s/hoop-summary.csv", dir);
  table t = read_table_nan(path, HOOP_SUMMARY_COLUMNS, 1);
  static const char *const runs[] = {"reference", "rattle", "implicit", "poststab", "poststab-pv"};
  ck_assert_msg(t.nrows == 10, "%s: %zu rows, expected 5 runs x 2 step sizes", path, t.nrows);
  for (size_t r = 0; r < t.nrows; r++)
    ck_assert_msg(!strcmp(t.label[r], runs[r / 2]) && tv(&t, r, HS_H) == (r % 2 ? 0.005 : 0.01),
                  "%s: row %zu is %s at h = %g", path, r + 1, t.label[r], tv(&t, r, HS_H));
  const double W = sqrt(1.5 * G), T0 = 2 * PI / W;
  const double d2 = 0.05 * 0.05;
  for (size_t r = 0; r < 2; r++) {
    double shift = tv(&t, r, HS_PERIOD) / T0 - 1;
    ck_assert_msg(fabs(shift / (0.5 * d2) - 1) <= 0.1,
                  "reference period %.9f, 2 pi / Omega = %.9f: shift %.4e, second-order theory %.4e",
                  tv(&t, r, HS_PERIOD), T0, shift, 0.5 * d2);
    ck_assert_msg(fabs(tv(&t, r, HS_CENTRE) / (-0.433 * d2) - 1) <= 0.1 && fabs(tv(&t, r, HS_AMP) - 1) <= 1e-3,
                  "reference centre %.4e (theory %.4e), amplitude ratio %.6f", tv(&t, r, HS_CENTRE), -0.433 * d2,
                  tv(&t, r, HS_AMP));
  }
  double ratio = tv(&t, 2, HS_FREQ) / tv(&t, 3, HS_FREQ);
  ck_assert_msg(fabs(ratio / 4 - 1) <= 0.1, "rattle: frequency errors %.3e (h = 0.01), %.3e (h = 0.005): ratio %.3f",
                tv(&t, 2, HS_FREQ), tv(&t, 3, HS_FREQ), ratio);
  ck_assert_msg(fabs(tv(&t, 3, HS_AMP) - 1) <= 1e-3 && tv(&t, 3, HS_UMAX) <= 1e-10,
                "rattle: amplitude ratio %.6f, normal velocity %.3e", tv(&t, 3, HS_AMP), tv(&t, 3, HS_UMAX));
  for (size_t r = 4; r < 6; r++)
    ck_assert_msg(tv(&t, r, HS_LEFT) == 0 && tv(&t, r, HS_STOPPED) == 0, "implicit at h = %g left or stopped",
                  tv(&t, r, HS_H));
  ck_assert_msg(tv(&t, 6, HS_LEFT) == 1 && tv(&t, 6, HS_MAXDEV) > 1.0,
                "poststab (positions only) at h = 0.01: left %g, max |theta - theta*| %.3f", tv(&t, 6, HS_LEFT),
                tv(&t, 6, HS_MAXDEV));
  ck_assert_msg(tv(&t, 8, HS_LEFT) == 0 && tv(&t, 8, HS_STOPPED) == 0,
                "poststab with the velocity projection at h = 0.01 left its equilibrium");
  table_free(&t);

  /* The trace's reference rows: theta - theta* of the reference. */
  pathf(path, "%s/hoop-trace.csv", dir);
  t = read_table_nan(path, "run,t,dtheta", 1);
  ck_assert_msg(!strcmp(t.label[0], "reference") && !strcmp(t.label[1000], "reference"), "%s: rows 1, 1001 are %s, %s",
                path, t.label[0], t.label[1000]);
  cdyn_ref_hoop_params hp = {1.0, G, sqrt(2 * G), PI / 3 + 0.05, 0, 1e-13, 1e-13};
  cdyn_ref_hoop *ref;
  double th;
  ck_assert_int_eq(cdyn_ref_hoop_new(&ref, &hp), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_hoop_advance(ref, tv(&t, 1000, 1)), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_hoop_angle(ref, &th, NULL), CDYN_OK);
  cdyn_ref_hoop_free(ref);
  ck_assert_msg(fabs(tv(&t, 1000, 2) - (th - PI / 3)) <= 1e-9, "trace at t = %g: %.12f, the reference %.12f",
                tv(&t, 1000, 1), tv(&t, 1000, 2), th - PI / 3);
  table_free(&t);
}
END_TEST

START_TEST(test_spinning_hoop_deterministic)
{
  run_ok("run", "spinning-hoop", "--scheme", "implicit,improved", "--set", "levels=1", "--steps", "300", "--out", "a");
  run_ok("run", "spinning-hoop", "--scheme", "implicit,improved", "--set", "levels=1", "--steps", "300", "--out", "b");
  check_same_output(2);
}
END_TEST

/* ---- 11. stability ------------------------------------------------------------------- */

/* stability.c's probe, through the public API: an arm of `links` 1 m
   links and 1 kg nodes pinned at the origin, released at rest from
   horizontal (problems.h's pendulum-h and chain10), run under the rules
   until it completes or breaks one.  The step that takes e_n beyond the
   limit is refused (the runner's divergence guard: CDYN_EDIVERGED), so
   the run's measures are those of the state before it; a step beyond the
   energy limit is kept and ends the run. */
typedef struct {
  int stable, status;
  long steps;
  unsigned long noconv;
  double e_max, gain;
} probe_result;

static probe_result probe_arm(const char *scheme, size_t links, double h, const stab_rules *ru)
{
  double joint[10] = {PI / 2}; /* every link horizontal */
  cdyn_system *sys;
  cdyn_stepper *st;
  ck_assert_uint_le(links, 10);
  ck_assert_int_eq(tu_chain(&sys, links, 1.0, 1.0, joint), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, scheme), CDYN_OK);
  probe_result p = {0, 0, 0, 0, 0, 0};
  double T, V, e;
  ck_assert_int_eq(cdyn_system_energy(sys, &T, &V), CDYN_OK);
  ck_assert_int_eq(cdyn_system_constraint_error(sys, &p.e_max), CDYN_OK);
  const double E0 = T + V;
  const long N = (long)ceil(ru->T / h - 1e-9);
  int stopped = 0;
  for (long k = 1; k <= N && !stopped; k++) {
    int rc = cdyn_stepper_step(st, h);
    if (rc < 0) {
      p.status = rc;
      break;
    }
    ck_assert_int_eq(cdyn_system_energy(sys, &T, &V), CDYN_OK);
    ck_assert_int_eq(cdyn_system_constraint_error(sys, &e), CDYN_OK);
    if (!(e <= ru->e_limit)) {
      p.status = CDYN_EDIVERGED;
      break;
    }
    p.noconv += rc == CDYN_NOCONV;
    p.steps = k;
    p.gain = T + V - E0;
    p.e_max = fmax(p.e_max, e);
    stopped = !(p.gain <= ru->dE_limit);
  }
  p.stable = !p.status && !stopped && !p.noconv && p.steps == N;
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
  return p;
}

START_TEST(test_stability_implicit)
{
  run_ok("run", "stability", "--scheme", "implicit", "--out", "a");
  const char *cmd = "cdyn run stability --scheme implicit --out a";
  char dir[PATH_MAX], path[PATH_MAX], ppath[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  check_meta(dir, "stability", cmd, 0, 0, "err_frac", "0.1");
  check_meta(dir, "stability-probes", cmd, 0, 0, "energy_frac", "0.1");
  pathf(path, "%s/stability.csv", dir);
  pathf(ppath, "%s/stability-probes.csv", dir);
  table s = read_table_nan(path, "scheme,index,pendulum_h_max,pendulum_h_fail,chain10_h_max,chain10_h_fail", 1);
  table p = read_table(ppath, PROBE_COLUMNS, 2);
  ck_assert_msg(s.nrows == 1 && !strcmp(s.label[0], "implicit") && tv(&s, 0, 1) == 0,
                "%s: expected the one row of implicit", path);

  static const char *const names[] = {"pendulum-h", "chain10"};
  static const size_t links[] = {1, 10};
  size_t r = 0;
  for (size_t pi = 0; pi < 2; pi++) {
    /* stability.c's rules with its default fractions: e_n <= 0.1 x the
       total length, and a gain <= 0.1 x the energy gravity can release
       from horizontal, m g L (1 + 2 + ... + n) for n links. */
    double n = (double)links[pi];
    stab_rules ru = {10.0, 0.1 * n, 0.1 * G * n * (n + 1) / 2};
    char label[64];
    snprintf(label, sizeof label, "implicit,%s", names[pi]);
    ck_assert_msg(r < p.nrows && !strcmp(p.label[r], label), "%s: the search for %s is missing", ppath, label);
    double h_max, h_fail;
    r = check_search(ppath, &p, r, &ru, &h_max, &h_fail);
    double w_max = tv(&s, 0, 2 + 2 * pi), w_fail = tv(&s, 0, 3 + 2 * pi);
    ck_assert_msg(same(w_max, h_max, 0) && same(w_fail, h_fail, 0),
                  "%s: %s: h_max %.17g, h_fail %.17g, but its probes find %.17g, %.17g", path, names[pi], w_max,
                  w_fail, h_max, h_fail);
    /* Implicit is stable at 1e-3 (a step of a few thousandths of the
       swing) and fails below the grid's top, 0.5 s (a quarter of the
       pendulum's period): both ends lie on the grid, h_max a grid point
       and h_fail the next one, which is what the probes are rerun at. */
    ck_assert_msg(isfinite(h_max) && isfinite(h_fail), "%s: %s: h_max %g, h_fail %g", path, names[pi], h_max, h_fail);
    grid_index(path, h_max);
    ck_assert_msg(fabs(h_fail / h_max - pow(2, 0.25)) <= 1e-14, "%s: %s: h_fail / h_max = %.17g, not 2^(1/4)", path,
                  names[pi], h_fail / h_max);

    /* The two probes that decide, run again here: the same operations
       give the same numbers, bit for bit. */
    for (int f = 0; f < 2; f++) {
      double h = f ? h_fail : h_max;
      probe_result q = probe_arm("implicit", links[pi], h, &ru);
      ck_assert_msg(q.stable == !f, "%s at h = %.17g is %s here", names[pi], h, q.stable ? "stable" : "unstable");
      size_t k = 0;
      while (k < p.nrows && !(tv(&p, k, P_H) == h && !strcmp(p.label[k], label)))
        k++;
      ck_assert_msg(k < p.nrows, "%s: no probe of %s at %.17g", ppath, label, h);
      ck_assert_msg(tv(&p, k, P_STEPS) == (double)q.steps && tv(&p, k, P_STATUS) == q.status &&
                      tv(&p, k, P_NOCONV) == (double)q.noconv &&
                      fabs(tv(&p, k, P_EMAX) - q.e_max) <= 1e-12 * fmax(1, q.e_max) &&
                      fabs(tv(&p, k, P_GAIN) - q.gain) <= 1e-12 * fmax(1, fabs(q.gain)),
                    "%s: row %zu (%s, h = %g): steps %g, status %g, e_max %.17g, gain %.17g; "
                    "here %ld, %d, %.17g, %.17g",
                    ppath, k + 1, label, h, tv(&p, k, P_STEPS), tv(&p, k, P_STATUS), tv(&p, k, P_EMAX),
                    tv(&p, k, P_GAIN), q.steps, q.status, q.e_max, q.gain);
    }
  }
  ck_assert_msg(r == p.nrows, "%s: %zu rows after the two searches", ppath, p.nrows - r);
  /* Claims whose runs did not all run are listed as not run. */
  check_claims_part(dir, "stability");
  table_free(&s);
  table_free(&p);
}
END_TEST

/* ---- 12. bad-initial ------------------------------------------------------------------ */

#define BI_COLUMNS "scheme,step,t,e,e_rel,phidot"
#define BI_SUMMARY "scheme,e0,settle_step,settle_t,overshoot,crossings,e_end,phidot0,phidot_end,status"
enum { BI_STEP = 1, BI_T, BI_E, BI_EREL, BI_PHIDOT };
enum { BS_E0 = 1, BS_SETTLE, BS_SETTLE_T, BS_OVER, BS_CROSS, BS_EEND, BS_PD0, BS_PDEND, BS_STATUS };

/* bad-initial.csv of a run of `schemes` for `steps` steps of h against
   its summary: the step and time columns, e_rel = e / e_0, and the
   summary's e_0, settling step (recomputed from the rows: the first step
   after which e stays <= 1e-2 e_0), end values and status. */
static void check_bad_initial(const char *dir, const char *const *schemes, size_t ns, long steps, double h, table *b,
                              table *sm)
{
  char path[PATH_MAX], spath[PATH_MAX];
  pathf(path, "%s/bad-initial.csv", dir);
  pathf(spath, "%s/bad-initial-summary.csv", dir);
  *b = read_table(path, BI_COLUMNS, 1);
  *sm = read_table_nan(spath, BI_SUMMARY, 1);
  size_t per = (size_t)steps + 1;
  ck_assert_msg(b->nrows == ns * per, "%s: %zu rows, expected %zu schemes x %zu", path, b->nrows, ns, per);
  ck_assert_msg(sm->nrows == ns, "%s: %zu rows, expected %zu", spath, sm->nrows, ns);
  for (size_t s = 0; s < ns; s++) {
    ck_assert_str_eq(sm->label[s], schemes[s]);
    double e0 = tv(sm, s, BS_E0);
    ck_assert_msg(e0 > 0, "%s: %s: e0 = %g, but the start violates every constraint", spath, schemes[s], e0);
    long last_out = 0;
    for (size_t k = 0; k < per; k++) {
      size_t r = s * per + k;
      ck_assert_str_eq(b->label[r], schemes[s]);
      double t = tv(b, r, BI_T), e = tv(b, r, BI_E);
      ck_assert_msg(tv(b, r, BI_STEP) == (double)k && fabs(t - (double)k * h) <= 1e-15 * fmax(1, t),
                    "%s: row %zu: step %g at t = %.17g", path, r + 1, tv(b, r, BI_STEP), t);
      ck_assert_msg(fabs(tv(b, r, BI_EREL) - e / e0) <= 1e-15 * (e / e0), "%s: row %zu: e_rel %.17g, e / e0 %.17g",
                    path, r + 1, tv(b, r, BI_EREL), e / e0);
      if (e > 1e-2 * e0)
        last_out = (long)k + 1;
    }
    size_t r0 = s * per, r1 = r0 + per - 1;
    ck_assert_msg(tv(b, r0, BI_E) == e0 && tv(b, r0, BI_EREL) == 1, "%s: %s starts at e %.17g (e_rel %.17g), e0 %.17g",
                  path, schemes[s], tv(b, r0, BI_E), tv(b, r0, BI_EREL), e0);
    long settle = last_out <= steps ? last_out : -1;
    ck_assert_msg(tv(sm, s, BS_SETTLE) == (double)settle &&
                    same(tv(sm, s, BS_SETTLE_T), settle >= 0 ? (double)settle * h : NAN, 1e-15),
                  "%s: %s settles at step %g (t = %g); its rows say %ld", spath, schemes[s], tv(sm, s, BS_SETTLE),
                  tv(sm, s, BS_SETTLE_T), settle);
    ck_assert_msg(tv(sm, s, BS_EEND) == tv(b, r1, BI_E) && tv(sm, s, BS_PD0) == tv(b, r0, BI_PHIDOT) &&
                    tv(sm, s, BS_PDEND) == tv(b, r1, BI_PHIDOT) && tv(sm, s, BS_STATUS) == 0,
                  "%s: %s: the end values are not those of %s", spath, schemes[s], path);
  }
}

START_TEST(test_bad_initial)
{
  static const char *const schemes[] = {"implicit", "baumgarte"};
  run_ok("run", "bad-initial", "--scheme", "implicit,baumgarte", "--out", "a");
  char dir[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  check_meta(dir, "bad-initial", "cdyn run bad-initial --scheme implicit,baumgarte --out a", 0.01, 300, NULL, NULL);
  check_meta(dir, "bad-initial-summary", "cdyn run bad-initial --scheme implicit,baumgarte --out a", 0.01, 300, NULL,
             NULL);
  table b, sm;
  check_bad_initial(dir, schemes, 2, 300, 0.01, &b, &sm);

  /*
   * Implicit is one linearised Newton step on Phi(q+) = 0 (001; schemes.md:
   * Phi + h J v+ = 0 at q).  The pin is linear, so it is met after one
   * step; each link |x_i - x_j| - L keeps the remainder of its
   * linearisation, |d_perp|^2 / (2 L), d the change of the link vector over
   * the step: the correction of the initial violations (of the size of
   * e_0) plus the motion h |v| (about 1 cm at the initial speeds below
   * 1 m/s).  So e_1 is of the order of e_0^2 / L, i.e. e_1 / e_0 of the
   * order of e_0 / L ~ 0.1; a first-order correction (Baumgarte) leaves
   * e_1 / e_0 near 1.  The next step squares again, which takes e below
   * 1e-2 e_0 at step 2; what is left is each step's own remainder of the
   * motion, (h omega L)^2 / (2 L), 1e-4 .. 5e-4 m for link rates of
   * 1.5 .. 3 rad/s, a few 1e-3 e_0, below the 1e-2 e_0 line.  Hence
   * settling at step 2; the bound 5 is the step count by which
   * badinit.c judges 001's "converges quickly", three steps above that
   * prediction.
   */
  double e0 = tv(&sm, 0, BS_E0), e1 = tv(&b, 1, BI_EREL);
  ck_assert_msg(e1 <= e0 / 1.0, "implicit: e_1 / e_0 = %.4g after one step, above e_0 / L = %.4g", e1, e0);
  double settle = tv(&sm, 0, BS_SETTLE);
  ck_assert_msg(settle >= 1 && settle <= 5, "implicit settles at step %g, expected 1 .. 5", settle);

  /* --steps and --h set the run: 2 x 11 rows, the same first steps. */
  run_ok("run", "bad-initial", "--scheme", "implicit,baumgarte", "--steps", "10", "--h", "0.01", "--out", "b");
  char dir2[PATH_MAX];
  wp(dir2, "b");
  check_meta(dir2, "bad-initial", "cdyn run bad-initial --scheme implicit,baumgarte --steps 10 --h 0.01 --out b",
             0.01, 10, NULL, NULL);
  table b2, sm2;
  check_bad_initial(dir2, schemes, 2, 10, 0.01, &b2, &sm2);
  for (size_t s = 0; s < 2; s++)
    for (size_t k = 0; k <= 10; k++)
      for (size_t c = 1; c < b.ncol; c++)
        ck_assert_msg(tv(&b2, s * 11 + k, c) == tv(&b, s * 301 + k, c),
                      "bad-initial: %s step %zu column %zu differs between the 10- and the 300-step run", schemes[s], k,
                      c + 1);
  table_free(&b);
  table_free(&sm);
  table_free(&b2);
  table_free(&sm2);
}
END_TEST

/* ---- 13. bead-circle ------------------------------------------------------------------- */

#define BEAD_COLUMNS "step,t,x,y,radial_err,C,theta,theta_ref,angle_err"
enum { BD_STEP, BD_T, BD_X, BD_Y, BD_RADIAL, BD_C, BD_TH, BD_THREF, BD_AERR };

/*
 * One bead run of `steps` steps of h from rest at 2 rad on the unit
 * circle: step and time columns, the radial error r - 1 and 002's
 * C = (x.x - 1)/2 from the x and y columns (the bead stays in z = 0: no
 * force has a z component), the angle atan2(x, -y), the exact motion
 * from reference/bead.h and the wrapped difference of the two.
 * C, r and theta are computed from x and y as the experiment computes
 * them; x.x is about 1 for the runs that stay near the circle, where
 * rounding is a few 1e-16, and the tolerance grows with x.x for the run
 * that blows up.  The reference is the same function at the same t.
 */
static table check_bead_run(const char *path, long steps, double h)
{
  table t = read_table(path, BEAD_COLUMNS, 0);
  ck_assert_msg(t.nrows == (size_t)steps + 1, "%s: %zu rows, expected %ld", path, t.nrows, steps + 1);
  for (size_t r = 0; r < t.nrows; r++) {
    double x = tv(&t, r, BD_X), y = tv(&t, r, BD_Y), tt = tv(&t, r, BD_T), xx = x * x + y * y;
    ck_assert_msg(tv(&t, r, BD_STEP) == (double)r && fabs(tt - (double)r * h) <= 1e-15 * fmax(1, tt),
                  "%s: row %zu: step %g at t = %.17g", path, r + 1, tv(&t, r, BD_STEP), tt);
    ck_assert_msg(fabs(tv(&t, r, BD_C) - (xx - 1) / 2) <= 1e-15 * fmax(1, xx),
                  "%s: step %zu: C = %.17g, (r^2 - 1)/2 = %.17g", path, r, tv(&t, r, BD_C), (xx - 1) / 2);
    ck_assert_msg(fabs(tv(&t, r, BD_RADIAL) - (hypot(x, y) - 1)) <= 1e-15 * fmax(1, xx),
                  "%s: step %zu: radial_err %.17g, r - 1 = %.17g", path, r, tv(&t, r, BD_RADIAL), hypot(x, y) - 1);
    ck_assert_msg(fabs(tv(&t, r, BD_TH) - atan2(x, -y)) <= 1e-15, "%s: step %zu: theta %.17g, atan2(x, -y) %.17g",
                  path, r, tv(&t, r, BD_TH), atan2(x, -y));
    double th;
    ck_assert_int_eq(cdyn_ref_bead_exact(1.0, G, 2.0, tt, &th, NULL), CDYN_OK);
    ck_assert_msg(fabs(tv(&t, r, BD_THREF) - th) <= 1e-12, "%s: t = %g: theta_ref %.17g, exact %.17g", path, tt,
                  tv(&t, r, BD_THREF), th);
    double d = fabs(remainder(tv(&t, r, BD_TH) - th, 2 * PI));
    ck_assert_msg(fabs(tv(&t, r, BD_AERR) - d) <= 1e-12, "%s: t = %g: angle_err %.17g, |theta - theta_ref| %.17g",
                  path, tt, tv(&t, r, BD_AERR), d);
  }
  /* The start: at rest at 2 rad, on the circle. */
  ck_assert_msg(tv(&t, 0, BD_X) == sin(2.0) && tv(&t, 0, BD_Y) == -cos(2.0) && tv(&t, 0, BD_THREF) == 2.0,
                "%s: starts at (%.17g, %.17g), theta_ref %.17g", path, tv(&t, 0, BD_X), tv(&t, 0, BD_Y),
                tv(&t, 0, BD_THREF));
  return t;
}

START_TEST(test_bead_circle)
{
  run_ok("run", "bead-circle", "--scheme", "implicit", "--steps", "200", "--out", "a");
  const char *cmd = "cdyn run bead-circle --scheme implicit --steps 200 --out a";
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  static const char *const runs[] = {"no-feedback", "feedback", "implicit"};
  table t[3];
  for (size_t k = 0; k < 3; k++) {
    pathf(path, "%s/bead-%s.csv", dir, runs[k]);
    t[k] = check_bead_run(path, 200, 0.01);
    pathf(path, "bead-%s", runs[k]);
    check_meta(dir, path, cmd, 0.01, 200, "theta0", "2");
  }
  /* The feedback-stiffness sweep: at least one run, each a bead run. */
  dirlist l = list_dir(dir);
  size_t nks = 0, ncsv = count_suffix(&l, ".csv");
  for (size_t k = 0; k < l.n; k++)
    if (!strncmp(l.name[k], "bead-feedback-ks", 16) && has_suffix(l.name[k], ".csv")) {
      pathf(path, "%s/%s", dir, l.name[k]);
      table s = check_bead_run(path, 200, 0.01);
      table_free(&s);
      nks++;
    }
  dirlist_free(&l);
  ck_assert_msg(nks >= 1, "%s: no bead-feedback-ks*.csv", dir);
  char run_list[64][64];
  size_t nr;
  read_runs(dir, run_list, 64, &nr);
  ck_assert_msg(nr == 3 && ncsv == nr + nks + 2,
                "%s: %zu CSV files, expected the %zu runs, %zu sweep runs, runs.csv and the claims", dir, ncsv, nr, nks);
  check_claims_part(dir, "bead-circle");

  /*
   * Implicit on 002's circle: its step enforces C + J d = 0 at the start
   * of the step (one linearised Newton step, d = x+ - x the step's
   * displacement, J = x^T), and C is quadratic, C(x + d) = C + x.d +
   * |d|^2 / 2 exactly, so after every step C = |d|^2 / 2: the error is the
   * square of the step, never the drift of the ones before.  The rounding
   * of x.x ~ 1 (a few 1e-16) bounds the difference.
   */
  for (size_t r = 1; r < t[2].nrows; r++) {
    double dx = tv(&t[2], r, BD_X) - tv(&t[2], r - 1, BD_X), dy = tv(&t[2], r, BD_Y) - tv(&t[2], r - 1, BD_Y);
    ck_assert_msg(fabs(tv(&t[2], r, BD_C) - (dx * dx + dy * dy) / 2) <= 1e-15,
                  "bead-implicit: step %zu: C = %.17g, |x+ - x|^2 / 2 = %.17g", r, tv(&t[2], r, BD_C),
                  (dx * dx + dy * dy) / 2);
  }
  /* Without feedback nothing pulls the bead back and the error adds up;
     with ks = kd = 4 (critically damped at 2/s) it decays over the 2 s. */
  size_t end = t[0].nrows - 1;
  ck_assert_msg(fabs(tv(&t[0], end, BD_RADIAL)) > fabs(tv(&t[1], end, BD_RADIAL)),
                "bead: |r - 1| at the end %.4g without feedback, %.4g with", fabs(tv(&t[0], end, BD_RADIAL)),
                fabs(tv(&t[1], end, BD_RADIAL)));
  for (size_t k = 0; k < 3; k++)
    table_free(&t[k]);
}
END_TEST

/* Is `id` a claim of the table? */
static int known_claim(const char *id) { return exp_claim_find(id) != NULL; }

START_TEST(test_bead_circle_claims)
{
  run_ok("run", "bead-circle", "--steps", "200", "--out", "c");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "c");
  check_no_temporaries(dir);
  pathf(path, "%s/bead-no-feedback.csv", dir);
  table nofb = check_bead_run(path, 200, 0.01);
  pathf(path, "%s/bead-feedback.csv", dir);
  table fb = check_bead_run(path, 200, 0.01);

  /* The measures, from the runs' rows as beadcircle.c defines them: the
     mean |r - 1| over steps 1 .. N/4 and over the last N/4 steps without
     feedback, and the largest |r - 1| with feedback. */
  const size_t N = 200, Q = N / 4;
  double first = 0, last = 0, fbmax = 0;
  for (size_t k = 1; k <= N; k++) {
    double dr = fabs(tv(&nofb, k, BD_RADIAL));
    first += k <= Q ? dr / Q : 0;
    last += k > N - Q ? dr / Q : 0;
  }
  for (size_t k = 0; k <= N; k++)
    fbmax = fmax(fbmax, fabs(tv(&fb, k, BD_RADIAL)));
  check_claim(dir, "bead.drift_without_feedback", (exp_value[]){{"last_quarter", last}, {"growth", last / first}}, 2,
              1e-5);
  check_claim(dir, "bead.feedback_holds", (exp_value[]){{"max_error", fbmax}}, 1, 1e-5);
  ck_assert_uint_eq(check_claims_part(dir, "bead-circle"), 2);
  table_free(&nofb);
  table_free(&fb);
}
END_TEST

/* The claims the new experiments judge are in the report's list. */
START_TEST(test_new_claims_listed)
{
  static const char *const ids[] = {"implicit.large_steps",        "implicit.bad_initial",
                                    "bead.drift_without_feedback", "bead.feedback_holds",
                                    "spring.stiff_needs_small_h",  "pbd.soft_with_few_iterations",
                                    "improved.small_extra_cost"};
  char dir[PATH_MAX], path[PATH_MAX];
  ck_assert_int_eq(mkdir(wp(dir, "empty"), 0777), 0);
  run_ok("report", "empty");
  pathf(path, "%s/claims.csv", dir);
  char *text = must_slurp(path);
  for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
    char row[128];
    snprintf(row, sizeof row, "\n%s,", ids[k]);
    ck_assert_msg(strstr(text, row) != NULL, "%s does not list the claim %s", path, ids[k]);
    ck_assert_msg(known_claim(ids[k]), "claim_ids[] lacks %s", ids[k]);
  }
  free(text);
}
END_TEST

/* ---- 14. stiff-pendulum ------------------------------------------------------------------ */

START_TEST(test_stiff_pendulum)
{
  run_ok("run", "stiff-pendulum", "--scheme", "penalty,implicit", "--out", "a");
  const char *cmd = "cdyn run stiff-pendulum --scheme penalty,implicit --out a";
  char dir[PATH_MAX], path[PATH_MAX], ppath[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  static const char *const files[] = {"stiff-probes", "stiff-spring", "stiff-constraint", "pbd-stretch"};
  for (size_t k = 0; k < 4; k++)
    check_meta(dir, files[k], cmd, 0, 0, "damping", "0");
  /* Claims whose runs did not all run are listed as not run. */
  check_claims_part(dir, "stiff-pendulum");

  pathf(path, "%s/stiff-spring.csv", dir);
  pathf(ppath, "%s/stiff-probes.csv", dir);
  table sp = read_table_nan(path, "scheme,k,h_max,h_fail,h_limit", 1);
  table pr = read_table(ppath, PROBE_COLUMNS, 2);
  ck_assert_msg(sp.nrows == 6, "%s: %zu rows, expected k = 1e3 .. 1e8", path, sp.nrows);
  /* The pendulum: 1 kg on |x| = 1 m from horizontal, 10 s, stability.c's
     rules: e_n <= 0.1 L, gain <= 0.1 m g L. */
  const double m = 1, L = 1;
  const stab_rules ru = {10.0, 0.1 * L, 0.1 * m * G * L};
  /* Within those rules the bob falls at most 1.1 L and gains at most
     0.1 m g L, so v^2 <= 2.4 g L, at a radius >= 0.9 L: the swing's
     angular rate has w^2 <= 2.4 g / (0.81 L) (29 s^-2). */
  const double w2 = 2.4 * G / (0.81 * L);
  size_t r = 0;
  for (size_t j = 0; j < 6; j++) {
    double k = pow(10, 3 + (double)j), h_max, h_fail;
    ck_assert_msg(!strcmp(sp.label[j], "penalty") && tv(&sp, j, 1) == k, "%s: row %zu is %s at k = %g, expected "
                  "penalty at %g", path, j + 1, sp.label[j], tv(&sp, j, 1), k);
    double hm = tv(&sp, j, 2), hf = tv(&sp, j, 3), hl = tv(&sp, j, 4);
    ck_assert_msg(fabs(hl - 2 * sqrt(m / k)) <= 1e-15 * hl, "%s: k = %g: h_limit %.17g, 2 sqrt(m/k) = %.17g", path, k,
                  hl, 2 * sqrt(m / k));
    ck_assert_msg(r < pr.nrows && !strcmp(pr.label[r], "penalty,sphere-pendulum"), "%s: the search at k = %g is "
                  "missing", ppath, k);
    r = check_search(ppath, &pr, r, &ru, &h_max, &h_fail);
    ck_assert_msg(same(hm, h_max, 0) && same(hf, h_fail, 0),
                  "%s: k = %g: h_max %.17g, h_fail %.17g, but its probes find %.17g, %.17g", path, k, hm, hf, h_max,
                  h_fail);
    ck_assert_msg(isfinite(hm) && isfinite(hf) && fabs(hf / hm - pow(2, 0.25)) <= 1e-14,
                  "%s: k = %g: h_max %g, h_fail %g", path, k, hm, hf);
    /*
     * The spring k (|x| - L) has the Hessian k n n^T + k (1 - L/r)(I - n n^T):
     * its radial stiffness is k exactly.  In the frame that turns with
     * the pendulum the swing changes the radial mode: at a fixed rate w
     * the centrifugal force softens it to k/m - w^2, at a fixed angular
     * momentum it stiffens to k/m + 3 w^2 (the curvature of the effective
     * potential), so omega_r^2 lies between the two, and not always
     * above k/m as for a spring at rest.  Symplectic Euler on x'' = -omega^2 x
     * is stable for h omega < 2 and grows without bound from h omega = 2
     * (a double eigenvalue -1, then one of modulus > 1).  Therefore
     *   h_max <= 2 / sqrt(k/m - w^2) = h_limit / sqrt(1 - m w^2 / k),
     * which is h_limit to within 0.15 % for k >= 1e4 and 1.5 % above it
     * at k = 1e3; it is not h_max <= h_limit exactly.  Below
     * 2 / sqrt(k/m + 3 w^2) the spring mode is stable; its stretch builds
     * with the tension over the swing (~0.5 s), slowly against the
     * spring's period (<= 0.2 s), so it stays near its static value
     * 3 m g / k <= 0.03 L, inside the 0.1 L rule.  The grid holds a
     * point within a factor 2^(-1/4) = 0.84 below any h, so
     *   h_max >= 2^(-1/4) 2 / sqrt(k/m + 3 w^2)   (~0.84 h_limit).
     */
    double upper = hl / sqrt(1 - m * w2 / k), lower = pow(2, -0.25) * 2 / sqrt(k / m + 3 * w2);
    ck_assert_msg(hm <= upper, "penalty at k = %g: h_max %.6g above 2/omega_r <= %.6g (h_limit %.6g)", k, hm, upper,
                  hl);
    ck_assert_msg(hm >= lower, "penalty at k = %g: h_max %.6g below 0.84 x 2/omega_r >= %.6g (h_limit %.6g)", k, hm,
                  lower, hl);
  }
  /* Then the one search of the constraint scheme, on the same pendulum. */
  pathf(path, "%s/stiff-constraint.csv", dir);
  table sc = read_table_nan(path, "scheme,h_max,h_fail", 1);
  ck_assert_msg(sc.nrows == 1 && !strcmp(sc.label[0], "implicit"), "%s: expected the one row of implicit", path);
  ck_assert_msg(r < pr.nrows && !strcmp(pr.label[r], "implicit,sphere-pendulum"), "%s: implicit's search is missing",
                ppath);
  double h_max, h_fail;
  r = check_search(ppath, &pr, r, &ru, &h_max, &h_fail);
  ck_assert_msg(same(tv(&sc, 0, 1), h_max, 0) && same(tv(&sc, 0, 2), h_fail, 0),
                "%s: h_max %.17g, h_fail %.17g, but the probes find %.17g, %.17g", path, tv(&sc, 0, 1), tv(&sc, 0, 2),
                h_max, h_fail);
  ck_assert_msg(r == pr.nrows, "%s: %zu rows after the searches", ppath, pr.nrows - r);
  table_free(&sp);
  table_free(&sc);
  table_free(&pr);

  /* PBD on the hanging chain: K = 1 .. 100 sweeps, rising; the stretch
     left by fewer sweeps of Gauss-Seidel is larger, and every run ends
     (status 0).  XPBD at its default compliance 0 computes exactly what
     PBD computes (pbd.c), so its rows repeat PBD's. */
  pathf(path, "%s/pbd-stretch.csv", dir);
  table ps = read_table(path, "scheme,iterations,stretch,status", 1);
  size_t npbd = 0;
  while (npbd < ps.nrows && !strcmp(ps.label[npbd], "pbd"))
    npbd++;
  ck_assert_msg(npbd >= 2 && tv(&ps, 0, 1) == 1 && tv(&ps, npbd - 1, 1) == 100,
                "%s: the pbd rows must run from 1 to 100 iterations", path);
  for (size_t k = 0; k < npbd; k++) {
    ck_assert_msg(tv(&ps, k, 2) > 0 && tv(&ps, k, 3) == 0, "%s: row %zu: stretch %g, status %g", path, k + 1,
                  tv(&ps, k, 2), tv(&ps, k, 3));
    if (k)
      ck_assert_msg(tv(&ps, k, 1) > tv(&ps, k - 1, 1) && tv(&ps, k, 2) < tv(&ps, k - 1, 2),
                    "%s: row %zu: %g iterations stretch %.6g, %g iterations %.6g", path, k + 1, tv(&ps, k, 1),
                    tv(&ps, k, 2), tv(&ps, k - 1, 1), tv(&ps, k - 1, 2));
  }
  ck_assert_msg(ps.nrows == 2 * npbd, "%s: %zu rows, expected pbd's %zu and as many of xpbd", path, ps.nrows, npbd);
  for (size_t k = 0; k < npbd; k++)
    ck_assert_msg(!strcmp(ps.label[npbd + k], "xpbd") && tv(&ps, npbd + k, 1) == tv(&ps, k, 1) &&
                    tv(&ps, npbd + k, 2) == tv(&ps, k, 2),
                  "%s: row %zu: xpbd at compliance 0 differs from pbd", path, npbd + k + 1);
  table_free(&ps);
}
END_TEST

/* ---- arm5-improved and arm5-baumgarte ------------------------------------------------ */

#define A5_RUN "step,t,e,e_sum,x_end,y_end,E"
enum { A5_STEP, A5_T, A5_E, A5_ESUM, A5_X, A5_Y, A5_EN };

/* Mean e_n over steps 1 .. of a run's CSV. */
static double a5_mean(const table *t)
{
  double s = 0;
  for (size_t r = 1; r < t->nrows; r++)
    s += tv(t, r, A5_E);
  return s / (double)(t->nrows - 1);
}

/* One run of arm5-improved of `fine` steps of 0.01 s (fine / 10 of 0.1 s),
   its files checked against each other and its claims recomputed. */
static void check_arm5_improved(long fine)
{
  char steps_s[32], cmd[256], dir[PATH_MAX], path[PATH_MAX];
  snprintf(steps_s, sizeof steps_s, "%ld", fine);
  run_ok("run", "arm5-improved", "--steps", steps_s, "--set", "order_levels=3", "--out", "a");
  snprintf(cmd, sizeof cmd, "cdyn run arm5-improved --steps %ld --set order_levels=3 --out a", fine);
  wp(dir, "a");
  check_no_temporaries(dir);
  check_meta(dir, "panels", cmd, 0.01, fine, "mass_heavy", "50");
  pathf(path, "%s/panels.csv", dir);
  table pn = read_table_nan(path, "variant,scheme,h,mass,steps,diverged,fail_step,e_sum,e_mean,ratio_implicit,e_fail", 2);
  static const char *const sch[] = {"implicit", "improved", "improved-ab2"};
  ck_assert_msg(pn.nrows == 24, "%s: %zu rows, expected 2 variants x 2 h x 2 masses x 3 schemes", path, pn.nrows);
  /* 5 m: the arm's length, where a run counts as diverged. */
  const double e_lim = 5.0;
  double mean[24];
  size_t r = 0;
  for (int v = 0; v < 2; v++)
    for (int ih = 0; ih < 2; ih++)
      for (int im = 0; im < 2; im++)
        for (int s = 0; s < 3; s++, r++) {
          double h = ih ? 0.1 : 0.01, m = im ? 50 : 1;
          long steps = ih ? fine / 10 : fine;
          char label[64], name[128], rpath[PATH_MAX];
          snprintf(label, sizeof label, "%s,%s", v ? "heavy-end" : "uniform", sch[s]);
          ck_assert_msg(!strcmp(pn.label[r], label) && tv(&pn, r, 2) == h && tv(&pn, r, 3) == m &&
                          tv(&pn, r, 4) == (double)steps,
                        "%s: row %zu is %s h %g m %g, expected %s h %g m %g", path, r + 1, pn.label[r], tv(&pn, r, 2),
                        tv(&pn, r, 3), label, h, m);
          snprintf(name, sizeof name, "%s-h%g-m%g-%s", v ? "heavy-end" : "uniform", h, m, sch[s]);
          pathf(rpath, "%s/%s.csv", dir, name);
          table run = read_table(rpath, A5_RUN, 0);
          size_t last = run.nrows - 1;
          /* A run stops before the step that fails or whose e_n exceeds
             the limit (refused by the divergence guard, its e_n in
             e_fail), or runs to the end; every row is within the limit. */
          int diverged = last < (size_t)steps;
          double e_fail = tv(&pn, r, 10);
          ck_assert_msg(last <= (size_t)steps && tv(&run, last, A5_E) <= e_lim, "%s: %zu steps, the last at e_n = %g",
                        rpath, last, tv(&run, last, A5_E));
          ck_assert_msg(tv(&pn, r, 5) == diverged &&
                          tv(&pn, r, 6) == (diverged ? (double)last + 1 : (double)steps + 1),
                        "%s: diverged %g at step %g, but the run has %zu steps of %ld", path, tv(&pn, r, 5),
                        tv(&pn, r, 6), last, steps);
          ck_assert_msg(isnan(e_fail) || (diverged && e_fail > e_lim), "%s: row %zu: e_fail %g (diverged %d)", path,
                        r + 1, e_fail, diverged);
          ck_assert_msg(fabs(tv(&pn, r, 7) - tv(&run, last, A5_ESUM)) <= 1e-15 * tv(&pn, r, 7),
                        "%s: e_sum %.17g, the run's %.17g", path, tv(&pn, r, 7), tv(&run, last, A5_ESUM));
          mean[r] = diverged ? INFINITY : a5_mean(&run);
          ck_assert_msg(diverged ? isnan(tv(&pn, r, 8)) : fabs(tv(&pn, r, 8) - mean[r]) <= 1e-13 * mean[r],
                        "%s: row %zu: e_mean %.17g, the run gives %.17g", path, r + 1, tv(&pn, r, 8), mean[r]);
          table_free(&run);
        }
  /* The ratio column and the mass invariance of the uniform arm (rounding
     only: within 1 s the runs agree to ~1e-14 m, so their mean errors, of
     order 1e-3, to far better than 1e-9 relative). */
  for (size_t k = 0; k < 24; k++) {
    double ri = isinf(mean[k - k % 3]) || isinf(mean[k]) ? NAN : mean[k - k % 3] / mean[k];
    ck_assert_msg(isnan(ri) ? isnan(tv(&pn, k, 9)) : fabs(tv(&pn, k, 9) - ri) <= 1e-12 * ri,
                  "%s: row %zu: ratio %.17g, expected %.17g", path, k + 1, tv(&pn, k, 9), ri);
  }
  for (size_t k = 0; k < 12; k++)
    if (k % 6 < 3 && isfinite(mean[k]))
      ck_assert_msg(fabs(mean[k + 3] - mean[k]) <= 1e-9 * mean[k], "%s: uniform masses 1 and 50 differ: %.17g, %.17g",
                    path, mean[k], mean[k + 3]);
  /* Under gravity alone the AB2 force (3F - F)/2 is F up to rounding: the
     two improved variants agree. */
  for (size_t k = 0; k < 24; k += 3)
    if (isfinite(mean[k + 1]))
      ck_assert_msg(fabs(mean[k + 2] - mean[k + 1]) <= 1e-9 * mean[k + 1], "%s: row %zu: improved %.17g, -ab2 %.17g",
                    path, k + 2, mean[k + 1], mean[k + 2]);
  /* mass-invariance.csv: at most rounding apart (test_arms.c derives 1e-10
     for 1 s and more), and at least as far apart as the two runs' free
     ends, read from their files. */
  pathf(path, "%s/mass-invariance.csv", dir);
  table inv = read_table_nan(path, "scheme,h,first_second,whole_run", 1);
  ck_assert_msg(inv.nrows == 3, "%s: %zu rows", path, inv.nrows);
  for (int s = 0; s < 3; s++) {
    char p1[PATH_MAX], p2[PATH_MAX];
    pathf(p1, "%s/uniform-h0.01-m1-%s.csv", dir, sch[s]);
    pathf(p2, "%s/uniform-h0.01-m50-%s.csv", dir, sch[s]);
    table t1 = read_table(p1, A5_RUN, 0), t2 = read_table(p2, A5_RUN, 0);
    double dend = 0;
    for (size_t k = 0; k < t1.nrows && k < t2.nrows; k++)
      dend = fmax(dend, hypot(tv(&t1, k, A5_X) - tv(&t2, k, A5_X), tv(&t1, k, A5_Y) - tv(&t2, k, A5_Y)));
    ck_assert_msg(!strcmp(inv.label[s], sch[s]) && tv(&inv, s, 3) >= dend && tv(&inv, s, 3) <= 1e-10 * fine / 100,
                  "%s: %s: %g apart, the free ends %g", path, inv.label[s], tv(&inv, s, 3), dend);
    table_free(&t1);
    table_free(&t2);
  }
  table_free(&inv);
  /* A heavy free end changes the motion: after 1 s the end is centimetres
     away from the uniform arm's. */
  {
    char p1[PATH_MAX], p2[PATH_MAX];
    pathf(p1, "%s/uniform-h0.01-m1-implicit.csv", dir);
    pathf(p2, "%s/heavy-end-h0.01-m50-implicit.csv", dir);
    table t1 = read_table(p1, A5_RUN, 0), t2 = read_table(p2, A5_RUN, 0);
    ck_assert_msg(t1.nrows > 100 && t2.nrows > 100, "%s, %s: shorter than 1 s", p1, p2);
    double d = hypot(tv(&t1, 100, A5_X) - tv(&t2, 100, A5_X), tv(&t1, 100, A5_Y) - tv(&t2, 100, A5_Y));
    ck_assert_msg(d > 1e-2, "the heavy end moves the free end only %g m in 1 s", d);
    table_free(&t1);
    table_free(&t2);
  }
  /* The claims from the panels, by the table's rules.  Panels in the
     order h x mass: (fine, light), (fine, heavy), (coarse, light),
     (coarse, heavy), three schemes each. */
  static const char *const panel[4] = {"fine_light", "fine_heavy", "coarse_light", "coarse_heavy"};
  const exp_claim_def *c2x = exp_claim_find("arm5.improved_2x");
  exp_value v2x[5];
  int npass = 0, ndiv = 0;
  for (size_t k = 0; k < 4; k++) {
    double r = mean[3 * k] / mean[3 * k + 1]; /* inf / inf: nan, the panel does not count */
    v2x[k] = (exp_value){panel[k], r};
    npass += exp_holds_test(c2x, panel[k], r);
    ndiv += isinf(mean[3 * k + 1]);
  }
  v2x[4] = (exp_value){"panels", npass};
  /* At 300 steps of 0.01 s (30 of 0.1 s) improved diverges at h = 0.1
     (step 23): the claims then rest on infinite means. */
  if (fine >= 300)
    ck_assert_msg(ndiv == 2, "improved diverged in %d uniform panels, expected the two at h = 0.1", ndiv);
  check_claim(dir, "arm5.improved_2x", v2x, 5, 0);
  double gh = INFINITY, gm = INFINITY;
  int nh = 0, nm = 0;
  for (int s = 0; s < 2; s++) {
    for (int im = 0; im < 2; im++) {
      double a = mean[6 + im * 3 + s], b = mean[im * 3 + s];
      if (!(isinf(a) && isinf(b))) {
        gh = fmin(gh, a / b);
        nh++;
      }
    }
    for (int ih = 0; ih < 2; ih++) {
      double a = mean[ih * 6 + 3 + s], b = mean[ih * 6 + s];
      if (!(isinf(a) && isinf(b))) {
        gm = fmin(gm, a / b);
        nm++;
      }
    }
  }
  check_claim(dir, "arm5.error_grows_with_h_and_mass",
              (exp_value[]){{"with_h", nh ? gh : NAN}, {"with_mass", nm ? gm : NAN}}, 2, 1e-5);
  table_free(&pn);

  /* Order study: h = 0.1, 0.05, 0.025 to T = 1 s.  Between the two finest
     the trajectory error falls by about 2^p: first order for implicit,
     second for the improved midpoint scheme under gravity (accepted
     p +- 0.3, pre-asymptotic at these h). */
  pathf(path, "%s/order.csv", dir);
  table od = read_table_nan(path, "scheme,h,steps,completed,e_T,pos_err", 1);
  ck_assert_msg(od.nrows == 9, "%s: %zu rows, expected 3 schemes x 3 levels", path, od.nrows);
  const double p_expect[3] = {1, 2, 2};
  for (int s = 0; s < 3; s++) {
    for (int k = 0; k < 3; k++) {
      size_t row = (size_t)(3 * s + k);
      ck_assert_msg(!strcmp(od.label[row], sch[s]) && fabs(tv(&od, row, 1) - 0.1 / (1 << k)) <= 1e-15 &&
                      tv(&od, row, 2) == 10 << k && tv(&od, row, 3) == 1,
                    "%s: row %zu: %s h %g steps %g completed %g", path, row + 1, od.label[row], tv(&od, row, 1),
                    tv(&od, row, 2), tv(&od, row, 3));
    }
    double p = log2(tv(&od, 3 * s + 1, 5) / tv(&od, 3 * s + 2, 5));
    ck_assert_msg(fabs(p - p_expect[s]) <= 0.3, "%s: %s: trajectory errors %g, %g: order %.3g, expected %g", path,
                  sch[s], tv(&od, 3 * s + 1, 5), tv(&od, 3 * s + 2, 5), p, p_expect[s]);
  }
  table_free(&od);
}

START_TEST(test_arm5_improved)
{
  /* 1 s (h = 0.01: 100 steps, h = 0.1: 10), where every run completes. */
  check_arm5_improved(100);
}
END_TEST

START_TEST(test_arm5_improved_diverging)
{
  /* 3 s, where the improved scheme diverges at h = 0.1. */
  check_arm5_improved(300);
}
END_TEST

START_TEST(test_arm5_baumgarte)
{
  run_ok("run", "arm5-baumgarte", "--steps", "200", "--set", "order_levels=2", "--out", "b");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "b");
  check_no_temporaries(dir);
  check_meta(dir, "sweep", "cdyn run arm5-baumgarte --steps 200 --set order_levels=2 --out b", 0.01, 200, "alpha",
             "2");
  pathf(path, "%s/baumgarte.csv", dir);
  table bg = read_table(path, A5_RUN, 0);
  ck_assert_msg(bg.nrows == 201, "%s: %zu rows", path, bg.nrows);
  pathf(path, "%s/implicit.csv", dir);
  table im = read_table(path, A5_RUN, 0);
  ck_assert_msg(im.nrows == 201, "%s: %zu rows", path, im.nrows);
  double mb = a5_mean(&bg), mi = a5_mean(&im);

  /* The sweep: 12 x 12 (alpha, beta) in {0, 2^-2 .. 2^8}; the rules of
     stability.c on the 5-link 1 kg arm: e_n <= 0.1 x 5 m, energy gain <=
     0.1 x m g L (1 + .. + 5) = 0.1 x 15 x 9.81 J. */
  pathf(path, "%s/sweep.csv", dir);
  table sw = read_table_nan(path, "ia,ib,alpha,beta,stable,fail_step,e_tail,e_mean,e_max,gain_max,e_fail", 0);
  ck_assert_msg(sw.nrows == 144, "%s: %zu rows", path, sw.nrows);
  const double e_lim = 0.5, gain_lim = 0.1 * 15 * G;
  double emin = INFINITY, emax = 0;
  int nst = 0;
  for (size_t r = 0; r < 144; r++) {
    int ia = (int)(r / 12), ib = (int)(r % 12);
    double a = ia ? ldexp(1, ia - 3) : 0, b = ib ? ldexp(1, ib - 3) : 0;
    ck_assert_msg(tv(&sw, r, 0) == ia && tv(&sw, r, 1) == ib && tv(&sw, r, 2) == a && tv(&sw, r, 3) == b,
                  "%s: row %zu: alpha %g beta %g, expected %g %g", path, r + 1, tv(&sw, r, 2), tv(&sw, r, 3), a, b);
    int stable = tv(&sw, r, 4) == 1;
    double fs = tv(&sw, r, 5), emx = tv(&sw, r, 8), gmx = tv(&sw, r, 9), efail = tv(&sw, r, 10);
    if (stable) {
      ck_assert_msg(fs == 201 && emx <= e_lim && gmx <= gain_lim && isfinite(tv(&sw, r, 6)) && isnan(efail),
                    "%s: row %zu stable with fail_step %g, e_max %g, gain %g", path, r + 1, fs, emx, gmx);
      nst++;
      emin = fmin(emin, tv(&sw, r, 6));
      emax = fmax(emax, tv(&sw, r, 6));
    } else {
      ck_assert_msg(tv(&sw, r, 4) == 0 && fs >= 1 && fs <= 200 && isnan(tv(&sw, r, 6)),
                    "%s: row %zu: stable %g, fail_step %g, e_tail %g", path, r + 1, tv(&sw, r, 4), fs, tv(&sw, r, 6));
      /* Stopped for a reason: a limit exceeded (or a failed step, which
         leaves both below; none of those at this h).  The step beyond
         e_lim is refused, so e_max stays within it and e_fail holds it. */
      ck_assert_msg(emx <= e_lim && (efail > e_lim || gmx > gain_lim),
                    "%s: row %zu unstable with e_max %g, e_fail %g, gain %g", path, r + 1, emx, efail, gmx);
    }
    /* The sweep's (2, 2) is the main run: the same mean, and e_tail the
       mean over its last tenth, steps 181 .. 200. */
    if (a == 2 && b == 2 && stable) {
      double tail = 0;
      for (size_t k = 181; k <= 200; k++)
        tail += tv(&bg, k, A5_E) / 20;
      ck_assert_msg(fabs(tv(&sw, r, 7) - mb) <= 1e-13 * mb && fabs(tv(&sw, r, 6) - tail) <= 1e-13 * tail,
                    "%s: (2, 2): e_mean %.17g, e_tail %.17g; baumgarte.csv gives %.17g, %.17g", path, tv(&sw, r, 7),
                    tv(&sw, r, 6), mb, tail);
    }
  }
  check_claim(dir, "arm5.implicit_beats_baumgarte",
              (exp_value[]){{"ratio", mi / mb}, {"spread", nst >= 2 ? emax / emin : NAN}}, 2, 1e-5);
  pathf(path, "%s/order.csv", dir);
  table od = read_table_nan(path, "scheme,h,steps,completed,e_T,pos_err", 1);
  ck_assert_msg(od.nrows == 4 && !strcmp(od.label[0], "baumgarte") && !strcmp(od.label[3], "implicit"),
                "%s: %zu rows, expected baumgarte and implicit at 2 levels", path, od.nrows);
  table_free(&od);
  table_free(&sw);
  table_free(&bg);
  table_free(&im);
}
END_TEST

/* ---- 15. chain10-stability ---------------------------------------------------------------- */

#define C10_NODES 11
#define C10_FAIL_COLUMNS                                                                                           \
  "scheme,trial,failed,fail_step,cause,status,e0,e_max,e_before,e_prev,e_mean,ratio,noconv,E0,E_end,e_fail"
enum { F_TRIAL = 1, F_FAILED, F_STEP, F_CAUSE, F_STATUS, F_E0, F_EMAX, F_EBEFORE, F_EPREV, F_EMEAN, F_RATIO, F_NOCONV,
       F_ENERGY0, F_ENERGY_END, F_EFAIL };
#define C10_SUMMARY_COLUMNS                                                                                        \
  "scheme,runs,failed,fail_min,fail_q1,fail_median,fail_q3,fail_max,e_mean,e_before_median,noconv,"                 \
  "identical_to_poststab,E_end_median"
enum { S_RUNS = 1, S_FAILED, S_MIN, S_Q1, S_MED, S_Q3, S_MAX, S_EMEAN, S_EBEFORE, S_NOCONV, S_IDENT, S_EEND };

static double dist3(const double *a, const double *b)
{
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/*
 * The starts of a chain10-stability run (starts.csv, trials + 1 starts)
 * against what chain10.c promises, for saw-tooth angle `deg` and largest
 * rotation `eps`:
 * - trial 0 is the saw tooth x_i = (i cos phi, [i odd] sin phi, 0);
 * - every start keeps the ends exactly where trial 0 has them, and every
 *   link length to rounding;
 * - trial t >= 1 turns node i = 1 .. 9 in turn about the axis through
 *   node i-1 (already turned) and node i+1 (not yet: trial 0's), by the
 *   angle psi_i that gsl_rng_mt19937 seeded with t gives,
 *   psi_i = eps (2 u_i - 1): the node keeps its axial coordinate and its
 *   distance from the axis, and its perpendicular part turns by psi_i.
 * The starts' e_n (failures.csv e0) must be at rounding level.
 */
static void check_chain10_starts(const char *dir, long trials, double deg, double eps)
{
  char path[PATH_MAX];
  pathf(path, "%s/starts.csv", dir);
  table s = read_table(path, "trial,node,x,y,z", 0);
  ck_assert_msg(s.nrows == (size_t)(trials + 1) * C10_NODES, "%s: %zu rows, expected %ld", path, s.nrows,
                (trials + 1) * C10_NODES);
  const double phi = deg * acos(-1.0) / 180.0;
  /*
   * Tolerances.  Coordinates are below 8 m, where one ulp is 1.8e-15; a
   * start position is one product (i cos phi), a turned node one Rodrigues
   * evaluation of about ten operations on |r| <= 1 plus the addition of
   * its anchor, so each coordinate carries a few ulp: <= 4e-15.  A link
   * length difference of two such nodes is off by <= 2 sqrt(3) 4e-15 =
   * 1.4e-14, hence TOL_LINK = 2e-14 and, over 10 links (the pins are
   * exact), e_n <= 2e-13.  The angle of a node about its axis is a
   * perpendicular offset of L sin phi >= 0.5 m (phi >= 30 deg here) seen
   * with those errors: <= 2 x 1.4e-14 / 0.5 ~ 6e-14 rad, hence 1e-13.
   */
  const double TOL_POS = 1e-14, TOL_LINK = 2e-14, TOL_ANGLE = 1e-13;
  ck_assert_msg(deg >= 30 && deg < 90, "the angle tolerance assumes phi >= 30 degrees");
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  ck_assert_ptr_nonnull(rng);
  for (long t = 0; t <= trials; t++) {
    const double *q = s.v + (size_t)t * C10_NODES * 5, *q0 = s.v;
    for (int i = 0; i < C10_NODES; i++) {
      ck_assert_msg(q[5 * i] == (double)t && q[5 * i + 1] == (double)i, "%s: row %ld is trial %g node %g", path,
                    t * C10_NODES + i + 1, q[5 * i], q[5 * i + 1]);
      if (t == 0) {
        double want[3] = {i * cos(phi), (i % 2) ? sin(phi) : 0.0, 0.0};
        ck_assert_msg(dist3(q + 5 * i + 2, want) <= TOL_POS, "%s: trial 0 node %d at (%.17g, %.17g, %.17g)", path, i,
                      q[5 * i + 2], q[5 * i + 3], q[5 * i + 4]);
      }
    }
    /* The ends do not move. */
    for (int c = 0; c < 3; c++)
      ck_assert_msg(q[2 + c] == q0[2 + c] && q[5 * 10 + 2 + c] == q0[5 * 10 + 2 + c],
                    "%s: trial %ld moves an end of the chain", path, t);
    for (int i = 0; i < 10; i++) {
      double len = dist3(q + 5 * i + 2, q + 5 * (i + 1) + 2);
      ck_assert_msg(fabs(len - 1) <= TOL_LINK, "%s: trial %ld: link %d has length 1 %+.3g", path, t, i, len - 1);
    }
    if (t == 0)
      continue;
    gsl_rng_set(rng, (unsigned long)t);
    double zmax = 0;
    for (int i = 1; i < 10; i++) {
      double psi = eps * (2 * gsl_rng_uniform(rng) - 1);
      const double *a = q + 5 * (i - 1) + 2, *b = q0 + 5 * (i + 1) + 2, *x0 = q0 + 5 * i + 2, *x1 = q + 5 * i + 2;
      double k[3], u0[3], u1[3], nk = dist3(a, b);
      for (int c = 0; c < 3; c++)
        k[c] = (b[c] - a[c]) / nk;
      double k0 = 0, k1 = 0;
      for (int c = 0; c < 3; c++) {
        k0 += k[c] * (x0[c] - a[c]);
        k1 += k[c] * (x1[c] - a[c]);
      }
      for (int c = 0; c < 3; c++) {
        u0[c] = x0[c] - a[c] - k0 * k[c];
        u1[c] = x1[c] - a[c] - k1 * k[c];
      }
      double cr[3] = {u0[1] * u1[2] - u0[2] * u1[1], u0[2] * u1[0] - u0[0] * u1[2], u0[0] * u1[1] - u0[1] * u1[0]};
      double angle = atan2(k[0] * cr[0] + k[1] * cr[1] + k[2] * cr[2], u0[0] * u1[0] + u0[1] * u1[1] + u0[2] * u1[2]);
      ck_assert_msg(fabs(k0 - k1) <= TOL_LINK, "%s: trial %ld node %d: axial coordinate %.17g -> %.17g", path, t, i,
                    k0, k1);
      ck_assert_msg(fabs(angle - psi) <= TOL_ANGLE,
                    "%s: trial %ld node %d turned by %.17g rad about its neighbours' axis, seed %ld gives %.17g", path,
                    t, i, angle, t, psi);
      /* One rotation by |psi| <= eps at a distance <= L from its axis. */
      ck_assert_msg(dist3(x0, x1) <= eps * (1 + 1e-9), "%s: trial %ld node %d moved %.3g > eps L", path, t, i,
                    dist3(x0, x1));
      zmax = fmax(zmax, fabs(x1[2]));
    }
    /* The perturbation leaves the plane (the exact start has z = 0). */
    ck_assert_msg(zmax > 0.1 * eps, "%s: trial %ld: largest |z| %.3g, not out of the plane", path, t, zmax);
    /* Different seeds, different starts. */
    const double *prev = s.v + (size_t)(t - 1) * C10_NODES * 5;
    double diff = 0;
    for (int i = 0; i < C10_NODES; i++)
      diff = fmax(diff, dist3(q + 5 * i + 2, prev + 5 * i + 2));
    ck_assert_msg(diff > 0.01 * eps, "%s: trials %ld and %ld start within %.3g of each other", path, t - 1, t, diff);
  }
  gsl_rng_free(rng);
  table_free(&s);

  pathf(path, "%s/failures.csv", dir);
  table f = read_table_nan(path, C10_FAIL_COLUMNS, 1);
  for (size_t r = 0; r < f.nrows; r++)
    ck_assert_msg(tv(&f, r, F_E0) <= 10 * TOL_LINK, "%s: row %zu: e_n of the start is %.3g", path, r + 1,
                  tv(&f, r, F_E0));
  table_free(&f);
}

START_TEST(test_chain10_starts)
{
  /* High-entropy parameters, not the defaults: they must reach the run. */
  run_ok("run", "chain10-stability", "--scheme", "implicit", "--steps", "20", "--set", "trials=3", "--set",
         "sawtooth=37.5", "--set", "perturb=2.5e-3", "--out", "a");
  char dir[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  check_chain10_starts(dir, 3, 37.5, 2.5e-3);
  const char *cmd = "cdyn run chain10-stability --scheme implicit --steps 20 --set trials=3 --set sawtooth=37.5 "
                    "--set perturb=2.5e-3 --out a";
  check_meta(dir, "starts", cmd, 0.001, 20, "sawtooth", "37.5");
  check_meta(dir, "implicit", cmd, 0.001, 20, "perturb", "2.5e-3");
  /* A restricted run judges the claims it can, and keeps its companion run. */
  char path[PATH_MAX];
  /* Claims whose runs did not all run are listed as not run. */
  check_claims_part(dir, "chain10-stability");
  pathf(path, "%s/poststab-mass.csv", dir);
  ck_assert_msg(exists(path), "%s: the companion run is part of the experiment", path);
  /* The same command writes the same bytes. */
  run_ok("run", "chain10-stability", "--scheme", "implicit", "--steps", "20", "--set", "trials=3", "--set",
         "sawtooth=37.5", "--set", "perturb=2.5e-3", "--out", "b");
  check_same_output(5);
}
END_TEST

/*
 * One run name's unperturbed file RUN.csv (step,t,e,E) against its row of
 * failures.csv (trial 0), recomputing the failure rule: the run fails at
 * the first step k >= 1 with e_k > fail_tol.  The divergence guard
 * refuses that step (status CDYN_EDIVERGED), so the file holds the rows
 * before it, every one within fail_tol, and e_fail the refused step's e_n.
 * (Failed or non-finite steps, causes 1 and 2, likewise leave the rows
 * before the failure.)  Returns the file's e column (caller frees).
 */
static double *check_chain10_run(const char *dir, const char *name, const table *f, size_t row, long steps,
                                 double fail_tol, size_t *nrows)
{
  char path[PATH_MAX];
  pathf(path, "%s/%s.csv", dir, name);
  table t = read_table(path, "step,t,e,E", 0);
  ck_assert_msg(t.nrows >= 1 && t.nrows <= (size_t)steps + 1, "%s: %zu rows for %ld steps", path, t.nrows, steps);
  double *e = malloc(t.nrows * sizeof *e);
  ck_assert_ptr_nonnull(e);
  for (size_t k = 0; k < t.nrows; k++) {
    ck_assert_msg(tv(&t, k, 0) == (double)k && fabs(tv(&t, k, 1) - 0.001 * (double)k) <= 1e-15 * (double)k,
                  "%s: row %zu: step %g, t %.17g", path, k + 1, tv(&t, k, 0), tv(&t, k, 1));
    e[k] = tv(&t, k, 2);
    ck_assert_msg(e[k] >= 0 && (k == 0 || e[k] <= fail_tol), "%s: step %zu: e = %g (fail_tol %g)", path, k, e[k],
                  fail_tol);
  }
  ck_assert_msg(!strcmp(f->label[row], name) && tv(f, row, F_TRIAL) == 0, "failures.csv row %zu is %s trial %g",
                row + 1, f->label[row], tv(f, row, F_TRIAL));
  double failed = tv(f, row, F_FAILED), step = tv(f, row, F_STEP), cause = tv(f, row, F_CAUSE);
  double status = tv(f, row, F_STATUS), efail = tv(f, row, F_EFAIL);
  if (t.nrows == (size_t)steps + 1) {
    ck_assert_msg(failed == 0 && step == (double)steps && cause == 0 && status == 0 && isnan(efail),
                  "%s: survives all %ld steps, but failures.csv says failed %g at step %g, cause %g", path, steps,
                  failed, step, cause);
  } else if (cause == 3) {
    ck_assert_msg(failed == 1 && step == (double)t.nrows && status == CDYN_EDIVERGED && efail > fail_tol,
                  "%s: stops after %zu rows; failures.csv: failed %g at %g, status %g, e_fail %g (fail_tol %g)", path,
                  t.nrows, failed, step, status, efail, fail_tol);
  } else {
    ck_assert_msg(failed == 1 && step == (double)t.nrows && (cause == 1 || cause == 2) && status < 0 && isnan(efail),
                  "%s: stops after %zu rows without exceeding fail_tol; failures.csv: failed %g at %g, cause %g", path,
                  t.nrows, failed, step, cause);
  }
  /* The values recorded before the failure (the whole run if none). */
  size_t end = failed ? (size_t)step : (size_t)steps + 1;
  double emax = 0, esum = 0;
  for (size_t k = 0; k < end; k++)
    emax = fmax(emax, e[k]);
  for (size_t k = 1; k < end; k++)
    esum += e[k];
  ck_assert_msg(tv(f, row, F_E0) == e[0] && tv(f, row, F_EMAX) == emax,
                "%s: e0 %.17g, e_max %.17g; the file: %.17g, %.17g", name, tv(f, row, F_E0), tv(f, row, F_EMAX), e[0],
                emax);
  /* A sum of n positive terms in another order than the experiment's:
     relative rounding <= n u, u = 1.1e-16, on each side, plus the
     division. */
  double emean = end > 1 ? esum / (double)(end - 1) : NAN;
  ck_assert_msg(same(tv(f, row, F_EMEAN), emean, (2.0 * (double)end + 2) * 1.1e-16 * emean),
                "%s: e_mean %.17g, the file gives %.17g", name, tv(f, row, F_EMEAN), emean);
  double eprev = failed ? e[(size_t)step - 1] : NAN, ebefore = failed && step > 100 ? e[(size_t)step - 100] : NAN;
  ck_assert_msg(same(tv(f, row, F_EPREV), eprev, 0) && same(tv(f, row, F_EBEFORE), ebefore, 0),
                "%s: e_prev %.17g, e_before %.17g; the file gives %.17g, %.17g", name, tv(f, row, F_EPREV),
                tv(f, row, F_EBEFORE), eprev, ebefore);
  double ratio = NAN;
  if (!failed) {
    size_t q = (size_t)steps / 4;
    double a = 0, b = 0;
    for (size_t k = 1; k <= q; k++)
      a += e[k];
    for (size_t k = (size_t)steps - q + 1; k <= (size_t)steps; k++)
      b += e[k];
    ratio = b / a;
  }
  /* Two sums of N/4 positive terms, each to N/4 u on both sides, and a
     quotient: relative <= (N + 4) u. */
  ck_assert_msg(same(tv(f, row, F_RATIO), ratio, ((double)steps + 4) * 1.1e-16 * fabs(ratio)),
                "%s: ratio %.17g, the file gives %.17g", name, tv(f, row, F_RATIO), ratio);
  ck_assert_msg(tv(f, row, F_ENERGY0) == tv(&t, 0, 3) && tv(f, row, F_ENERGY_END) == tv(&t, t.nrows - 1, 3),
                "%s: E0 %.17g, E_end %.17g; the file: %.17g, %.17g", name, tv(f, row, F_ENERGY0),
                tv(f, row, F_ENERGY_END), tv(&t, 0, 3), tv(&t, t.nrows - 1, 3));
  *nrows = t.nrows;
  table_free(&t);
  return e;
}

/* Median and quartiles as chain10.c states them: GSL's interpolation of
   the sorted failure steps. */
static double c10_quantile(double *x, size_t n, double p)
{
  gsl_sort(x, 1, n);
  return gsl_stats_quantile_from_sorted_data(x, 1, n, p);
}

/*
 * The tables of a chain10-stability run of the run names `names` (NR of
 * them), NT starts each, N steps, failure threshold `tol`: each run's
 * unperturbed file against failures.csv (check_chain10_run), summary.csv
 * recomputed from the rows of failures.csv, and survival.csv as the step
 * function of the failure steps.  f and s get failures.csv and
 * summary.csv, e[r] and ne[r] each run's e column (caller frees).
 */
#define C10_MAX_TRIALS 16
static void check_chain10_tables(const char *dir, const char *const *names, size_t NR, size_t NT, long N, double tol,
                                 table *f, table *s, double **e, size_t *ne)
{
  char path[PATH_MAX];
  ck_assert_uint_le(NT, C10_MAX_TRIALS);
  pathf(path, "%s/failures.csv", dir);
  *f = read_table_nan(path, C10_FAIL_COLUMNS, 1);
  ck_assert_msg(f->nrows == NR * NT, "%s: %zu rows, expected %zu", path, f->nrows, NR * NT);
  pathf(path, "%s/summary.csv", dir);
  *s = read_table_nan(path, C10_SUMMARY_COLUMNS, 1);
  ck_assert_msg(s->nrows == NR, "%s: %zu rows, expected %zu", path, s->nrows, NR);
  pathf(path, "%s/survival.csv", dir);
  table sv = read_table(path, "scheme,step,alive", 1);
  size_t svr = 0;
  for (size_t r = 0; r < NR; r++) {
    e[r] = check_chain10_run(dir, names[r], f, r * NT, N, tol, &ne[r]);
    /* The summary from the rows of failures.csv. */
    double steps[C10_MAX_TRIALS], ebefore[C10_MAX_TRIALS], eend[C10_MAX_TRIALS], emean = 0, noconv = 0;
    size_t nf = 0, nb = 0;
    for (size_t t = 0; t < NT; t++) {
      size_t row = r * NT + t;
      ck_assert_msg(!strcmp(f->label[row], names[r]) && tv(f, row, F_TRIAL) == (double)t, "failures.csv: row %zu",
                    row + 1);
      /* Only the iterative scheme can stop before its tolerance. */
      ck_assert_msg(tv(f, row, F_NOCONV) == 0 || !strcmp(names[r], "rattle"), "%s: %g NOCONV steps", names[r],
                    tv(f, row, F_NOCONV));
      if (tv(f, row, F_FAILED) == 1)
        steps[nf++] = tv(f, row, F_STEP);
      if (isfinite(tv(f, row, F_EBEFORE)))
        ebefore[nb++] = tv(f, row, F_EBEFORE);
      emean += tv(f, row, F_EMEAN);
      eend[t] = tv(f, row, F_ENERGY_END);
      noconv += tv(f, row, F_NOCONV);
    }
    emean /= (double)NT;
    ck_assert_msg(!strcmp(s->label[r], names[r]) && tv(s, r, S_RUNS) == (double)NT &&
                    tv(s, r, S_FAILED) == (double)nf && tv(s, r, S_NOCONV) == noconv,
                  "summary.csv row %zu: %s, %g runs, %g failed; expected %s, %zu, %zu", r + 1, s->label[r],
                  tv(s, r, S_RUNS), tv(s, r, S_FAILED), names[r], NT, nf);
    double want[5] = {NAN, NAN, NAN, NAN, NAN};
    static const double p[5] = {0, 0.25, 0.5, 0.75, 1};
    for (int c = 0; c < 5 && nf; c++)
      want[c] = c10_quantile(steps, nf, p[c]);
    for (int c = 0; c < 5; c++)
      ck_assert_msg(same(tv(s, r, S_MIN + c), want[c], 0), "summary.csv %s column %d: %.17g, the runs give %.17g",
                    names[r], S_MIN + c + 1, tv(s, r, S_MIN + c), want[c]);
    /* A mean of NT means: relative rounding <= NT 1.1e-16. */
    ck_assert_msg(same(tv(s, r, S_EMEAN), emean, 1e-14 * emean), "summary.csv %s: e_mean %.17g, expected %.17g",
                  names[r], tv(s, r, S_EMEAN), emean);
    double bmed = nb ? c10_quantile(ebefore, nb, 0.5) : NAN;
    ck_assert_msg(same(tv(s, r, S_EBEFORE), bmed, 0), "summary.csv %s: e_before_median %.17g, expected %.17g",
                  names[r], tv(s, r, S_EBEFORE), bmed);
    ck_assert_msg(tv(s, r, S_EEND) == c10_quantile(eend, NT, 0.5), "summary.csv %s: E_end_median %.17g", names[r],
                  tv(s, r, S_EEND));
    /* survival.csv: from 1 at step 0, down by 1/NT at each failure. */
    ck_assert_msg(svr < sv.nrows && !strcmp(sv.label[svr], names[r]) && tv(&sv, svr, 1) == 0 && tv(&sv, svr, 2) == 1,
                  "survival.csv: %s does not start at (0, 1)", names[r]);
    svr++;
    long prev = 0;
    size_t alive = NT;
    while (svr < sv.nrows && !strcmp(sv.label[svr], names[r])) {
      long k = (long)tv(&sv, svr, 1);
      ck_assert_msg(k > prev, "survival.csv %s: step %ld after %ld", names[r], k, prev);
      size_t dead = 0;
      for (size_t i = 0; i < nf; i++)
        dead += steps[i] <= (double)k;
      alive = NT - dead;
      ck_assert_msg(fabs(tv(&sv, svr, 2) - (double)alive / (double)NT) <= 1e-15,
                    "survival.csv %s: %.17g alive at step %ld, the failures give %zu of %zu", names[r],
                    tv(&sv, svr, 2), k, alive, NT);
      prev = k;
      svr++;
    }
    ck_assert_msg(alive == NT - nf, "survival.csv %s ends with %zu of %zu alive, %zu failed", names[r], alive, NT, nf);
  }
  ck_assert_msg(svr == sv.nrows, "survival.csv: %zu rows left over", sv.nrows - svr);
  table_free(&sv);
}

/* The index of run `name` among n names; fails the test if absent. */
static size_t name_index(const char *const *names, size_t n, const char *name)
{
  for (size_t k = 0; k < n; k++)
    if (!strcmp(names[k], name))
      return k;
  ck_abort_msg("no run %s", name);
  return 0;
}

/*
 * The two claims of a default-scheme chain10-stability run (run order
 * baumgarte, poststab, implicit, improved, rattle, poststab-mass; NT <= 3
 * starts each), judged again by their rules from failures.csv (f) and
 * summary.csv (s).
 */
static void check_chain10_claims(const char *dir, const table *f, const table *s, const char *const *names, size_t NR,
                                 size_t NT)
{
  ck_assert_uint_le(NT, 3);
  const size_t ip = name_index(names, NR, "poststab"), ii = name_index(names, NR, "implicit");
  double frac = tv(s, ip, S_FAILED) / tv(s, ip, S_RUNS), med = tv(s, ip, S_MED);
  /* Implicit's ratios (NaN for a failed run): the exact start's, and the
     median of the trials' that are defined. */
  double r0 = tv(f, ii * NT, F_RATIO), rt[2] = {NAN, NAN};
  size_t nrt = 0;
  for (size_t t = 1; t < NT; t++)
    if (isfinite(tv(f, ii * NT + t, F_RATIO)))
      rt[nrt++] = tv(f, ii * NT + t, F_RATIO);
  double rmed = nrt == 2 ? (rt[0] + rt[1]) / 2 : nrt == 1 ? rt[0] : NAN;
  double m_impl = isnan(r0) || isnan(rmed) ? NAN : fmax(r0, rmed);
  check_claim(dir, "chain10.poststab_fails",
              (exp_value[]){{"failed_fraction", frac}, {"median_fail_step", tv(s, ip, S_FAILED) > 0 ? med : NAN}}, 2,
              1e-5);
  check_claim(dir, "chain10.implicit_stable", (exp_value[]){{"failures", tv(s, ii, S_FAILED)}, {"decay", m_impl}}, 2,
              1e-5);
  ck_assert_uint_eq(check_claims_part(dir, "chain10-stability"), 2);
}

START_TEST(test_chain10_default_run)
{
  /* The default schemes (so the context run and the claims), 3 starts,
     400 steps, and a fail_tol low enough that some runs fail and others
     survive. */
  const size_t NT = 3;
  run_ok("run", "chain10-stability", "--steps", "400", "--set", "trials=2", "--set", "fail_tol=1e-6", "--out", "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  check_chain10_starts(dir, 2, 45, 1e-3);
  /* The runs, from the run's record: the paper's schemes, then the
     mass-weighted companion. */
  static char run_names[64][64];
  const char *names[64];
  size_t NR;
  read_runs(dir, run_names, 64, &NR);
  ck_assert_uint_le(NR, 8);
  for (size_t r = 0; r < NR; r++)
    names[r] = run_names[r];
  const size_t ip = name_index(names, NR, "poststab"), im = name_index(names, NR, "poststab-mass");
  dirlist l = list_dir(dir);
  /* A file per run, starts, failures, summary, survival, runs.csv and the
     claims; each CSV with its record, and run.meta.json. */
  ck_assert_uint_eq(count_suffix(&l, ".csv"), NR + 6);
  ck_assert_uint_eq(count_suffix(&l, ".meta.json"), NR + 6);
  dirlist_free(&l);
  const char *cmd = "cdyn run chain10-stability --steps 400 --set trials=2 --set fail_tol=1e-6 --out a";
  check_meta(dir, "failures", cmd, 0.001, 400, "fail_tol", "1e-6");
  check_meta(dir, "poststab-mass", cmd, 0.001, 400, "trials", "2");
  pathf(path, "%s/poststab-mass.meta.json", dir);
  char *json = must_slurp(path);
  ck_assert_msg(json_has_string(json, "weighting", "mass"), "%s: not the mass-weighted projection:\n%s", path, json);
  free(json);
  pathf(path, "%s/poststab.meta.json", dir);
  json = must_slurp(path);
  ck_assert_msg(json_has_string(json, "weighting", "unit"), "%s: not the unit-weighted projection:\n%s", path, json);
  free(json);
  table f, s;
  double *e[8];
  size_t ne[8];
  check_chain10_tables(dir, names, NR, NT, 400, 1e-6, &f, &s, e, ne);

  /*
   * Equal masses: W = I / m with m = 1, so the library's mass weights
   * 1/m are 1.0 exactly, as are its unit weights, and the two projections
   * execute the same operations on the same numbers.  The context run
   * must therefore reproduce poststab bit for bit, and say so.
   */
  ck_assert_msg(ne[ip] == ne[im] && !memcmp(e[ip], e[im], ne[ip] * sizeof(double)),
                "poststab-mass's e_n differs from poststab's with equal masses");
  ck_assert_msg(tv(&s, im, S_IDENT) == (double)NT, "summary.csv: identical_to_poststab = %g, expected %zu",
                tv(&s, im, S_IDENT), NT);
  for (size_t r = 0; r < NR; r++)
    ck_assert_msg(r == im || tv(&s, r, S_IDENT) == -1, "summary.csv %s: identical_to_poststab %g", names[r],
                  tv(&s, r, S_IDENT));
  for (size_t t = 0; t < NT; t++)
    for (size_t c = 1; c < f.ncol; c++)
      ck_assert_msg(same(tv(&f, ip * NT + t, c), tv(&f, im * NT + t, c), 0), "failures.csv: trial %zu column %zu "
                    "differs between poststab and poststab-mass", t, c + 1);

  check_chain10_claims(dir, &f, &s, names, NR, NT);
  for (size_t r = 0; r < NR; r++)
    free(e[r]);
  table_free(&f);
  table_free(&s);

  /* At the default fail_tol the short runs survive: the verdicts'
     other branches. */
  run_ok("run", "chain10-stability", "--steps", "400", "--set", "trials=2", "--out", "b");
  wp(dir, "b");
  check_chain10_tables(dir, names, NR, NT, 400, 0.1, &f, &s, e, ne);
  check_chain10_claims(dir, &f, &s, names, NR, NT);
  for (size_t r = 0; r < NR; r++)
    free(e[r]);
  table_free(&f);
  table_free(&s);
}
END_TEST

/*
 * The summary's order statistics on failure steps that differ: implicit
 * over the default 10000 steps from 8 starts, with a fail_tol inside the
 * spread of its largest e_n over the trials (5.4e-4 .. 5.9e-4 at the
 * defaults), so that some runs fail, at various steps, and some do not.
 * The tables are checked against their rows whatever the outcome.
 */
START_TEST(test_chain10_failure_spread)
{
  run_ok("run", "chain10-stability", "--scheme", "implicit", "--set", "trials=7", "--set", "fail_tol=5.5e-4", "--out",
         "a");
  char dir[PATH_MAX];
  wp(dir, "a");
  /* implicit, and the companion run */
  static char run_names[64][64];
  const char *names[8];
  size_t NR;
  read_runs(dir, run_names, 64, &NR);
  ck_assert_msg(NR >= 1 && NR <= 8 && !strcmp(run_names[0], "implicit"), "%s: %zu runs", dir, NR);
  for (size_t r = 0; r < NR; r++)
    names[r] = run_names[r];
  table f, s;
  double *e[8];
  size_t ne[8];
  check_chain10_tables(dir, names, NR, 8, 10000, 5.5e-4, &f, &s, e, ne);
  for (size_t r = 0; r < NR; r++)
    free(e[r]);
  table_free(&f);
  table_free(&s);
}
END_TEST

/*
 * Failure detection with known answers.  A first run of baumgarte (its
 * error grows from the start) records e_n per step; a fail_tol just below
 * e_n at step 150 must then fail the same run at the first step whose e_n
 * exceeds it (the dynamics are the same up to there, so the file must
 * repeat the first run's rows before that step, and e_fail its e_n, bit
 * for bit: the divergence guard measures the same state); a fail_tol below every e_n after the
 * start fails it at step 1.  And implicit cannot fail a 300-step run at
 * the default 0.1 m: each of its steps is one linearised Newton step on
 * Phi(q+) = 0, which leaves per link the remainder of the linearisation,
 * |d|^2 / (2 L) for a step d = h v of a node relative to its neighbour;
 * the chain cannot gain energy from a fall of more than its 10 m, so
 * |v| <= sqrt(2 g 10 m) + its initial 0 = 14 m/s per node, relative speeds
 * <= 28 m/s, d <= 0.028 m, and so e_n <= 10 x 0.028^2 / 2 = 4e-3 m.
 */
START_TEST(test_chain10_failure_detection)
{
  run_ok("run", "chain10-stability", "--scheme", "baumgarte", "--steps", "300", "--set", "trials=0", "--out", "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  pathf(path, "%s/failures.csv", dir);
  table f = read_table_nan(path, C10_FAIL_COLUMNS, 1);
  /* Row 0: baumgarte's only start (the companion's follows). */
  ck_assert_msg(f.nrows >= 1 && !strcmp(f.label[0], "baumgarte"), "%s: row 1 is not baumgarte's", path);
  size_t n1;
  double *e1 = check_chain10_run(dir, "baumgarte", &f, 0, 300, 0.1, &n1);
  table_free(&f);
  ck_assert_msg(n1 == 301, "baumgarte fails within 300 steps at 0.1 m");
  double T = e1[150] * (1 - 1e-9);
  long expect = -1;
  for (size_t k = 1; k <= 300 && expect < 0; k++)
    if (e1[k] > T)
      expect = (long)k;
  ck_assert_msg(expect >= 1 && expect <= 150, "no step up to 150 exceeds %g", T);
  char set[64];
  snprintf(set, sizeof set, "fail_tol=%.17g", T);
  run_ok("run", "chain10-stability", "--scheme", "baumgarte", "--steps", "300", "--set", "trials=0", "--set", set,
         "--out", "b");
  wp(dir, "b");
  pathf(path, "%s/failures.csv", dir);
  f = read_table_nan(path, C10_FAIL_COLUMNS, 1);
  size_t n2;
  double *e2 = check_chain10_run(dir, "baumgarte", &f, 0, 300, T, &n2);
  ck_assert_msg(tv(&f, 0, F_FAILED) == 1 && tv(&f, 0, F_STEP) == (double)expect && tv(&f, 0, F_CAUSE) == 3,
                "fail_tol %.17g: failed %g at step %g, cause %g; expected step %ld", T, tv(&f, 0, F_FAILED),
                tv(&f, 0, F_STEP), tv(&f, 0, F_CAUSE), expect);
  /* The rows before the refused step, and that step's e_n in e_fail. */
  ck_assert_msg(n2 == (size_t)expect && !memcmp(e1, e2, n2 * sizeof(double)) && tv(&f, 0, F_EFAIL) == e1[expect],
                "the stopped run does not repeat the first run's e_n up to its failure (%zu rows, e_fail %.17g against "
                "%.17g)",
                n2, tv(&f, 0, F_EFAIL), e1[expect]);
  table_free(&f);
  free(e2);

  ck_assert_msg(e1[1] > 1e-300, "baumgarte's e_n after one step is %g", e1[1]);
  run_ok("run", "chain10-stability", "--scheme", "baumgarte", "--steps", "300", "--set", "trials=0", "--set",
         "fail_tol=1e-300", "--out", "c");
  wp(dir, "c");
  pathf(path, "%s/failures.csv", dir);
  f = read_table_nan(path, C10_FAIL_COLUMNS, 1);
  ck_assert_msg(tv(&f, 0, F_FAILED) == 1 && tv(&f, 0, F_STEP) == 1 && tv(&f, 0, F_CAUSE) == 3,
                "fail_tol 1e-300: failed %g at step %g, cause %g; expected step 1", tv(&f, 0, F_FAILED),
                tv(&f, 0, F_STEP), tv(&f, 0, F_CAUSE));
  table_free(&f);
  free(e1);

  run_ok("run", "chain10-stability", "--scheme", "implicit", "--steps", "300", "--set", "trials=2", "--out", "d");
  wp(dir, "d");
  pathf(path, "%s/failures.csv", dir);
  f = read_table_nan(path, C10_FAIL_COLUMNS, 1);
  ck_assert_msg(f.nrows >= 3 && !strcmp(f.label[2], "implicit"), "%s: rows 1-3 are not implicit's", path);
  for (size_t r = 0; r < 3; r++)
    ck_assert_msg(tv(&f, r, F_FAILED) == 0 && tv(&f, r, F_STEP) == 300 && tv(&f, r, F_EMAX) <= 4e-3,
                  "implicit trial %zu: failed %g at step %g, e_max %g (bound 4e-3)", r, tv(&f, r, F_FAILED),
                  tv(&f, r, F_STEP), tv(&f, r, F_EMAX));
  table_free(&f);

  /* A run's own divergence guard, tighter than fail_tol, stays: implicit
     with max_error = 1e-12 m fails at its first step whose e_n exceeds
     it (cause 3), as with fail_tol = 1e-12 m. */
  run_ok("run", "chain10-stability", "--scheme", "implicit", "--steps", "300", "--set", "trials=0", "--set",
         "implicit.max_error=1e-12", "--out", "e");
  run_ok("run", "chain10-stability", "--scheme", "implicit", "--steps", "300", "--set", "trials=0", "--set",
         "fail_tol=1e-12", "--out", "g");
  table fe, fg;
  wp(dir, "e");
  pathf(path, "%s/failures.csv", dir);
  fe = read_table_nan(path, C10_FAIL_COLUMNS, 1);
  wp(dir, "g");
  pathf(path, "%s/failures.csv", dir);
  fg = read_table_nan(path, C10_FAIL_COLUMNS, 1);
  ck_assert_msg(tv(&fe, 0, F_FAILED) == 1 && tv(&fe, 0, F_CAUSE) == 3 && tv(&fe, 0, F_STEP) < 300 &&
                  tv(&fe, 0, F_STEP) == tv(&fg, 0, F_STEP) && tv(&fe, 0, F_EFAIL) == tv(&fg, 0, F_EFAIL) &&
                  tv(&fe, 0, F_EFAIL) > 1e-12,
                "max_error = 1e-12: failed %g at step %g, cause %g, e_fail %g; fail_tol = 1e-12: step %g, e_fail %g",
                tv(&fe, 0, F_FAILED), tv(&fe, 0, F_STEP), tv(&fe, 0, F_CAUSE), tv(&fe, 0, F_EFAIL), tv(&fg, 0, F_STEP),
                tv(&fg, 0, F_EFAIL));
  table_free(&fe);
  table_free(&fg);
}
END_TEST

/* ---- corner (003 figures 1-5) ------------------------------------------------------------ */

#define CORNER_COLUMNS "step,t,x,y,vx,vy,ax,ay,g1,g2,mu1,mu2,handled1,handled2,solves,pulls,violates"
enum { CO_STEP, CO_T, CO_X, CO_Y, CO_VX, CO_VY, CO_AX, CO_AY, CO_G1, CO_G2, CO_MU1, CO_MU2, CO_H1, CO_H2,
       CO_SOLVES, CO_PULLS, CO_VIOL };
#define CORNER_SUMMARY "case,algorithm,fx,fy,mass,ran,failed,pen_g1,pen_g2,cross_step,pull_steps,violate_steps," \
                       "max_solves,max_excess,ax0,ay0,ax0_exact,ay0_exact,dev_exact"
enum { CS_CASE, CS_ALG, CS_FX, CS_FY, CS_M, CS_RAN, CS_FAILED, CS_PEN1, CS_PEN2, CS_CROSS, CS_PULLS, CS_VIOL,
       CS_SOLVES, CS_EXCESS, CS_AX0, CS_AY0 };

static table corner_run(const char *dir, const char *cs, int m, const char *alg, long steps)
{
  char path[PATH_MAX];
  pathf(path, "%s/corner-%s-m%d-%s.csv", dir, cs, m, alg);
  table t = read_table_nan(path, CORNER_COLUMNS, 0);
  ck_assert_msg(t.nrows == (size_t)steps + 1, "%s: %zu rows, expected %ld", path, t.nrows, steps + 1);
  for (size_t r = 0; r < t.nrows; r++) {
    ck_assert_msg(tv(&t, r, CO_STEP) == (double)r, "%s: row %zu is step %g", path, r, tv(&t, r, CO_STEP));
    /* g1 = x - y and g2 = y as written */
    ck_assert_msg(tv(&t, r, CO_G1) == tv(&t, r, CO_X) - tv(&t, r, CO_Y) && tv(&t, r, CO_G2) == tv(&t, r, CO_Y),
                  "%s: row %zu: g1, g2 are not x - y, y", path, r);
  }
  return t;
}

START_TEST(test_corner)
{
  const long N = 40;
  const double h = 0.01;
  run_ok("run", "corner", "--steps", "40", "--out", "co");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "co");
  check_no_temporaries(dir);
  check_meta(dir, "corner-summary", "cdyn run corner --steps 40 --out co", h, N, "tau_over_h", "10");
  check_meta(dir, "corner-f1-m2-platt", "cdyn run corner --steps 40 --out co", h, N, "tau_over_h", "10");
  pathf(path, "%s/corner-summary.csv", dir);
  table s = read_table(path, CORNER_SUMMARY, 2);
  char runs[64][64];
  size_t nr;
  read_runs(dir, runs, 64, &nr);
  ck_assert_msg(nr >= 3 && s.nrows == 4 * nr, "%s: %zu rows for %zu runs", path, s.nrows, nr);

  for (int m = 2; m <= 3; m++) {
    double md = m;
    /*
     * Iterative, f = (2, -1): the first solve (S empty) gives w = b =
     * (3/m, -1/m), g2 joins, and A_22 mu_2 = -b_2 with A_22 = 1/m gives
     * mu_2 = 1, qdd = (2/m, 0): 003 §4.1's answer.  Then g1 > 0 is
     * inactive.  Symplectic Euler with a constant qdd puts x_k =
     * (2/m) h^2 k (k + 1) / 2 exactly in exact arithmetic; each step rounds
     * x by an ulp or so, hence the relative 1e-12.  y stays 0 up to the
     * rounding of v_y + h a_y with a_y = (-1/m) + mu/m (1e-17 here).
     */
    table it = corner_run(dir, "f1", m, "iterative", N);
    for (size_t k = 0; k <= (size_t)N; k++) {
      double kk = (double)k, xe = (2 / md) * h * h * kk * (kk + 1) / 2;
      ck_assert_msg(fabs(tv(&it, k, CO_X) - xe) <= 1e-12 * xe + 1e-300, "iterative f1 m = %d: x_%zu = %.17g, "
                    "exact %.17g", m, k, tv(&it, k, CO_X), xe);
      ck_assert_msg(fabs(tv(&it, k, CO_Y)) <= 1e-15, "iterative f1 m = %d: y_%zu = %g", m, k, tv(&it, k, CO_Y));
    }
    ck_assert_msg(fabs(tv(&it, 0, CO_MU2) - 1) <= 1e-14 && tv(&it, 0, CO_MU1) == 0 && tv(&it, 0, CO_H1) == 0 &&
                  tv(&it, 0, CO_H2) == 1,
                  "iterative f1 m = %d: first step mu = (%g, %g), handled (%g, %g); expected (0, 1), {g2}", m,
                  tv(&it, 0, CO_MU1), tv(&it, 0, CO_MU2), tv(&it, 0, CO_H1), tv(&it, 0, CO_H2));
    table_free(&it);
    /*
     * Iterative, f = (-1, -2): S = {} gives b = (1/m, -2/m), g2 joins;
     * with g2 alone qdd = (-1/m, 0), so w_1 = -1/m < 0 and g1 joins; with
     * both, qdd = 0 and J^T mu = -f gives mu = (1, 3).  Two solves.
     */
    it = corner_run(dir, "f2", m, "iterative", N);
    for (size_t k = 0; k <= (size_t)N; k++)
      ck_assert_msg(fabs(tv(&it, k, CO_X)) <= 1e-15 && fabs(tv(&it, k, CO_Y)) <= 1e-15,
                    "iterative f2 m = %d: (x, y)_%zu = (%g, %g), expected the corner", m, k, tv(&it, k, CO_X),
                    tv(&it, k, CO_Y));
    ck_assert_msg(fabs(tv(&it, 0, CO_MU1) - 1) <= 1e-14 && fabs(tv(&it, 0, CO_MU2) - 3) <= 1e-14 &&
                  tv(&it, 0, CO_SOLVES) == 2,
                  "iterative f2 m = %d: mu = (%.17g, %.17g) after %g solves; expected (1, 3) after 2", m,
                  tv(&it, 0, CO_MU1), tv(&it, 0, CO_MU2), tv(&it, 0, CO_SOLVES));
    table_free(&it);
    /*
     * Platt, f = (2, -1) (003 §3): both constraints handled at the first
     * step give qdd = 0 and J^T mu = -f, mu = (-2, -1): both pull and are
     * dropped.  The second step is free, qdd = (2/m, -1/m): v_y = -h/m
     * and y_2 = h v_y = -h^2/m, below the wall.
     */
    table pl = corner_run(dir, "f1", m, "platt", N);
    ck_assert_msg(fabs(tv(&pl, 0, CO_MU1) + 2) <= 1e-14 && fabs(tv(&pl, 0, CO_MU2) + 1) <= 1e-14 &&
                  tv(&pl, 0, CO_PULLS) == 1,
                  "platt f1 m = %d: first mu = (%g, %g), pulls %g", m, tv(&pl, 0, CO_MU1), tv(&pl, 0, CO_MU2),
                  tv(&pl, 0, CO_PULLS));
    /* qdd = 0 up to the rounding of a_free + W J^T mu (a few eps of 2/m),
       moved by h^2. */
    ck_assert_msg(fabs(tv(&pl, 1, CO_X)) <= 1e-15 * h * h && fabs(tv(&pl, 1, CO_Y)) <= 1e-15 * h * h &&
                  tv(&pl, 1, CO_H1) == 0 && tv(&pl, 1, CO_H2) == 0,
                  "platt f1 m = %d: after the first step (%g, %g), second step handles (%g, %g)", m,
                  tv(&pl, 1, CO_X), tv(&pl, 1, CO_Y), tv(&pl, 1, CO_H1), tv(&pl, 1, CO_H2));
    ck_assert_msg(same(tv(&pl, 2, CO_Y), -h * h / md, 1e-15 * h * h), "platt f1 m = %d: y_2 = %.17g, expected %.17g",
                  m, tv(&pl, 2, CO_Y), -h * h / md);
    table_free(&pl);
    /*
     * Tendency, f = (-1, -2) (003 §4.1): the unconstrained acceleration
     * (-1/m, -2/m) violates only g2, whose multiplier 2 gives qdd =
     * (-1/m, 0): x_1 = -h^2/m, through g1.
     */
    table td = corner_run(dir, "f2", m, "tendency", N);
    ck_assert_msg(fabs(tv(&td, 0, CO_MU2) - 2) <= 1e-14 && tv(&td, 0, CO_H1) == 0 && tv(&td, 0, CO_H2) == 1,
                  "tendency f2 m = %d: first mu_2 = %g, handled (%g, %g)", m, tv(&td, 0, CO_MU2), tv(&td, 0, CO_H1),
                  tv(&td, 0, CO_H2));
    ck_assert_msg(same(tv(&td, 1, CO_X), -h * h / md, 1e-15 * h * h) && tv(&td, 1, CO_G1) < 0,
                  "tendency f2 m = %d: x_1 = %.17g, expected %.17g", m, tv(&td, 1, CO_X), -h * h / md);
    table_free(&td);
  }
  /* The summary agrees with the runs: Platt's violation of g2 in case 1
     is at least h^2/m (its second step), the iterative rows none. */
  for (size_t r = 0; r < s.nrows; r++) {
    const char *l = s.label[r];
    double m = tv(&s, r, CS_M);
    if (!strcmp(l, "f1,platt"))
      ck_assert_msg(tv(&s, r, CS_PEN2) >= h * h / m * (1 - 1e-12) && tv(&s, r, CS_CROSS) == 2,
                    "summary %s m = %g: pen_g2 %g, crossing at %g", l, m, tv(&s, r, CS_PEN2), tv(&s, r, CS_CROSS));
    if (!strncmp(l, "f1,iterative", 12) || !strncmp(l, "f2,iterative", 12))
      ck_assert_msg(tv(&s, r, CS_RAN) == 1 && tv(&s, r, CS_PEN1) <= 1e-15 && tv(&s, r, CS_PEN2) <= 1e-15 &&
                    tv(&s, r, CS_CROSS) == -1 && tv(&s, r, CS_EXCESS) == 0,
                    "summary %s m = %g: pen %g / %g", l, m, tv(&s, r, CS_PEN1), tv(&s, r, CS_PEN2));
  }
  /* The claims are the four corner ones, with the table's rules applied
     to the summary's rows. */
  double pen[3][2][2]; /* platt, tendency, iterative x case x mass; NaN: no row */
  int ok[3] = {1, 1, 1};
  static const char *const algs[3] = {"platt", "tendency", "iterative"};
  for (int a = 0; a < 3; a++)
    for (int c = 0; c < 2; c++)
      for (int j = 0; j < 2; j++)
        pen[a][c][j] = NAN;
  double g1[2] = {NAN, NAN};
  for (size_t r = 0; r < s.nrows; r++)
    for (int a = 0; a < 3; a++)
      for (int c = 0; c < 2; c++) {
        char lab[64];
        snprintf(lab, sizeof lab, "f%d,%s", c + 1, algs[a]);
        if (strcmp(s.label[r], lab))
          continue;
        int j = tv(&s, r, CS_M) == 2 ? 0 : 1;
        pen[a][c][j] = fmax(tv(&s, r, CS_PEN1), tv(&s, r, CS_PEN2));
        ok[a] &= tv(&s, r, CS_RAN) == 1 && tv(&s, r, CS_FAILED) == 0;
        if (a == 1 && c == 1)
          g1[j] = tv(&s, r, CS_PEN1);
      }
  double p2 = pen[0][0][0], p3 = pen[0][0][1];
  check_claim(dir, "corner.platt_crosses",
              (exp_value[]){{"violation_m2", p2}, {"violation_m3", p3}, {"small_m2", p2}, {"m3_over_m2", p3 / p2}}, 4,
              1e-5);
  check_claim(dir, "corner.tendency_fixes_case1",
              (exp_value[]){{"violation", ok[1] ? fmax(pen[1][0][0], pen[1][0][1]) : INFINITY}}, 1, 1e-5);
  check_claim(dir, "corner.tendency_fails_case2",
              (exp_value[]){{"g1_m2", g1[0]}, {"g1_m3", g1[1]}, {"smaller", fmin(g1[0], g1[1])}}, 3, 1e-5);
  double ipen = 0;
  for (int c = 0; c < 2; c++)
    for (int j = 0; j < 2; j++)
      ipen = fmax(ipen, pen[2][c][j]);
  check_claim(dir, "corner.iterative_exact", (exp_value[]){{"violation", ok[2] ? ipen : INFINITY}}, 1, 1e-5);
  ck_assert_uint_eq(check_claims_part(dir, "corner"), 4);
  table_free(&s);
}
END_TEST

/* ---- active-set-census (beyond 003) ------------------------------------------------------- */

#define CENSUS_SUMMARY "algorithm,rows,problems,exact,accel_ok,penetrates,pulls,failed,mean_solves,max_solves,excess"
enum { CE_ALG, CE_ROWS, CE_PROBLEMS, CE_EXACT, CE_AOK, CE_PEN, CE_PULLS, CE_FAILED, CE_MEAN, CE_MAX, CE_EXCESS };
#define CENSUS_CX "seed,trial,rows,dim,particles,iterative_pulls,iterative_penetrates,iterative_accel_ok,lcp_exact"

START_TEST(test_census)
{
  run_ok("run", "active-set-census", "--set", "problems=300", "--out", "ce");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "ce");
  check_no_temporaries(dir);
  check_meta(dir, "census-summary", "cdyn run active-set-census --set problems=300 --out ce", 0.01, 1, "problems",
             "300");
  pathf(path, "%s/census-summary.csv", dir);
  table s = read_table(path, CENSUS_SUMMARY, 1);
  /* Four algorithms, each a total row (rows = 0) and one per size 2..12. */
  ck_assert_uint_eq(s.nrows, 4 * 12);
  static const char *const algs[] = {"platt", "tendency", "iterative", "lcp"};
  for (size_t a = 0; a < 4; a++) {
    size_t r0 = a * 12;
    ck_assert_str_eq(s.label[r0], algs[a]);
    ck_assert_msg(tv(&s, r0, CE_ROWS) == 0, "%s: the first row of %s is not its total", path, algs[a]);
    double sum = 0, exact = 0;
    for (size_t k = 1; k < 12; k++) {
      ck_assert_str_eq(s.label[r0 + k], algs[a]);
      ck_assert_msg(tv(&s, r0 + k, CE_ROWS) == (double)(k + 1), "%s: row %zu", path, r0 + k);
      sum += tv(&s, r0 + k, CE_PROBLEMS);
      exact += tv(&s, r0 + k, CE_EXACT);
      /* exact implies accelerations right and no pull */
      ck_assert_msg(tv(&s, r0 + k, CE_EXACT) <= tv(&s, r0 + k, CE_AOK), "%s: %s exact > accel_ok", path, algs[a]);
    }
    ck_assert_msg(sum == tv(&s, r0, CE_PROBLEMS) && exact == tv(&s, r0, CE_EXACT),
                  "%s: %s: the sizes sum to %g problems / %g exact, the total says %g / %g", path, algs[a], sum,
                  exact, tv(&s, r0, CE_PROBLEMS), tv(&s, r0, CE_EXACT));
    ck_assert_msg(tv(&s, r0, CE_PROBLEMS) >= 299, "%s: %s ran %g problems", path, algs[a], tv(&s, r0, CE_PROBLEMS));
  }
  /* The exact solver: exact on all; the iterative algorithm: never more
     solves than rows (003 §5), never penetrating (it adds every violated
     row); Platt at a first contact: one solve each. */
  ck_assert_msg(tv(&s, 36, CE_EXACT) == tv(&s, 36, CE_PROBLEMS) && tv(&s, 36, CE_FAILED) == 0,
                "lcp exact on %g of %g", tv(&s, 36, CE_EXACT), tv(&s, 36, CE_PROBLEMS));
  ck_assert_msg(tv(&s, 24, CE_EXCESS) == 0 && tv(&s, 24, CE_PEN) == 0 && tv(&s, 24, CE_MAX) <= 12,
                "iterative: %g problems with more solves than rows, %g penetrating", tv(&s, 24, CE_EXCESS),
                tv(&s, 24, CE_PEN));
  ck_assert_msg(tv(&s, 0, CE_MAX) == 1, "platt made %g solves at most", tv(&s, 0, CE_MAX));
  /* Every counterexample of this run is in the committed regression list
     (tests/data: the 10,000-problem run of the same seed, whose first 300
     trials are these). */
  pathf(path, "%s/counterexamples.csv", dir);
  table cx = read_table(path, CENSUS_CX, 0);
  ck_assert_msg(cx.nrows == 300 - tv(&s, 24, CE_EXACT),
                "%s: %zu counterexamples, but iterative was not exact on %g", path, cx.nrows,
                300 - tv(&s, 24, CE_EXACT));
  pathf(path, "%s/census-counterexamples.csv", CDYN_TEST_DATA);
  table ref = read_table(path, CENSUS_CX, 0);
  size_t j = 0;
  for (size_t r = 0; r < cx.nrows; r++) {
    while (j < ref.nrows && tv(&ref, j, 1) < tv(&cx, r, 1))
      j++;
    ck_assert_msg(j < ref.nrows, "trial %g is not in %s", tv(&cx, r, 1), path);
    for (size_t c = 0; c < 9; c++)
      ck_assert_msg(tv(&ref, j, c) == tv(&cx, r, c), "trial %g, column %zu: %g here, %g in %s", tv(&cx, r, 1), c,
                    tv(&cx, r, c), tv(&ref, j, c), path);
  }
  table_free(&cx);
  table_free(&ref);
  pathf(path, "%s/claims.part.csv", dir);
  char *text = must_slurp(path);
  char *lines[4], *fl[8];
  ck_assert_uint_eq(split_lines(path, text, lines, 4), 1);
  ck_assert_uint_eq(split_csv(lines[0], fl, 8), 6);
  ck_assert_str_eq(fl[0], "iterative.terminates");
  ck_assert_str_eq(fl[4], "holds");
  free(text);
  table_free(&s);
}
END_TEST

/* ---- ccd-census (beyond the papers) ------------------------------------------------------ */

#define CCD_SUMMARY                                                                                                  \
  "kind,family,queries,built,built_contacts,built_wrong,contacts,degenerate,false_negatives,late,false_positives"
enum { CC_QUERIES = 2, CC_BUILT, CC_BCONTACTS, CC_BWRONG, CC_CONTACTS, CC_DEGEN, CC_FN, CC_LATE, CC_FP };
#define CCD_CX                                                                                                       \
  "kind,family,query,reference,library,late,x1_0,y1_0,z1_0,x1_1,y1_1,z1_1,x2_0,y2_0,z2_0,x2_1,y2_1,z2_1,x3_0,y3_0," \
  "z3_0,x3_1,y3_1,z3_1,x4_0,y4_0,z4_0,x4_1,y4_1,z4_1"

/* The report with the table rows cut after their ninth column (the two
   time columns go): what must not change between two runs. */
static char *ccd_report_untimed(const char *path)
{
  char *text = must_slurp(path), *out = malloc(strlen(text) + 1), *o = out;
  ck_assert_ptr_nonnull(out);
  for (char *line = text; *line;) {
    char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
    size_t keep = len, bars = 0;
    if (line[0] == '|')
      for (size_t k = 0; k < len; k++)
        if (line[k] == '|' && ++bars == 10) {
          keep = k + 1;
          break;
        }
    memcpy(o, line, keep);
    o += keep;
    line += len;
  }
  *o = '\0';
  free(text);
  return out;
}

/*
 * A quick ccd-census (600 random queries, 12 per constructed family and
 * kind), run twice: no false negative, no late contact, no constructed
 * query on which the reference contradicts the construction; the family
 * rows add up to each kind's total, with the numbers of queries asked
 * for, and the constructed families built to touch on their even queries
 * (near-miss on none, graze on all); ccd-counterexamples.csv holds exactly
 * the disagreements counted, each of which replays through the reference
 * and the library as recorded (its points are read back bit for bit from
 * their hex floats); every family has a time, and no claim is judged.  The
 * same command gives the same bytes but for the timing file and the
 * report's time columns.
 */
START_TEST(test_ccd_census)
{
  static const char *const fams[] = {"random", "coplanar", "parallel", "root-t0",   "root-t1",
                                     "vertex", "edge",     "leading-zero", "near-miss", "graze"};
  for (int pass = 0; pass < 2; pass++)
    run_ok("run", "ccd-census", "--set", "random=600", "--set", "degenerate=12", "--out", pass ? "b" : "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  check_meta(dir, "ccd-census", "cdyn run ccd-census --set random=600 --set degenerate=12 --out a", 0, 0,
             "degenerate", "12");
  pathf(path, "%s/ccd-census.csv", dir);
  table t = read_table(path, CCD_SUMMARY, 2);
  ck_assert_uint_eq(t.nrows, 2 * 11);
  double disagreements = 0;
  for (size_t ee = 0; ee < 2; ee++) {
    double sum[CC_FP + 1] = {0};
    for (size_t f = 0; f <= 10; f++) {
      size_t row = 11 * ee + f;
      char want[64];
      snprintf(want, sizeof want, "%s,%s", ee ? "ee" : "vf", f < 10 ? fams[f] : "all");
      ck_assert_msg(!strcmp(t.label[row], want), "%s: row %zu is %s, expected %s", path, row + 1, t.label[row], want);
      ck_assert_msg(tv(&t, row, CC_FN) == 0 && tv(&t, row, CC_LATE) == 0 && tv(&t, row, CC_BWRONG) == 0,
                    "%s: %s: %g false negatives, %g late, %g built wrong", path, want, tv(&t, row, CC_FN),
                    tv(&t, row, CC_LATE), tv(&t, row, CC_BWRONG));
      ck_assert(tv(&t, row, CC_CONTACTS) + tv(&t, row, CC_DEGEN) <= tv(&t, row, CC_QUERIES));
      if (f == 10) {
        for (int c = CC_QUERIES; c <= CC_FP; c++)
          ck_assert_msg(sum[c] == tv(&t, row, c), "%s: %s: column %d sums to %g over the families, %g in the total",
                        path, want, c, sum[c], tv(&t, row, c));
        disagreements += tv(&t, row, CC_FN) + tv(&t, row, CC_LATE) + tv(&t, row, CC_FP);
        continue;
      }
      for (int c = CC_QUERIES; c <= CC_FP; c++)
        sum[c] += tv(&t, row, c);
      double q = f ? 12 : 300, built_contacts = f == 0 || f == 8 ? 0 : f == 9 ? 12 : 6;
      ck_assert_msg(tv(&t, row, CC_QUERIES) == q && tv(&t, row, CC_BUILT) == (f ? q : 0) &&
                      tv(&t, row, CC_BCONTACTS) == built_contacts,
                    "%s: %s: %g queries, %g built, %g built to touch", path, want, tv(&t, row, CC_QUERIES),
                    tv(&t, row, CC_BUILT), tv(&t, row, CC_BCONTACTS));
      /* With the construction right, the reference's contacts are the
         built ones but for degenerate queries. */
      if (f)
        ck_assert(tv(&t, row, CC_CONTACTS) + tv(&t, row, CC_DEGEN) >= built_contacts);
    }
  }
  /* The disagreements, replayed. */
  pathf(path, "%s/ccd-counterexamples.csv", dir);
  char *text = must_slurp(path), *lines[4096];
  size_t n = split_lines(path, text, lines, 4096);
  ck_assert_str_eq(lines[0], CCD_CX);
  ck_assert_msg((double)(n - 1) == disagreements, "%s: %zu rows for %g disagreements", path, n - 1, disagreements);
  for (size_t k = 1; k < n; k++) {
    char *f[32];
    ck_assert_int_eq(split_csv(lines[k], f, 32), 30);
    int ee = !strcmp(f[0], "ee"), want = atoi(f[3]), lib = atoi(f[4]), late = atoi(f[5]);
    double x[4][2][3], lo, hi, tl;
    for (int c = 0; c < 24; c++) {
      char *end;
      x[c / 6][c / 3 % 2][c % 3] = strtod(f[6 + c], &end);
      ck_assert_msg(end != f[6 + c] && !*end, "%s: row %zu: '%s'", path, k, f[6 + c]);
    }
    int ref = ee ? ref_ccd_ee(x[0], x[1], x[2], x[3], &lo, &hi) : ref_ccd_vf(x[0], x[1], x[2], x[3], &lo, &hi);
    int hit = -1;
    if (ee)
      ck_assert_int_eq(cdyn_ccd_ee(x[0][0], x[0][1], x[1][0], x[1][1], x[2][0], x[2][1], x[3][0], x[3][1], 1e-6, &hit,
                                   &tl),
                       CDYN_OK);
    else
      ck_assert_int_eq(cdyn_ccd_vf(x[0][0], x[0][1], x[1][0], x[1][1], x[2][0], x[2][1], x[3][0], x[3][1], 1e-6, &hit,
                                   &tl),
                       CDYN_OK);
    ck_assert_msg(ref == want && hit == lib && (want == 1 && hit && tl > hi) == late && (want != lib || late),
                  "%s: row %zu (%s %s %s): reference %d, library %d; recorded %d, %d, late %d", path, k, f[0], f[1],
                  f[2], ref, hit, want, lib, late);
  }
  free(text);
  /* The times: every family's, never negative. */
  pathf(path, "%s/ccd-census-time.csv", dir);
  table tt = read_table(path, "kind,family,queries,lib_time,ref_time", 2);
  ck_assert_uint_eq(tt.nrows, t.nrows);
  for (size_t r = 0; r < tt.nrows; r++)
    ck_assert(!strcmp(tt.label[r], t.label[r]) && tv(&tt, r, 2) == tv(&t, r, CC_QUERIES) && tv(&tt, r, 3) > 0 &&
              tv(&tt, r, 4) > 0);
  table_free(&tt);
  table_free(&t);
  ck_assert_uint_eq(check_claims_part(dir, "ccd-census"), 0);
  /* Determinism, the times aside. */
  char pa[PATH_MAX], pb[PATH_MAX];
  pathf(pa, "%s/report.part.md", dir);
  wp(pb, "b/report.part.md");
  char *ra = ccd_report_untimed(pa), *rb = ccd_report_untimed(pb);
  ck_assert_msg(!strcmp(ra, rb), "the reports differ beyond their times:\n%s\n---\n%s", ra, rb);
  ck_assert_msg(strstr(ra, "| ee | near-miss | 12 | 0 (0.0 %) | 0 | 0 | 0 |") != NULL, "%s:\n%s", pa, ra);
  free(ra);
  free(rb);
  unlink(pa);
  unlink(pb);
  pathf(pa, "%s/ccd-census-time.csv", dir);
  wp(pb, "b/ccd-census-time.csv");
  unlink(pa);
  unlink(pb);
  check_same_output(3);
}
END_TEST

#define BIL_SERIES_COLUMNS                                                                                          \
  "step,t,min_gap,min_wall_gap,min_pair_gap,penetration,px,py,E,status,substeps,events,impulses,accel_solves,"    \
  "max_solves,max_excess,handled,active,pulls,violates,min_mu,min_impulse"
enum { B_STEP, B_T, B_GAP, B_WALL, B_PAIR, B_PEN, B_PX, B_PY, B_E, B_STATUS, B_SUB, B_EVENTS, B_IMPULSES, B_ACCEL,
       B_SOLVES, B_EXCESS, B_HANDLED, B_ACTIVE, B_PULLS, B_VIOLATES, B_MINMU, B_MINIMP };
#define BIL_SUMMARY_COLUMNS                                                                                         \
  "run,algorithm,restitution,tilt,steps,failed,fail_step,fail_status,noconv_steps,max_pen,max_pen_over_r,"        \
  "min_gap,min_gap_over_r,pull_steps,violate_steps,max_solves,max_excess,max_handled,max_active,events,impulses," \
  "E0,dE_end,dE_max,KE0,dp_end,min_mu,min_impulse,rack_moved_over_r"
/* Columns of summary.csv (two text labels, then numbers). */
enum { BL_E = 2, BL_TILT, BL_STEPS, BL_FAILED, BL_FAILSTEP, BL_FAILSTATUS, BL_NOCONV, BL_MAXPEN, BL_MAXPEN_R, BL_MINGAP,
       BL_MINGAP_R, BL_PULLS, BL_VIOLATES, BL_SOLVES, BL_EXCESS, BL_HANDLED, BL_ACTIVE, BL_EVENTS, BL_IMPULSES, BL_E0,
       BL_DEEND, BL_DEMAX, BL_KE0, BL_DPEND, BL_MINMU, BL_MINIMP, BL_RACK };
#define BIL_R 0.0286 /* the default radius (m) */
#define BIL_MASS 0.17
#define BIL_SPEED 2.0
#define BIL_TILT 0.5

/* The run names of a billiard run of `algs`, in its order: each
   algorithm, then its restitution_low (0.5) run, then its level run. */
static void billiard_names(const char *const *algs, size_t nalg, char names[][64])
{
  for (size_t a = 0; a < nalg; a++) {
    snprintf(names[3 * a], 64, "%s", algs[a]);
    snprintf(names[3 * a + 1], 64, "%s-e0.5", algs[a]);
    snprintf(names[3 * a + 2], 64, "%s-level", algs[a]);
  }
}

/*
 * One run's series against what billiard.c promises, and the summary row
 * recomputed from it: rows 0 .. steps, t = step h; min_gap the smaller of
 * the wall and pair minima; the total penetration at least the largest
 * single violation and at most 77 times it; every status >= 0; row 0 (no
 * step) without solver counts.
 */
static table check_billiard_series(const char *dir, const char *name, const table *sum, size_t row, long steps, double h)
{
  char path[PATH_MAX];
  pathf(path, "%s/series-%s.csv", dir, name);
  table t = read_table(path, BIL_SERIES_COLUMNS, 0);
  ck_assert_msg(t.nrows == (size_t)steps + 1, "%s: %zu rows, expected %ld", path, t.nrows, steps + 1);
  double maxpen = 0, mingap = INFINITY, dEmax = 0, minmu = 0, minimp = 0;
  double pulls = 0, viol = 0, solves = 0, excess = 0, events = 0, impulses = 0, handled = 0, active = 0;
  const double E0 = tv(&t, 0, B_E);
  for (size_t r = 0; r < t.nrows; r++) {
    ck_assert_msg(tv(&t, r, B_STEP) == (double)r && tv(&t, r, B_T) == (double)r * h, "%s: row %zu: step %g at t = %g",
                  path, r, tv(&t, r, B_STEP), tv(&t, r, B_T));
    double g = tv(&t, r, B_GAP), pen = tv(&t, r, B_PEN);
    ck_assert_msg(g == fmin(tv(&t, r, B_WALL), tv(&t, r, B_PAIR)), "%s: row %zu: min_gap %g is not min(%g, %g)", path,
                  r, g, tv(&t, r, B_WALL), tv(&t, r, B_PAIR));
    double worst = fmax(0, -g);
    ck_assert_msg(pen >= worst * (1 - 1e-15) && pen <= 77 * worst * (1 + 1e-15),
                  "%s: row %zu: penetration %g against the largest violation %g", path, r, pen, worst);
    ck_assert_msg(tv(&t, r, B_STATUS) >= 0, "%s: row %zu has status %g", path, r, tv(&t, r, B_STATUS));
    if (r == 0)
      for (int c = B_STATUS; c <= B_MINIMP; c++)
        ck_assert_msg(c == B_ACTIVE || tv(&t, 0, c) == 0, "%s: row 0 (no step) has column %d = %g", path, c,
                      tv(&t, 0, c));
    else
      ck_assert_msg(tv(&t, r, B_SUB) >= 1, "%s: row %zu: %g sub-steps", path, r, tv(&t, r, B_SUB));
    ck_assert_msg(tv(&t, r, B_ACTIVE) <= 77 && tv(&t, r, B_HANDLED) <= 77, "%s: row %zu: more than 77 rows", path, r);
    maxpen = fmax(maxpen, pen);
    mingap = fmin(mingap, g);
    dEmax = fmax(dEmax, fabs(tv(&t, r, B_E) - E0));
    minmu = fmin(minmu, tv(&t, r, B_MINMU));
    minimp = fmin(minimp, tv(&t, r, B_MINIMP));
    pulls += tv(&t, r, B_PULLS);
    viol += tv(&t, r, B_VIOLATES);
    solves = fmax(solves, tv(&t, r, B_SOLVES));
    excess = fmax(excess, tv(&t, r, B_EXCESS));
    handled = fmax(handled, tv(&t, r, B_HANDLED));
    active = fmax(active, tv(&t, r, B_ACTIVE));
    events += tv(&t, r, B_EVENTS);
    impulses += tv(&t, r, B_IMPULSES);
  }
  /* The summary row says the same. */
  ck_assert_str_eq(sum->label[row], name);
  const double want[][2] = {{BL_STEPS, (double)steps}, {BL_FAILED, 0}, {BL_FAILSTEP, (double)steps},
                            {BL_MAXPEN, maxpen},       {BL_MINGAP, mingap}, {BL_PULLS, pulls},
                            {BL_VIOLATES, viol},       {BL_SOLVES, solves}, {BL_EXCESS, excess},
                            {BL_HANDLED, handled},     {BL_ACTIVE, active}, {BL_EVENTS, events},
                            {BL_IMPULSES, impulses},   {BL_E0, E0},         {BL_DEEND, tv(&t, steps, B_E) - E0},
                            {BL_DEMAX, dEmax},         {BL_MINMU, minmu},   {BL_MINIMP, minimp}};
  for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
    int c = (int)want[k][0];
    double got = tv(sum, row, c);
    ck_assert_msg(got == want[k][1] || fabs(got - want[k][1]) <= 1e-15 * fabs(want[k][1]),
                  "summary.csv %s: column %d is %.17g, the series gives %.17g", name, c + 1, got, want[k][1]);
  }
  ck_assert_msg(tv(sum, row, BL_MAXPEN_R) == tv(sum, row, BL_MAXPEN) / BIL_R &&
                  tv(sum, row, BL_MINGAP_R) == tv(sum, row, BL_MINGAP) / BIL_R,
                "summary.csv %s: the columns over r are not the values / r", name);
  return t;
}

/*
 * The start in snapshot 0 against the geometry billiard.c states: rack
 * rows j = 0 .. 3 of 4 - j balls at x = r + s + (j + 2k) r,
 * y = r + s + j sqrt(3) r (s the rack gap), the cue at
 * (12 r, 12 r) + 0.25 r (1, -1)/sqrt(2); with s = 0 the rack touches the
 * walls with ball 0 (x) and row 0 (y), and 18 pairs touch.
 */
static void check_billiard_snapshots(const char *dir, const char *name, double gap, int nsnap)
{
  char path[PATH_MAX];
  pathf(path, "%s/snapshots-%s.csv", dir, name);
  table t = read_table(path, "snap,t,ball,x,y,r,cue", 0);
  ck_assert_msg(t.nrows == (size_t)nsnap * 11, "%s: %zu rows, expected %d snapshots of 11 balls", path, t.nrows,
                nsnap);
  static const double times[] = {0, 0.1, 0.2};
  for (size_t r = 0; r < t.nrows; r++) {
    ck_assert_msg(tv(&t, r, 0) == (double)(r / 11) && tv(&t, r, 2) == (double)(r % 11), "%s: row %zu is snap %g ball %g",
                  path, r, tv(&t, r, 0), tv(&t, r, 2));
    ck_assert_msg(fabs(tv(&t, r, 1) - times[r / 11]) <= 1e-12, "%s: snapshot %zu at t = %g", path, r / 11,
                  tv(&t, r, 1));
    ck_assert_msg(tv(&t, r, 5) == BIL_R && tv(&t, r, 6) == (double)(r % 11 == 10), "%s: row %zu: r %g, cue %g", path, r,
                  tv(&t, r, 5), tv(&t, r, 6));
  }
  double x[11], y[11];
  int b = 0;
  const double s = gap * BIL_R, c = 1 / sqrt(2.0);
  for (int j = 0; j < 4; j++)
    for (int k = 0; k < 4 - j; k++, b++) {
      x[b] = BIL_R + s + (j + 2 * k) * BIL_R;
      y[b] = BIL_R + s + j * sqrt(3.0) * BIL_R;
    }
  x[10] = 12 * BIL_R + 0.25 * BIL_R * c;
  y[10] = 12 * BIL_R - 0.25 * BIL_R * c;
  for (b = 0; b < 11; b++)
    ck_assert_msg(fabs(tv(&t, b, 3) - x[b]) <= 4 * DBL_EPSILON * x[b] && fabs(tv(&t, b, 4) - y[b]) <= 4 * DBL_EPSILON * y[b],
                  "%s: ball %d starts at (%.17g, %.17g), expected (%.17g, %.17g)", path, b, tv(&t, b, 3), tv(&t, b, 4),
                  x[b], y[b]);
  if (gap == 0) {
    int touching = 0, xwall = 0, ywall = 0;
    for (b = 0; b < 11; b++) {
      xwall += fabs(tv(&t, b, 3) - BIL_R) <= 1e-15;
      ywall += fabs(tv(&t, b, 4) - BIL_R) <= 1e-15;
      for (int o = b + 1; o < 11; o++) {
        double d = hypot(tv(&t, b, 3) - tv(&t, o, 3), tv(&t, b, 4) - tv(&t, o, 4));
        touching += fabs(d - 2 * BIL_R) <= 1e-15;
      }
    }
    ck_assert_msg(touching == 18 && xwall == 1 && ywall == 4, "%s: %d touching pairs, %d balls on x = r, %d on y = r",
                  path, touching, xwall, ywall);
  }
  table_free(&t);
}

START_TEST(test_billiard_short_run)
{
  run_ok("run", "billiard", "--steps", "300", "--set", "algorithms=iterative,tendency", "--out", "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  const char *cmd = "cdyn run billiard --steps 300 --set algorithms=iterative,tendency --out a";
  static const char *const algs[] = {"iterative", "tendency"};
  char names[6][64];
  billiard_names(algs, 2, names);
  pathf(path, "%s/summary.csv", dir);
  table sum = read_table(path, BIL_SUMMARY_COLUMNS, 2);
  ck_assert_uint_eq(sum.nrows, 6);
  check_meta(dir, "summary", cmd, 1e-3, 300, "algorithms", "iterative,tendency");
  for (size_t k = 0; k < 6; k++) {
    char lab[160];
    snprintf(lab, sizeof lab, "%.63s,%.31s", names[k], algs[k / 3]);
    ck_assert_msg(!strcmp(sum.label[k], lab), "summary.csv row %zu is %s, expected %s", k + 1, sum.label[k], lab);
    ck_assert_msg(tv(&sum, k, BL_E) == (k % 3 == 1 ? 0.5 : 1.0) && tv(&sum, k, BL_TILT) == (k % 3 == 2 ? 0 : BIL_TILT),
                  "summary.csv %s: restitution %g, tilt %g", names[k], tv(&sum, k, BL_E), tv(&sum, k, BL_TILT));
    char base[96];
    snprintf(base, sizeof base, "series-%.63s", names[k]);
    check_meta(dir, base, cmd, 1e-3, 300, "tilt", "0.5");
    snprintf(base, sizeof base, "snapshots-%.63s", names[k]);
    check_meta(dir, base, cmd, 1e-3, 300, "restitution_low", "0.5");
    /* Keep only the label's run name for check_billiard_series. */
    *strchr(sum.label[k], ',') = '\0';
    table t = check_billiard_series(dir, names[k], &sum, k, 300, 1e-3);
    check_billiard_snapshots(dir, names[k], 0, 3);
    /* At the start 18 pairs touch, and ball 0 and row 0 touch the walls. */
    ck_assert_msg(tv(&t, 0, B_ACTIVE) == 23, "%s: %g active rows at the start, expected 23", names[k],
                  tv(&t, 0, B_ACTIVE));
    /* The initial kinetic energy is the cue's. */
    ck_assert_msg(fabs(tv(&sum, k, BL_KE0) - 0.5 * BIL_MASS * BIL_SPEED * BIL_SPEED) <= 1e-15,
                  "%s: KE0 = %.17g", names[k], tv(&sum, k, BL_KE0));
    /* The iterative runs keep every gap within the claim's threshold. */
    if (k < 3)
      ck_assert_msg(tv(&sum, k, BL_MAXPEN_R) <= 1e-6, "%s: penetration %g r", names[k], tv(&sum, k, BL_MAXPEN_R));
    table_free(&t);
  }
  /* The claim, by the table's rule, from the iterative row. */
  check_claim(dir, "billiard.iterative_handles",
              (exp_value[]){{"failures", tv(&sum, 0, BL_FAILED)}, {"penetration", tv(&sum, 0, BL_MAXPEN_R)}}, 2, 1e-5);
  ck_assert_uint_eq(check_claims_part(dir, "billiard"), 1);
  char *text, *f[6];
  claim_fields(dir, "billiard.iterative_handles", &text, f);
  ck_assert_msg(strstr(f[5], "tendency") != NULL, "the claim's note does not give the other runs: %s", f[5]);
  free(text);
  pathf(path, "%s/report.part.md", dir);
  text = must_slurp(path);
  for (size_t k = 0; k < 6; k++) {
    char cell[96];
    snprintf(cell, sizeof cell, "| %.63s |", names[k]);
    ck_assert_msg(strstr(text, cell) != NULL, "%s has no row for %s", path, names[k]);
  }
  free(text);
  check_no_temporaries(dir);
  table_free(&sum);

  /* The same command gives the same bytes. */
  run_ok("run", "billiard", "--steps", "300", "--set", "algorithms=iterative,tendency", "--out", "b");
  static const char *const files[] = {"series-iterative.csv", "series-tendency-e0.5.csv", "snapshots-tendency.csv",
                                      "summary.csv", "claims.part.csv"};
  for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
    char pa[PATH_MAX], pb[PATH_MAX];
    size_t la, lb;
    char *ta = slurp(wp(pa, "a/%s", files[k]), &la), *tb = slurp(wp(pb, "b/%s", files[k]), &lb);
    ck_assert_msg(ta && tb && la == lb && !memcmp(ta, tb, la), "%s differs between two identical runs", files[k]);
    free(ta);
    free(tb);
  }
}
END_TEST

/*
 * With the rack 3 r away from both walls the break happens in free space.
 * Until the first wall contact the only external force is the tilt, so
 * p(t_k) = p(0) + M g_tilt t_k (M = 11 m; the level runs: p(0)).  A wall
 * can only act in step k if some ball comes within one step's travel of
 * it, so the check runs while every row so far has min_wall_gap > 2 v h
 * (v = 2 m/s bounds every speed: the kinetic energy is the cue's plus
 * what the tilt releases, far below (2 v)^2 m / 2 in 0.3 s).  Pair impulses
 * and forces are equal and opposite; each step rounds each of the 11
 * momenta by a few eps |m v_i|, and sum_i m |v_i| <= sqrt(11) |p(0)| plus
 * the tilt's share, so over 300 steps (each with an impulse sub-step or
 * two) the drift stays below 8000 eps (|p(0)| + M g_tilt t).  The window
 * must contain the impact (a step with an impulse), or the test proves
 * nothing.
 */
START_TEST(test_billiard_momentum)
{
  run_ok("run", "billiard", "--steps", "300", "--set", "algorithms=iterative,tendency", "--set", "rack_gap=3", "--out",
         "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  static const char *const algs[] = {"iterative", "tendency"};
  char names[6][64];
  billiard_names(algs, 2, names);
  pathf(path, "%s/summary.csv", dir);
  table sum = read_table(path, BIL_SUMMARY_COLUMNS, 2);
  ck_assert_uint_eq(sum.nrows, 6);
  const double h = 1e-3, M = 11 * BIL_MASS;
  for (size_t k = 0; k < 6; k++) {
    *strchr(sum.label[k], ',') = '\0';
    table t = check_billiard_series(dir, names[k], &sum, k, 300, h);
    check_billiard_snapshots(dir, names[k], 3, 3);
    ck_assert_msg(tv(&t, 0, B_ACTIVE) == 18, "%s: %g active rows at the start, expected the 18 touching pairs",
                  names[k], tv(&t, 0, B_ACTIVE));
    const double gt = -tv(&sum, k, BL_TILT) / sqrt(2.0);
    const double p0x = tv(&t, 0, B_PX), p0y = tv(&t, 0, B_PY);
    ck_assert_msg(fabs(p0x + BIL_MASS * BIL_SPEED / sqrt(2.0)) <= 1e-15 && p0x == p0y, "%s: p(0) = (%.17g, %.17g)",
                  names[k], p0x, p0y);
    size_t r;
    double impulses = 0;
    for (r = 0; r < t.nrows && tv(&t, r, B_WALL) > 2 * BIL_SPEED * h; r++) {
      double tk = tv(&t, r, B_T), tol = 8000 * DBL_EPSILON * (hypot(p0x, p0y) + M * fabs(gt) * tk);
      double ex = p0x + M * gt * tk, ey = p0y + M * gt * tk;
      ck_assert_msg(fabs(tv(&t, r, B_PX) - ex) <= tol && fabs(tv(&t, r, B_PY) - ey) <= tol,
                    "%s: step %zu: p = (%.17g, %.17g), expected (%.17g, %.17g) to %.3g", names[k], r, tv(&t, r, B_PX),
                    tv(&t, r, B_PY), ex, ey, tol);
      impulses += tv(&t, r, B_IMPULSES);
    }
    ck_assert_msg(impulses > 0, "%s: no impact before the first wall contact (step %zu)", names[k], r);
    table_free(&t);
  }
  table_free(&sum);
}
END_TEST

/* ---- cloth (cloth-elongation, cloth-vs-implicit-ode) ---------------------------------------- */

enum { CLE_T = 1, CLE_STEPS, CLE_MAX, CLE_P99, CLE_ACTIVE, CLE_ACT, CLE_REL, CLE_FLIPS, CLE_CONTACTS, CLE_DEPTH, CLE_E, CLE_STATUS };
enum { CLS_STEPS = 1, CLS_COMPLETED, CLS_MAX, CLS_P99, CLS_ACTIVE_MAX, CLS_FLIPS, CLS_DEPTH, CLS_NOCONV, CLS_STATUS };
enum { CLN_TRI = 2, CLN_X1, CLN_T = 12, CLN_STRAIN, CLN_BX, CLN_BR = 17 };

/*
 * A short cloth-elongation (8 x 8, 0.4 s, every step written): the
 * summary is the series' extremes; at each snapshot the largest strain of
 * the triangles' structural edges (a second computation, over triangles
 * rather than springs) is the series' eps_max of that step, every
 * structural spring being an edge of a triangle, and each triangle's
 * strain is that of one of its edges as given by its corners; the ball
 * stays out of reach (it arrives at 1.4 s); the claim is judged by its
 * rule on the summary's values.  The same command twice
 * gives the same bytes but for the timing file.
 */
START_TEST(test_cloth_elongation)
{
  for (int pass = 0; pass < 2; pass++)
    run_ok("run", "cloth-elongation", "--steps", "400", "--set", "grid=8", "--set", "out_every=1", "--set",
           "snapshots=0.1,0.4", "--out", pass ? "b" : "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  pathf(path, "%s/cloth-elongation.csv", dir);
  table t = read_table_nan(path, "scheme,t,steps,eps_max,eps_p99,active,activated,released,flips,contacts,depth,E,status", 1);
  pathf(path, "%s/cloth-elongation-summary.csv", dir);
  table sum = read_table_nan(path, "scheme,steps,completed,eps_max,eps_p99,active_max,flips,depth_max,noconv,status", 1);
  pathf(path, "%s/cloth-snapshots.csv", dir);
  table sn = read_table_nan(path, "scheme,snap,tri,x1,y1,z1,x2,y2,z2,x3,y3,z3,t,strain,bx,by,bz,br", 2);
  ck_assert_uint_eq(sum.nrows, 6);
  double springs_max = NAN, implicit_max = NAN, implicit_failed = NAN;
  const double spacing = 1.0 / 7;
  for (size_t r = 0; r < sum.nrows; r++) {
    const char *name = sum.label[r];
    double emax = 0, pmax = 0;
    long last = -1;
    for (size_t k = 0; k < t.nrows; k++)
      if (!strcmp(t.label[k], name) && tv(&t, k, CLE_STATUS) == 0) {
        emax = fmax(emax, tv(&t, k, CLE_MAX));
        pmax = fmax(pmax, tv(&t, k, CLE_P99));
        ck_assert(tv(&t, k, CLE_P99) <= tv(&t, k, CLE_MAX));
        ck_assert_msg(tv(&t, k, CLE_DEPTH) == 0, "%s: a node in the ball at step %g", name, tv(&t, k, CLE_STEPS));
        last = (long)tv(&t, k, CLE_STEPS);
      }
    ck_assert_msg(emax == tv(&sum, r, CLS_MAX) && pmax == tv(&sum, r, CLS_P99), "%s: summary %g / %g, series %g / %g",
                  name, tv(&sum, r, CLS_MAX), tv(&sum, r, CLS_P99), emax, pmax);
    ck_assert_int_eq(last, (long)tv(&sum, r, CLS_STEPS));
    if (tv(&sum, r, CLS_COMPLETED) == 1)
      ck_assert_int_eq(last, 400);
    if (!strcmp(name, "springs"))
      springs_max = emax;
    if (!strcmp(name, "implicit")) {
      implicit_max = tv(&sum, r, CLS_COMPLETED) == 1 ? emax : INFINITY;
      implicit_failed = 1 - tv(&sum, r, CLS_COMPLETED);
    }
    /* The snapshots against the series. */
    for (int snap = 0; snap < 2; snap++) {
      double worst = -INFINITY, tsnap = NAN;
      size_t ntri = 0;
      for (size_t k = 0; k < sn.nrows; k++) {
        char lab[128];
        snprintf(lab, sizeof lab, "%s,%d", name, snap);
        if (strcmp(sn.label[k], lab))
          continue;
        ntri++;
        tsnap = tv(&sn, k, CLN_T);
        /* The column is the strain of one of the corners' edges as a
           structural edge (rest length one spacing). */
        int match = 0;
        for (int a = 0; a < 3; a++) {
          const double *p = &sn.v[k * sn.ncol + CLN_X1 + 3 * a], *q = &sn.v[k * sn.ncol + CLN_X1 + 3 * ((a + 1) % 3)];
          double d = sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]));
          match |= fabs(d / spacing - 1 - tv(&sn, k, CLN_STRAIN)) <= 1e-12;
        }
        ck_assert_msg(match, "%s, snapshot %d, triangle %g: strain %.15g is no edge's", name, snap, tv(&sn, k, CLN_TRI),
                      tv(&sn, k, CLN_STRAIN));
        worst = fmax(worst, tv(&sn, k, CLN_STRAIN));
      }
      if (!ntri)
        continue; /* the run stopped before it */
      ck_assert_uint_eq(ntri, 2 * 7 * 7);
      long step = lround(tsnap / 1e-3);
      for (size_t k = 0; k < t.nrows; k++)
        if (!strcmp(t.label[k], name) && (long)tv(&t, k, CLE_STEPS) == step)
          ck_assert_msg(fabs(worst - tv(&t, k, CLE_MAX)) <= 1e-12, "%s, snapshot %d: strain %.15g, series %.15g", name,
                        snap, worst, tv(&t, k, CLE_MAX));
    }
  }
  check_claim(dir, "cloth.elongation_bounded",
              (exp_value[]){{"constrained_max", implicit_max}, {"failed", implicit_failed}, {"springs_max", springs_max}},
              3, 1e-5);
  ck_assert_uint_eq(check_claims_part(dir, "cloth-elongation"), 1);
  table_free(&t);
  table_free(&sum);
  table_free(&sn);
  /* Determinism, the timing file aside. */
  char a2[PATH_MAX], b2[PATH_MAX];
  pathf(a2, "%s/cloth-elongation-time.csv", dir);
  wp(b2, "b/cloth-elongation-time.csv");
  ck_assert(exists(a2) && exists(b2));
  unlink(a2);
  unlink(b2);
  check_same_output(4);
}
END_TEST

/* ---- cloth-contact, collision-cost ----------------------------------------------------------- */

enum { CT_T = 1, CT_STEPS, CT_CROSS, CT_EXACT, CT_MIND, CT_GAP, CT_VIOL, CT_CONTACTS, CT_VF, CT_EE, CT_BALL, CT_CREATED,
       CT_RELEASED, CT_DELAY, CT_REDOS, CT_STATUS };
enum { CCS_H = 1, CCS_STEPS, CCS_COMPLETED, CCS_CROSS, CCS_EXACT, CCS_DEG, CCS_VIOL, CCS_MIND, CCS_GAP, CCS_CMAX, CCS_BMAX,
       CCS_CREATED, CCS_RELEASES, CCS_DELAY, CCS_DMEAN, CCS_REDOS, CCS_UNRES, CCS_PAR, CCS_END, CCS_RED, CCS_STATUS };

/*
 * A short cloth-contact (8 x 8, two balls, 0.12 s, every step written):
 * the summary is the series' extremes and sums (crossings, violation,
 * distances, contacts); the violation is the distances' own; the
 * coarse run takes a quarter of the steps at 4 h; the snapshots hold
 * every triangle with a flag 0, 1 or 2 and both balls; the claim is
 * judged by its rule on the implicit run's summary.  The same command
 * twice gives the same bytes but for the timing files.
 */
START_TEST(test_cloth_contact)
{
  for (int pass = 0; pass < 2; pass++)
    run_ok("run", "cloth-contact", "--steps", "120", "--set", "grid=8", "--set", "balls=2", "--set", "out_every=1",
           "--set", "snapshots=0.05,0.1", "--out", pass ? "b" : "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  pathf(path, "%s/cloth-contact.csv", dir);
  table t = read_table_nan(path,
                           "scheme,t,steps,crossings,exact,min_dist,ball_gap,violation,contacts,vf,ee,ball_contacts,"
                           "created,released,delay_max,redos,status", 1);
  pathf(path, "%s/cloth-contact-summary.csv", dir);
  table sum = read_table_nan(path,
                             "scheme,h,steps,completed,crossings,exact,degenerate,violation,min_dist,ball_gap,"
                             "contacts_max,ball_max,created,releases,delay_max,delay_mean,redos,unresolved,parallel,"
                             "endpoint,redundant,status", 1);
  ck_assert_uint_eq(sum.nrows, 5);
  const double delta = 0.005;
  exp_value v[4] = {{"crossings", NAN}, {"violation", NAN}, {"release_delay", NAN}, {"failed", NAN}};
  for (size_t r = 0; r < sum.nrows; r++) {
    const char *name = sum.label[r];
    double cross = 0, viol = 0, mind = INFINITY, gap = INFINITY, cmax = 0;
    long last = -1;
    for (size_t k = 0; k < t.nrows; k++)
      if (!strcmp(t.label[k], name) && tv(&t, k, CT_STATUS) == 0) {
        cross += tv(&t, k, CT_CROSS);
        viol = fmax(viol, tv(&t, k, CT_VIOL));
        if (!isnan(tv(&t, k, CT_MIND)))
          mind = fmin(mind, tv(&t, k, CT_MIND));
        gap = fmin(gap, tv(&t, k, CT_GAP));
        cmax = fmax(cmax, tv(&t, k, CT_CONTACTS));
        ck_assert(tv(&t, k, CT_VF) + tv(&t, k, CT_EE) == tv(&t, k, CT_CONTACTS));
        /* The violation is the distances' own (the smaller of the two gaps against delta). */
        double md = isnan(tv(&t, k, CT_MIND)) ? INFINITY : tv(&t, k, CT_MIND);
        double expect = fmax(0, fmax(delta - md, delta - tv(&t, k, CT_GAP))) / delta;
        ck_assert_msg(fabs(tv(&t, k, CT_VIOL) - expect) <= 1e-12, "%s step %g: violation %g, distances give %g",
                      name, tv(&t, k, CT_STEPS), tv(&t, k, CT_VIOL), expect);
        last = (long)tv(&t, k, CT_STEPS);
      }
    ck_assert_msg(cross == tv(&sum, r, CCS_CROSS), "%s: %g crossings in the series, %g in the summary", name, cross,
                  tv(&sum, r, CCS_CROSS));
    ck_assert(viol == tv(&sum, r, CCS_VIOL));
    ck_assert(mind == (isnan(tv(&sum, r, CCS_MIND)) ? INFINITY : tv(&sum, r, CCS_MIND)) && gap == tv(&sum, r, CCS_GAP));
    ck_assert(cmax == tv(&sum, r, CCS_CMAX));
    ck_assert_int_eq(last, (long)tv(&sum, r, CCS_STEPS));
    int coarse = !strcmp(name, "discrete-4h");
    ck_assert(tv(&sum, r, CCS_H) == (coarse ? 4e-3 : 1e-3));
    if (tv(&sum, r, CCS_COMPLETED) == 1)
      ck_assert_int_eq(last, coarse ? 30 : 120);
    if (!strcmp(name, "implicit")) {
      v[0].x = tv(&sum, r, CCS_COMPLETED) == 1 ? tv(&sum, r, CCS_CROSS) : INFINITY;
      v[1].x = tv(&sum, r, CCS_VIOL);
      v[2].x = tv(&sum, r, CCS_DELAY);
      v[3].x = 1 - tv(&sum, r, CCS_COMPLETED);
    }
  }
  check_claim(dir, "cloth.contact_no_penetration", v, 4, 1e-9);
  ck_assert_uint_eq(check_claims_part(dir, "cloth-contact"), 1);
  pathf(path, "%s/cloth-contact-snapshots.csv", dir);
  table sn = read_table_nan(path, "scheme,snap,tri,x1,y1,z1,x2,y2,z2,x3,y3,z3,t,flag", 2);
  for (size_t k = 0; k < sn.nrows; k++) {
    double f = tv(&sn, k, 13);
    ck_assert(f == 0 || f == 1 || f == 2);
  }
  pathf(path, "%s/cloth-contact-balls.csv", dir);
  table bl = read_table_nan(path, "scheme,snap,ball,x,y,z,radius,t", 2);
  ck_assert_uint_eq(sn.nrows, bl.nrows / 2 * 2 * 7 * 7);
  table_free(&t);
  table_free(&sum);
  table_free(&sn);
  table_free(&bl);
  char a2[PATH_MAX], b2[PATH_MAX];
  static const char *const timing[] = {"cloth-contact-time.csv", "cloth-contact-cost.csv"};
  for (int k = 0; k < 2; k++) {
    pathf(a2, "%s/%s", dir, timing[k]);
    char rel[64];
    snprintf(rel, sizeof rel, "b/%s", timing[k]);
    wp(b2, rel);
    ck_assert(exists(a2) && exists(b2));
    unlink(a2);
    unlink(b2);
  }
  check_same_output(4);
}
END_TEST

/*
 * collision-cost on grids 4 and 8: one row per mesh with its triangle
 * count 2 (N - 1)^2, the times positive.
 */
START_TEST(test_collision_cost)
{
  run_ok("run", "collision-cost", "--set", "grids=4,8", "--set", "reps=2", "--out", "cc");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "cc");
  check_no_temporaries(dir);
  pathf(path, "%s/collision-cost.csv", dir);
  table t = read_table_nan(path, "grid,nodes,triangles,candidates,contacts,exact", 0);
  ck_assert_uint_eq(t.nrows, 2);
  for (size_t k = 0; k < 2; k++) {
    double N = tv(&t, k, 0);
    ck_assert(tv(&t, k, 2) == 2 * (N - 1) * (N - 1));
    ck_assert(tv(&t, k, 3) > 0);
  }
  pathf(path, "%s/collision-cost-time.csv", dir);
  table tt = read_table_nan(path, "grid,triangles,before,after,replay", 0);
  ck_assert_uint_eq(tt.nrows, 2);
  for (size_t k = 0; k < 2; k++)
    ck_assert(tv(&tt, k, 2) > 0 && tv(&tt, k, 3) > 0 && tv(&tt, k, 4) > 0);
  table_free(&t);
  table_free(&tt);
}
END_TEST

enum { CLC_GRID = 2, CLC_NODES, CLC_H, CLC_STEPS, CLC_K, CLC_TIME, CLC_PROBE, CLC_MAX, CLC_FMEAN, CLC_FMAX, CLC_FLIPS, CLC_NOCONV,
       CLC_COMPLETED, CLC_BEST };

/*
 * A small cloth-vs-implicit-ode (grids 8 and 12, 0.3 s): one fastest
 * solver per method and grid, and it is the fastest of the rows timed
 * over the same steps; Baraff-Witkin's stiffness a power of two whose run
 * stays within eps_max; the steps and h as the experiment's rule says;
 * the claim judged by its rule on these rows.
 */
START_TEST(test_cloth_cost)
{
  run_ok("run", "cloth-vs-implicit-ode", "--set", "grids=8,12", "--set", "T=0.3", "--out", "c");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "c");
  check_no_temporaries(dir);
  pathf(path, "%s/cloth-cost.csv", dir);
  table t = read_table_nan(path,
                           "scheme,solver,grid,nodes,h,steps,k_scale,time_per_step,time_probe,eps_max,frac_mean,"
                           "frac_max,flips,noconv,completed,best",
                           2);
  double best[2][2] = {{NAN, NAN}, {NAN, NAN}}, bw_eps = NAN;
  for (int g = 0; g < 2; g++) {
    double grid = g ? 12 : 8, h = 1e-3 * 15 / (grid - 1);
    for (int m = 0; m < 2; m++) {
      const char *meth = m ? "baraff-witkin" : "implicit";
      int nbest = 0;
      for (size_t r = 0; r < t.nrows; r++) {
        if (tv(&t, r, CLC_GRID) != grid || strncmp(t.label[r], meth, strlen(meth)) || t.label[r][strlen(meth)] != ',')
          continue;
        ck_assert(tv(&t, r, CLC_H) == h && tv(&t, r, CLC_NODES) == grid * grid);
        if (m == 0) {
          ck_assert_int_eq((long)tv(&t, r, CLC_STEPS), (long)ceil(0.3 / h - 1e-9));
          ck_assert(tv(&t, r, CLC_K) == 1);
        } else {
          int e;
          ck_assert_msg(frexp(tv(&t, r, CLC_K), &e) == 0.5, "k_scale %g is not a power of two", tv(&t, r, CLC_K));
        }
        if (tv(&t, r, CLC_BEST) == 1) {
          nbest++;
          best[g][m] = tv(&t, r, CLC_TIME);
          if (m == 1) {
            bw_eps = tv(&t, r, CLC_MAX);
            ck_assert_msg(bw_eps <= 0.1, "grid %g: Baraff-Witkin's eps %g", grid, bw_eps);
          }
        }
      }
      ck_assert_int_eq(nbest, 1);
      /* The best is the fastest over the steps all its rows ran. */
      for (size_t r = 0; r < t.nrows; r++)
        if (tv(&t, r, CLC_GRID) == grid && !strncmp(t.label[r], meth, strlen(meth)) && t.label[r][strlen(meth)] == ',')
          ck_assert(m ? tv(&t, r, CLC_PROBE) >= 0 : tv(&t, r, CLC_TIME) >= best[g][m]);
    }
  }
  check_claim(dir, "cloth.constraints_cheaper",
              (exp_value[]){{"ratio", best[1][0] / best[1][1]}, {"largest_grid", 12}, {"bw_eps", bw_eps}}, 3, 1e-5);
  ck_assert_uint_eq(check_claims_part(dir, "cloth-vs-implicit-ode"), 1);
  table_free(&t);
}
END_TEST

/* ---- the suite ----------------------------------------------------------------------------- */

static void add(Suite *s, const char *name, const TTest *test)
{
  TCase *tc = tcase_create(name);
  /* The runs are short (seconds), but a slow machine under sanitizers or
     valgrind must not turn them into spurious timeouts. */
  tcase_set_timeout(tc, 300);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test);
  suite_add_tcase(s, tc);
}

int main(void)
{
  /* Inherited by every cdyn run: one BLAS thread keeps timing and
     results independent of the machine's core count. */
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  Suite *s = suite_create("experiments");
  add(s, "help_and_list", test_help_and_list);
  add(s, "drift_short_run", test_drift_short_run);
  add(s, "drift_deterministic", test_drift_deterministic);
  add(s, "scheme_restricts_run", test_scheme_restricts_run);
  add(s, "extra_scheme", test_extra_scheme);
  add(s, "set_reaches_scheme", test_set_reaches_scheme);
  add(s, "trajectory_short_run", test_trajectory_short_run);
  add(s, "bad_input", test_bad_input);
  add(s, "out_dir", test_out_dir);
  add(s, "blas_threads", test_blas_threads);
  add(s, "cloth_elongation", test_cloth_elongation);
  add(s, "cloth_cost", test_cloth_cost);
  add(s, "cloth_contact", test_cloth_contact);
  add(s, "collision_cost", test_collision_cost);
  /* A test that cannot run here is not added, and says why (it must not
     count as passed). */
  const char *fw = getenv("CDYN_FAILWRITE");
  if (FAILWRITE_CAN_RUN && fw && !access(fw, R_OK))
    add(s, "failed_writes", test_failed_writes);
  else
    printf("# SKIP failed_writes: %s\n", FAILWRITE_CAN_RUN ? "no libfailwrite.so (a build without shared libraries)"
                                                            : "AddressSanitizer must be the first library loaded");
  add(s, "arm5_improved", test_arm5_improved);
  add(s, "arm5_improved_diverging", test_arm5_improved_diverging);
  add(s, "arm5_baumgarte", test_arm5_baumgarte);
  add(s, "report", test_report);
  add(s, "convergence_restricted", test_convergence_restricted);
  add(s, "convergence_deterministic", test_convergence_deterministic);
  add(s, "spinning_hoop", test_spinning_hoop);
  add(s, "spinning_hoop_deterministic", test_spinning_hoop_deterministic);
  add(s, "stability_implicit", test_stability_implicit);
  add(s, "bad_initial", test_bad_initial);
  add(s, "bead_circle", test_bead_circle);
  add(s, "bead_circle_claims", test_bead_circle_claims);
  add(s, "new_claims_listed", test_new_claims_listed);
  add(s, "stiff_pendulum", test_stiff_pendulum);
  add(s, "chain10_starts", test_chain10_starts);
  add(s, "chain10_default_run", test_chain10_default_run);
  add(s, "chain10_failure_detection", test_chain10_failure_detection);
  add(s, "chain10_failure_spread", test_chain10_failure_spread);
  add(s, "corner", test_corner);
  add(s, "census", test_census);
  add(s, "ccd_census", test_ccd_census);
  add(s, "billiard_short_run", test_billiard_short_run);
  add(s, "billiard_momentum", test_billiard_momentum);
  return tu_run(s);
}
