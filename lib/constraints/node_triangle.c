/*
 * node_triangle.c: distance of a node from the plane of a triangle, 001's
 * cloth non-penetration constraint (001 sec. V.A: "from three points of
 * the triangle, a plane equation Ax + By + Cz + D = 0 is derived and the
 * node coordinates are plugged in", with "an arbitrary constant" for the
 * thickness of the fabric).
 *
 * Particles x0 (the node), x1, x2, x3 (the triangle);
 * e1 = x2 - x1, e2 = x3 - x1, d = x0 - x1,
 * n = e1 x e2, N = |n|, nh = n / N, h >= 0 the thickness.
 *   Phi      = nh . d - h
 * 001 leaves the plane equation unnormalised; it is normalised here, so
 * that Phi is the signed distance (units of length, comparable with h and
 * with the error of a link), positive on the side of nh, i.e. where the
 * triangle's vertices x1, x2, x3 run counter-clockwise seen from the node.
 * Swapping two vertices flips the sign.
 *
 * Jacobian.  With P = I - nh nh^T, d nh = P dn / N, so dPhi/dn = g with
 *   g = (d - (nh.d) nh) / N,
 * and dn = de1 x e2 + e1 x de2 gives g.(de1 x e2) = de1.(e2 x g),
 * g.(e1 x de2) = de2.(g x e1):
 *   J = [ nh,  -nh - (e2 x g) - (g x e1),  e2 x g,  g x e1 ]   (x0..x3)
 *   Phi_t = 0,  phi_tt = 0
 * Velocity term.  Along q + s v with dd = v0 - v1, f1 = v2 - v1,
 * f2 = v3 - v1: d' = dd, d'' = 0, n' = f1 x e2 + e1 x f2,
 * n'' = 2 f1 x f2; constraints/vec3.h gives nh', nh'' from n', n'', and
 *   (Jv)_q v = Phi'' = nh''.d + 2 nh'.dd.
 * Hessian.  In (e1, e2, d), with Hn = -(nh g^T + g nh^T) / N
 * - (nh.d) P / N^2 the Hessian of nh.d in n, P = I - nh nh^T,
 * dn = N1 de1 + N2 de2 with N1 = -[e2]x, N2 = [e1]x ([a]x b = a x b), the
 * bilinear part g.(e1 x e2) = e1^T C(g) e2, C(g) = -[g]x:
 *   H_11 = N1^T Hn N1,  H_12 = N1^T Hn N2 + C(g),  H_22 = N2^T Hn N2,
 *   H_1d = N1^T P / N,  H_2d = N2^T P / N,         H_dd = 0,
 * and through e1 = x2 - x1, e2 = x3 - x1, d = x0 - x1, whose heads x2,
 * x3, x0 are distinct and whose common tail is x1:
 *   Hess Phi = [ 0,       -S_d,  H_d1,    H_d2;
 *                -S_d^T,  S,     -S_1^T,  -S_2^T;
 *                H_1d,    -S_1,  H_11,    H_12;
 *                H_2d,    -S_2,  H_21,    H_22 ]    (x0, x1, x2, x3)
 * with S_j = sum_l H_jl (a block row of H) and S = sum_jl H_jl.
 * The kernel (phi, its gradients in e1, e2, d, Phi'' and the Hessian) is
 * cdyn_normal_offset_eval / _hess in constraints/vec3.h, shared with
 * edge_edge.c.
 *
 * The plane, not the triangle: Phi does not ask that the node's
 * projection fall inside the triangle.  001 releases the constraint when
 * the node leaves the triangle's Voronoi region; that is the job of the
 * contact logic that activates this constraint, not of Phi.
 *
 * Degeneracy.  Where the triangle has no area (N = 0) the plane is
 * undefined and eval reports CDYN_EDEGENERATE.  The components of n carry
 * rounding errors of about 2 eps |e1| |e2|, so a triangle with
 * N <= 16 eps |e1| |e2| (vertices collinear to rounding) has a normal
 * with no correct digit and is reported the same way rather than given a
 * direction made of rounding noise.
 * Parameters: h >= 0 (thickness).
 */
#include <float.h>
#include <math.h>

#include "core/internal.h"
#include "vec3.h"

static const char *const names[] = {"thickness"};

static int check(const double *p) { return cdyn_check_thickness("node_triangle", p); }

/* a, b, d as differences of the particles (see the header). */
static const cdyn_offset_layout layout = {{2, 3, 0}, {1, 1, 1}, "node_triangle", "the triangle has no area"};

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

const cdyn_constraint_type cdyn_ctype_node_triangle = {
  .name = "node_triangle",
  .description = "node x0 at distance h from the plane of triangle x1 x2 x3: nh.(x0 - x1) = h",
  .nparticles = 4,
  .nparams = 1,
  .rows = 1,
  .param_names = names,
  .check = check,
  .eval = eval,
  .hess = hess,
};
