/*
 * fdhess.c: the geometric stiffness of a constraint type that gives no
 * `hess`, by central differences of its constraint force.
 *
 *   g(x) = J(x)^T lambda = sum_r lambda_r grad Phi_r(x)      (3 np values)
 *   K    = sum_r lambda_r Hess Phi_r = dg/dx,
 *   K[i][j] ~ (g_i(x + delta e_j) - g_i(x - delta e_j)) / ((x_j + delta) - (x_j - delta))
 * with g from the type's own eval (its rows' jac, at zero velocities: J
 * does not depend on v) at time t.  The divisor is the difference of the
 * two perturbed coordinates as they were rounded, not 2 delta, so that
 * the rounding of x_j +- delta adds no error of its own.  The result is
 * symmetrised, K <- (K + K^T) / 2: the exact Hessian is symmetric, the
 * schemes' Newton matrices assume it, and averaging halves neither error
 * term below but removes the asymmetry they leave.
 *
 * The step (Nocedal and Wright, Numerical Optimization, 2nd ed., sec.
 * 8.1, eq. 8.9 and the discussion after it, for the central difference;
 * Gill, Murray and Wright, Practical Optimization, sec. 8.6).  For one
 * entry, with f = g_i along coordinate j,
 *   truncation  delta^2 |f'''| / 6     (f''' a fourth derivative of Phi)
 *   rounding    e_f / delta,           e_f the absolute error of one f
 * and their sum is least at delta^3 = 3 e_f / |f'''|.  Let s be the
 * length on which the constraint's geometry varies, so that
 * |f'''| ~ |f| / s^3 (|f| ~ |lambda| |grad Phi|, and each derivative
 * brings a factor 1 / s), and X the size of the coordinates.  f is
 * rounded to eps |f| itself, and computed from differences of
 * coordinates that each carry eps X, which f turns into
 * |df/dx| eps X ~ eps X |f| / s; so e_f ~ eps |f| (1 + X / s) and
 *   delta^3 = 3 eps s^3 (1 + X / s) = 3 eps s^2 (s + X),
 * i.e. delta = (3 eps)^(1/3) s when the coordinates are of the size of
 * the geometry, and smaller than (3 eps)^(1/3) X, where the far origin
 * would make the step as large as the geometry, when a small structure
 * sits far from the origin.  At that step each entry's error is
 *   (3 eps)^(2/3) / 2 * |f| / s * (1 + X / s)^(2/3)
 * (a third of it truncation, e_f / (2 delta), two thirds rounding), 4e-11
 * to 6e-11 of the scale |lambda| |grad Phi| / s of K's entries for X up
 * to s: eps^(2/3), against the eps^(1/2) of a one-sided difference, whose
 * truncation delta |f''| / 2 at this step would be 4e-6 of that scale.
 *
 * s and X from what every type has, its particles:
 *   X = max |x_p[k]| over the constraint's coordinates,
 *   s = max |x_a - x_b| over pairs of its particles (the extent) when it
 *       has two or more particles not all at one point; else X (a type on
 *       one particle keeps its lengths, a radius or a curve's wavelength,
 *       in parameters whose meaning only it knows); and 1 (the library's
 *       unit of length, metres) when both are 0.
 * One delta serves every coordinate of the constraint: the rounding of
 * g comes from all of them.  Where the geometry curves on a length much
 * shorter than s (a small sphere far from the origin, a particle close to
 * a curve's centre of curvature), the truncation grows as (s / rho)^2
 * times the estimate above, rho that length; such a type should give its
 * own hess.
 *
 * A position that is not finite, which eval may accept (a pin is linear
 * in x), is CDYN_ENONFINITE here: no difference can be taken across it.
 *
 * Cost: one evaluation at x, which reports where Phi is not
 * differentiable with the type's own status and message (a perturbed
 * point may lie on a regular side of a degenerate one, and would give a
 * K of nonsense), and 2 * 3 np at the perturbed points: 6 np + 1 calls of
 * eval per constraint per call, 7 for a type on one particle, 25 on
 * four.  No allocation: the work is on the stack.
 *
 * An alternative from eval alone would be exact: jdotv = v^T Hess Phi_r v
 * is a quadratic form in v, so K follows by polarisation from
 * 3 np (3 np + 1) / 2 evaluations at chosen velocities.  It is not used:
 * it rests on jdotv, which the schemes that need K (backward-euler, bdf2)
 * never read otherwise, so a type written for them may not give it.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/internal.h"

/* g = J^T lambda at the positions of xp (rows into `rows`); the type's
   status. */
static int force(const cdyn_constraint_type *type, const double *params, const double *const *xp, double t,
                 const double *lambda, cdyn_row *rows, double *g)
{
  static const double zero[3] = {0, 0, 0};
  const double *vp[CDYN_MAX_PARTICLES] = {zero, zero, zero, zero};
  unsigned np = type->nparticles, nr = type->rows;
  memset(rows, 0, nr * sizeof *rows);
  int rc = type->eval(params, xp, vp, t, rows);
  if (rc)
    return rc;
  for (unsigned p = 0; p < np; p++)
    for (unsigned k = 0; k < 3; k++) {
      double sum = 0;
      for (unsigned r = 0; r < nr; r++)
        sum += lambda[r] * rows[r].jac[p][k];
      g[3 * p + k] = sum;
    }
  return CDYN_OK;
}

double cdyn_constraint_fd_step(const cdyn_constraint_type *type, const double *const *x)
{
  if (!type || !x || type->nparticles < 1 || type->nparticles > CDYN_MAX_PARTICLES)
    return NAN;
  unsigned np = type->nparticles;
  double X = 0, s = 0;
  for (unsigned a = 0; a < np; a++) {
    if (!x[a])
      return NAN;
    for (unsigned k = 0; k < 3; k++)
      X = fmax(X, fabs(x[a][k]));
    for (unsigned b = 0; b < a; b++) {
      double d0 = x[a][0] - x[b][0], d1 = x[a][1] - x[b][1], d2 = x[a][2] - x[b][2];
      s = fmax(s, sqrt(d0 * d0 + d1 * d1 + d2 * d2));
    }
  }
  if (!(s > 0))
    s = X;
  if (!(s > 0))
    s = 1.0;
  /* As cube roots apart, so that coordinates of 1e200 do not overflow. */
  double cs = cbrt(s);
  return cbrt(3 * DBL_EPSILON) * cs * cs * cbrt(s + X);
}

int cdyn_constraint_fd_hess(const cdyn_constraint_type *type, const double *params, const double *const *x,
                            double t, const double *lambda, double *K)
{
  if (!type || !type->eval)
    return cdyn_error(CDYN_EINVAL, "cdyn_constraint_fd_hess: the type or its eval is NULL");
  if (type->nparticles < 1 || type->nparticles > CDYN_MAX_PARTICLES || type->rows < 1 ||
      type->rows > CDYN_MAX_ROWS)
    return cdyn_error(CDYN_EINVAL, "cdyn_constraint_fd_hess: type '%s' has %u particles and %u rows (1 .. %d, 1 .. %d)",
                      type->name ? type->name : "(unnamed)", type->nparticles, type->rows, CDYN_MAX_PARTICLES,
                      CDYN_MAX_ROWS);
  if (!x || !lambda || !K || (type->nparams && !params))
    return cdyn_error(CDYN_EINVAL, "cdyn_constraint_fd_hess: x, lambda, K or params is NULL (type '%s')",
                      type->name);
  unsigned np = type->nparticles, n = 3 * np;
  double xl[CDYN_MAX_PARTICLES][3];
  const double *xp[CDYN_MAX_PARTICLES] = {NULL};
  for (unsigned p = 0; p < np; p++) {
    if (!x[p])
      return cdyn_error(CDYN_EINVAL, "cdyn_constraint_fd_hess: the position of particle %u is NULL (type '%s')", p,
                        type->name);
    memcpy(xl[p], x[p], sizeof xl[p]);
    xp[p] = xl[p];
  }
  cdyn_row rows[CDYN_MAX_ROWS];
  double gp[3 * CDYN_MAX_PARTICLES], gm[3 * CDYN_MAX_PARTICLES];
  /* At x itself: the type says where Phi is not differentiable. */
  int rc = force(type, params, xp, t, lambda, rows, gp);
  if (rc)
    return rc;
  double delta = cdyn_constraint_fd_step(type, xp);
  int finite = isfinite(delta);
  for (unsigned p = 0; p < np; p++)
    finite &= isfinite(xl[p][0]) && isfinite(xl[p][1]) && isfinite(xl[p][2]);
  if (!finite)
    return cdyn_error(CDYN_ENONFINITE, "constraint type '%s' (geometric stiffness by finite differences): a position "
                      "is not finite",
                      type->name);
  for (unsigned j = 0; j < n; j++) {
    double *c = &xl[j / 3][j % 3], c0 = *c;
    *c = c0 + delta;
    double up = *c;
    if (!(rc = force(type, params, xp, t, lambda, rows, gp))) {
      *c = c0 - delta;
      double dx = up - *c;
      if (!(rc = force(type, params, xp, t, lambda, rows, gm)))
        for (unsigned i = 0; i < n; i++)
          K[i * n + j] = (gp[i] - gm[i]) / dx;
    }
    if (rc)
      return cdyn_error(rc, "constraint type '%s' gives no hess, and its eval failed at x_%u[%u] %+g, a point of "
                        "the central differences that take its geometric stiffness (status %d): %s",
                        type->name, j / 3, j % 3, *c - c0, rc, cdyn_errmsg());
    *c = c0;
  }
  for (unsigned i = 0; i < n; i++)
    for (unsigned j = 0; j < i; j++)
      K[i * n + j] = K[j * n + i] = 0.5 * (K[i * n + j] + K[j * n + i]);
  if (!cdyn_all_finite(K, (size_t)n * n))
    return cdyn_error(CDYN_ENONFINITE, "constraint type '%s' (geometric stiffness by finite differences): an entry "
                      "of K is not finite",
                      type->name);
  return CDYN_OK;
}
