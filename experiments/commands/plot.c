/*
 * plot.c: `cdyn plot DIR [--format pdf,png]`: figures of a run directory
 * (what `cdyn run scene` or `cdyn run EXPERIMENT` wrote), drawn by gnuplot
 * (gnuplot.c), into DIR:
 *
 *   STEM-series.{pdf,png}  every quantity of the runs' CSVs against t
 *                          (runs whose CSV has a column t);
 *   STEM-paths.{pdf,png}   the paths, for runs with positions of at most
 *                          PATHS_MAX particles;
 *   STEM-states.{pdf,png}  a 3-D view of the first state and of every
 *                          run's last state, for runs with more particles.
 *
 * STEM is the scene's name, or the directory's last component.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdyn/error.h"
#include "runner/cli.h"
#include "runner/text.h"
#include "commands.h"
#include "gnuplot.h"
#include "runner/csv.h"
#include "runner/lists.h"

/* At most this many particles: paths; more: the 3-D view of states. */
#define PATHS_MAX 30

/* Does the run's CSV have a column t? */
static int has_time(const exp_rundir_run *r)
{
  if (!r->csv)
    return 0;
  FILE *f = fopen(r->csv, "r");
  if (!f)
    return 0;
  exp_csv_record rec = {0};
  int ok = 0;
  if (exp_csv_read(f, &rec) == 1)
    for (int k = 0; k < rec.nfields && !ok; k++)
      ok = !strcmp(rec.field[k], "t");
  exp_csv_record_free(&rec);
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
static int write_states(const exp_plotctx *c, const size_t *idx, size_t n)
{
  FILE *v = exp_gp_tmp_file(c, "states.gp");
  if (!v)
    return exp_complain(c->who, EXP_EXIT_FAIL, "cannot write into %s: %s", c->tmp, strerror(errno));
  int bad = 0;
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (size_t k = 0; k < n; k++)
    exp_gp_bounds(lo, hi, &c->runs[idx[k]], 0);
  double span0 = span_of(lo, hi);
  fprintf(v, "array SMODE[%zu]; array ST0[%zu]; array ST1[%zu]; array OWN[%zu]; array OSPAN[%zu]\n", n, n, n, n, n);
  for (size_t k = 0; k < n; k++) {
    const exp_rundir_run *r = &c->runs[idx[k]];
    for (int fr = 0; fr < 2; fr++) {
      char name[64];
      size_t frame = fr ? r->nframes - 1 : 0;
      snprintf(name, sizeof name, "s%zu-%d.dat", k + 1, fr);
      FILE *f = exp_gp_tmp_file(c, name);
      if (!f) {
        bad = 1;
        break;
      }
      exp_gp_write_frame(f, r, frame);
      bad |= fclose(f) != 0;
      snprintf(name, sizeof name, "b%zu-%d.dat", k + 1, fr);
      f = exp_gp_tmp_file(c, name);
      if (!f) {
        bad = 1;
        break;
      }
      exp_gp_write_balls(f, r, frame);
      bad |= fclose(f) != 0;
    }
    double l1[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, h1[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    exp_gp_bounds(l1, h1, r, r->nframes - 1);
    int own = !(l1[0] <= h1[0]) || span_of(l1, h1) > 5 * span0;
    if (!own)
      for (int a = 0; a < 3; a++) {
        lo[a] = l1[a] < lo[a] ? l1[a] : lo[a];
        hi[a] = h1[a] > hi[a] ? h1[a] : hi[a];
      }
    fprintf(v, "SMODE[%zu] = %d; ST0[%zu] = %.9g; ST1[%zu] = %.9g; OWN[%zu] = %d; OSPAN[%zu] = %.3g\n", k + 1,
            exp_gp_draw_mode(r), k + 1, r->t[0], k + 1, r->t[r->nframes - 1], k + 1, own, k + 1,
            l1[0] <= h1[0] ? span_of(l1, h1) : 0.0);
  }
  exp_gp_write_ranges(v, lo, hi);
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
    char fmt[8][EXP_LIST_NAME];
    int nf = 0;
    if (exp_list_names(formats, "--format", EXP_LIST_SPACES | EXP_LIST_EMPTY_OK, fmt, 8, &nf))
      return exp_complain(who, EXP_EXIT_USAGE, "%s (pdf, png)", cdyn_errmsg());
    for (int k = 0; k < nf; k++) {
      if (!strcmp(fmt[k], "pdf"))
        want_pdf = 1;
      else if (!strcmp(fmt[k], "png"))
        want_png = 1;
      else
        return exp_complain(who, EXP_EXIT_USAGE, "unknown format '%s' (pdf, png)", fmt[k]);
    }
    if (!want_pdf && !want_png)
      return exp_complain(who, EXP_EXIT_USAGE, "--format names no format (pdf, png)");
  }
  exp_plotctx c;
  int rc = exp_gp_open(&c, who, dir);
  if (rc) {
    exp_gp_close(&c);
    return rc;
  }
  exp_text series = {0}, paths = {0}, states = {0};
  char *prefix = NULL; /* the series runs' CSV_PREFIX: that of the first such run */
  size_t *sidx = calloc(c.nruns + 1, sizeof *sidx), ns = 0;
  for (size_t k = 0; k < c.nruns && !rc; k++) {
    const exp_rundir_run *r = &c.runs[k];
    if (!exp_gp_plain_name(r->name)) {
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
    exp_gp_vars(&c, &vars, lists[f]->s, prefix);
    for (int t = 0; t < 2 && !rc; t++) {
      if (!(t ? want_png : want_pdf))
        continue;
      exp_text out = {0};
      exp_text_printf(&out, "%s-%s.%s", c.stem, figs[f].suffix, t ? "png" : "pdf");
      rc = vars.failed || out.failed ? exp_complain(who, EXP_EXIT_FAIL, "out of memory")
                                     : exp_gp_draw(&c, figs[f].script, vars.s, t ? "png" : "pdf", out.s);
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
  exp_gp_close(&c);
  return rc;
}

int exp_cmd_plot(int argc, char **argv, const char *command)
{
  (void)command;
  return plot_main(argc, argv);
}
