/*
 * bench/bench.c: cdyn-bench, cdyn against ODE 0.16 on hanging chains and
 * falling grids, in one process, interleaved, with medians over
 * repetitions (`make bench`).
 *
 * Problems (problems.c): chain-N, N = 20, 200, 1000, 5000 (m = N rows),
 * and grid-N x N, N = 30, 100 (m = 2 N (N - 1) + 6).  The step is not
 * 1/60: the constraint tension makes chains and grids stiff strings whose
 * fastest transverse modes are at omega_N = sqrt(N g / l) (a chain of N
 * links of length l) and about N sqrt(g / (2 l)) (an N x N grid held at
 * two corners, whose corner links carry half its weight), and
 * chain-scale-stability measured the boundaries h_max omega_N = 1.00 for
 * the implicit scheme, 0.71 for XPBD and 0.35 for newton.  So every
 * problem runs at h = min(1/60, H_OMEGA / omega_N), H_OMEGA = 0.25, where
 * every variant is stable (at 1/60 the 30 x 30 grid stretches its links
 * by 12 % in ten steps of the implicit scheme, and RATTLE and newton
 * stop on a diverging iteration within eight).
 *
 * Variants: cdyn's implicit scheme (001 eq 16) with each linear solver,
 * RATTLE and newton at tolerance 1e-10 (solver=auto), XPBD (10
 * iterations); ODE's dWorldStep with ERP = 1 (the same scheme as
 * implicit) and 0.2, and dWorldQuickStep with 20 and 100 iterations
 * (peer_ode.c).  The floor: CHOLMOD's bare factorisation and solve of the
 * A of the last step, and LAPACK's banded ones on the chains.
 *
 * Every repetition builds each variant afresh and runs `steps` steps
 * after one untimed step (which does the symbolic analyses); a variant
 * whose steps are slow (the dense ones at large m) stops after max_seconds
 * of stepping once it has taken min_steps.  Times are of the step calls
 * only; the stretch (max over the links of |d - len| / len) is measured
 * between steps, untimed, over the run and at its end.
 *
 * Outputs in --out DIR (default bench): results.csv (one row per problem
 * and variant: medians), exponents.csv (the least-squares slope of log
 * time per step against log m over the chains), results.meta.json (the
 * machine, compiler, libraries, parameters and command), summary.md (the
 * goals as measured ratios), and the table on stdout.
 *
 * A second section follows, the animation step (animation.c): every
 * variant there at h = 1/60 s fixed for 10 s, stable or not, into
 * animation.csv, animation.meta.json, animation.md and the end of
 * summary.md (--no-animation leaves it out, --animation-only runs it
 * alone).  It runs after this section's files are written, and shares
 * nothing with its runs.
 *
 * A third section follows it, cloth against Bullet 3.24's soft body
 * (cloth.c, peer_bullet.cpp): cdyn's cloth schemes and Bullet's btSoftBody
 * at h = 1/60 s on hanging cloths and a cloth on a ball, each run in its
 * own process, into soft-body.csv, soft-body.meta.json, soft-body.md and the end of
 * summary.md (--no-cloth leaves it out, --cloth-only runs it alone).
 */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lapacke.h>

#include "config.h"
#ifdef HAVE_SUITESPARSE_CHOLMOD_H
#include <suitesparse/cholmod.h>
#else
#include <cholmod.h>
#endif

#include "cdyn/cdyn.h"
#include "animation.h"
#include "cloth.h"
#include "common.h"
#include "problem.h"
#include "problems.h"
#ifdef HAVE_ODE
#include "peer_ode.h"
#endif

#define MAX_PROBLEMS 8
#define MAX_VARIANTS 16
#define MAX_REPS 15
/* h omega_N of every run: below newton's boundary 0.35 (the lowest). */
#define H_OMEGA 0.25

/* ---- the variants ---------------------------------------------------------------- */

typedef struct {
  const char *name;
  const char *scheme, *solver; /* cdyn; NULL scheme: an ODE variant */
  const char *key, *value;     /* one more option, or NULL */
  int ode;                     /* the ODE variant's index */
  size_t max_rows;             /* 0, or the largest m it is run on */
} variant;

static const variant variants[] = {
  {"implicit/cholesky", "implicit", "cholesky", NULL, NULL, 0, 5000},
  {"implicit/banded", "implicit", "banded", NULL, NULL, 0, 0},
  {"implicit/cholmod", "implicit", "cholmod", NULL, NULL, 0, 0},
  {"implicit/cholmod-reuse", "implicit", "cholmod", "cholmod_reuse_tol", "1e-10", 0, 0},
  {"implicit/pcg", "implicit", "pcg", NULL, NULL, 0, 0},
  {"implicit/pcg-sgs", "implicit", "pcg", "pcg_precond", "sgs", 0, 0},
  {"rattle-1e-10", "rattle", "auto", "tol", "1e-10", 0, 0},
  {"newton-1e-10", "newton", "auto", "tol", "1e-10", 0, 0},
  {"xpbd-10", "xpbd", "auto", "iterations", "10", 0, 0},
#ifdef HAVE_ODE
  {"ode-step-erp1", NULL, NULL, NULL, NULL, PEER_ODE_STEP_ERP1, 0},
  {"ode-step-erp0.2", NULL, NULL, NULL, NULL, PEER_ODE_STEP_ERP02, 0},
  {"ode-quick20", NULL, NULL, NULL, NULL, PEER_ODE_QUICK20, 0},
  {"ode-quick100", NULL, NULL, NULL, NULL, PEER_ODE_QUICK100, 0},
#endif
};
#define NVARIANTS (sizeof variants / sizeof variants[0])

/* One run's measurements beyond bench_run. */
typedef struct {
  bench_run r;
  double t_assembly, t_factor, t_solve; /* seconds, over the timed steps */
  double factorizations, solves, iterations, nonlinear; /* per timed step */
  double residual;    /* relative residual of the last linear solve */
  char solver[48];    /* the solver used (auto resolved) */
} run_result;

/* ---- cdyn ------------------------------------------------------------------------- */

/* The bare CHOLMOD factorisation and solve of A (and LAPACK's banded
   ones when kd <= 8), seconds each: the median of `reps`. */
typedef struct {
  double cholmod_factor, cholmod_solve, band_factor, band_solve;
  double simplicial_factor, simplicial_solve; /* CHOLMOD forced simplicial */
  size_t kd;
  double lnz, flops;
  int super;
} floor_times;

/* CHOLMOD's factorisation and solve of A with the given supernodal
   setting: median seconds of reps, nnz(L), flops, and whether the factor
   is supernodal. */
static int time_cholmod(const cdyn_matrix *A, int reps, int supernodal, double *tf, double *ts, double *b,
                        double *tf_med, double *ts_med, double *lnz, double *flops, int *super)
{
  size_t m = A->m;
  cholmod_common c;
  cholmod_start(&c);
  c.print = 0;
  c.supernodal = supernodal;
  cholmod_sparse S;
  memset(&S, 0, sizeof S);
  S.nrow = S.ncol = m;
  S.nzmax = A->nnz;
  S.p = (void *)A->rowptr;
  S.i = (void *)A->col;
  S.x = (void *)A->val;
  S.stype = 1;
  S.itype = CHOLMOD_INT;
  S.xtype = CHOLMOD_REAL;
  S.dtype = CHOLMOD_DOUBLE;
  S.packed = 1;
  cholmod_factor *L = cholmod_analyze(&S, &c);
  int rc = -1;
  if (!L)
    goto done;
  cholmod_dense B = {m, 1, m, m, b, NULL, CHOLMOD_REAL, CHOLMOD_DOUBLE};
  for (int k = 0; k < reps; k++) {
    double t0 = cdyn_clock();
    if (!cholmod_factorize(&S, L, &c))
      goto done;
    double t1 = cdyn_clock();
    cholmod_dense *X = cholmod_solve(CHOLMOD_A, L, &B, &c);
    double t2 = cdyn_clock();
    if (!X)
      goto done;
    cholmod_free_dense(&X, &c);
    tf[k] = t1 - t0;
    ts[k] = t2 - t1;
  }
  *tf_med = bench_median(tf, reps);
  *ts_med = bench_median(ts, reps);
  *lnz = c.lnz;
  *flops = c.fl;
  *super = L->is_super;
  rc = 0;
done:
  if (L)
    cholmod_free_factor(&L, &c);
  cholmod_finish(&c);
  return rc;
}

static int measure_floor(const cdyn_matrix *A, int reps, floor_times *f)
{
  memset(f, 0, sizeof *f);
  size_t m = A->m;
  double lnz, fl;
  int sup;
  double *tf = malloc((size_t)reps * sizeof *tf), *ts = malloc((size_t)reps * sizeof *ts);
  double *b = malloc(m * sizeof *b);
  int rc = -1;
  if (!tf || !ts || !b)
    goto done;
  for (size_t i = 0; i < m; i++)
    b[i] = 1.0 + (double)(i % 7);
  if (time_cholmod(A, reps, CHOLMOD_AUTO, tf, ts, b, &f->cholmod_factor, &f->cholmod_solve, &f->lnz, &f->flops,
                   &f->super) ||
      time_cholmod(A, reps, CHOLMOD_SIMPLICIAL, tf, ts, b, &f->simplicial_factor, &f->simplicial_solve, &lnz, &fl,
                   &sup))
    goto done;
  f->kd = cdyn_matrix_bandwidth(A);
  if (f->kd <= 8) {
    size_t ld = f->kd + 1;
    double *ab = malloc(ld * m * sizeof *ab), *x = malloc(m * sizeof *x);
    if (!ab || !x) {
      free(ab);
      free(x);
      goto done;
    }
    int done_reps = 0;
    for (int k = 0; k < reps; k++) {
      memset(ab, 0, ld * m * sizeof *ab);
      for (size_t i = 0; i < m; i++)
        for (int e = A->rowptr[i]; e < A->rowptr[i + 1]; e++)
          if ((size_t)A->col[e] <= i)
            ab[(i - (size_t)A->col[e]) + (size_t)A->col[e] * ld] = A->val[e];
      memcpy(x, b, m * sizeof *x);
      double t0 = cdyn_clock();
      lapack_int i1 = LAPACKE_dpbtrf_work(LAPACK_COL_MAJOR, 'L', (lapack_int)m, (lapack_int)f->kd, ab, (lapack_int)ld);
      double t1 = cdyn_clock();
      lapack_int i2 = LAPACKE_dpbtrs_work(LAPACK_COL_MAJOR, 'L', (lapack_int)m, (lapack_int)f->kd, 1, ab,
                                          (lapack_int)ld, x, (lapack_int)m);
      double t2 = cdyn_clock();
      if (i1 || i2)
        break;
      tf[k] = t1 - t0;
      ts[k] = t2 - t1;
      done_reps++;
    }
    if (done_reps) {
      f->band_factor = bench_median(tf, done_reps);
      f->band_solve = bench_median(ts, done_reps);
    }
    free(ab);
    free(x);
  }
  rc = 0;
done:
  free(tf);
  free(ts);
  free(b);
  return rc;
}

/* Gather positions; the stretch of the system's state. */
static double system_stretch(const bench_problem *p, const cdyn_system *s, double *x)
{
  cdyn_system_get_state(s, x, NULL);
  return bench_stretch(p, x);
}

static int run_cdyn(const bench_problem *p, const variant *v, double h, long steps, long min_steps,
                    double max_seconds, run_result *out, floor_times *floor, int floor_reps)
{
  memset(out, 0, sizeof *out);
  bench_run *r = &out->r;
  cdyn_system *s = NULL;
  cdyn_stepper *st = NULL;
  double *x = malloc(3 * p->n * sizeof *x);
  int rc;
  if (!x) {
    snprintf(r->note, sizeof r->note, "out of memory");
    return -1;
  }
  if ((rc = bench_build_system(p, NULL, &s)) || (rc = cdyn_stepper_new(&st, s, v->scheme)) ||
      (rc = cdyn_stepper_set(st, "solver", v->solver)) || (v->key && (rc = cdyn_stepper_set(st, v->key, v->value)))) {
    snprintf(r->note, sizeof r->note, "build: %s", cdyn_errmsg());
    goto done;
  }
  cdyn_stepper_get(st, "solver", out->solver, sizeof out->solver);
  /* One untimed step: the analyses, first-touch of the workspaces. */
  if ((rc = cdyn_stepper_step(st, h)) < 0) {
    snprintf(r->note, sizeof r->note, "first step: %s", cdyn_errmsg());
    goto done;
  }
  r->stretch_max = system_stretch(p, s, x);
  cdyn_stepper_reset_stats(st);
  double total = 0;
  r->ok = 1;
  for (long k = 0; k < steps; k++) {
    double t0 = cdyn_clock();
    rc = cdyn_stepper_step(st, h);
    total += cdyn_clock() - t0;
    if (rc < 0) {
      r->ok = 0;
      snprintf(r->note, sizeof r->note, "step %ld: %s", k + 1, cdyn_errmsg());
      break;
    }
    r->steps++;
    double e = system_stretch(p, s, x);
    r->stretch_end = e;
    if (!(e <= r->stretch_max))
      r->stretch_max = e;
    if (!isfinite(e)) {
      r->ok = 0;
      snprintf(r->note, sizeof r->note, "non-finite state at step %ld", k + 1);
      break;
    }
    if (r->steps >= min_steps && total > max_seconds)
      break;
  }
  r->seconds = total;
  cdyn_stats S;
  cdyn_stepper_stats(st, &S);
  double ns = r->steps > 0 ? (double)r->steps : 1;
  out->t_assembly = S.time_assembly;
  out->t_factor = S.time_factor;
  out->t_solve = S.time_solve;
  out->factorizations = (double)S.factorizations / ns;
  out->solves = (double)S.solves / ns;
  out->iterations = S.solves ? (double)S.iterations / (double)S.solves : 0;
  out->nonlinear = (double)S.nonlinear_iterations / ns;
  out->residual = S.last_residual;
  cdyn_matrix A;
  if (floor && r->ok && cdyn_stepper_rows(st) && cdyn_stepper_matrix(st, &A) == CDYN_OK)
    measure_floor(&A, floor_reps, floor);
  rc = r->ok ? 0 : -1;
done:
  if (rc && !r->note[0])
    snprintf(r->note, sizeof r->note, "%s", cdyn_errmsg());
  cdyn_stepper_free(st);
  cdyn_system_free(s);
  free(x);
  return rc;
}

/* ---- the table --------------------------------------------------------------------- */

typedef struct {
  bench_problem p;
  double h;
  size_t m;
  floor_times floor;
  int have_floor;
  run_result res[MAX_VARIANTS];      /* the median repetition's */
  double ms[MAX_VARIANTS];           /* median ms per step */
  int ran[MAX_VARIANTS];             /* 1 run, 0 not run, -1 failed */
  char skip[MAX_VARIANTS][160];
} problem_row;

/* ---- the goals, as measured ratios --------------------------------------------------- */

static const problem_row *find_problem(const problem_row *rows, size_t np, const char *name)
{
  for (size_t ip = 0; ip < np; ip++)
    if (!strcmp(rows[ip].p.name, name))
      return &rows[ip];
  return NULL;
}

static int find_variant(const char *name)
{
  for (size_t iv = 0; iv < NVARIANTS; iv++)
    if (!strcmp(variants[iv].name, name))
      return (int)iv;
  return -1;
}

/* ms per step of a variant on a problem that ran it to the end; NAN else. */
static double ms_of(const problem_row *row, const char *variant)
{
  int iv = find_variant(variant);
  if (!row || iv < 0 || row->ran[iv] != 1 || !row->res[iv].r.ok)
    return NAN;
  return row->ms[iv];
}

/* The fastest implicit variant with an exact solver on a problem. */
static double best_implicit(const problem_row *row, const char **which)
{
  static const char *const exact[] = {"implicit/cholesky", "implicit/banded", "implicit/cholmod",
                                      "implicit/cholmod-reuse"};
  double best = NAN;
  *which = "none";
  for (int k = 0; k < 4; k++) {
    double t = ms_of(row, exact[k]);
    if (isfinite(t) && !(t >= best)) {
      best = t;
      *which = exact[k];
    }
  }
  return best;
}

/* The goals, each as the measured ratio (met when >= 1). */
static void print_goals(FILE *g, const problem_row *rows, size_t np)
{
  fprintf(g, "\nGoals, as measured ratios (>= 1: met; nan: a run missing from this invocation):\n");
  const char *chains[2] = {"chain-1000", "chain-5000"};
  for (int k = 0; k < 2; k++) {
    const problem_row *row = find_problem(rows, np, chains[k]);
    const char *which;
    double t = best_implicit(row, &which), ode = ms_of(row, "ode-step-erp1");
    fprintf(g, "- %s: %s runs %.4g times the steps per second of ode-step-erp1 (goal >= 10): ratio %.3g\n",
            chains[k], which, ode / t, ode / t / 10);
  }
  const problem_row *row = find_problem(rows, np, "chain-1000");
  const char *exact[2] = {"rattle-1e-10", "newton-1e-10"};
  for (int k = 0; k < 2; k++) {
    int iv = find_variant(exact[k]);
    double t = ms_of(row, exact[k]), q = ms_of(row, "ode-quick20");
    double stretch = row && iv >= 0 && row->ran[iv] == 1 ? row->res[iv].r.stretch_max : NAN;
    fprintf(g, "- chain-1000, %s: stretch %.2g (goal <= 1e-8); %.4g steps/s (goal >= 10000): ratio %.3g; "
               "against ode-quick20: %.3g times its steps per second (goal > 1)\n",
            exact[k], stretch, 1e3 / t, 1e3 / t / 1e4, q / t);
  }
  row = find_problem(rows, np, "grid-100x100");
  fprintf(g, "- grid-100x100 with an exact solve: implicit/cholmod-reuse %.3g ms per step, implicit/cholmod %.3g "
             "(goal <= 5 ms): ratios %.3g and %.3g\n",
          ms_of(row, "implicit/cholmod-reuse"), ms_of(row, "implicit/cholmod"), 5 / ms_of(row, "implicit/cholmod-reuse"),
          5 / ms_of(row, "implicit/cholmod"));
  for (size_t ip = 0; ip < np; ip++) {
    const floor_times *fl = &rows[ip].floor;
    if (rows[ip].m < 1000 || !rows[ip].have_floor)
      continue;
    double floor_ms = 1e3 * fmin(fl->cholmod_factor + fl->cholmod_solve,
                                 fl->super ? fl->simplicial_factor + fl->simplicial_solve : INFINITY);
    double t = ms_of(&rows[ip], "implicit/cholmod");
    fprintf(g, "- %s: implicit/cholmod at %.3g times the CHOLMOD floor of %.3g ms (goal <= 2): ratio %.3g\n",
            rows[ip].p.name, t / floor_ms, floor_ms, 2 / (t / floor_ms));
  }
}

/* The animation step: runs it, writes animation.csv, animation.meta.json
   and animation.md (the section of summary.md alone), and prints the
   section when it is alone (keep NULL); else hands it over in *keep. */
static int run_animation(const char *out, int quick, int reps, const char *only, int argc, char **argv,
                         bench_anim **keep)
{
  bench_anim *a = bench_anim_run(quick, reps, only);
  if (!a) {
    fprintf(stderr, "cdyn-bench: out of memory for the animation step\n");
    return 1;
  }
  char tmp[1024], fin[1024];
  int rc = bench_anim_write(a, out, argc, argv);
  FILE *f = rc ? NULL : bench_open_tmp(out, "animation.md", tmp, fin, sizeof tmp);
  if (f) {
    bench_anim_print(f, a);
    rc = bench_close_tmp(f, tmp, fin);
  } else {
    rc = -1;
  }
  if (!keep) {
    if (!rc)
      bench_anim_print(stdout, a);
    bench_anim_free(a);
#ifdef HAVE_ODE
    peer_ode_close();
#endif
  } else if (rc) {
    bench_anim_free(a);
  } else {
    *keep = a;
  }
  return rc ? 1 : 0;
}

/* The cloth section: runs it, writes soft-body.csv, soft-body.meta.json and
   soft-body.md, and prints the section when it is alone (keep NULL); else
   hands it over in *keep. */
static int run_cloth(const char *out, int quick, int reps, const char *only, int argc, char **argv,
                     bench_cloth **keep)
{
  bench_cloth *c = bench_cloth_run(quick, reps, only);
  if (!c) {
    fprintf(stderr, "cdyn-bench: the cloth section could not start (out of memory, or a cloth not built)\n");
    return 1;
  }
  char tmp[1024], fin[1024];
  int rc = bench_cloth_write(c, out, argc, argv);
  FILE *f = rc ? NULL : bench_open_tmp(out, "soft-body.md", tmp, fin, sizeof tmp);
  if (f) {
    bench_cloth_print(f, c);
    rc = bench_close_tmp(f, tmp, fin);
  } else {
    rc = -1;
  }
  if (!keep) {
    if (!rc)
      bench_cloth_print(stdout, c);
    bench_cloth_free(c);
  } else if (rc) {
    bench_cloth_free(c);
  } else {
    *keep = c;
  }
  return rc ? 1 : 0;
}

static void usage(FILE *f)
{
  fprintf(f, "usage: cdyn-bench [--out DIR] [--reps R] [--steps S] [--quick] [--only P] [--no-animation | "
             "--animation-only] [--no-cloth | --cloth-only]\n"
             "  --out DIR   where results.csv, exponents.csv, results.meta.json and summary.md go (default bench;\n"
             "              made if missing)\n"
             "  --reps R    repetitions, interleaved; medians are reported (default 3, at most %d)\n"
             "  --steps S   timed steps per run (default 100)\n"
             "  --quick     chains of 20 and 200 links and the 30 x 30 grid only, one repetition, 10 steps\n"
             "  --only P    only the problems named in the comma-separated list P (chain-1000,grid-100x100), in "
             "every section\n"
             "  --no-animation    without the second section, the animation step at h = 1/60 s (animation.c)\n"
             "  --animation-only  the second section only: animation.csv, animation.meta.json and animation.md;\n"
             "                    results.csv, exponents.csv, results.meta.json and summary.md are left as they are\n"
             "                    (with --quick: the chains of 100 and 1000 links only, one repetition)\n"
             "  --no-cloth        without the third section, cloth against Bullet's soft body at h = 1/60 s (cloth.c)\n"
             "  --cloth-only      the third section only: soft-body.csv, soft-body.meta.json and soft-body.md; the other files\n"
             "                    are left as they are (with --quick: hanging-32 and hanging-64 only, 60 frames,\n"
             "                    one repetition; --only takes its problems too: hanging-32, hanging-64,\n"
             "                    hanging-128, ball-64)\n",
          MAX_REPS);
}

int main(int argc, char **argv)
{
  const char *out = "bench", *only = NULL;
  int reps = 3, quick = 0, animation = 1, animation_only = 0, cloth = 1, cloth_only = 0;
  long steps = 100;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc) {
      out = argv[++i];
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      char *end;
      long r = strtol(argv[++i], &end, 10);
      if (*end || r < 1 || r > MAX_REPS) {
        fprintf(stderr, "cdyn-bench: --reps takes 1 to %d, not %s\n", MAX_REPS, argv[i]);
        return 2;
      }
      reps = (int)r;
    } else if (!strcmp(argv[i], "--steps") && i + 1 < argc) {
      char *end;
      steps = strtol(argv[++i], &end, 10);
      if (*end || steps < 1 || steps > 1000000) {
        fprintf(stderr, "cdyn-bench: --steps takes 1 to 1000000, not %s\n", argv[i]);
        return 2;
      }
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
    } else if (!strcmp(argv[i], "--quick")) {
      quick = 1;
    } else if (!strcmp(argv[i], "--no-animation")) {
      animation = 0;
    } else if (!strcmp(argv[i], "--animation-only")) {
      animation_only = 1;
    } else if (!strcmp(argv[i], "--no-cloth")) {
      cloth = 0;
    } else if (!strcmp(argv[i], "--cloth-only")) {
      cloth_only = 1;
    } else if (!strcmp(argv[i], "--help")) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "cdyn-bench: unknown argument %s\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }
  if (quick) {
    reps = 1;
    steps = 10;
  }
  /* One BLAS thread (the goals are for one core). */
  void (*set)(int);
  *(void **)&set = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  if (set)
    set(1);
  if (animation_only && !animation) {
    fprintf(stderr, "cdyn-bench: --animation-only and --no-animation exclude each other\n");
    return 2;
  }
  if (cloth_only && !cloth) {
    fprintf(stderr, "cdyn-bench: --cloth-only and --no-cloth exclude each other\n");
    return 2;
  }
  if (animation_only && cloth_only) {
    fprintf(stderr, "cdyn-bench: --animation-only and --cloth-only exclude each other\n");
    return 2;
  }
  /* The output directory is made now, and found writable, before minutes
     of runs rather than after them. */
  if (mkdir(out, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "cdyn-bench: cannot make the directory %s: %s\n", out, strerror(errno));
    return 1;
  }
  struct stat sb;
  if (stat(out, &sb) != 0 || !S_ISDIR(sb.st_mode) || access(out, W_OK | X_OK) != 0) {
    fprintf(stderr, "cdyn-bench: %s is not a directory this process can write in\n", out);
    return 1;
  }
  if (animation_only)
    return run_animation(out, quick, reps, only, argc, argv, NULL);
  if (cloth_only)
    return run_cloth(out, quick, reps, only, argc, argv, NULL);

  static problem_row rows[MAX_PROBLEMS];
  size_t np = 0;
  const size_t chains[] = {20, 200, 1000, 5000}, grids[] = {30, 100};
  size_t nchains = quick ? 2 : 4, ngrids = quick ? 1 : 2;
  for (size_t k = 0; k < nchains + ngrids; k++, np++) {
    problem_row *row = &rows[np];
    int rc = k < nchains ? bench_chain(&row->p, chains[k]) : bench_grid(&row->p, grids[k - nchains]);
    if (rc) {
      fprintf(stderr, "cdyn-bench: out of memory building the problems\n");
      return 1;
    }
    if (only && !bench_in_list(only, row->p.name)) {
      bench_problem_free(&row->p);
      np--;
      continue;
    }
    row->m = row->p.links;
    /* The fastest transverse modes of the tensioned chain or grid. */
    double omega = k < nchains ? sqrt((double)chains[k] * BENCH_G / BENCH_LINK)
                               : (double)grids[k - nchains] * sqrt(BENCH_G / (2 * BENCH_LINK));
    row->h = fmin(1.0 / 60, H_OMEGA / omega);
  }

  /* Runs: repetition-major, so that the variants interleave. */
  static double ms[MAX_PROBLEMS][MAX_VARIANTS][MAX_REPS];
  static run_result res[MAX_PROBLEMS][MAX_VARIANTS][MAX_REPS];
  const double max_seconds = 2.0;
  for (int rep = 0; rep < reps; rep++)
    for (size_t ip = 0; ip < np; ip++) {
      problem_row *row = &rows[ip];
      for (size_t iv = 0; iv < NVARIANTS; iv++) {
        const variant *v = &variants[iv];
        run_result *rr = &res[ip][iv][rep];
        if (v->max_rows && row->m > v->max_rows) {
          snprintf(row->skip[iv], sizeof row->skip[iv], "not run above %zu rows (m^2 storage, m^3 flops)",
                   v->max_rows);
          continue;
        }
        int rc;
        if (v->scheme) {
          int want_floor = rep == 0 && !strcmp(v->name, "implicit/cholmod");
          rc = run_cdyn(&row->p, v, row->h, steps, 3, max_seconds, rr, want_floor ? &row->floor : NULL,
                        quick ? 3 : 9);
          if (want_floor && !rc)
            row->have_floor = 1;
        } else {
#ifdef HAVE_ODE
          memset(rr, 0, sizeof *rr);
          rc = peer_ode_run(&row->p, v->ode, row->h, steps, 1, max_seconds, &rr->r);
          snprintf(rr->solver, sizeof rr->solver, "ode");
#else
          rc = -1;
#endif
        }
        ms[ip][iv][rep] = rr->r.steps > 0 ? 1e3 * rr->r.seconds / (double)rr->r.steps : NAN;
        row->ran[iv] = rc ? -1 : 1;
        fprintf(stderr, "  rep %d %-14s %-18s %6.3f ms/step  stretch %.2e%s%s\n", rep + 1, row->p.name, v->name,
                ms[ip][iv][rep], rr->r.stretch_max, rc ? "  FAILED: " : "", rc ? rr->r.note : "");
      }
    }
  /* Medians, and the repetition nearest the median for the split. */
  for (size_t ip = 0; ip < np; ip++)
    for (size_t iv = 0; iv < NVARIANTS; iv++) {
      problem_row *row = &rows[ip];
      if (!row->ran[iv])
        continue;
      double t[MAX_REPS];
      int n = 0;
      for (int r = 0; r < reps; r++)
        if (isfinite(ms[ip][iv][r]))
          t[n++] = ms[ip][iv][r];
      row->ms[iv] = n ? bench_median(t, n) : NAN;
      int best = 0;
      for (int r = 1; r < reps; r++)
        if (fabs(ms[ip][iv][r] - row->ms[iv]) < fabs(ms[ip][iv][best] - row->ms[iv]))
          best = r;
      row->res[iv] = res[ip][iv][best];
    }

  /* results.csv */
  char tmp[1024], fin[1024];
  FILE *f = bench_open_tmp(out, "results.csv", tmp, fin, sizeof tmp);
  if (!f) {
    fprintf(stderr, "cdyn-bench: cannot write in %s (does the directory exist?)\n", out);
    return 1;
  }
  fprintf(f, "problem,m,h,variant,solver,steps,ms_per_step,steps_per_s,ms_assembly,ms_factor,ms_solve,ms_other,"
             "factorizations_per_step,solves_per_step,iterations_per_solve,nonlinear_per_step,residual,"
             "stretch_max,stretch_end,ok,note\n");
  for (size_t ip = 0; ip < np; ip++)
    for (size_t iv = 0; iv < NVARIANTS; iv++) {
      problem_row *row = &rows[ip];
      const run_result *rr = &row->res[iv];
      if (!row->ran[iv]) {
        fprintf(f, "%s,%zu,%.6g,%s,,0,,,,,,,,,,,,,,0,\"%s\"\n", row->p.name, row->m, row->h, variants[iv].name,
                row->skip[iv]);
        continue;
      }
      double n = rr->r.steps > 0 ? (double)rr->r.steps : 1, msx = row->ms[iv];
      int cd = variants[iv].scheme != NULL;
      double ma = 1e3 * rr->t_assembly / n, mf = 1e3 * rr->t_factor / n, msv = 1e3 * rr->t_solve / n;
      fprintf(f, "%s,%zu,%.6g,%s,%s,%ld,%.6g,%.6g,", row->p.name, row->m, row->h, variants[iv].name, rr->solver,
              rr->r.steps, msx, 1e3 / msx);
      if (cd)
        fprintf(f, "%.6g,%.6g,%.6g,%.6g,%.4g,%.4g,%.4g,%.4g,%.3g,", ma, mf, msv,
                1e3 * rr->r.seconds / n - ma - mf - msv, rr->factorizations, rr->solves, rr->iterations,
                rr->nonlinear, rr->residual);
      else
        fprintf(f, ",,,,,,,,,");
      fprintf(f, "%.4g,%.4g,%d,\"%s\"\n", rr->r.stretch_max, rr->r.stretch_end, rr->r.ok, rr->r.note);
    }
  for (size_t ip = 0; ip < np; ip++)
    if (rows[ip].have_floor) {
      const floor_times *fl = &rows[ip].floor;
      fprintf(f, "%s,%zu,%.6g,floor-cholmod,cholmod %s,,%.6g,%.6g,,%.6g,%.6g,,1,1,,,,,,1,\"bare CHOLMOD factorisation "
                 "and solve of the last step's A (nnz(L) %.0f, %.3g flop)\"\n",
              rows[ip].p.name, rows[ip].m, rows[ip].h, fl->super ? "supernodal" : "simplicial",
              1e3 * (fl->cholmod_factor + fl->cholmod_solve), 1.0 / (fl->cholmod_factor + fl->cholmod_solve),
              1e3 * fl->cholmod_factor, 1e3 * fl->cholmod_solve, fl->lnz, fl->flops);
      if (fl->super)
        fprintf(f, "%s,%zu,%.6g,floor-cholmod-simplicial,cholmod simplicial,,%.6g,%.6g,,%.6g,%.6g,,1,1,,,,,,1,\"the "
                   "same, CHOLMOD forced to its simplicial factorisation\"\n",
                rows[ip].p.name, rows[ip].m, rows[ip].h, 1e3 * (fl->simplicial_factor + fl->simplicial_solve),
                1.0 / (fl->simplicial_factor + fl->simplicial_solve), 1e3 * fl->simplicial_factor,
                1e3 * fl->simplicial_solve);
      if (fl->band_factor > 0)
        fprintf(f, "%s,%zu,%.6g,floor-banded,lapack dpbtrf kd=%zu,,%.6g,%.6g,,%.6g,%.6g,,1,1,,,,,,1,\"bare LAPACK "
                   "banded factorisation and solve of the last step's A\"\n",
                rows[ip].p.name, rows[ip].m, rows[ip].h, fl->kd, 1e3 * (fl->band_factor + fl->band_solve),
                1.0 / (fl->band_factor + fl->band_solve), 1e3 * fl->band_factor, 1e3 * fl->band_solve);
    }
  if (bench_close_tmp(f, tmp, fin))
    return 1;

  /* exponents.csv: slope of log(ms) on log(m) over the chains. */
  f = bench_open_tmp(out, "exponents.csv", tmp, fin, sizeof tmp);
  if (!f)
    return 1;
  fprintf(f, "variant,exponent,points,m_min,m_max\n");
  double expo[MAX_VARIANTS];
  for (size_t iv = 0; iv < NVARIANTS; iv++) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    size_t lo = 0, hi = 0;
    for (size_t ip = 0; ip < np; ip++)
      if (!strncmp(rows[ip].p.name, "chain-", 6) && rows[ip].ran[iv] == 1 && isfinite(rows[ip].ms[iv])) {
        double X = log((double)rows[ip].m), Y = log(rows[ip].ms[iv]);
        sx += X, sy += Y, sxx += X * X, sxy += X * Y, n++;
        lo = lo ? lo : rows[ip].m;
        hi = rows[ip].m;
      }
    expo[iv] = n >= 2 ? (n * sxy - sx * sy) / (n * sxx - sx * sx) : NAN;
    fprintf(f, "%s,%.3f,%d,%zu,%zu\n", variants[iv].name, expo[iv], n, lo, hi);
  }
  if (bench_close_tmp(f, tmp, fin))
    return 1;

  /* results.meta.json */
  f = bench_open_tmp(out, "results.meta.json", tmp, fin, sizeof tmp);
  if (!f)
    return 1;
  bench_meta_begin(f, argc, argv);
  fprintf(f, ",\n  \"parameters\": {\"reps\": %d, \"steps\": %ld, \"min_steps\": 3, \"ode_step_min_steps\": 1, "
             "\"max_seconds\": %g, \"quick\": %d, \"link\": %g, \"mass\": %g, \"kick\": %g, \"g\": %g, "
             "\"h_rule\": \"min(1/60, %g / omega_N): chains omega_N = sqrt(N g / l), grids omega_N = N sqrt(g / (2 l))\"},"
             "\n  \"problems\": [",
          reps, steps, max_seconds, quick, BENCH_LINK, BENCH_MASS, BENCH_KICK, BENCH_G, H_OMEGA);
  for (size_t ip = 0; ip < np; ip++)
    fprintf(f, "%s{\"name\": \"%s\", \"m\": %zu, \"n\": %zu, \"h\": %.17g}", ip ? ", " : "", rows[ip].p.name,
            rows[ip].m, rows[ip].p.n, rows[ip].h);
  fprintf(f, "],\n  \"variants\": [");
  for (size_t iv = 0; iv < NVARIANTS; iv++) {
    const variant *v = &variants[iv];
    fprintf(f, "%s{\"name\": \"%s\"", iv ? ", " : "", v->name);
    if (v->scheme)
      fprintf(f, ", \"scheme\": \"%s\", \"solver\": \"%s\"", v->scheme, v->solver);
    if (v->key)
      fprintf(f, ", \"%s\": \"%s\"", v->key, v->value);
    fprintf(f, "}");
  }
  fprintf(f, "]\n}\n");
  if (bench_close_tmp(f, tmp, fin))
    return 1;

  /* The second section: the animation step. */
  bench_anim *anim = NULL;
  if (animation && run_animation(out, quick, reps, only, argc, argv, &anim))
    return 1;
  /* The third section: cloth against Bullet. */
  bench_cloth *cl = NULL;
  if (cloth && run_cloth(out, quick, reps, only, argc, argv, &cl))
    return 1;

  /* The table, and summary.md with the goals. */
  f = bench_open_tmp(out, "summary.md", tmp, fin, sizeof tmp);
  if (!f)
    return 1;
  FILE *outs[2] = {stdout, f};
  for (int o = 0; o < 2; o++) {
    FILE *g = outs[o];
    fprintf(g, "| problem | m | h (s) | variant | ms/step | steps/s | stretch max | stretch end |\n");
    fprintf(g, "|---|---:|---:|---|---:|---:|---:|---:|\n");
    for (size_t ip = 0; ip < np; ip++)
      for (size_t iv = 0; iv < NVARIANTS; iv++) {
        const problem_row *row = &rows[ip];
        if (row->ran[iv] == 0) {
          fprintf(g, "| %s | %zu | %.3g | %s | - | - | - | %s |\n", row->p.name, row->m, row->h, variants[iv].name,
                  row->skip[iv]);
          continue;
        }
        const run_result *rr = &row->res[iv];
        fprintf(g, "| %s | %zu | %.3g | %s | %.4g | %.4g | %.2e | %.2e%s%s |\n", row->p.name, row->m, row->h,
                variants[iv].name, row->ms[iv], 1e3 / row->ms[iv], rr->r.stretch_max, rr->r.stretch_end,
                rr->r.ok ? "" : " FAILED: ", rr->r.ok ? "" : rr->r.note);
      }
    fprintf(g, "\nFitted exponent of time per step against m over the chains:");
    for (size_t iv = 0; iv < NVARIANTS; iv++)
      fprintf(g, " %s %.2f;", variants[iv].name, expo[iv]);
    fprintf(g, "\n");
    print_goals(g, rows, np);
    if (anim)
      bench_anim_print(g, anim);
    if (cl)
      bench_cloth_print(g, cl);
  }
  bench_anim_free(anim);
  bench_cloth_free(cl);
  if (bench_close_tmp(f, tmp, fin))
    return 1;
  for (size_t ip = 0; ip < np; ip++)
    bench_problem_free(&rows[ip].p);
#ifdef HAVE_ODE
  peer_ode_close();
#endif
  return 0;
}
