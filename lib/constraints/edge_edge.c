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
 * Hessian.  In (ea, eb, d), exactly node_triangle.c's with (e1, e2) =
 * (ea, eb): with g, P = I - nh nh^T, Hn = -(nh g^T + g nh^T) / N
 * - (nh.d) P / N^2, Na = -[eb]x, Nb = [ea]x, C(g) = -[g]x,
 *   H_aa = Na^T Hn Na,  H_ab = Na^T Hn Nb + C(g),  H_bb = Nb^T Hn Nb,
 *   H_ad = Na^T P / N,  H_bd = Nb^T P / N,         H_dd = 0,
 * and through ea = x1 - x0, eb = x3 - x2, d = x2 - x0 the block of
 * particles (p, q) is sum over differences j, l of s_pj s_ql H_jl
 * (s = +1 at a difference's head, -1 at its tail), e.g.
 * (x1, x3) = H_ab, (x0, x0) = H_aa + H_ad + H_da (H_dd = 0).
 * The kernel (phi, its gradients in ea, eb, d, Phi'' and the Hessian) is
 * cdyn_normal_offset_eval / _hess in constraints/vec3.h, shared with
 * node_triangle.c.
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

#include "core/internal.h"
#include "vec3.h"

static const char *const names[] = {"thickness"};

static int check(const double *p) { return cdyn_check_thickness("edge_edge", p); }

/* a, b, d as differences of the particles (see the header). */
static const cdyn_offset_layout layout = {{1, 3, 2}, {0, 2, 0}, "edge_edge", "the edges are parallel"};

static int eval(const double *p, const double *const *x, const double *const *v,
                double t, cdyn_row *row)
{
  (void)t;
  return cdyn_offset_row(&layout, p[0], x, v, row);
}

static int hess(const double *p, const double *const *x, double t, const double *lambda, double *K)
{
  (void)p;
  (void)t;
  return cdyn_offset_hess(&layout, x, lambda[0], K);
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
  .hess = hess,
};
