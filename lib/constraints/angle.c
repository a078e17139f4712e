/*
 * angle.c: the angle at a joint between two links (the joint angle of
 * 000/001's n-link arms, here as a constraint rather than a coordinate).
 *
 * Particles i, j (the joint), k; u = x_i - x_j, w = x_k - x_j,
 * a = |u|, b = |w|, uh = u / a, wh = w / b, c = uh . wh = cos(angle).
 *   Phi      = c - cos(theta0)
 *   dc/du    = g_u = (wh - c uh) / a,   dc/dw = g_w = (uh - c wh) / b
 *   J        = [ g_u^T,  -(g_u + g_w)^T,  g_w^T ]     (particles i, j, k)
 *   Phi_t    = 0,  phi_tt = 0
 * For the velocity term, along q + s v with p = v_i - v_j, r = v_k - v_j
 * (u' = p, w' = r, u'' = w'' = 0), constraints/vec3.h gives
 *   uh'  = (p - (uh.p) uh) / a,   uh'' = -|uh'|^2 uh - 2 (uh.p / a) uh'
 * and likewise wh', wh'' from r and b, so that
 *   (Jv)_q v = c'' = uh''.wh + 2 uh'.wh' + uh.wh''.
 * Hessian.  In (u, w), with P_u = I - uh uh^T, P_w = I - wh wh^T
 * (differentiating g_u, g_w; constraints/vec3.h):
 *   H_uu = -(uh g_u^T + g_u uh^T) / a - c P_u / a^2
 *   H_ww = -(wh g_w^T + g_w wh^T) / b - c P_w / b^2
 *   H_uw = P_u P_w / (a b) = (I - uh uh^T - wh wh^T + c uh wh^T) / (a b)
 * and through u = x_i - x_j, w = x_k - x_j
 *   Hess Phi = [ H_uu,  -H_uu - H_uw,               H_uw;
 *                ... ,  H_uu + H_uw + H_wu + H_ww,  -H_uw - H_ww;
 *                ... ,  ...,                        H_ww ]   (symmetric)
 *
 * Phi is smooth wherever a > 0 and b > 0; eval reports CDYN_EDEGENERATE
 * where a link has zero length.
 *
 * theta0 must lie strictly inside (0, pi).  At theta0 = 0 or pi the
 * constraint asks c = +-1, the extreme value of c, where g_u = g_w = 0:
 * the Jacobian vanishes on the whole constraint set, A = J W J^T = 0, and
 * no scheme can produce a force that holds the angle (every multiplier
 * multiplies a zero row), so the constraint would be silently ignored.
 * That is rejected with CDYN_EINVAL rather than allowed with a warning,
 * since the library prints nothing and a constraint that does nothing is
 * worse than an error.  (A straight or folded joint needs a vector form
 * such as u x w = 0, as in parallel.c, whose Jacobian does not vanish
 * there.)  Close to 0 or pi the Jacobian is small (|g_u| = sin(angle) / a), so
 * A is ill-conditioned there: the multipliers grow like 1 / sin^2 theta0.
 * Parameters: theta0 in (0, pi).
 */
#include <math.h>

#include "core/internal.h"
#include "vec3.h"

static const char *const names[] = {"theta0"};

static int check(const double *p)
{
  const double pi = 3.14159265358979323846;
  if (!(p[0] > 0 && p[0] < pi))
    return cdyn_error(CDYN_EINVAL,
                      "angle constraint: theta0 = %g must lie strictly between 0 and pi; at 0 and pi "
                      "its Jacobian vanishes on the constraint",
                      p[0]);
  return CDYN_OK;
}

/* The links' lengths a = |u|, b = |w| (u = x_0 - x_1, w = x_2 - x_1) and
   directions, or the status where Phi is not differentiable. */
static int links(const double *const *x, double *a, double *b, double uh[3], double wh[3])
{
  double u[3], w[3];
  cdyn_sub3(x[0], x[1], u);
  cdyn_sub3(x[2], x[1], w);
  *a = sqrt(cdyn_dot3(u, u));
  *b = sqrt(cdyn_dot3(w, w));
  if (!isfinite(*a) || !isfinite(*b))
    return cdyn_error(CDYN_ENONFINITE, "angle constraint: a link length is not finite (positions non-finite or beyond 1e154)");
  if (!(*a > 0) || !(*b > 0))
    return cdyn_error(CDYN_EDEGENERATE, "angle constraint: a link has zero length (|u| = %g, |w| = %g)", *a, *b);
  for (int k = 0; k < 3; k++) {
    uh[k] = u[k] / *a;
    wh[k] = w[k] / *b;
  }
  return CDYN_OK;
}

static int eval(const double *p, const double *const *x, const double *const *v,
                double t, cdyn_row *row)
{
  (void)t;
  double pu[3], pw[3], a, b, uh[3], wh[3];
  cdyn_sub3(v[0], v[1], pu);
  cdyn_sub3(v[2], v[1], pw);
  int rc = links(x, &a, &b, uh, wh);
  if (rc)
    return rc;
  double c = cdyn_dot3(uh, wh);
  row->phi = c - cos(p[0]);
  for (int k = 0; k < 3; k++) {
    double gu = (wh[k] - c * uh[k]) / a, gw = (uh[k] - c * wh[k]) / b;
    row->jac[0][k] = gu;
    row->jac[1][k] = -(gu + gw);
    row->jac[2][k] = gw;
  }
  double uh1[3], uh2[3], wh1[3], wh2[3];
  cdyn_unit_derivs(uh, a, pu, NULL, uh1, uh2);
  cdyn_unit_derivs(wh, b, pw, NULL, wh1, wh2);
  row->jdotv = cdyn_dot3(uh2, wh) + 2 * cdyn_dot3(uh1, wh1) + cdyn_dot3(uh, wh2);
  if (!cdyn_rows_finite(row, 1, 3))
    return cdyn_error(CDYN_ENONFINITE, "angle constraint: a value is not finite");
  return CDYN_OK;
}

static int hess(const double *p, const double *const *x, double t, const double *lambda, double *K)
{
  (void)p;
  (void)t;
  double a, b, uh[3], wh[3];
  int rc = links(x, &a, &b, uh, wh);
  if (rc)
    return rc;
  /* H in (u, w), 6 x 6. */
  static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  static const unsigned to[2] = {0, 2}, from[2] = {1, 1};
  double Huu[9], Hww[9], Huw[9], H[36];
  cdyn_unit_dot_hess(uh, a, wh, Huu);
  cdyn_unit_dot_hess(wh, b, uh, Hww);
  cdyn_unit_pair_hess(uh, a, wh, b, I, Huw);
  cdyn_put_block(H, 2, 0, 0, Huu);
  cdyn_put_block(H, 2, 1, 1, Hww);
  cdyn_put_block(H, 2, 0, 1, Huw);
  cdyn_hess_scatter(2, to, from, H, lambda[0], 3, K);
  return cdyn_hess_finite("angle", K, 3);
}

const cdyn_constraint_type cdyn_ctype_angle = {
  .name = "angle",
  .description = "angle at joint j between links j-i and j-k: uh.wh = cos(theta0), 0 < theta0 < pi",
  .nparticles = 3,
  .nparams = 1,
  .rows = 1,
  .param_names = names,
  .check = check,
  .eval = eval,
  .hess = hess,
};
