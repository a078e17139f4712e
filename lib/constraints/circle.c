/*
 * circle.c: a particle on a fixed circle, the bead on a wire of 002
 * (slides "Beispiel: Perle auf Draht", C = (x.x - 1) / 2 for the unit
 * circle about the origin), placed anywhere in space.
 *
 *   d = x - c,  nh = n / |n|,  v = velocity of the particle
 *   Phi_1    = nh . d                      (the plane of the circle)
 *   Phi_2    = (d.d - R^2) / (2 R)         (the sphere |d| = R)
 *   J_1      = nh^T,            J_2 = d^T / R
 *   Phi_t    = 0
 *   (Jv)_q v = 0 for row 1 (linear in x),  v.v / R for row 2
 *   phi_tt   = 0
 *   Hess Phi = 0 for row 1,  I / R for row 2, so lambda.Hess Phi
 *              = lambda_2 I / R (a tension of the sphere row pulls the
 *              particle to the centre like a spring lambda_2 / R)
 *
 * Row 2 is 002's C scaled by 1 / R: it then has units of length, and near
 * the circle Phi_2 = (|d| - R)(|d| + R) / (2 R) = (|d| - R) + O((|d| - R)^2),
 * the papers' error measure for a link.  For R = 1, c = 0 it is 002's C
 * exactly.  The quadratic form is kept (not |d| - R) because it is
 * differentiable everywhere, also at the centre, as in 002.
 *
 * The two rows are independent wherever d is not parallel to n, which
 * holds on the circle (there d is across n and |d| = R > 0); at points of
 * the axis through c along n the Jacobian has rank 1, and the schemes'
 * least-squares path takes over.
 *
 * Parameters: c[3] (centre), n[3] (normal of the circle's plane: any
 * non-zero length, normalised here at each evaluation so that the stored
 * parameters stay as given), R > 0 (radius).
 */
#include <math.h>

#include "core/internal.h"
#include "vec3.h"

static const char *const names[] = {"cx", "cy", "cz", "nx", "ny", "nz", "radius"};

static int check(const double *p)
{
  double nn = cdyn_norm3(p + 3);
  if (!isfinite(nn) || !(nn > 0))
    return cdyn_error(CDYN_EINVAL, "circle constraint: normal (%g, %g, %g) must be finite and non-zero",
                      p[3], p[4], p[5]);
  if (!isfinite(p[6]) || !(p[6] > 0))
    return cdyn_error(CDYN_EINVAL, "circle constraint: radius %g must be finite and > 0", p[6]);
  return CDYN_OK;
}

static int eval(const double *p, const double *const *x, const double *const *v,
                double t, cdyn_row *row)
{
  (void)t;
  const double *c = p, *n = p + 3;
  const double R = p[6];
  double nn = cdyn_norm3(n), d[3];
  cdyn_sub3(x[0], c, d);
  for (int k = 0; k < 3; k++) {
    double nh = n[k] / nn;
    row[0].jac[0][k] = nh;
    row[1].jac[0][k] = d[k] / R;
  }
  row[0].phi = cdyn_dot3(row[0].jac[0], d);
  row[1].phi = (cdyn_dot3(d, d) - R * R) / (2 * R);
  row[1].jdotv = cdyn_dot3(v[0], v[0]) / R;
  if (!cdyn_rows_finite(row, 2, 1))
    return cdyn_error(CDYN_ENONFINITE, "circle constraint: a value is not finite (position non-finite or beyond 1e154)");
  return CDYN_OK;
}

static int hess(const double *p, const double *const *x, double t, const double *lambda, double *K)
{
  /* eval's checks, at rest: hess fails where eval does. */
  cdyn_row row[2] = {{0}};
  int rc = cdyn_eval_at_rest(eval, p, x, t, row);
  if (rc)
    return rc;
  return cdyn_hess_scaled_identity("circle", lambda[1] / p[6], K);
}

const cdyn_constraint_type cdyn_ctype_circle = {
  .name = "circle",
  .description = "particle on a circle: nh.(x - c) = 0, (|x - c|^2 - R^2) / (2 R) = 0",
  .nparticles = 1,
  .nparams = 7,
  .rows = 2,
  .param_names = names,
  .check = check,
  .eval = eval,
  .hess = hess,
};
