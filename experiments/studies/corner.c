/*
 * corner.c: corner, 003's particle in an acute corner (003 §3-5, figures
 * 1-5).
 *
 * One particle of mass m in the plane, two inequality constraints
 *   g1 = x - y >= 0,   g2 = y >= 0        (halfspace walls through 0),
 * at the origin at rest, under the constant force f (a uniform field f/m,
 * so that the force is f whatever m):
 *   case 1: f = (2, -1); exact motion: slide along the x axis with
 *           qdd = (2/m, 0), mu = (0, 1) (g2 pushes, g1 leaves);
 *   case 2: f = (-1, -2); exact motion: stay in the corner, qdd = 0,
 *           mu = (1, 3) (both push).
 * Masses m = 2 and 3 (003 figures 4-5).  Every registered active-set
 * algorithm runs every case with the scheme "contact" (lib/schemes/
 * contact.c): symplectic Euler, Baumgarte's eq 5 with tau, no impulse step
 * (003 has none: the exact motions have no impact), event location on
 * (it never fires: both constraints are active from the start).
 *
 * Choices where 003 is silent: h = 0.01 s (the suite's animation step),
 * tau = 10 h, 200 steps (2 s).  The error of a run is the largest
 * violation max(-g_k, 0) over its steps (003 plots y, whose negative part
 * is g2's violation).  Beyond the paper: Platt's largest violation of g2
 * in case 1 against h (tau = 10 h, over the same 2 s), since its size
 * depends on h.
 *
 * Verdicts (thresholds fixed before measuring; "crosses" means a
 * violation above 1e-12 m, far above the rounding of an exact 0):
 *   corner.platt_crosses: case 1, Platt.  Holds if it crosses at m = 2
 *     and m = 3, its violation at m = 2 is below 1e-5 and the one at
 *     m = 3 is larger; partly if it crosses at both masses but one of the
 *     two magnitude statements fails; does-not-hold otherwise.
 *   corner.tendency_fixes_case1: holds if the violation-tendency runs of
 *     case 1 (both masses) stay within 1e-8 (003's level for a correct
 *     algorithm); does-not-hold otherwise.
 *   corner.tendency_fails_case2: holds if tendency crosses g1 in case 2 at
 *     both masses, partly at one, does-not-hold at none.
 *   corner.iterative_exact: holds if the iterative runs stay within 1e-8
 *     in all four cases; does-not-hold otherwise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/experiment.h"

static const exp_param params[] = {
  {"tau_over_h", "10", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX,
   "Baumgarte time constant tau of 003 eq 5, in steps (tau = tau_over_h * h; 0: no stabilisation)"},
  {"algorithms", "platt,tendency,iterative,lcp", EXP_TEXT, 0, 0, 0,
   "active-set algorithms, each a run of the scheme contact (comma separated)"},
  EXP_PARAMS_END};

#define NCASE 2
#define NMASS 2
#define NSWEEP 7

static const double forces[NCASE][2] = {{2, -1}, {-1, -2}};
static const char *const case_names[NCASE] = {"f1", "f2"};
static const double masses[NMASS] = {2, 3};
static const double sweep_h[NSWEEP] = {1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1};
static const double CROSS = 1e-12; /* a violation above this is a crossing */

typedef struct {
  int ran;          /* the algorithm is registered and the run completed */
  int status;       /* first failing step status, or 0 */
  double pen1, pen2;/* largest violations of g1 and g2 */
  long cross_step;  /* first step with a violation > CROSS, or -1 */
  long pulls, violates; /* steps whose solve pulled / left a violation */
  unsigned max_solves, max_excess;
  double a0[2];     /* acceleration of the first step */
  double dev_exact; /* largest |q - q_exact| along the run (exact motion
                       of the same symplectic-Euler steps) */
} result;

/* One particle in the corner under f, mass m. */
typedef struct {
  double m;
  const double *f;
} corner_case;

static int build(const void *cv, cdyn_system **out)
{
  const corner_case *cc = cv;
  cdyn_system *sys;
  int rc = cdyn_system_new(&sys, 1);
  if (rc)
    return rc;
  static const double o[3] = {0, 0, 0}, n1[3] = {1, -1, 0}, n2[3] = {0, 1, 0};
  double g[3] = {cc->f[0] / cc->m, cc->f[1] / cc->m, 0};
  if ((rc = cdyn_system_set_mass(sys, 0, cc->m)) || (rc = cdyn_system_set_gravity(sys, g)) ||
      (rc = cdyn_system_add_wall(sys, 0, o, n1, NULL)) || (rc = cdyn_system_add_wall(sys, 0, o, n2, NULL))) {
    cdyn_system_free(sys);
    return rc;
  }
  *out = sys;
  return CDYN_OK;
}

/*
 * The observer.  Row k of a run's file holds the state at step k and what
 * the step from k to k + 1 did (its multipliers, handled set and
 * acceleration), so row k is written when step k + 1 has been taken, and
 * the last row (no step follows) with NaN for those.
 */
typedef struct {
  exp_csv *csv; /* NULL: no file */
  result *res;
  long steps;
  double h, aex;
  double x[3], v[3]; /* the state of the previous step */
} corner_obs;

static int corner_row(corner_obs *o, long k, const double *a, const double *lam, const unsigned char *hd,
                      const cdyn_contact_report *rep, int stepped)
{
  result *res = o->res;
  const double *x = o->x, *v = o->v;
  double g1 = x[0] - x[1], g2 = x[1], kk = (double)k;
  res->pen1 = fmax(res->pen1, -g1);
  res->pen2 = fmax(res->pen2, -g2);
  if (res->cross_step < 0 && (-g1 > CROSS || -g2 > CROSS))
    res->cross_step = k;
  double xe = o->aex * o->h * o->h * kk * (kk + 1) / 2;
  double dev = hypot(x[0] - xe, x[1]);
  if (dev > res->dev_exact)
    res->dev_exact = dev;
  if (!o->csv)
    return CDYN_OK;
  /* mu = -lambda (003's sign: mu > 0 pushes), of the step from this state */
  double row[17] = {kk, kk * o->h, x[0], x[1], v[0], v[1], a[0], a[1], g1, g2,
                    stepped ? -lam[0] : NAN, stepped ? -lam[1] : NAN, hd[0], hd[1],
                    stepped ? rep->accel.solves : NAN, stepped ? rep->pulls : NAN,
                    stepped ? rep->violates : NAN};
  return exp_csv_row(o->csv, row, 17);
}

static int observe(void *ov, const exp_state *s)
{
  corner_obs *o = ov;
  double x[3], v[3];
  int rc = cdyn_system_get_particle(s->sys, 0, NULL, x, v);
  if (rc)
    return rc;
  if (s->k > 0) {
    /* The step from k - 1 to k. */
    double lam[2] = {0, 0}, a[2];
    unsigned char hd[2];
    cdyn_contact_report rep;
    if ((rc = cdyn_stepper_multipliers(s->st, lam)) || (rc = exp_contact_info(s->st, 2, &rep, hd)))
      return rc;
    a[0] = (v[0] - o->v[0]) / o->h;
    a[1] = (v[1] - o->v[1]) / o->h;
    result *res = o->res;
    if (s->k == 1)
      res->a0[0] = a[0], res->a0[1] = a[1];
    res->pulls += rep.pulls != 0;
    res->violates += rep.violates != 0;
    if (rep.max_solves > res->max_solves)
      res->max_solves = rep.max_solves;
    if (rep.max_excess > res->max_excess)
      res->max_excess = rep.max_excess;
    if ((rc = corner_row(o, s->k - 1, a, lam, hd, &rep, 1)))
      return rc;
  }
  memcpy(o->x, x, sizeof x);
  memcpy(o->v, v, sizeof v);
  if (s->k == o->steps) {
    static const double a[2] = {NAN, NAN}, lam[2] = {0, 0};
    static const unsigned char hd[2] = {0, 0};
    cdyn_contact_report rep;
    memset(&rep, 0, sizeof rep);
    return corner_row(o, s->k, a, lam, hd, &rep, 0);
  }
  return CDYN_OK;
}

/*
 * Run `run` on one case.  `file` NULL: no CSV (the h sweep).  The exact
 * motion under symplectic Euler with the exact constant acceleration a:
 * x_k = a h^2 k (k + 1) / 2.  tau and the impulse step are set where the
 * scheme has them (the scheme contact does).
 */
static int run_one(exp_ctx *ctx, const exp_runspec *run, int c, double m, double h, long steps, double tau_over_h,
                   const char *file, result *res)
{
  memset(res, 0, sizeof *res);
  res->cross_step = -1;
  corner_case cc = {m, forces[c]};
  cdyn_system *sys = NULL;
  cdyn_stepper *st = NULL;
  exp_csv csv;
  int have_csv = 0, rc = build(&cc, &sys);
  if (rc)
    return rc;
  char tau_s[32];
  snprintf(tau_s, sizeof tau_s, "%.17g", tau_over_h * h);
  const char *extra[5];
  int ne = 0;
  if (exp_scheme_has_option(run->scheme, "tau")) {
    extra[ne++] = "tau";
    extra[ne++] = tau_s;
  }
  if (exp_scheme_has_option(run->scheme, "impulses")) {
    extra[ne++] = "impulses";
    extra[ne++] = "off";
  }
  extra[ne] = NULL;
  if ((rc = exp_stepper_run(ctx, sys, run, extra, &st)))
    goto out;
  if (file) {
    char meta[256];
    snprintf(meta, sizeof meta,
             "\"run\": {\"algorithm\": \"%s\", \"fx\": %.17g, \"fy\": %.17g, \"mass\": %.17g, \"tau\": %s}",
             run->name, forces[c][0], forces[c][1], m, tau_s);
    if ((rc = exp_csv_open(ctx, &csv, file,
                           "step,t,x,y,vx,vy,ax,ay,g1,g2,mu1,mu2,handled1,handled2,solves,pulls,violates", st, meta)))
      goto out;
    have_csv = 1;
  }
  corner_obs o;
  memset(&o, 0, sizeof o);
  o.csv = have_csv ? &csv : NULL;
  o.res = res;
  o.steps = steps;
  o.h = h;
  o.aex = c == 0 ? 2 / m : 0;
  exp_outcome out;
  if ((rc = exp_simulate(sys, st, h, steps, NULL, observe, &o, &out)))
    goto out;
  if (out.end == EXP_END_FAILED_STEP || out.end == EXP_END_NONFINITE || out.end == EXP_END_DIVERGED)
    res->status = out.status;
  res->ran = 1;
out:
  if (have_csv) {
    int crc = exp_csv_close(&csv, rc == CDYN_OK);
    if (!rc)
      rc = crc;
  }
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
  return rc;
}

static double pen(const result *r) { return fmax(r->pen1, r->pen2); }

static int check(exp_ctx *ctx)
{
  if (ctx->steps < 2)
    return cdyn_error(CDYN_EINVAL, "--steps %ld: the corner needs at least 2 steps (Platt releases at the first)",
                      ctx->steps);
  return CDYN_OK;
}

static int run(exp_ctx *ctx)
{
  double toh;
  int rc;
  exp_param_double(ctx, "tau_over_h", &toh);
  static result res[EXP_MAX_RUNS][NCASE][NMASS];
  exp_csv sum;
  if ((rc = exp_csv_open(ctx, &sum, "corner-summary",
                         "case,algorithm,fx,fy,mass,ran,failed,pen_g1,pen_g2,cross_step,pull_steps,violate_steps,"
                         "max_solves,max_excess,ax0,ay0,ax0_exact,ay0_exact,dev_exact",
                         NULL, NULL)))
    return rc;
  for (int a = 0; a < ctx->nruns && !rc; a++)
    for (int c = 0; c < NCASE && !rc; c++)
      for (int j = 0; j < NMASS && !rc; j++) {
        char file[128];
        snprintf(file, sizeof file, "corner-%s-m%g-%s", case_names[c], masses[j], ctx->runs[a].name);
        result *r = &res[a][c][j];
        if ((rc = run_one(ctx, &ctx->runs[a], c, masses[j], ctx->h, ctx->steps, toh, file, r)))
          break;
        const char *lab[2] = {case_names[c], ctx->runs[a].name};
        double m = masses[j];
        double row[17] = {forces[c][0], forces[c][1], m, r->ran, r->status != 0, r->pen1, r->pen2,
                          (double)r->cross_step, (double)r->pulls, (double)r->violates, r->max_solves,
                          r->max_excess, r->a0[0], r->a0[1], c == 0 ? 2 / m : 0, 0, r->dev_exact};
        rc = exp_csv_row_labels(&sum, lab, 2, row, 17);
        if (r->ran)
          printf("  %-9s %s m = %g: violation g1 %.3e g2 %.3e, first crossing at step %ld, %ld pulling and %ld "
                 "violating steps, at most %u solves%s\n",
                 ctx->runs[a].name, case_names[c], m, r->pen1, r->pen2, r->cross_step, r->pulls, r->violates,
                 r->max_solves,
                 r->status == CDYN_EDIVERGED ? " (diverged)" : r->status ? " (a step failed)" : "");
      }
  int crc = exp_csv_close(&sum, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;

  /* Beyond the paper: Platt's violation in case 1 against h, over the same
     duration as the main runs. */
  exp_csv sw;
  double T = ctx->h * (double)ctx->steps;
  if ((rc = exp_csv_open(ctx, &sw, "corner-platt-h", "h,steps,pen_g2_m2,pen_g2_m3,failed", NULL, NULL)))
    return rc;
  const exp_runspec platt = exp_run_or_plain(ctx, "platt");
  const char *const platt_ov[] = {"activeset", "platt", NULL};
  for (int s = 0; s < NSWEEP && !rc; s++) {
    long n = (long)llround(T / sweep_h[s]);
    if (n < 2)
      n = 2;
    result r2, r3;
    exp_runspec pr = platt;
    if (exp_run_index(ctx, "platt") < 0) {
      pr.scheme = "contact";
      pr.overrides = platt_ov;
    }
    if ((rc = run_one(ctx, &pr, 0, 2, sweep_h[s], n, toh, NULL, &r2)) ||
        (rc = run_one(ctx, &pr, 0, 3, sweep_h[s], n, toh, NULL, &r3)))
      break;
    double row[5] = {sweep_h[s], (double)n, r2.pen2, r3.pen2, (r2.status || r3.status) ? 1 : 0};
    rc = exp_csv_row(&sw, row, 5);
  }
  crc = exp_csv_close(&sw, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;

  exp_report(ctx,
             "Particle in the corner g1 = x - y >= 0, g2 = y >= 0, h = %g, tau = %g h, %ld steps. Largest violation "
             "max(-g, 0) of g1 / g2, the first step with a crossing (> 1e-12), steps whose solve pulled or left a "
             "violating row, and the most linear solves of one step:\n\n"
             "| algorithm | case | m | g1 | g2 | first crossing | pulling steps | violating steps | max solves |\n"
             "|---|---|---|---|---|---|---|---|---|\n",
             ctx->h, toh, ctx->steps);
  for (int a = 0; a < ctx->nruns; a++)
    for (int c = 0; c < NCASE; c++)
      for (int j = 0; j < NMASS; j++) {
        const result *r = &res[a][c][j];
        if (!r->ran)
          continue;
        exp_report(ctx, "| %s | f = (%g, %g) | %g | %.2e | %.2e | %ld | %ld | %ld | %u |\n", ctx->runs[a].name,
                   forces[c][0], forces[c][1], masses[j], r->pen1, r->pen2, r->cross_step, r->pulls, r->violates,
                   r->max_solves);
      }
  exp_report(ctx, "\n");

  int ip = exp_run_index(ctx, "platt"), it = exp_run_index(ctx, "tendency"), ii = exp_run_index(ctx, "iterative");
  if (exp_claim_ready(ctx, "corner.platt_crosses")) {
    /* Platt, case 1 */
    const result *p2 = &res[ip][0][0], *p3 = &res[ip][0][1];
    rc = exp_judge(ctx, "corner.platt_crosses",
                   (exp_value[]){{"violation_m2", pen(p2)},
                                 {"violation_m3", pen(p3)},
                                 {"small_m2", pen(p2)},
                                 {"m3_over_m2", pen(p3) / pen(p2)}},
                   4,
                   "violation of y >= 0: %.3g at m = 2, %.3g at m = 3 (h = %g, tau = %g h); first crossing at step "
                   "%ld; multipliers at the first step (-2, -1) pull, so both constraints are dropped",
                   p2->pen2, p3->pen2, ctx->h, toh, p2->cross_step);
  }
  if (!rc && exp_claim_ready(ctx, "corner.tendency_fixes_case1")) {
    const result *t21 = &res[it][0][0], *t31 = &res[it][0][1];
    int tran = t21->ran && t31->ran && !t21->status && !t31->status;
    rc = exp_judge(ctx, "corner.tendency_fixes_case1",
                   (exp_value[]){{"violation", tran ? fmax(pen(t21), pen(t31)) : INFINITY}}, 1,
                   "first acceleration (%.17g, %.17g) at m = 2 against the exact (1, 0)", t21->a0[0], t21->a0[1]);
  }
  if (!rc && exp_claim_ready(ctx, "corner.tendency_fails_case2")) {
    const result *t22 = &res[it][1][0], *t32 = &res[it][1][1];
    rc = exp_judge(ctx, "corner.tendency_fails_case2",
                   (exp_value[]){{"g1_m2", t22->pen1}, {"g1_m3", t32->pen1}}, 2, "violation of g1: %.3g at m = 2, %.3g at m = 3 after %ld steps; g2 violation %.3g / %.3g",
                   t22->pen1, t32->pen1, ctx->steps, t22->pen2, t32->pen2);
  }
  if (!rc && exp_claim_ready(ctx, "corner.iterative_exact")) {
    double ipen = 0, dev = 0;
    int iok = 1;
    for (int c = 0; c < NCASE; c++)
      for (int j = 0; j < NMASS; j++) {
        const result *r = &res[ii][c][j];
        iok = iok && r->ran && !r->status;
        ipen = fmax(ipen, pen(r));
        dev = fmax(dev, r->dev_exact);
      }
    rc = exp_judge(ctx, "corner.iterative_exact", (exp_value[]){{"violation", iok ? ipen : INFINITY}}, 1,
                   "largest distance from the exact motion (same steps, exact acceleration) %.3g m; at most %u solves "
                   "per step",
                   dev, res[ii][1][0].max_solves);
  }
  return rc;
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  {NULL, "x", "m", "x of the particle"},
  {NULL, "y", "m", "y of the particle"},
  {NULL, "vx", "m/s", "x velocity"},
  {NULL, "vy", "m/s", "y velocity"},
  {NULL, "ax", "m/s^2", "x acceleration of the step"},
  {NULL, "ay", "m/s^2", "y acceleration of the step"},
  {NULL, "g1", "m", "g1 = x - y"},
  {NULL, "g2", "m", "g2 = y"},
  {NULL, "mu1", "N", "multiplier of g1 (pushing >= 0)"},
  {NULL, "mu2", "N", "multiplier of g2"},
  {NULL, "handled1", "1", "1 if g1 was in the handled set"},
  {NULL, "handled2", "1", "1 if g2 was in the handled set"},
  {NULL, "solves", "1", "linear solves of the step's active-set problem"},
  {NULL, "pulls", "1", "1 if a multiplier pulls"},
  {NULL, "violates", "1", "1 if a row is left violating"},
  {NULL, "case", "", "force case: f1 = (2, -1), f2 = (-1, -2)"},
  {NULL, "algorithm", "", "run: an active-set algorithm, or a scheme that enforces inequalities"},
  {NULL, "fx", "N", "applied force, x"},
  {NULL, "fy", "N", "applied force, y"},
  {NULL, "mass", "kg", "mass of the particle"},
  {NULL, "ran", "1", "1 if the run ran"},
  {NULL, "failed", "1", "1 if a step failed"},
  {NULL, "pen_g1", "m", "largest violation max(-g1, 0)"},
  {NULL, "pen_g2", "m", "largest violation max(-g2, 0)"},
  {NULL, "cross_step", "1", "first step with a violation above 1e-12 m (-1: none)"},
  {NULL, "pull_steps", "1", "steps whose solve pulled"},
  {NULL, "violate_steps", "1", "steps whose solve left a violating row"},
  {NULL, "max_solves", "1", "the most linear solves of one step"},
  {NULL, "max_excess", "1", "the most solves beyond a problem's inequality rows"},
  {NULL, "ax0", "m/s^2", "x acceleration of the first step"},
  {NULL, "ay0", "m/s^2", "y acceleration of the first step"},
  {NULL, "ax0_exact", "m/s^2", "the exact x acceleration"},
  {NULL, "ay0_exact", "m/s^2", "the exact y acceleration"},
  {NULL, "dev_exact", "m", "largest distance from the exact motion"},
  {NULL, "pen_g2_m2", "m", "Platt's largest violation of g2, f = (2, -1), m = 2"},
  {NULL, "pen_g2_m3", "m", "the same at m = 3"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_corner = {
  .name = "corner",
  .description = "particle in an acute corner: Platt, violation tendency, iterative and exact LCP",
  .source = "003 figures 1-5",
  .params = params,
  .columns = columns,
  .check = check,
  .schemes = "",
  .inequalities = 1,
  .algorithm_param = "algorithms",
  .h = 0.01,
  .steps = 200,
  .run = run,
};
