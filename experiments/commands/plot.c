/*
 * cmd_plot.c: `cdyn plot DIR` and `cdyn animate DIR`: figures and an
 * animation of a run directory (what `cdyn run scene` or `cdyn run
 * EXPERIMENT` wrote), drawn by gnuplot with the scripts installed in
 * $(pkgdatadir) (run-series.gp, run-paths.gp, run-states.gp,
 * run-animate.gp and what they load; doc/plotting.md).
 *
 * The scripts are looked for in $CDYN_DATADIR when it is set (the tests
 * set it to the source tree's paper_figs/), else in the directory
 * configure compiled in (CDYN_PKGDATADIR, where `make install` puts
 * them), else, for a program run from its build tree before it is
 * installed, in the source tree's paper_figs/ (CDYN_SRCFIGS).  The runs are read
 * with exp_rundir_load (rundir.h).  What the scripts cannot read from the
 * directory themselves -- a cloth's triangles at a frame, the balls as
 * spheres, the palette -- is written into a temporary directory, removed
 * at the end.  Each figure is drawn by its own gnuplot process into a
 * temporary name in DIR (.NAME.tmp.EXT) and renamed when gnuplot
 * succeeded; a failure removes the temporary file.
 *
 *   plot:    STEM-series.{pdf,png}  every quantity of the runs' CSVs
 *            against t (runs whose CSV has a column t);
 *            STEM-paths.{pdf,png}   the paths, for runs with positions of
 *            at most PATHS_MAX particles;
 *            STEM-states.{pdf,png}  a 3-D view of the first state and of
 *            every run's last state, for runs with more particles;
 *   animate: STEM-RUN.gif (gnuplot's gif terminal, animated) or
 *            STEM-RUN.mp4 (PNG frames joined by ffmpeg): the 3-D view of
 *            one run's frames, at most --max-frames of them, evenly
 *            spaced, the first and last included.
 *
 * STEM is the scene's name, or the directory's last component.  3-D
 * views draw the scene's y axis upwards (the examples' gravity is along
 * -y): gnuplot's (x, y, z) is the scene's (x, z, y).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/cmdutil.h"
#include "commands.h"
#include "rundir.h"

#ifndef CDYN_PKGDATADIR
#define CDYN_PKGDATADIR "/usr/local/share/cdyn"
#endif
#ifndef CDYN_SRCFIGS
#define CDYN_SRCFIGS "paper_figs"
#endif

/* At most this many particles: paths; more: the 3-D view of states. */
#define PATHS_MAX 30

typedef struct plotctx {
  const char *who;    /* "cdyn plot" or "cdyn animate" */
  const char *dir;    /* the run directory */
  char *stem;         /* the figures' base name */
  char *datadir;      /* the scripts */
  char *gnuplot;      /* the gnuplot program found on PATH */
  char tmp[4096];     /* the temporary directory */
  char log[4200];     /* gnuplot's and ffmpeg's messages, shown when one fails */
  exp_rundir_run *runs;
  size_t nruns;
} plotctx;

/* ---- helpers ---------------------------------------------------------------------------- */

/* The first executable NAME in $PATH, malloc'ed, or NULL. */
static char *find_program(const char *name)
{
  const char *path = getenv("PATH");
  if (!path || !*path)
    return NULL;
  size_t n = strlen(path);
  char *buf = malloc(n + strlen(name) + 2);
  if (!buf)
    return NULL;
  for (const char *p = path;;) {
    const char *e = strchr(p, ':');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    if (l == 0)
      snprintf(buf, n + strlen(name) + 2, "%s", name);
    else
      snprintf(buf, n + strlen(name) + 2, "%.*s/%s", (int)l, p, name);
    struct stat sb;
    if (!stat(buf, &sb) && S_ISREG(sb.st_mode) && !access(buf, X_OK))
      return buf;
    if (!e)
      break;
    p = e + 1;
  }
  free(buf);
  return NULL;
}

static char *str_dup(const char *s)
{
  char *d = malloc(strlen(s) + 1);
  if (d)
    strcpy(d, s);
  return d;
}

/* s as a gnuplot single-quoted string ('' for a quote within). */
static void gp_str(exp_text *b, const char *s)
{
  exp_text_putc(b, '\'');
  for (; *s; s++) {
    if (*s == '\'')
      exp_text_putc(b, '\'');
    exp_text_putc(b, *s);
  }
  exp_text_putc(b, '\'');
}

/* Run argv[0] with argv, its standard output to /dev/null and its
   standard error to the file ERR (when not NULL); 0 when it exits with
   status 0. */
static int run_prog(char *const *argv, const char *err)
{
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stdout) || (err && !freopen(err, "w", stderr)))
      _exit(127);
    execv(argv[0], argv);
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR)
      return -1;
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* Remove the temporary directory and what is in it (files only). */
static int rm_entry(void *ctx, const char *path, const char *name, const struct stat *sb)
{
  (void)ctx;
  (void)name;
  (void)sb;
  remove(path);
  return 0;
}

static void ctx_free(plotctx *c)
{
  if (c->tmp[0]) {
    exp_walk_dir(c->who, c->tmp, rm_entry, NULL);
    rmdir(c->tmp);
  }
  exp_rundir_free(c->runs, c->nruns);
  free(c->stem);
  free(c->datadir);
  free(c->gnuplot);
}

/* Everything both commands need: the runs, gnuplot, the scripts, the
   temporary directory with the palette in it. */
static int ctx_open(plotctx *c, const char *who, const char *dir)
{
  memset(c, 0, sizeof *c);
  c->who = who;
  c->dir = dir;
  int rc = exp_rundir_load(dir, &c->runs, &c->nruns);
  if (rc)
    return rc;
  c->gnuplot = find_program("gnuplot");
  if (!c->gnuplot)
    return exp_complain(who, EXP_EXIT_FAIL, "gnuplot not found on PATH (on Debian: apt-get install gnuplot-nox)");
  const char *dd = getenv("CDYN_DATADIR");
  const char *where[2] = {dd && *dd ? dd : CDYN_PKGDATADIR, dd && *dd ? NULL : CDYN_SRCFIGS};
  int have = 0;
  for (int w = 0; w < 2 && where[w] && !have; w++) {
    exp_text p = {0};
    exp_text_printf(&p, "%s/run-series.gp", where[w]);
    have = !p.failed && exp_is_regular(p.s);
    exp_text_free(&p);
    if (have && !(c->datadir = str_dup(where[w])))
      return exp_complain(who, EXP_EXIT_FAIL, "out of memory");
  }
  if (!have)
    return exp_complain(who, EXP_EXIT_FAIL, "no plot scripts in %s (run-series.gp missing; set CDYN_DATADIR to the "
                        "directory that holds them)", where[0]);
  /* The stem: the scene's name (NAME-summary.csv), else the directory's name. */
  for (size_t k = 0; k < c->nruns && !c->stem; k++) {
    const char *sj = c->runs[k].scene_json;
    if (sj) {
      const char *b = strrchr(sj, '/');
      b = b ? b + 1 : sj;
      size_t l = strlen(b), rl = strlen(c->runs[k].name) + strlen(".scene.json") + 1;
      if (l > rl) {
        c->stem = malloc(l - rl + 1);
        if (c->stem) {
          memcpy(c->stem, b, l - rl);
          c->stem[l - rl] = '\0';
        }
      }
    }
  }
  if (!c->stem) {
    size_t l = strlen(dir);
    while (l > 1 && dir[l - 1] == '/')
      l--;
    const char *b = dir;
    for (size_t i = 0; i < l; i++)
      if (dir[i] == '/' && i + 1 < l)
        b = dir + i + 1;
    size_t bl = (size_t)(dir + l - b);
    c->stem = malloc(bl + 1);
    if (c->stem) {
      memcpy(c->stem, b, bl);
      c->stem[bl] = '\0';
    }
  }
  if (!c->stem)
    return exp_complain(who, EXP_EXIT_FAIL, "out of memory");
  if (!strcmp(c->stem, ".") || !strcmp(c->stem, "/") || !c->stem[0]) {
    free(c->stem);
    c->stem = str_dup("run");
    if (!c->stem)
      return exp_complain(who, EXP_EXIT_FAIL, "out of memory");
  }
  const char *td = getenv("TMPDIR");
  snprintf(c->tmp, sizeof c->tmp, "%s/cdyn-plot.XXXXXX", td && *td ? td : "/tmp");
  if (!mkdtemp(c->tmp)) {
    int e = errno;
    c->tmp[0] = '\0';
    return exp_complain(who, EXP_EXIT_FAIL, "cannot make a temporary directory: %s", strerror(e));
  }
  snprintf(c->log, sizeof c->log, "%s/messages.log", c->tmp);
  /* The palette (cdyn palette) for the scripts' common.gp. */
  exp_text pp = {0};
  exp_text_printf(&pp, "%s/palette.gp", c->tmp);
  if (pp.failed) {
    exp_text_free(&pp);
    return exp_complain(who, EXP_EXIT_FAIL, "out of memory");
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    if (!freopen(pp.s, "w", stdout))
      _exit(1);
    int r = exp_cmd_palette(0, NULL, "cdyn palette");
    _exit(fflush(stdout) || r ? 1 : 0);
  }
  int st = 0;
  int ok = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
  exp_text_free(&pp);
  if (!ok)
    return exp_complain(who, EXP_EXIT_FAIL, "cannot write the palette into %s", c->tmp);
  return 0;
}

/* Copy what the program that failed said to stderr. */
static void show_log(const plotctx *c)
{
  char *t = exp_read_file(c->log, NULL);
  if (t && *t)
    fprintf(stderr, "%s", t);
  free(t);
}

/* The gnuplot variables every script takes (CSV_PREFIX when prefix is not NULL). */
static void common_vars(const plotctx *c, exp_text *e, const char *runs, const char *prefix)
{
  if (prefix) {
    exp_text_puts(e, "CSV_PREFIX = ");
    gp_str(e, prefix);
    exp_text_puts(e, "; ");
  }
  exp_text_puts(e, "FIGSRC = ");
  gp_str(e, c->datadir);
  exp_text_puts(e, "; RUNDIR = ");
  gp_str(e, c->dir);
  exp_text_puts(e, "; D = ");
  gp_str(e, c->tmp);
  exp_text_puts(e, "; TMPD = ");
  gp_str(e, c->tmp);
  exp_text_puts(e, "; STEM = ");
  gp_str(e, c->stem);
  exp_text_puts(e, "; RUNS = ");
  gp_str(e, runs);
  exp_text_puts(e, "; ");
}

/* Draw SCRIPT into DIR/OUT (through DIR/.OUT.tmp.EXT) with terminal TERM
   and the variables VARS.  0, or 1 with a message. */
static int draw(const plotctx *c, const char *script, const char *vars, const char *term, const char *out)
{
  exp_text tmp = {0}, fin = {0}, e = {0}, sp = {0};
  const char *ext = strrchr(out, '.');
  exp_text_printf(&tmp, "%s/.%.*s.tmp%s", c->dir, (int)(ext - out), out, ext);
  exp_text_printf(&fin, "%s/%s", c->dir, out);
  exp_text_printf(&sp, "%s/%s", c->datadir, script);
  exp_text_puts(&e, vars);
  exp_text_printf(&e, "TERM_NAME = '%s'; OUT_NAME = ", term);
  gp_str(&e, tmp.s ? tmp.s : "");
  int rc = 0;
  if (tmp.failed || fin.failed || e.failed || sp.failed) {
    rc = exp_complain(c->who, EXP_EXIT_FAIL, "out of memory");
  } else {
    char *argv[] = {c->gnuplot, "-e", e.s, sp.s, NULL};
    remove(tmp.s);
    struct stat sb;
    if (run_prog(argv, c->log) || stat(tmp.s, &sb) || sb.st_size == 0) {
      remove(tmp.s);
      show_log(c);
      rc = exp_complain(c->who, EXP_EXIT_FAIL, "gnuplot failed drawing %s with %s", fin.s, sp.s);
    } else if (rename(tmp.s, fin.s)) {
      rc = exp_complain(c->who, EXP_EXIT_FAIL, "cannot rename %s to %s: %s", tmp.s, fin.s, strerror(errno));
      remove(tmp.s);
    } else {
      printf("%s\n", fin.s);
    }
  }
  exp_text_free(&tmp);
  exp_text_free(&fin);
  exp_text_free(&e);
  exp_text_free(&sp);
  return rc;
}

/* Does the run's CSV have a column t? */
static int has_time(const exp_rundir_run *r)
{
  if (!r->csv)
    return 0;
  FILE *f = fopen(r->csv, "r");
  if (!f)
    return 0;
  char line[4096];
  int ok = 0;
  if (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    for (char *tok = strtok(line, ","); tok && !ok; tok = strtok(NULL, ","))
      ok = !strcmp(tok, "t");
  }
  fclose(f);
  return ok;
}

/* The prefix of a run's CSV's file name before RUN.csv (malloc'ed; ""
   for RUN.csv), or NULL when the name does not end in RUN.csv. */
static char *csv_prefix(const exp_rundir_run *r)
{
  const char *b = strrchr(r->csv, '/');
  b = b ? b + 1 : r->csv;
  size_t bl = strlen(b), nl = strlen(r->name);
  if (bl < nl + 4 || strcmp(b + bl - 4, ".csv") || strncmp(b + bl - 4 - nl, r->name, nl))
    return NULL;
  char *p = malloc(bl - nl - 4 + 1);
  if (p) {
    memcpy(p, b, bl - nl - 4);
    p[bl - nl - 4] = '\0';
  }
  return p;
}

/* Can a run name go into a gnuplot word list? */
static int plain_name(const char *s)
{
  for (; *s; s++)
    if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') || ('0' <= *s && *s <= '9') || strchr("._+-", *s)))
      return 0;
  return 1;
}

/* ---- 3-D data ----------------------------------------------------------------------------- */

/* One point in gnuplot's axes: the scene's (x, z, y). */
static void put3(FILE *f, const double *p)
{
  fprintf(f, "%.9g %.9g %.9g\n", p[0], p[2], p[1]);
}

/* The run's frame FR as drawn: triangles (polygons), else links
   (segments), else points; blocks separated by blank lines. */
static void write_frame(FILE *f, const exp_rundir_run *r, size_t fr)
{
  const double *x = r->x + fr * r->nparticles * 3;
  if (r->ntris) {
    for (size_t k = 0; k < r->ntris; k++) {
      for (int j = 0; j < 3; j++)
        put3(f, x + 3 * r->tris[3 * k + j]);
      fputc('\n', f);
    }
  } else if (r->nlinks) {
    for (size_t k = 0; k < r->nlinks; k++) {
      put3(f, x + 3 * r->links[2 * k]);
      put3(f, x + 3 * r->links[2 * k + 1]);
      fputc('\n', f);
    }
  } else {
    for (size_t p = 0; p < r->nparticles; p++)
      put3(f, x + 3 * p);
  }
}

/* The balls of the run at frame FR, each a sphere of quadrilaterals
   (8 bands of latitude, 12 of longitude), blocks separated by blank
   lines; a point "nan nan nan" when there is none (gnuplot wants data). */
static void write_balls(FILE *f, const exp_rundir_run *r, size_t fr)
{
  const double *x = r->x + fr * r->nparticles * 3;
  const int NLAT = 8, NLON = 12;
  const double pi = acos(-1.0);
  int any = 0;
  for (size_t b = 0; b < r->nballs; b++) {
    if (r->balls[b] >= r->nparticles)
      continue;
    const double *c = x + 3 * r->balls[b];
    double rad = r->ball_radius[b];
    for (int i = 0; i < NLAT; i++)
      for (int j = 0; j < NLON; j++) {
        double th[2] = {pi * i / NLAT, pi * (i + 1) / NLAT}, ph[2] = {2 * pi * j / NLON, 2 * pi * (j + 1) / NLON};
        static const int corner[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
        for (int k = 0; k < 4; k++) {
          double t = th[corner[k][0]], q = ph[corner[k][1]];
          double p[3] = {c[0] + rad * sin(t) * cos(q), c[1] + rad * cos(t), c[2] + rad * sin(t) * sin(q)};
          put3(f, p);
        }
        fputc('\n', f);
        any = 1;
      }
  }
  if (!any)
    fputs("nan nan nan\n\n", f);
}

/* How a run's frames are drawn: 1 polygons, 2 segments, 3 points. */
static int draw_mode(const exp_rundir_run *r)
{
  return r->ntris ? 1 : r->nlinks ? 2 : 3;
}

/* Extend the bounds (gnuplot's axes) by the finite points of frame FR and its balls. */
static void bounds(double lo[3], double hi[3], const exp_rundir_run *r, size_t fr)
{
  const double *x = r->x + fr * r->nparticles * 3;
  for (size_t p = 0; p < r->nparticles; p++) {
    double q[3] = {x[3 * p], x[3 * p + 2], x[3 * p + 1]}, rad = 0;
    for (size_t b = 0; b < r->nballs; b++)
      if (r->balls[b] == p)
        rad = r->ball_radius[b];
    for (int a = 0; a < 3; a++)
      if (isfinite(q[a])) {
        if (q[a] - rad < lo[a])
          lo[a] = q[a] - rad;
        if (q[a] + rad > hi[a])
          hi[a] = q[a] + rad;
      }
  }
}

/* The axes' ranges, for the scripts: XR0 .. ZR1 (a degenerate one widened). */
static void write_ranges(FILE *f, double lo[3], double hi[3])
{
  for (int a = 0; a < 3; a++) {
    if (!(lo[a] <= hi[a])) {
      lo[a] = -1;
      hi[a] = 1;
    }
    if (hi[a] - lo[a] < 1e-9) {
      lo[a] -= 0.5;
      hi[a] += 0.5;
    }
  }
  fprintf(f, "XR0 = %.9g; XR1 = %.9g; YR0 = %.9g; YR1 = %.9g; ZR0 = %.9g; ZR1 = %.9g\n", lo[0], hi[0], lo[1], hi[1],
          lo[2], hi[2]);
}

static FILE *tmp_file(const plotctx *c, const char *name)
{
  exp_text p = {0};
  exp_text_printf(&p, "%s/%s", c->tmp, name);
  FILE *f = p.failed ? NULL : fopen(p.s, "w");
  exp_text_free(&p);
  return f;
}

/* ---- cdyn plot ---------------------------------------------------------------------------- */

/* The largest span of the bounds. */
static double span_of(const double lo[3], const double hi[3])
{
  double s = 0;
  for (int a = 0; a < 3; a++)
    if (hi[a] - lo[a] > s)
      s = hi[a] - lo[a];
  return s;
}

/* The data of run-states.gp: sK-F.dat (run K's frame F, 0 first, 1
   last) and bK-F.dat (its balls), and states.gp with the variables: the
   times ST0, ST1, the drawing mode SMODE, OWN (1: the last state is
   drawn at its own scale) and OSPAN (the largest span of its last state)
   of run K, and the axes' ranges XR0 .. ZR1 over
   the first states and the last states not drawn at their own scale.  A
   last state is drawn at its own scale when its largest span is more than
   5 times that of the first states (a run that blew up), or it has no
   finite point. */
static int write_states(const plotctx *c, const size_t *idx, size_t n)
{
  FILE *v = tmp_file(c, "states.gp");
  if (!v)
    return exp_complain(c->who, EXP_EXIT_FAIL, "cannot write into %s: %s", c->tmp, strerror(errno));
  int bad = 0;
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (size_t k = 0; k < n; k++)
    bounds(lo, hi, &c->runs[idx[k]], 0);
  double span0 = span_of(lo, hi);
  fprintf(v, "array SMODE[%zu]; array ST0[%zu]; array ST1[%zu]; array OWN[%zu]; array OSPAN[%zu]\n", n, n, n, n, n);
  for (size_t k = 0; k < n; k++) {
    const exp_rundir_run *r = &c->runs[idx[k]];
    for (int fr = 0; fr < 2; fr++) {
      char name[64];
      size_t frame = fr ? r->nframes - 1 : 0;
      snprintf(name, sizeof name, "s%zu-%d.dat", k + 1, fr);
      FILE *f = tmp_file(c, name);
      if (!f) {
        bad = 1;
        break;
      }
      write_frame(f, r, frame);
      bad |= fclose(f) != 0;
      snprintf(name, sizeof name, "b%zu-%d.dat", k + 1, fr);
      f = tmp_file(c, name);
      if (!f) {
        bad = 1;
        break;
      }
      write_balls(f, r, frame);
      bad |= fclose(f) != 0;
    }
    double l1[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, h1[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    bounds(l1, h1, r, r->nframes - 1);
    int own = !(l1[0] <= h1[0]) || span_of(l1, h1) > 5 * span0;
    if (!own)
      for (int a = 0; a < 3; a++) {
        lo[a] = l1[a] < lo[a] ? l1[a] : lo[a];
        hi[a] = h1[a] > hi[a] ? h1[a] : hi[a];
      }
    fprintf(v, "SMODE[%zu] = %d; ST0[%zu] = %.9g; ST1[%zu] = %.9g; OWN[%zu] = %d; OSPAN[%zu] = %.3g\n", k + 1,
            draw_mode(r), k + 1, r->t[0], k + 1, r->t[r->nframes - 1], k + 1, own, k + 1,
            l1[0] <= h1[0] ? span_of(l1, h1) : 0.0);
  }
  write_ranges(v, lo, hi);
  bad |= fclose(v) != 0;
  if (bad)
    return exp_complain(c->who, EXP_EXIT_FAIL, "cannot write into %s", c->tmp);
  return 0;
}

static int plot_main(int argc, char **argv)
{
  const char *who = "cdyn plot";
  const char *dir = NULL, *formats = "pdf,png";
  for (int k = 0; k < argc; k++) {
    if (!strcmp(argv[k], "--format") && k + 1 < argc) {
      formats = argv[++k];
    } else if (!strncmp(argv[k], "--format=", 9)) {
      formats = argv[k] + 9;
    } else if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
      printf("usage: cdyn plot DIR [--format pdf,png]\n");
      return EXP_EXIT_OK;
    } else if (argv[k][0] == '-') {
      static const char *const options[] = {"--format", "--help", NULL};
      return exp_unknown_option(who, argv[k], options);
    } else if (dir) {
      return exp_complain(who, EXP_EXIT_USAGE, "one directory only ('%s' and '%s')", dir, argv[k]);
    } else {
      dir = argv[k];
    }
  }
  if (!dir)
    return exp_complain(who, EXP_EXIT_USAGE, "which run directory? (cdyn plot DIR [--format pdf,png])");
  int want_pdf = 0, want_png = 0;
  {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", formats);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
      if (!strcmp(t, "pdf"))
        want_pdf = 1;
      else if (!strcmp(t, "png"))
        want_png = 1;
      else
        return exp_complain(who, EXP_EXIT_USAGE, "unknown format '%s' (pdf, png)", t);
    }
    if (!want_pdf && !want_png)
      return exp_complain(who, EXP_EXIT_USAGE, "--format names no format (pdf, png)");
  }
  plotctx c;
  int rc = ctx_open(&c, who, dir);
  if (rc) {
    ctx_free(&c);
    return rc;
  }
  exp_text series = {0}, paths = {0}, states = {0};
  char *prefix = NULL; /* the series runs' CSV_PREFIX: that of the first such run */
  size_t *sidx = calloc(c.nruns + 1, sizeof *sidx), ns = 0;
  for (size_t k = 0; k < c.nruns && !rc; k++) {
    const exp_rundir_run *r = &c.runs[k];
    if (!plain_name(r->name)) {
      rc = exp_complain(who, EXP_EXIT_FAIL, "%s: run name '%s' holds characters the scripts cannot take", dir,
                        r->name);
      break;
    }
    char *pre = has_time(r) ? csv_prefix(r) : NULL;
    if (pre) {
      /* Those of the first run's naming (a directory may hold others' CSVs). */
      if (!prefix) {
        prefix = pre;
        pre = NULL;
        exp_text_printf(&series, "%s ", r->name);
      } else if (!strcmp(pre, prefix)) {
        exp_text_printf(&series, "%s ", r->name);
      }
      free(pre);
    }
    if (r->x && r->nframes > 0) {
      if (r->nparticles <= PATHS_MAX && r->source && strcmp(r->source, "snapshots"))
        exp_text_printf(&paths, "%s ", r->name);
      else if (sidx) {
        exp_text_printf(&states, "%s ", r->name);
        sidx[ns++] = k;
      }
    }
  }
  if (!rc && (!sidx || series.failed || paths.failed || states.failed))
    rc = exp_complain(who, EXP_EXIT_FAIL, "out of memory");
  if (!rc && !series.len && !paths.len && !states.len)
    rc = exp_complain(who, EXP_EXIT_FAIL, "%s: no run has a time series (a CSV with a column t) or positions", dir);
  if (!rc && states.len)
    rc = write_states(&c, sidx, ns);
  static const struct {
    const char *script, *suffix;
  } figs[3] = {{"run-series.gp", "series"}, {"run-paths.gp", "paths"}, {"run-states.gp", "states"}};
  const exp_text *lists[3] = {&series, &paths, &states};
  int nfig = 0;
  for (int f = 0; f < 3 && !rc; f++) {
    if (!lists[f]->len)
      continue;
    exp_text vars = {0};
    common_vars(&c, &vars, lists[f]->s, prefix);
    for (int t = 0; t < 2 && !rc; t++) {
      if (!(t ? want_png : want_pdf))
        continue;
      exp_text out = {0};
      exp_text_printf(&out, "%s-%s.%s", c.stem, figs[f].suffix, t ? "png" : "pdf");
      rc = vars.failed || out.failed ? exp_complain(who, EXP_EXIT_FAIL, "out of memory")
                                     : draw(&c, figs[f].script, vars.s, t ? "png" : "pdf", out.s);
      nfig += !rc;
      exp_text_free(&out);
    }
    exp_text_free(&vars);
  }
  free(sidx);
  free(prefix);
  exp_text_free(&series);
  exp_text_free(&paths);
  exp_text_free(&states);
  ctx_free(&c);
  return rc;
}

int exp_cmd_plot(int argc, char **argv, const char *command)
{
  (void)command;
  return plot_main(argc, argv);
}

/* ---- cdyn animate ------------------------------------------------------------------------- */

#define ANIM_USAGE "usage: cdyn animate DIR [--run NAME] [--format gif|mp4] [--fps N] [--max-frames N]\n"

static int parse_count(const char *who, const char *opt, const char *s, long lo, long hi, long *v)
{
  char *end;
  errno = 0;
  long x = strtol(s, &end, 10);
  if (errno || end == s || *end || x < lo || x > hi)
    return exp_complain(who, EXP_EXIT_USAGE, "%s takes a whole number from %ld to %ld, not '%s'", opt, lo, hi, s);
  *v = x;
  return 0;
}

int exp_cmd_animate(int argc, char **argv, const char *command)
{
  (void)command;
  const char *who = "cdyn animate";
  const char *dir = NULL, *run = NULL, *format = "gif";
  long fps = 15, maxf = 100;
  for (int k = 0; k < argc; k++) {
    const char *a = argv[k];
    int has = k + 1 < argc;
    if (!strcmp(a, "--run") && has) {
      run = argv[++k];
    } else if (!strcmp(a, "--format") && has) {
      format = argv[++k];
    } else if (!strcmp(a, "--fps") && has) {
      if (parse_count(who, a, argv[++k], 1, 100, &fps))
        return EXP_EXIT_USAGE;
    } else if (!strcmp(a, "--max-frames") && has) {
      if (parse_count(who, a, argv[++k], 2, 10000, &maxf))
        return EXP_EXIT_USAGE;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      printf(ANIM_USAGE);
      return EXP_EXIT_OK;
    } else if (a[0] == '-') {
      static const char *const options[] = {"--run", "--format", "--fps", "--max-frames", "--help", NULL};
      for (const char *const *o = options; *o; o++)
        if (!strcmp(*o, a))
          return exp_complain(who, EXP_EXIT_USAGE, "option '%s' needs a value", a);
      return exp_unknown_option(who, a, options);
    } else if (dir) {
      return exp_complain(who, EXP_EXIT_USAGE, "one directory only ('%s' and '%s')", dir, a);
    } else {
      dir = a;
    }
  }
  if (!dir)
    return exp_complain(who, EXP_EXIT_USAGE, "which run directory? (%.*s)", (int)strlen(ANIM_USAGE) - 8,
                        ANIM_USAGE + 7);
  int mp4 = !strcmp(format, "mp4");
  if (!mp4 && strcmp(format, "gif"))
    return exp_complain(who, EXP_EXIT_USAGE, "unknown format '%s' (gif, mp4)", format);
  plotctx c;
  int rc = ctx_open(&c, who, dir);
  char *ffmpeg = NULL;
  const exp_rundir_run *r = NULL;
  if (!rc && mp4 && !(ffmpeg = find_program("ffmpeg")))
    rc = exp_complain(who, EXP_EXIT_FAIL, "--format mp4 needs ffmpeg, which is not on PATH (--format gif does not)");
  for (size_t k = 0; !rc && k < c.nruns && !r; k++)
    if (run ? !strcmp(c.runs[k].name, run) : c.runs[k].x && c.runs[k].nframes > 0)
      r = &c.runs[k];
  if (!rc && !r)
    rc = run ? exp_complain(who, EXP_EXIT_USAGE, "%s: no run named '%s'", dir, run)
             : exp_complain(who, EXP_EXIT_FAIL, "%s: no run records positions (a scene records them with "
                                                "\"record\": {\"positions\": true})", dir);
  if (!rc && (!r->x || r->nframes == 0))
    rc = exp_complain(who, EXP_EXIT_FAIL, "%s: run '%s' records no positions", dir, r->name);
  if (!rc && !plain_name(r->name))
    rc = exp_complain(who, EXP_EXIT_FAIL, "%s: run name '%s' holds characters the scripts cannot take", dir, r->name);
  /* The frames: m of them, evenly spaced, the first and the last included. */
  size_t m = 0;
  FILE *fa = NULL, *fb = NULL, *fv = NULL;
  if (!rc) {
    m = r->nframes < (size_t)maxf ? r->nframes : (size_t)maxf;
    fa = tmp_file(&c, "anim.dat");
    fb = tmp_file(&c, "anim-balls.dat");
    fv = tmp_file(&c, "anim.gp");
    if (!fa || !fb || !fv)
      rc = exp_complain(who, EXP_EXIT_FAIL, "cannot write into %s: %s", c.tmp, strerror(errno));
  }
  if (!rc) {
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    fprintf(fv, "NF = %zu; AMODE = %d; array AT[%zu]\n", m, draw_mode(r), m);
    for (size_t k = 0; k < m; k++) {
      size_t fr = m > 1 ? (size_t)((double)k * (double)(r->nframes - 1) / (double)(m - 1) + 0.5) : 0;
      if (k) {
        fputs("\n\n", fa);
        fputs("\n\n", fb);
      }
      write_frame(fa, r, fr);
      write_balls(fb, r, fr);
      bounds(lo, hi, r, fr);
      fprintf(fv, "AT[%zu] = %.9g\n", k + 1, r->t[fr]);
    }
    write_ranges(fv, lo, hi);
    fprintf(fv, "FPS = %ld; ARUN = '%s'\n", fps, r->name);
  }
  int bad = 0;
  if (fa)
    bad |= fclose(fa) != 0;
  if (fb)
    bad |= fclose(fb) != 0;
  if (fv)
    bad |= fclose(fv) != 0;
  if (!rc && bad)
    rc = exp_complain(who, EXP_EXIT_FAIL, "cannot write into %s", c.tmp);
  if (!rc) {
    exp_text vars = {0}, out = {0};
    common_vars(&c, &vars, r->name, NULL);
    exp_text_printf(&out, "%s-%s.%s", c.stem, r->name, mp4 ? "mp4" : "gif");
    if (vars.failed || out.failed) {
      rc = exp_complain(who, EXP_EXIT_FAIL, "out of memory");
    } else if (!mp4) {
      rc = draw(&c, "run-animate.gp", vars.s, "gif", out.s);
    } else {
      /* PNG frames into the temporary directory, then ffmpeg. */
      exp_text pat = {0}, tmp = {0}, fin = {0}, fr = {0}, sp = {0}, e = {0};
      exp_text_printf(&pat, "%s/frame-%%05d.png", c.tmp);
      exp_text_printf(&tmp, "%s/.%s-%s.tmp.mp4", dir, c.stem, r->name);
      exp_text_printf(&fin, "%s/%s", dir, out.s);
      exp_text_printf(&fr, "%ld", fps);
      exp_text_printf(&sp, "%s/run-animate.gp", c.datadir);
      exp_text_puts(&e, vars.s);
      exp_text_puts(&e, "TERM_NAME = 'pngframes'; OUT_NAME = ");
      gp_str(&e, pat.s ? pat.s : "");
      if (pat.failed || tmp.failed || fin.failed || fr.failed || sp.failed || e.failed) {
        rc = exp_complain(who, EXP_EXIT_FAIL, "out of memory");
      } else {
        char *gargv[] = {c.gnuplot, "-e", e.s, sp.s, NULL};
        char *fargv[] = {ffmpeg, "-y", "-loglevel", "error", "-framerate", fr.s, "-i", pat.s, "-vf",
                         "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-pix_fmt", "yuv420p", "-f", "mp4", tmp.s, NULL};
        struct stat sb;
        if (run_prog(gargv, c.log)) {
          show_log(&c);
          rc = exp_complain(who, EXP_EXIT_FAIL, "gnuplot failed drawing the frames with %s", sp.s);
        } else if (run_prog(fargv, c.log) || stat(tmp.s, &sb) || sb.st_size == 0) {
          remove(tmp.s);
          show_log(&c);
          rc = exp_complain(who, EXP_EXIT_FAIL, "ffmpeg failed joining the frames into %s", fin.s);
        } else if (rename(tmp.s, fin.s)) {
          rc = exp_complain(who, EXP_EXIT_FAIL, "cannot rename %s to %s: %s", tmp.s, fin.s, strerror(errno));
          remove(tmp.s);
        } else {
          printf("%s\n", fin.s);
        }
      }
      exp_text_free(&pat);
      exp_text_free(&tmp);
      exp_text_free(&fin);
      exp_text_free(&fr);
      exp_text_free(&sp);
      exp_text_free(&e);
    }
    exp_text_free(&vars);
    exp_text_free(&out);
  }
  free(ffmpeg);
  ctx_free(&c);
  return rc;
}
