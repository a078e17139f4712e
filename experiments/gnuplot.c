/*
 * gnuplot.c: what `cdyn plot` and `cdyn animate` (plot.c, animate.c)
 * share to draw a run directory (what `cdyn run scene` or `cdyn run
 * EXPERIMENT` wrote) with gnuplot and the scripts installed in
 * $(pkgdatadir) (run-series.gp, run-paths.gp, run-states.gp,
 * run-animate.gp and what they load; doc/plotting.md), and the figures'
 * palette, which `cdyn palette` prints and the scripts load.  It sits
 * beside rundir.c, among what the commands share, rather than in runner/,
 * because only commands use it.
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
 * 3-D views draw the scene's y axis upwards (the examples' gravity is
 * along -y): gnuplot's (x, y, z) is the scene's (x, z, y).
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

#include "runner/text.h"
#include "runner/files.h"
#include "runner/cli.h"
#include "gnuplot.h"
#include "runner/experiment.h"
#include "studies/table.h"

#ifndef CDYN_PKGDATADIR
#define CDYN_PKGDATADIR "/usr/local/share/cdyn"
#endif
#ifndef CDYN_SRCFIGS
#define CDYN_SRCFIGS "paper_figs"
#endif

/* ---- helpers ---------------------------------------------------------------------------- */


/* s as a gnuplot single-quoted string ('' for a quote within). */
void exp_gp_str(exp_text *b, const char *s)
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
int exp_gp_run(char *const *argv, const char *err)
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

void exp_gp_close(exp_plotctx *c)
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
int exp_gp_open(exp_plotctx *c, const char *who, const char *dir)
{
  memset(c, 0, sizeof *c);
  c->who = who;
  c->dir = dir;
  int rc = exp_rundir_load(dir, &c->runs, &c->nruns);
  if (rc)
    return rc;
  c->gnuplot = exp_find_program("gnuplot");
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
    if (have && !(c->datadir = strdup(where[w])))
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
    c->stem = strdup("run");
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
  FILE *f = fopen(pp.s, "w");
  int ok = f && exp_palette_write(f) == 0;
  ok = (f && fclose(f) == 0) && ok;
  exp_text_free(&pp);
  if (!ok)
    return exp_complain(who, EXP_EXIT_FAIL, "cannot write the palette into %s", c->tmp);
  return 0;
}

/* Copy what the program that failed said to stderr. */
void exp_gp_show_log(const exp_plotctx *c)
{
  char *t = exp_read_file(c->log, NULL);
  if (t && *t)
    fprintf(stderr, "%s", t);
  free(t);
}

/* The gnuplot variables every script takes (CSV_PREFIX when prefix is not NULL). */
void exp_gp_vars(const exp_plotctx *c, exp_text *e, const char *runs, const char *prefix)
{
  if (prefix) {
    exp_text_puts(e, "CSV_PREFIX = ");
    exp_gp_str(e, prefix);
    exp_text_puts(e, "; ");
  }
  exp_text_puts(e, "FIGSRC = ");
  exp_gp_str(e, c->datadir);
  exp_text_puts(e, "; RUNDIR = ");
  exp_gp_str(e, c->dir);
  exp_text_puts(e, "; D = ");
  exp_gp_str(e, c->tmp);
  exp_text_puts(e, "; TMPD = ");
  exp_gp_str(e, c->tmp);
  exp_text_puts(e, "; STEM = ");
  exp_gp_str(e, c->stem);
  exp_text_puts(e, "; RUNS = ");
  exp_gp_str(e, runs);
  exp_text_puts(e, "; ");
}

/* Draw SCRIPT into DIR/OUT (through DIR/.OUT.tmp.EXT) with terminal TERM
   and the variables VARS.  0, or 1 with a message. */
int exp_gp_draw(const exp_plotctx *c, const char *script, const char *vars, const char *term, const char *out)
{
  exp_text tmp = {0}, fin = {0}, e = {0}, sp = {0};
  const char *ext = strrchr(out, '.');
  exp_text_printf(&tmp, "%s/.%.*s.tmp%s", c->dir, (int)(ext - out), out, ext);
  exp_text_printf(&fin, "%s/%s", c->dir, out);
  exp_text_printf(&sp, "%s/%s", c->datadir, script);
  exp_text_puts(&e, vars);
  exp_text_printf(&e, "TERM_NAME = '%s'; OUT_NAME = ", term);
  exp_gp_str(&e, tmp.s ? tmp.s : "");
  int rc = 0;
  if (tmp.failed || fin.failed || e.failed || sp.failed) {
    rc = exp_complain(c->who, EXP_EXIT_FAIL, "out of memory");
  } else {
    char *argv[] = {c->gnuplot, "-e", e.s, sp.s, NULL};
    remove(tmp.s);
    struct stat sb;
    if (exp_gp_run(argv, c->log) || stat(tmp.s, &sb) || sb.st_size == 0) {
      remove(tmp.s);
      exp_gp_show_log(c);
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

/* Can a run name go into a gnuplot word list? */
int exp_gp_plain_name(const char *s)
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
void exp_gp_write_frame(FILE *f, const exp_rundir_run *r, size_t fr)
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
void exp_gp_write_balls(FILE *f, const exp_rundir_run *r, size_t fr)
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
int exp_gp_draw_mode(const exp_rundir_run *r)
{
  return r->ntris ? 1 : r->nlinks ? 2 : 3;
}

/* Extend the bounds (gnuplot's axes) by the finite points of frame FR and its balls. */
void exp_gp_bounds(double lo[3], double hi[3], const exp_rundir_run *r, size_t fr)
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
void exp_gp_write_ranges(FILE *f, double lo[3], double hi[3])
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

FILE *exp_gp_tmp_file(const exp_plotctx *c, const char *name)
{
  exp_text p = {0};
  exp_text_printf(&p, "%s/%s", c->tmp, name);
  FILE *f = p.failed ? NULL : fopen(p.s, "w");
  exp_text_free(&p);
  return f;
}

/*
 * The line style of every name a figure can show: the registered schemes
 * in registry order, then the companion runs of every experiment.  Name
 * i gets colour i mod 9 of a palette of nine distinct colours and dash
 * type (i / 9) mod 3 + 1 (solid, dashed, dash-dot), and point type
 * (i mod 13) + 1: 27 names before a colour and dash repeat, each with its
 * own point type up to 13.  Grey and black are not in the palette: they
 * are the references' and the thresholds'.
 */
int exp_palette_write(FILE *f)
{
  static const char *const colours[9] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                         "#8c564b", "#e377c2", "#bcbd22", "#17becf"};
  const char *names[256];
  size_t n = 0;
  for (size_t i = 0; i < cdyn_scheme_count() && n < 256; i++)
    names[n++] = cdyn_scheme_name(i);
  for (size_t e = 0; cdyn_experiments[e]; e++)
    for (const exp_companion *c = cdyn_experiments[e]->companions; c && c->name; c++) {
      int dup = 0;
      for (size_t k = 0; k < n; k++)
        dup |= !strcmp(names[k], c->name);
      if (!dup && n < 256)
        names[n++] = c->name;
    }
  fprintf(f, "# The figures' line styles, written by `cdyn palette` (cdyn %s): one per\n"
         "# scheme and companion run, so that a name looks the same in every figure\n"
         "# and no two names alike.  pal_index(NAME) is its position in PAL_NAMES\n"
         "# (0: not a known name); pal_colour, pal_dash and pal_point give its style.\n",
         cdyn_version());
  fprintf(f, "PAL_NAMES = \"");
  for (size_t k = 0; k < n; k++)
    fprintf(f, "%s%s", k ? " " : "", names[k]);
  fprintf(f, "\"\nPAL_COLOURS = \"");
  for (size_t k = 0; k < n; k++)
    fprintf(f, "%s%s", k ? " " : "", colours[k % 9]);
  fprintf(f, "\"\nPAL_DASHES = \"");
  for (size_t k = 0; k < n; k++)
    fprintf(f, "%s%zu", k ? " " : "", (k / 9) % 3 + 1);
  fprintf(f, "\"\nPAL_POINTS = \"");
  for (size_t k = 0; k < n; k++)
    fprintf(f, "%s%zu", k ? " " : "", k % 13 + 1);
  fprintf(f, "\"\n");
  return ferror(f) ? -1 : 0;
}
