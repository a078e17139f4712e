/*
 * parallel.c: two links held parallel (or anti-parallel), for example
 * two rails of a mechanism.  The four particles must be distinct (as for
 * every constraint of a system), so this does not hold a straight joint
 * between two links that share a particle.
 *
 * Particles a0, a1, b0, b1; d = x_a1 - x_a0, e = x_b1 - x_b0,
 * a = |d|, b = |e|, uh = d / a, wh = e / b.
 *   Phi      = uh x wh                     (three rows, r = 1, 2, 3)
 * Writing row r as Phi_r = uh . (wh x e_r) = wh . (e_r x uh) (e_r the
 * r-th axis) and using d uh / d d = (I - uh uh^T) / a:
 *   dPhi_r/dd = ((wh x e_r) - Phi_r uh) / a
 *   dPhi_r/de = ((e_r x uh) - Phi_r wh) / b
 *   J_r      = [ -dPhi_r/dd, dPhi_r/dd, -dPhi_r/de, dPhi_r/de ]
 *   Phi_t    = 0,  phi_tt = 0
 * Along q + s v with p = v_a1 - v_a0, r = v_b1 - v_b0, constraints/vec3.h
 * gives uh', uh'' (from p and a) and wh', wh'' (from r and b), and
 *   (Jv)_q v = Phi'' = uh'' x wh + 2 uh' x wh' + uh x wh''.
 * Hessian.  lambda.Phi = lambda.(uh x wh) = (wh x lambda).uh
 * = (lambda x uh).wh = uh^T C wh with C = -[lambda]x, so with
 * A = wh x lambda, B = lambda x uh, P_u = I - uh uh^T, P_w = I - wh wh^T
 * and f = lambda.Phi (constraints/vec3.h):
 *   H_dd = -(uh g_d^T + g_d uh^T) / a - f P_u / a^2,  g_d = (A - f uh) / a
 *   H_ee = -(wh g_e^T + g_e wh^T) / b - f P_w / b^2,  g_e = (B - f wh) / b
 *   H_de = P_u C P_w / (a b)
 * and through d = x_a1 - x_a0, e = x_b1 - x_b0
 *   lambda.Hess Phi = [ H_dd, -H_dd, H_de, -H_de; -H_dd, H_dd, -H_de, H_de;
 *                       H_ed, -H_ed, H_ee, -H_ee; -H_ed, H_ed, -H_ee, H_ee ]
 *   with the signs of particles (a0, a1, b0, b1) = (-d, +d, -e, +e):
 *   block (p, q) = s_p s_q H_(link p)(link q).
 *
 * Rank.  uh x wh is always perpendicular to uh, so uh . Phi = 0
 * identically: the three rows are never independent as functions.  On
 * the constraint set (wh = +-uh) J has rank 2 (its rows span the
 * rotations of uh relative to wh across uh), so A = J W J^T is singular
 * there and the solvers' least-squares path (rank_tol) handles the
 * redundant row.  Off the set, at a violation |Phi| = eps, the third
 * singular value of J is of order eps, not zero; while eps^2 stays above
 * rank_tol times the largest eigenvalue of A the solvers treat A as
 * regular and the combination uh . Phi of the rows, whose gradient is
 * -sum_r Phi_r grad(uh_r), takes part in the solve.  Divided by |Phi|
 * that row is of order one, so it acts as a third constraint (it
 * prescribes how fast uh turns towards Phi) that the mechanism does not
 * have.  Measured on two free links pulled by a spring (the "parallel"
 * case of tests/test_constraints.c), against the same constraint written
 * with two rows (Phi projected on a fixed basis across the initial
 * direction): with the default rank_tol = 1e-12 the positions differ by
 * 3.0e-3 after 0.2 s of Baumgarte at h = 1e-3, and by 2.4e-3 at
 * h = 2.5e-4 (it does not vanish with h); with rank_tol = 1e-6, which
 * treats violations |Phi| below about 1e-3 as zero, they differ by
 * 4.0e-7 at h = 1e-3 and 2.0e-7 at h = 5e-4.  So use this type with rank_tol at least the square
 * of the violations expected.  A two-row form avoids the problem, but no
 * basis of the plane across wh is smooth over all directions wh; the
 * three-row cross product is smooth everywhere except where a link has
 * zero length.
 *
 * Both parallel and anti-parallel links satisfy Phi = 0.  eval reports
 * CDYN_EDEGENERATE where a link has zero length.
 * Parameters: none.
 */
#include <math.h>

#include "core/internal.h"
#include "vec3.h"

static int eval(const double *p, const double *const *x, const double *const *v,
                double t, cdyn_row *row)
{
  (void)p;
  (void)t;
  double d[3], e[3], pd[3], pe[3];
  cdyn_sub3(x[1], x[0], d);
  cdyn_sub3(x[3], x[2], e);
  cdyn_sub3(v[1], v[0], pd);
  cdyn_sub3(v[3], v[2], pe);
  double a = sqrt(cdyn_dot3(d, d)), b = sqrt(cdyn_dot3(e, e));
  if (!isfinite(a) || !isfinite(b))
    return cdyn_error(CDYN_ENONFINITE, "parallel constraint: a link length is not finite (positions non-finite or beyond 1e154)");
  if (!(a > 0) || !(b > 0))
    return cdyn_error(CDYN_EDEGENERATE, "parallel constraint: a link has zero length (|d| = %g, |e| = %g)", a, b);
  double uh[3], wh[3], phi[3];
  for (int k = 0; k < 3; k++) {
    uh[k] = d[k] / a;
    wh[k] = e[k] / b;
  }
  cdyn_cross3(uh, wh, phi);
  double uh1[3], uh2[3], wh1[3], wh2[3], c1[3], c2[3], c3[3];
  cdyn_unit_derivs(uh, a, pd, NULL, uh1, uh2);
  cdyn_unit_derivs(wh, b, pe, NULL, wh1, wh2);
  cdyn_cross3(uh2, wh, c1);
  cdyn_cross3(uh1, wh1, c2);
  cdyn_cross3(uh, wh2, c3);
  for (int r = 0; r < 3; r++) {
    double er[3] = {0, 0, 0}, gd[3], ge[3];
    er[r] = 1.0;
    cdyn_cross3(wh, er, gd);
    cdyn_cross3(er, uh, ge);
    row[r].phi = phi[r];
    for (int k = 0; k < 3; k++) {
      gd[k] = (gd[k] - phi[r] * uh[k]) / a;
      ge[k] = (ge[k] - phi[r] * wh[k]) / b;
      row[r].jac[0][k] = -gd[k];
      row[r].jac[1][k] = gd[k];
      row[r].jac[2][k] = -ge[k];
      row[r].jac[3][k] = ge[k];
    }
    row[r].jdotv = c1[r] + 2 * c2[r] + c3[r];
  }
  if (!cdyn_rows_finite(row, 3, 4))
    return cdyn_error(CDYN_ENONFINITE, "parallel constraint: a value is not finite");
  return CDYN_OK;
}

static int hess(const double *p, const double *const *x, double t, const double *lambda, double *K)
{
  (void)p;
  (void)t;
  double d[3], e[3];
  cdyn_sub3(x[1], x[0], d);
  cdyn_sub3(x[3], x[2], e);
  double a = sqrt(cdyn_dot3(d, d)), b = sqrt(cdyn_dot3(e, e));
  if (!isfinite(a) || !isfinite(b))
    return cdyn_error(CDYN_ENONFINITE, "parallel constraint: a link length is not finite (positions non-finite or beyond 1e154)");
  if (!(a > 0) || !(b > 0))
    return cdyn_error(CDYN_EDEGENERATE, "parallel constraint: a link has zero length (|d| = %g, |e| = %g)", a, b);
  double uh[3], wh[3], A[3], B[3], C[9];
  for (int k = 0; k < 3; k++) {
    uh[k] = d[k] / a;
    wh[k] = e[k] / b;
  }
  cdyn_cross3(wh, lambda, A);
  cdyn_cross3(lambda, uh, B);
  cdyn_triple_matrix(lambda, C);
  /* H in (d, e), 6 x 6. */
  static const unsigned to[2] = {1, 3}, from[2] = {0, 2};
  double Hdd[9], Hee[9], Hde[9], H[36];
  cdyn_unit_dot_hess(uh, a, A, Hdd);
  cdyn_unit_dot_hess(wh, b, B, Hee);
  cdyn_unit_pair_hess(uh, a, wh, b, C, Hde);
  cdyn_put_block(H, 2, 0, 0, Hdd);
  cdyn_put_block(H, 2, 1, 1, Hee);
  cdyn_put_block(H, 2, 0, 1, Hde);
  cdyn_hess_scatter(2, to, from, H, 1.0, 4, K);
  return cdyn_hess_finite("parallel", K, 4);
}

const cdyn_constraint_type cdyn_ctype_parallel = {
  .name = "parallel",
  .description = "links a0-a1 and b0-b1 parallel: uh x wh = 0 (3 rows, rank 2 on the constraint)",
  .nparticles = 4,
  .nparams = 0,
  .rows = 3,
  .param_names = NULL,
  .check = NULL,
  .eval = eval,
  .hess = hess,
};
