/*
 * plane.c: a particle on a fixed plane (003's half-plane constraints
 * g(q) >= 0 take this form: the corner example's g2 = y is the plane
 * through the origin with normal (0, 1, 0)).
 *
 *   nh = n / |n|
 *   Phi      = nh . (x - p)                (signed distance)
 *   J        = nh^T
 *   Phi_t    = 0,  (Jv)_q v = 0,  phi_tt = 0     (Phi is linear in x)
 *   Hess Phi = 0                                  (likewise)
 *
 * The sign is kept for use as an inequality Phi >= 0: Phi is positive on
 * the side n points to.  n is normalised here at each evaluation, so Phi
 * is a distance whatever the length of the n given.
 * Parameters: p[3] (a point of the plane), n[3] (non-zero normal).
 */
#include <math.h>

#include "core/internal.h"
#include "vec3.h"

static const char *const names[] = {"px", "py", "pz", "nx", "ny", "nz"};

static int check(const double *p) { return cdyn_check_normal("plane", p); }

static int eval(const double *p, const double *const *x, const double *const *v,
                double t, cdyn_row *row)
{
  (void)t;
  (void)v;
  return cdyn_linear_row("plane", p, x[0], 1.0 / cdyn_norm3(p + 3), row);
}

static int hess(const double *p, const double *const *x, double t, const double *lambda, double *K)
{
  (void)t;
  (void)lambda;
  return cdyn_linear_hess("plane", p, x[0], 1.0 / cdyn_norm3(p + 3), K);
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
  .hess = hess,
};
