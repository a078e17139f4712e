/*
 * halfspace.c: a wall, the half-space g = n . (x - p) >= 0 (003 eq 7).
 *
 *   Phi      = n . (x - p)
 *   J        = n^T
 *   Phi_t    = 0,  (Jv)_q v = 0,  phi_tt = 0     (Phi is linear in x)
 *   Hess Phi = 0                                  (likewise)
 *
 * Unlike "plane", n is not normalised: 003's corner constraint
 * g1 = x - y >= 0 is the half-space through the origin with n = (1, -1, 0),
 * and its multipliers are those of that g.  With |n| = 1, Phi is the
 * signed distance to the wall.  Meant to be flagged as an inequality
 * (cdyn_system_add_wall does so); as an equality it is a plane.
 * Parameters: p[3] (a point of the boundary), n[3] (non-zero normal).
 */
#include <math.h>

#include "core/internal.h"
#include "vec3.h"

static const char *const names[] = {"px", "py", "pz", "nx", "ny", "nz"};

static int check(const double *p) { return cdyn_check_normal("halfspace", p); }

static int eval(const double *p, const double *const *x, const double *const *v,
                double t, cdyn_row *row)
{
  (void)t;
  (void)v;
  return cdyn_linear_row("halfspace", p, x[0], 1.0, row);
}

static int hess(const double *p, const double *const *x, double t, const double *lambda, double *K)
{
  (void)t;
  (void)lambda;
  return cdyn_linear_hess("halfspace", p, x[0], 1.0, K);
}

const cdyn_constraint_type cdyn_ctype_halfspace = {
  .name = "halfspace",
  .description = "wall n.(x - p) >= 0 as an inequality (n not normalised)",
  .nparticles = 1,
  .nparams = 6,
  .rows = 1,
  .param_names = names,
  .check = check,
  .eval = eval,
  .hess = hess,
};
