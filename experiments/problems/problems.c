/*
 * problems.c: the shared test problems of problems.h, built as particle
 * systems, with their references.
 *
 * A planar arm of `links` links: node 0 pinned at the origin by a pin
 * constraint, link k a distance constraint |x_k - x_k+1| = L, node k+1 =
 * node k + L (sin theta_k, -cos theta_k, 0) for absolute angles theta_k
 * from the downward vertical, all at rest.  Its reference is the same
 * mechanism in joint angles (reference/nlink.c).
 *
 * The bead: one particle on the circle type (plane row n.(x - c) and
 * 002's radial row (|x - c|^2 - R^2)/(2R)), centre 0, normal z, R = 1.
 * From rest at theta0 its angle obeys theta'' = -(g/R) sin theta, whose
 * solution is theta(t) = 2 asin(k sn(K - w t | k^2)), k = sin(theta0/2),
 * w = sqrt(g/R) (reference/bead.c).
 *
 * The hoop: one particle on the "hoop" type (centre 0, axis y, normal z at
 * t = 0, R = 1, spin omega), whose reference is reference/hoop.c.
 *
 * Exact multipliers (exp_problem.multipliers), in the library's
 * convention M a + J^T lambda = F, from the reference state:
 *   - an arm: the links' tensions T_k from the reference's accelerations
 *     by Newton's law from the free end inwards (cdyn_ref_nlink_tensions);
 *     link k (particles k, k+1, Phi = |x_k - x_k+1| - L) has lambda = T_k.
 *     The pivot, particle 0 of mass m_0, is held by the pin rows (Phi =
 *     x_0 - p, J = I): 0 = m_0 a_0 = F_0 - lambda_pin - n_0 T_0 with
 *     n_0 = (x_0 - x_1) / L, so lambda_pin = F_0 - n_0 T_0.
 *   - the bead: plane row lambda = 0 (no force across the plane), radial
 *     row (J = x^T / R) lambda = m g cos theta + m R theta'^2.
 *   - the hoop: cdyn_ref_hoop_multipliers (Coriolis force across the
 *     hoop's plane, and the radial force).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bead.h"
#include "hoop.h"
#include "runner/experiment.h"
#include "nlink.h"
#include "problems/problems.h"

static const double G = 9.81;
static const double PI = 3.14159265358979323846;

int exp_arm_build(const exp_arm *a, cdyn_system **out)
{
  if (!a || !out)
    return cdyn_error(CDYN_EINVAL, "exp_arm_build: NULL argument");
  if (a->links < 1 || a->links > EXP_ARM_MAX)
    return cdyn_error(CDYN_EINVAL, "arm: %zu links, expected 1 .. %d", a->links, EXP_ARM_MAX);
  cdyn_system *sys;
  size_t n = a->links + 1;
  int rc = cdyn_system_new(&sys, n);
  if (rc)
    return rc;
  double g[3] = {0, -a->g, 0}, x[3] = {0, 0, 0}, o[3] = {0, 0, 0};
  rc = cdyn_system_set_gravity(sys, g);
  /* cdyn validates the masses and the length (positive, finite). */
  for (size_t i = 0; i < n && !rc; i++) {
    /* Horizontal exactly when no angles are given (cos(pi/2) is 6e-17, not 0). */
    if (i > 0 && a->theta) {
      x[0] += a->length * sin(a->theta[i - 1]);
      x[1] -= a->length * cos(a->theta[i - 1]);
    } else if (i > 0) {
      x[0] = (double)i * a->length;
    }
    if (!(rc = cdyn_system_set_position(sys, i, x)))
      rc = cdyn_system_set_mass(sys, i, i == n - 1 && a->end_mass > 0 ? a->end_mass : a->mass);
  }
  if (!rc)
    rc = cdyn_system_add_pin(sys, 0, o, NULL);
  for (size_t i = 0; i + 1 < n && !rc; i++)
    rc = cdyn_system_add_distance(sys, i, i + 1, a->length, NULL);
  if (rc) {
    cdyn_system_free(sys);
    return rc;
  }
  *out = sys;
  return CDYN_OK;
}

int exp_arm_reference(const exp_arm *a, cdyn_ref_nlink **out)
{
  if (!a || !out)
    return cdyn_error(CDYN_EINVAL, "exp_arm_reference: NULL argument");
  if (a->links < 1 || a->links > EXP_ARM_MAX)
    return cdyn_error(CDYN_EINVAL, "arm: %zu links, expected 1 .. %d", a->links, EXP_ARM_MAX);
  double len[EXP_ARM_MAX], mass[EXP_ARM_MAX], theta[EXP_ARM_MAX];
  for (size_t i = 0; i < a->links; i++) {
    len[i] = a->length;
    mass[i] = i == a->links - 1 && a->end_mass > 0 ? a->end_mass : a->mass;
    theta[i] = a->theta ? a->theta[i] : PI / 2;
  }
  /* Node 0 is the pivot in the reference: its mass never moves. */
  cdyn_ref_nlink_params rp = {a->links, len, mass, a->g, {0, 0}, theta, NULL, 1e-13, 1e-13};
  return cdyn_ref_nlink_new(out, &rp);
}

int exp_arm_reference_state(const cdyn_ref_nlink *r, size_t links, double *q, double *v)
{
  double xy[2 * EXP_ARM_MAX], vxy[2 * EXP_ARM_MAX];
  if (links < 1 || links > EXP_ARM_MAX)
    return cdyn_error(CDYN_EINVAL, "arm: %zu links, expected 1 .. %d", links, EXP_ARM_MAX);
  int rc = cdyn_ref_nlink_positions(r, xy);
  if (!rc)
    rc = cdyn_ref_nlink_velocities(r, vxy);
  if (rc)
    return rc;
  memset(q, 0, 3 * (links + 1) * sizeof(double));
  memset(v, 0, 3 * (links + 1) * sizeof(double));
  for (size_t i = 0; i < links; i++)
    for (int c = 0; c < 2; c++) {
      q[3 * (i + 1) + c] = xy[2 * i + c];
      v[3 * (i + 1) + c] = vxy[2 * i + c];
    }
  return CDYN_OK;
}

/* The problems' arms: 1 m links, 1 kg nodes, gravity G. */
static int build_arm(size_t links, const double *theta, cdyn_system **out)
{
  exp_arm a = {links, 1.0, G, 1.0, 0.0, theta};
  return exp_arm_build(&a, out);
}

static int arm_reference(size_t links, const double *theta, double t, double *q, double *v)
{
  exp_arm a = {links, 1.0, G, 1.0, 0.0, theta};
  cdyn_ref_nlink *r;
  int rc = exp_arm_reference(&a, &r);
  if (rc)
    return rc;
  if (!(rc = cdyn_ref_nlink_advance(r, t)))
    rc = exp_arm_reference_state(r, links, q, v);
  cdyn_ref_nlink_free(r);
  return rc;
}

/* The arm's exact multipliers at t: 3 pin rows, then one per link. */
static int arm_multipliers(size_t links, const double *theta, double t, double *lambda)
{
  exp_arm a = {links, 1.0, G, 1.0, 0.0, theta};
  cdyn_ref_nlink *r;
  double T[EXP_ARM_MAX], xy[2 * EXP_ARM_MAX];
  int rc = exp_arm_reference(&a, &r);
  if (rc)
    return rc;
  if (!(rc = cdyn_ref_nlink_advance(r, t)) && !(rc = cdyn_ref_nlink_tensions(r, T, NULL)))
    rc = cdyn_ref_nlink_positions(r, xy);
  cdyn_ref_nlink_free(r);
  if (rc)
    return rc;
  /* n_0 = (x_0 - x_1) / L with the pivot at the origin. */
  double n0[3] = {-xy[0] / a.length, -xy[1] / a.length, 0}, F0[3] = {0, -a.mass * a.g, 0};
  for (int k = 0; k < 3; k++)
    lambda[k] = F0[k] - n0[k] * T[0];
  for (size_t i = 0; i < links; i++)
    lambda[3 + i] = T[i];
  return CDYN_OK;
}

/* ---- pendulum ---------------------------------------------------------------------- */

static const double pend_theta[1] = {1.2};
static int pend_build(cdyn_system **out) { return build_arm(1, pend_theta, out); }
static int pend_ref(double t, double *q, double *v) { return arm_reference(1, pend_theta, t, q, v); }
static int pend_lambda(double t, double *l) { return arm_multipliers(1, pend_theta, t, l); }

const exp_problem exp_problem_pendulum = {
  .name = "pendulum",
  .description = "single pendulum, L = 1 m, 1 kg, from rest at 1.2 rad",
  .n = 2,
  .T = 1.0,
  .energy_scale = 9.81,
  .energy_range = 9.81 * (1 - 0.36235775447667357), /* 0.362... = cos 1.2 */
  .length = 1.0,
  .build = pend_build,
  .reference = pend_ref,
  .m = 4,
  .multipliers = pend_lambda,
};

static const double pendh_theta[1] = {PI / 2};
static int pendh_build(cdyn_system **out) { return build_arm(1, pendh_theta, out); }
static int pendh_ref(double t, double *q, double *v) { return arm_reference(1, pendh_theta, t, q, v); }
static int pendh_lambda(double t, double *l) { return arm_multipliers(1, pendh_theta, t, l); }

const exp_problem exp_problem_pendulum_h = {
  .name = "pendulum-h",
  .description = "single pendulum, L = 1 m, 1 kg, from rest at horizontal",
  .n = 2,
  .T = 10.0,
  .energy_scale = 9.81,
  .energy_range = 9.81,
  .length = 1.0,
  .build = pendh_build,
  .reference = pendh_ref,
  .m = 4,
  .multipliers = pendh_lambda,
};

/* ---- double pendulum ----------------------------------------------------------------- */

static const double dbl_theta[2] = {PI / 2, PI / 2};
static int dbl_build(cdyn_system **out) { return build_arm(2, dbl_theta, out); }
static int dbl_ref(double t, double *q, double *v) { return arm_reference(2, dbl_theta, t, q, v); }
static int dbl_lambda(double t, double *l) { return arm_multipliers(2, dbl_theta, t, l); }

const exp_problem exp_problem_double = {
  .name = "double",
  .description = "double pendulum (001's 2-link arm), 1 m links, 1 kg nodes, from rest at horizontal",
  .n = 3,
  .T = 1.0,
  .energy_scale = 9.81,
  .energy_range = 9.81 * 3,
  .length = 2.0,
  .build = dbl_build,
  .reference = dbl_ref,
  .m = 5,
  .multipliers = dbl_lambda,
};

/* ---- 10-link chain --------------------------------------------------------------------- */

static const double c10_theta[10] = {PI / 2, PI / 2, PI / 2, PI / 2, PI / 2,
                                     PI / 2, PI / 2, PI / 2, PI / 2, PI / 2};
static int c10_build(cdyn_system **out) { return build_arm(10, c10_theta, out); }
static int c10_ref(double t, double *q, double *v) { return arm_reference(10, c10_theta, t, q, v); }
static int c10_lambda(double t, double *l) { return arm_multipliers(10, c10_theta, t, l); }

const exp_problem exp_problem_chain10 = {
  .name = "chain10",
  .description = "10-link arm, 1 m links, 1 kg nodes, from rest at horizontal",
  .n = 11,
  .T = 10.0,
  .energy_scale = 9.81,
  .energy_range = 9.81 * 55,
  .length = 10.0,
  .build = c10_build,
  .reference = c10_ref,
  .m = 13,
  .multipliers = c10_lambda,
};

/* ---- bead on a circle -------------------------------------------------------------------- */

static const double bead_theta0 = 2.0;

/* One particle of 1 kg at x with velocity v on a constraint of type
   `type`, under gravity G along -y. */
static int one_particle(const double x[3], const double v[3], const char *type, const double *params,
                        cdyn_system **out)
{
  cdyn_system *sys;
  int rc = cdyn_system_new(&sys, 1);
  if (rc)
    return rc;
  double g[3] = {0, -G, 0};
  size_t p0 = 0;
  if (!(rc = cdyn_system_set_gravity(sys, g)) && !(rc = cdyn_system_set_position(sys, 0, x)) &&
      !(rc = cdyn_system_set_velocity(sys, 0, v)))
    rc = cdyn_system_add_constraint_named(sys, type, &p0, params, NULL);
  if (rc) {
    cdyn_system_free(sys);
    return rc;
  }
  *out = sys;
  return CDYN_OK;
}

int exp_bead_build(double theta0, cdyn_system **out)
{
  if (!out || !isfinite(theta0))
    return cdyn_error(CDYN_EINVAL, "exp_bead_build: NULL output or non-finite theta0");
  const double x[3] = {sin(theta0), -cos(theta0), 0}, v[3] = {0, 0, 0};
  const double params[7] = {0, 0, 0, 0, 0, 1, 1}; /* centre, normal, R */
  return one_particle(x, v, "circle", params, out);
}

static int bead_build(cdyn_system **out) { return exp_bead_build(bead_theta0, out); }

static int bead_ref(double t, double *q, double *v)
{
  double th, om;
  int rc = cdyn_ref_bead_exact(1.0, G, bead_theta0, t, &th, &om);
  if (rc)
    return rc;
  q[0] = sin(th);
  q[1] = -cos(th);
  q[2] = 0;
  v[0] = om * cos(th);
  v[1] = om * sin(th);
  v[2] = 0;
  return CDYN_OK;
}

static int bead_lambda(double t, double *l)
{
  double th, om;
  int rc = cdyn_ref_bead_exact(1.0, G, bead_theta0, t, &th, &om);
  if (rc)
    return rc;
  l[0] = 0;
  l[1] = G * cos(th) + om * om; /* m = 1, R = 1 */
  return CDYN_OK;
}

const exp_problem exp_problem_bead = {
  .name = "bead",
  .description = "bead on the unit circle (002), 1 kg, from rest at 2 rad",
  .n = 1,
  .T = 1.0,
  .energy_scale = 9.81,
  .energy_range = 9.81 * (1 + 0.4161468365471424), /* 0.416... = -cos 2 */
  .length = 1.0,
  .build = bead_build,
  .reference = bead_ref,
  .m = 2,
  .multipliers = bead_lambda,
};

/* ---- bead on a spinning hoop ---------------------------------------------------------------- */

static const double hoop_theta0 = 1.4;

int exp_hoop_build(double theta0, cdyn_system **out)
{
  if (!out || !isfinite(theta0))
    return cdyn_error(CDYN_EINVAL, "exp_hoop_build: NULL output or non-finite theta0");
  /* At t = 0 the hoop is the x-y plane; at rest relative to it the bead
     moves with the hoop, v = omega y^ x x = (0, 0, -omega x). */
  const double w = EXP_HOOP_OMEGA;
  const double x[3] = {sin(theta0), -cos(theta0), 0}, v[3] = {0, 0, -w * sin(theta0)};
  const double params[11] = {0, 0, 0, 0, 1, 0, 0, 0, 1, 1, w}; /* centre, axis, normal, R, omega */
  return one_particle(x, v, "hoop", params, out);
}

static int hoop_build(cdyn_system **out) { return exp_hoop_build(hoop_theta0, out); }

/* The reference advanced to t: its state (q, v) and multipliers (either may be NULL). */
static int hoop_at(double t, double *q, double *v, double *lambda)
{
  cdyn_ref_hoop_params hp = {1.0, G, EXP_HOOP_OMEGA, hoop_theta0, 0.0, 1e-13, 1e-13};
  cdyn_ref_hoop *r;
  int rc = cdyn_ref_hoop_new(&r, &hp);
  if (rc)
    return rc;
  if (!(rc = cdyn_ref_hoop_advance(r, t)) && (q || v))
    rc = cdyn_ref_hoop_state(r, q, v, NULL);
  if (!rc && lambda)
    rc = cdyn_ref_hoop_multipliers(r, 1.0, lambda);
  cdyn_ref_hoop_free(r);
  return rc;
}

static int hoop_ref(double t, double *q, double *v) { return hoop_at(t, q, v, NULL); }
static int hoop_lambda(double t, double *l) { return hoop_at(t, NULL, NULL, l); }

/*
 * Energy is not conserved on a driven hoop: with the Jacobi integral
 * R^2 theta'^2 / 2 - omega^2 R^2 sin^2 theta / 2 - g R cos theta constant,
 * E - E0 = omega^2 R^2 (sin^2 theta - sin^2 theta0) per unit mass, within
 * +- omega^2 R^2 = 2 g R.  The true motion from 1.4 rad stays between
 * 0.59 and 1.4 rad, so it never gains energy (sin^2 theta <= sin^2
 * theta0); it loses up to 2 g R (sin^2 1.4 - sin^2 0.59) = 13 J.
 * energy_range, whose 10 % the stability rule allows as a gain, is
 * 4 m g R, twice that bound on |E - E0|: the rule stops a run that gains
 * 3.9 J, which the exact motion never does.
 */
const exp_problem exp_problem_hoop = {
  .name = "hoop",
  .description = "bead on a hoop spinning about its vertical diameter (a constraint moving with time), R = 1 m, 1 kg, "
                 "omega = sqrt(2 g / R), from relative rest at 1.4 rad",
  .n = 1,
  .T = 1.0,
  .energy_scale = 9.81,
  .energy_range = 4 * 9.81,
  .length = 1.0,
  .build = hoop_build,
  .reference = hoop_ref,
  .m = 2,
  .multipliers = hoop_lambda,
};

/* ---- companions ---------------------------------------------------------------------------- */

static const char *const project_velocity[] = {"project_velocity", "on", NULL};
const exp_companion exp_poststab_pv_companions[] = {
  {"poststab-pv", "poststab", project_velocity,
   "post-stabilisation with the velocity projection as well (001 projects positions only)"},
  {NULL, NULL, NULL, NULL}};

/* ---- running a problem ------------------------------------------------------------------- */

static int build_problem(const void *pv, cdyn_system **out)
{
  const exp_problem *p = pv;
  return p->build(out);
}

/* After every step: keep its multipliers (the last step's stay). */
static int keep_multipliers(void *octx, const exp_state *s)
{
  exp_problem_result *r = octx;
  if (s->k == 0)
    return 0;
  size_t m = cdyn_stepper_rows(s->st);
  r->lambda_time = cdyn_stepper_lambda_time(s->st);
  r->m = 0;
  if (m <= EXP_PROBLEM_MAX_ROWS && cdyn_stepper_multipliers(s->st, r->lambda) == CDYN_OK)
    r->m = m;
  return 0;
}

int exp_problem_run(exp_ctx *ctx, const exp_problem *p, const exp_runspec *run, const char *const *extra, double h,
                    long steps, double emax_stop, double dE_stop, exp_problem_result *r, double *q, double *v)
{
  memset(r, 0, sizeof *r);
  exp_limits lim = {emax_stop, dE_stop, 0};
  exp_outcome o;
  int rc = exp_run(ctx, run, extra, build_problem, p, h, steps, &lim, keep_multipliers, r, &o, q, v);
  if (rc)
    return rc;
  r->status = o.status; /* a failed step's, an unmeasurable state's, or the guard's CDYN_EDIVERGED */
  r->stopped = o.end == EXP_END_ERROR_LIMIT || o.end == EXP_END_ENERGY_GAIN || o.end == EXP_END_DIVERGED;
  r->steps = o.steps;
  r->noconv = o.noconv;
  r->emax = o.emax;
  r->eend = o.eend;
  r->E0 = o.E0;
  r->Eend = o.Eend;
  r->dEmax = o.dEmax;
  return CDYN_OK;
}
