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
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bead.h"
#include "experiment.h"
#include "nlink.h"
#include "problems.h"

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

/* ---- pendulum ---------------------------------------------------------------------- */

static const double pend_theta[1] = {1.2};
static int pend_build(cdyn_system **out) { return build_arm(1, pend_theta, out); }
static int pend_ref(double t, double *q, double *v) { return arm_reference(1, pend_theta, t, q, v); }

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
};

static const double pendh_theta[1] = {PI / 2};
static int pendh_build(cdyn_system **out) { return build_arm(1, pendh_theta, out); }
static int pendh_ref(double t, double *q, double *v) { return arm_reference(1, pendh_theta, t, q, v); }

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
};

/* ---- double pendulum ----------------------------------------------------------------- */

static const double dbl_theta[2] = {PI / 2, PI / 2};
static int dbl_build(cdyn_system **out) { return build_arm(2, dbl_theta, out); }
static int dbl_ref(double t, double *q, double *v) { return arm_reference(2, dbl_theta, t, q, v); }

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
};

/* ---- 10-link chain --------------------------------------------------------------------- */

static const double c10_theta[10] = {PI / 2, PI / 2, PI / 2, PI / 2, PI / 2,
                                     PI / 2, PI / 2, PI / 2, PI / 2, PI / 2};
static int c10_build(cdyn_system **out) { return build_arm(10, c10_theta, out); }
static int c10_ref(double t, double *q, double *v) { return arm_reference(10, c10_theta, t, q, v); }

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
};

/* ---- bead on a circle -------------------------------------------------------------------- */

static const double bead_theta0 = 2.0;

int exp_bead_build(double theta0, cdyn_system **out)
{
  if (!out || !isfinite(theta0))
    return cdyn_error(CDYN_EINVAL, "exp_bead_build: NULL output or non-finite theta0");
  cdyn_system *sys;
  int rc = cdyn_system_new(&sys, 1);
  if (rc)
    return rc;
  double g[3] = {0, -G, 0}, x[3] = {sin(theta0), -cos(theta0), 0};
  double params[7] = {0, 0, 0, 0, 0, 1, 1}; /* centre, normal, R */
  size_t p0 = 0;
  if (!(rc = cdyn_system_set_gravity(sys, g)) && !(rc = cdyn_system_set_position(sys, 0, x)))
    rc = cdyn_system_add_constraint_named(sys, "circle", &p0, params, NULL);
  if (rc) {
    cdyn_system_free(sys);
    return rc;
  }
  *out = sys;
  return CDYN_OK;
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
};

/* ---- running a problem ------------------------------------------------------------------- */

static int build_problem(const void *pv, cdyn_system **out)
{
  const exp_problem *p = pv;
  return p->build(out);
}

int exp_problem_run(exp_ctx *ctx, const exp_problem *p, const exp_runspec *run, const char *const *extra, double h,
                    long steps, double emax_stop, double dE_stop, exp_problem_result *r, double *q, double *v)
{
  memset(r, 0, sizeof *r);
  exp_limits lim = {emax_stop, dE_stop};
  exp_outcome o;
  int rc = exp_run(ctx, run, extra, build_problem, p, h, steps, &lim, NULL, NULL, &o, q, v);
  if (rc)
    return rc;
  r->status = o.status; /* a failed step's, an unmeasurable state's, or the guard's CDYN_EDIVERGED */
  r->stopped = o.end == EXP_END_ERROR_LIMIT || o.end == EXP_END_ENERGY_GAIN;
  r->steps = o.steps;
  r->noconv = o.noconv;
  r->emax = o.emax;
  r->eend = o.eend;
  r->E0 = o.E0;
  r->Eend = o.Eend;
  r->dEmax = o.dEmax;
  return CDYN_OK;
}
