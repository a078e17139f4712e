/*
 * hoop.c: a particle on a circle that spins about one of its diameters at
 * a constant rate (the bead on a rotating hoop; 002's bead on a wire, made
 * to move with time).  A constraint whose geometry moves during the
 * motion: reference/hoop.c has its relative equilibrium and small-
 * oscillation frequency in closed form.
 *
 *   a^ = a / |a|            (the spin axis, through the centre c)
 *   n0 = the component of n across a^, normalised (the normal at t = 0)
 *   n(t)  = cos(w t) n0 + sin(w t) (a^ x n0),   n' = w a^ x n,  n'' = -w^2 n
 *   d = x - c
 *   Phi_1    = n(t) . d                 (the hoop's plane, turning)
 *   Phi_2    = (d.d - R^2) / (2 R)      (the sphere |d| = R, circle.c's row)
 *   J_1      = n(t)^T,                  J_2 = d^T / R
 *   Phi_t    = n' . d,                  0
 *   (Jv)_q v = 0,                       v.v / R
 *   phi_tt   = 2 Phi_qt v + Phi_tt = 2 n' . v - w^2 n . d,     0
 *   Hess Phi = 0,                       I / R
 * since Phi_qt v = d(J_1 v)/dt at fixed v = n' . v.  Row 2 is the circle
 * type's, so at w = 0 this is the circle with normal n0, and
 * lambda.Hess Phi = lambda_2 I / R as there.
 *
 * The rows are independent wherever d is not along n(t), which holds on
 * the hoop (there d is across n and |d| = R).
 * Parameters: c[3] (centre), a[3] (spin axis, any non-zero length), n[3]
 * (normal of the hoop's plane at t = 0: its part across a is used; refused
 * when it has almost none, |a^ x n^| < 1e-6), R > 0 (radius), w (spin
 * rate, rad/s, counter-clockwise about a).
 */
#include <math.h>

#include "core/internal.h"
#include "vec3.h"

static const char *const names[] = {"cx", "cy", "cz", "ax", "ay", "az", "nx", "ny", "nz", "radius", "omega"};

static int check(const double *p)
{
  double na = cdyn_norm3(p + 3), nn = cdyn_norm3(p + 6);
  if (!isfinite(na) || !(na > 0) || !isfinite(nn) || !(nn > 0))
    return cdyn_error(CDYN_EINVAL, "hoop constraint: axis (%g, %g, %g) and normal (%g, %g, %g) must be finite and "
                      "non-zero", p[3], p[4], p[5], p[6], p[7], p[8]);
  double c[3];
  cdyn_cross3(p + 3, p + 6, c);
  if (!(cdyn_norm3(c) >= 1e-6 * na * nn))
    return cdyn_error(CDYN_EINVAL, "hoop constraint: the normal (%g, %g, %g) is along the axis (%g, %g, %g); the axis "
                      "must lie in the hoop's plane", p[6], p[7], p[8], p[3], p[4], p[5]);
  if (!isfinite(p[9]) || !(p[9] > 0))
    return cdyn_error(CDYN_EINVAL, "hoop constraint: radius %g must be finite and > 0", p[9]);
  if (!isfinite(p[10]))
    return cdyn_error(CDYN_EINVAL, "hoop constraint: spin rate %g must be finite", p[10]);
  return CDYN_OK;
}

static int eval(const double *p, const double *const *x, const double *const *v, double t, cdyn_row *row)
{
  const double *c = p;
  const double R = p[9], w = p[10];
  double ah[3], n0[3], b[3], n[3], nd[3], d[3];
  double na = cdyn_norm3(p + 3);
  for (int k = 0; k < 3; k++)
    ah[k] = p[3 + k] / na;
  double along = cdyn_dot3(ah, p + 6);
  for (int k = 0; k < 3; k++)
    n0[k] = p[6 + k] - along * ah[k];
  double n0n = cdyn_norm3(n0);
  for (int k = 0; k < 3; k++)
    n0[k] /= n0n;
  cdyn_cross3(ah, n0, b);
  double cw = cos(w * t), sw = sin(w * t);
  for (int k = 0; k < 3; k++) {
    n[k] = cw * n0[k] + sw * b[k];
    nd[k] = w * (-sw * n0[k] + cw * b[k]);
  }
  cdyn_sub3(x[0], c, d);
  for (int k = 0; k < 3; k++) {
    row[0].jac[0][k] = n[k];
    row[1].jac[0][k] = d[k] / R;
  }
  row[0].phi = cdyn_dot3(n, d);
  row[0].phi_t = cdyn_dot3(nd, d);
  row[0].jdotv = 0;
  row[0].phi_tt = 2 * cdyn_dot3(nd, v[0]) - w * w * row[0].phi;
  row[1].phi = (cdyn_dot3(d, d) - R * R) / (2 * R);
  row[1].phi_t = 0;
  row[1].jdotv = cdyn_dot3(v[0], v[0]) / R;
  row[1].phi_tt = 0;
  if (!cdyn_rows_finite(row, 2, 1))
    return cdyn_error(CDYN_ENONFINITE, "hoop constraint: a value is not finite (position non-finite or beyond 1e154)");
  return CDYN_OK;
}

static int hess(const double *p, const double *const *x, double t, const double *lambda, double *K)
{
  /* eval's checks, at rest: hess fails where eval does. */
  cdyn_row row[2] = {{0}};
  int rc = cdyn_eval_at_rest(eval, p, x, t, row);
  if (rc)
    return rc;
  return cdyn_hess_scaled_identity("hoop", lambda[1] / p[9], K);
}

const cdyn_constraint_type cdyn_ctype_hoop = {
  .name = "hoop",
  .description = "particle on a circle spinning about a diameter: n(t).(x - c) = 0, (|x - c|^2 - R^2) / (2 R) = 0",
  .nparticles = 1,
  .nparams = 11,
  .rows = 2,
  .param_names = names,
  .check = check,
  .eval = eval,
  .hess = hess,
};
