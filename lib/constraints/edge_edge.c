/*
 * edge_edge.c: distance between two edges along their common normal,
 * 001's edge-edge cloth non-penetration constraint (001 sec. V.A: "the
 * edge/edge case can be modeled similarly", with a thickness constant).
 *
 * Particles x0, x1 (edge a), x2, x3 (edge b);
 * ea = x1 - x0, eb = x3 - x2, d = x2 - x0,
 * n = ea x eb, N = |n|, nh = n / N, h >= 0 the thickness.
 *   Phi      = nh . d - h
 * the signed distance between the two lines, positive when x2 lies on
 * the side of nh = unit(ea x eb) seen from edge a.  As in
 * node_triangle.c, the normal is normalised (001 is silent) so that Phi
 * is a distance, and it is the distance of the lines, not of the
 * segments: whether the closest points lie inside both edges is for the
 * contact logic that activates the constraint to decide.
 *
 * Jacobian.  With g = (d - (nh.d) nh) / N = dPhi/dn and
 * dn = dea x eb + ea x deb:
 *   dPhi/dea = eb x g,   dPhi/deb = g x ea,   dPhi/dd = nh
 *   J = [ -nh - eb x g,  eb x g,  nh - g x ea,  g x ea ]     (x0..x3)
 *   Phi_t = 0,  phi_tt = 0
 * Velocity term.  Along q + s v with fa = v1 - v0, fb = v3 - v2,
 * dd = v2 - v0: n' = fa x eb + ea x fb, n'' = 2 fa x fb, d'' = 0, and
 * with nh', nh'' from constraints/vec3.h
 *   (Jv)_q v = Phi'' = nh''.d + 2 nh'.dd.
 * The kernel (phi, its gradients in ea, eb, d and Phi'') is
 * cdyn_normal_offset_eval in constraints/vec3.h, shared with node_triangle.c.
 *
 * Degeneracy.  Parallel edges (N = 0) have no common normal: eval reports
 * CDYN_EDEGENERATE, also for N <= 16 eps |ea| |eb|, where the direction
 * of n is rounding noise (see node_triangle.c).  Near parallel edges nh
 * turns quickly as the edges move (|nh'| ~ |n'| / N), so Phi is smooth
 * but its derivatives are large there.
 * Parameters: h >= 0 (thickness).
 */
#include <float.h>
#include <math.h>

#include "cdyn_internal.h"
#include "vec3.h"

static const char *const names[] = {"thickness"};

static int check(const double *p)
{
  if (!isfinite(p[0]) || !(p[0] >= 0))
    return cdyn_error(CDYN_EINVAL, "edge_edge constraint: thickness %g must be finite and >= 0", p[0]);
  return CDYN_OK;
}

static int eval(const double *p, const double *const *x, const double *const *v,
                double t, cdyn_row *row)
{
  (void)t;
  double ea[3], eb[3], d[3], fa[3], fb[3], dd[3];
  cdyn_sub3(x[1], x[0], ea);
  cdyn_sub3(x[3], x[2], eb);
  cdyn_sub3(x[2], x[0], d);
  cdyn_sub3(v[1], v[0], fa);
  cdyn_sub3(v[3], v[2], fb);
  cdyn_sub3(v[2], v[0], dd);
  cdyn_normal_offset o = {0};
  int rc = cdyn_normal_offset_eval(ea, eb, d, fa, fb, dd, "edge_edge", "the edges are parallel", &o);
  if (rc)
    return rc;
  row->phi = o.phi - p[0];
  /* Chain rule through ea = x1 - x0, eb = x3 - x2, d = x2 - x0. */
  for (int k = 0; k < 3; k++) {
    row->jac[0][k] = -o.dd[k] - o.da[k];
    row->jac[1][k] = o.da[k];
    row->jac[2][k] = o.dd[k] - o.db[k];
    row->jac[3][k] = o.db[k];
  }
  row->jdotv = o.second;
  if (!cdyn_rows_finite(row, 1, 4))
    return cdyn_error(CDYN_ENONFINITE, "edge_edge constraint: a value is not finite");
  return CDYN_OK;
}

const cdyn_constraint_type cdyn_ctype_edge_edge = {
  .name = "edge_edge",
  .description = "edges x0-x1 and x2-x3 at distance h along their common normal: nh.(x2 - x0) = h",
  .nparticles = 4,
  .nparams = 1,
  .rows = 1,
  .param_names = names,
  .check = check,
  .eval = eval,
};
