/*
 * plane.c: a particle on a fixed plane (003's half-plane constraints
 * g(q) >= 0 take this form: the corner example's g2 = y is the plane
 * through the origin with normal (0, 1, 0)).
 *
 *   nh = n / |n|
 *   Phi      = nh . (x - p)                (signed distance)
 *   J        = nh^T
 *   Phi_t    = 0,  (Jv)_q v = 0,  phi_tt = 0     (Phi is linear in x)
 *
 * The sign is kept for use as an inequality Phi >= 0: Phi is positive on
 * the side n points to.  n is normalised here at each evaluation, so Phi
 * is a distance whatever the length of the n given.
 * Parameters: p[3] (a point of the plane), n[3] (non-zero normal).
 */
#include <math.h>

#include "cdyn_internal.h"
#include "vec3.h"

static const char *const names[] = {"px", "py", "pz", "nx", "ny", "nz"};

static int check(const double *p) { return cdyn_check_normal("plane", p); }

static int eval(const double *p, const double *const *x, const double *const *v,
                double t, cdyn_row *row)
{
  (void)t;
  (void)v;
  const double *n = p + 3;
  double nn = cdyn_norm3(n), d[3];
  cdyn_sub3(x[0], p, d);
  for (int k = 0; k < 3; k++)
    row->jac[0][k] = n[k] / nn;
  row->phi = cdyn_dot3(row->jac[0], d);
  if (!cdyn_rows_finite(row, 1, 1))
    return cdyn_error(CDYN_ENONFINITE, "plane constraint: a value is not finite (position non-finite or beyond 1e308)");
  return CDYN_OK;
}

const cdyn_constraint_type cdyn_ctype_plane = {
  .name = "plane",
  .description = "particle on a plane nh.(x - p) = 0, positive on the side n points to",
  .nparticles = 1,
  .nparams = 6,
  .rows = 1,
  .param_names = names,
  .check = check,
  .eval = eval,
};
