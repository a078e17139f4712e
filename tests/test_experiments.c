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
 *   every claim listed.
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

#include <cdyn/cdyn.h>

/* The header every arm run writes (2 links, so nodes 0, 1, 2). */
#define ARM_COLUMNS "step,t,e,e_sum,x0,y0,z0,x1,y1,z1,x2,y2,z2,E"
enum { C_STEP, C_T, C_E, C_ESUM, C_X0, C_Y0, C_Z0, C_X1, C_Y1, C_Z1, C_X2, C_Y2, C_Z2, C_EN, C_YREF, C_DEV };

/* The claims of experiments/claims.c, in its order: the report must list
   every one of them, judged or not. */
static const char *const claim_ids[] = {
  "arm2.baumgarte_grows", "arm2.poststab_to_zero", "arm2.implicit_tight",
  "arm2.implicit_tracks_reference", "arm2.poststab_deviates", "chain10.poststab_fails",
  "chain10.implicit_stable", "implicit.large_steps", "implicit.bad_initial", "implicit.same_cost",
  "arm5.improved_2x", "arm5.error_grows_with_h_and_mass", "arm5.implicit_beats_baumgarte",
  "improved.small_extra_cost", "corner.platt_crosses", "corner.tendency_fixes_case1",
  "corner.tendency_fails_case2", "corner.iterative_exact", "billiard.iterative_handles",
  "iterative.terminates", "bead.drift_without_feedback", "bead.feedback_holds",
  "spring.stiff_needs_small_h", "pbd.soft_with_few_iterations", "cloth.elongation_bounded",
  "cloth.contact_no_penetration", "cloth.constraints_cheaper"};
#define NCLAIMS (sizeof claim_ids / sizeof claim_ids[0])

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
  char **label; /* the first field of each row when labeled */
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
 * line must have as many fields as the header, each a finite number (but
 * the first when `labeled`), and end with a newline.
 */
static table read_table(const char *path, const char *header, int labeled)
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
      if (labeled && c == 0) {
        t.label[t.nrows] = strdup(p);
        ck_assert_ptr_nonnull(t.label[t.nrows]);
        row[c] = NAN;
      } else {
        char *stop;
        errno = 0;
        row[c] = strtod(p, &stop);
        ck_assert_msg(stop != p && !*stop && errno != ERANGE && isfinite(row[c]),
                      "%s: row %zu, field %zu is '%s', not a finite number", path, t.nrows + 1, c + 1, p);
      }
      p = end ? end + 1 : p;
    }
    t.nrows++;
  }
  free(text);
  return t;
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
 * Check DIR/NAME.meta.json: the version, the exact command, h, steps, and
 * the experiment parameter `param` = `value` inside "params" (the scheme
 * options may hold a field of the same name, so the search is bounded).
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
  ck_assert_msg(json_number(path, json, "h") == h, "%s: h is %.17g, expected %.17g", path,
                json_number(path, json, "h"), h);
  ck_assert_msg(json_number(path, json, "steps") == (double)steps, "%s: steps is %g, expected %ld", path,
                json_number(path, json, "steps"), steps);
  char *params = strstr(json, "\"params\": {");
  ck_assert_msg(params != NULL, "%s: no \"params\"", path);
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
  snprintf(want, sizeof want, "cdyn %s\n", cdyn_version());
  ck_assert_str_eq(p.out, want);
  proc_free(&p);

  p = run_cdyn("list");
  ck_assert_msg(p.status == 0, "cdyn list exited with %d: %s", p.status, p.err);
  ck_assert_uint_gt(cdyn_scheme_count(), 0);
  for (size_t i = 0; i < cdyn_scheme_count(); i++)
    ck_assert_msg(listed_in(p.out, "schemes", cdyn_scheme_name(i)), "cdyn list does not list scheme %s:\n%s",
                  cdyn_scheme_name(i), p.out);
  static const char *const exps[] = {"arm2-drift", "arm2-trajectory", "step-cost"};
  for (size_t i = 0; i < 3; i++)
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
  static const char *const runs[] = {"baumgarte", "poststab", "implicit", "baumgarte-a0b0"};
  for (size_t k = 0; k < 4; k++) {
    pathf(path, "%s/%s.csv", dir, runs[k]);
    table t = read_table(path, ARM_COLUMNS, 0);
    check_arm_run(path, &t, 0.05, 40);
    table_free(&t);
    check_meta(dir, runs[k], "cdyn run arm2-drift --steps 40 --out a", 0.05, 40, "alpha", "2");
  }
  dirlist l = list_dir(dir);
  /* The four runs and the claims; nothing else pretends to be data. */
  ck_assert_uint_eq(count_suffix(&l, ".csv"), 5);
  ck_assert_uint_eq(count_suffix(&l, ".meta.json"), 4);
  dirlist_free(&l);
  check_no_temporaries(dir);

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

START_TEST(test_drift_deterministic)
{
  run_ok("run", "arm2-drift", "--steps", "40", "--out", "a");
  run_ok("run", "arm2-drift", "--steps", "40", "--out", "b");
  char da[PATH_MAX], db[PATH_MAX];
  wp(da, "a");
  wp(db, "b");
  dirlist la = list_dir(da), lb = list_dir(db);
  ck_assert_uint_eq(la.n, lb.n);
  ck_assert_uint_ge(count_suffix(&la, ".csv"), 5);
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
END_TEST

/* ---- 4. --scheme ------------------------------------------------------------------------ */

START_TEST(test_scheme_restricts_run)
{
  run_ok("run", "arm2-drift", "--scheme", "implicit", "--steps", "40", "--out", "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  dirlist l = list_dir(dir);
  ck_assert_uint_eq(count_suffix(&l, ".csv"), 1);
  dirlist_free(&l);
  pathf(path, "%s/implicit.csv", dir);
  table t = read_table(path, ARM_COLUMNS, 0);
  check_arm_run(path, &t, 0.05, 40);
  table_free(&t);
  /* Claims compare the default schemes, so a restricted run judges none. */
  pathf(path, "%s/claims.part.csv", dir);
  ck_assert_msg(!exists(path), "%s written by a --scheme run", path);
  pathf(path, "%s/baumgarte-a0b0.csv", dir);
  ck_assert_msg(!exists(path), "%s written by a --scheme run", path);
  check_no_temporaries(dir);
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
  int runs;            /* 1: refused by the experiment after the directory is made */
} bad_case;

static const bad_case bad_cases[] = {
  {{"run", "nope", "--out", "o1", NULL}, "nope", "o1", 0},
  {{"run", "arm2-drift", "--scheme", "nope", "--out", "o2", NULL}, "nope", "o2", 0},
  {{"run", "arm2-drift", "--h", "0", "--out", "o3", NULL}, "--h", "o3", 0},
  {{"run", "arm2-drift", "--h", "-1", "--out", "o4", NULL}, "--h", "o4", 0},
  {{"run", "arm2-drift", "--h", "nan", "--out", "o5", NULL}, "--h", "o5", 0},
  {{"run", "arm2-drift", "--steps", "0", "--out", "o6", NULL}, "--steps", "o6", 0},
  {{"run", "arm2-drift", "--set", "nokey=1", "--out", "o7", NULL}, "nokey", "o7", 0},
  {{"run", "arm2-drift", "--steps", "5", "--set", "alpha=abc", "--out", "o8", NULL}, "alpha", "o8", 1},
  {{"run", "arm2-drift", "--steps", "5", "--set", "mass=-1", "--out", "o9", NULL}, "mass", "o9", 1},
  {{"run", "arm2-drift", "--steps", "5", "--set", "links=0", "--out", "o10", NULL}, "links", "o10", 1},
  /* Without its value --out must not fall back to ./arm2-drift. */
  {{"run", "arm2-drift", "--steps", "5", "--out", NULL}, "--out", "arm2-drift", 0},
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
    if (!c->runs) {
      ck_assert_msg(!exists(dir), "case %zu (%s): %s created before the input was checked", k + 1, c->names, dir);
    } else {
      dirlist l = list_dir(dir);
      ck_assert_msg(l.n == 0, "case %zu (%s): %s holds %s after a refused run", k + 1, c->names, dir, l.name[0]);
      dirlist_free(&l);
    }
  }
  /* Nothing else was written anywhere in the work directory. */
  dirlist l = list_dir(wd);
  for (size_t k = 0; k < l.n; k++)
    ck_assert_msg(!strcmp(l.name[k], ".stdout") || !strcmp(l.name[k], ".stderr") || !strcmp(l.name[k], "o8") ||
                    !strcmp(l.name[k], "o9") || !strcmp(l.name[k], "o10"),
                  "%s/%s written by a refused run", wd, l.name[k]);
  dirlist_free(&l);
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
    ck_assert_msg(!strcmp(f[0], claim_ids[k]), "%s: row %zu is %s, expected %s", path, k + 1, f[0], claim_ids[k]);
    char *pf[8] = {NULL};
    for (size_t j = 0; j < np; j++) {
      size_t len = strlen(claim_ids[k]);
      if (!strncmp(plines[j], claim_ids[k], len) && plines[j][len] == ',') {
        ck_assert_int_eq(split_csv(plines[j], pf, 8), 6);
        break;
      }
    }
    if (pf[0]) {
      ck_assert_str_eq(f[1], "arm2-drift");
      ck_assert_msg(is_verdict(f[4]), "%s: %s has verdict '%s'", path, f[0], f[4]);
      for (int i = 2; i < 6; i++)
        ck_assert_msg(!strcmp(f[i], pf[i]), "%s: %s field %d is '%s', the experiment wrote '%s'", path, f[0], i + 1,
                      f[i], pf[i]);
    } else {
      ck_assert_msg(!strcmp(f[4], "not-run") && !*f[1] && !*f[2] && !*f[3],
                    "%s: %s is '%s' from '%s', but no experiment judged it", path, f[0], f[4], f[1]);
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
    snprintf(id, sizeof id, "`%s`", claim_ids[k]);
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
  run_ok("run", "arm2-drift", "--steps", "40", "--out", "r/arm2-drift");
  wp(part, "r/arm2-drift/claims.part.csv");
  ck_assert_msg(exists(part), "%s not written", part);
  run_ok("report", "r");
  size_t notrun = check_claims_csv(dir, part);
  ck_assert_uint_eq(notrun, NCLAIMS - 3);
  check_claims_md(dir, notrun);
  check_no_temporaries(dir);

  /* Nothing measured: every claim is listed, as not run. */
  ck_assert_int_eq(mkdir(wp(dir, "empty"), 0777), 0);
  run_ok("report", "empty");
  ck_assert_uint_eq(check_claims_csv(dir, NULL), NCLAIMS);
  check_claims_md(dir, NCLAIMS);
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
  add(s, "set_reaches_scheme", test_set_reaches_scheme);
  add(s, "trajectory_short_run", test_trajectory_short_run);
  add(s, "bad_input", test_bad_input);
  add(s, "report", test_report);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
