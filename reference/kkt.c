/*
 * reference/kkt.c: constrained accelerations and multipliers from the full
 * dense KKT (saddle-point) system, solved by LAPACK's SVD least-squares
 * driver.
 *
 * Equations implemented
 * ---------------------
 * The equations of motion with Lagrange multipliers (001 eqs 3 and 5-10,
 * the library's sign convention M qdd + J^T lambda = F) and Baumgarte's
 * stabilisation (001 eq 8: Phi'' + 2 alpha Phi' + beta^2 Phi = 0, with
 * Phi'' = J qdd + jdotv + phi_tt and Phi' = J v + Phi_t):
 *
 *   M qdd + J^T lambda = F,
 *   J qdd              = -jdotv - phi_tt - 2 alpha (J v + Phi_t) - beta^2 Phi.
 *
 * This is one linear system in (qdd, lambda) of size N = 3n + m.  The
 * library eliminates qdd instead (A lambda = J W F - gamma with
 * A = J W J^T); solving the unreduced system checks that elimination, the
 * sparse assembly of A and the linear solvers on A.
 *
 * Choices made
 * ------------
 * Scaling.  The rows and columns of particle i are scaled by m_i^(-1/2),
 * i.e. the unknown is y = M^(1/2) qdd:
 *
 *   [ I     (J D)^T ] [ y      ]   [ D F ]
 *   [ J D      0    ] [ lambda ] = [ c   ],     D = M^(-1/2),  qdd = D y.
 *
 * The scaled matrix has eigenvalues 1 (3n - m times, when J has full rank)
 * and (1 +- sqrt(1 + 4 sigma_j^2)) / 2 for each singular value sigma_j of
 * J D, so its singular values do not depend on the units of mass, and a
 * dependent constraint row (sigma_j = 0) shows up as a singular value
 * that is zero up to rounding rather than one hidden among mass-scaled
 * ones.  Note (J D)(J D)^T = J W J^T = A, the library's matrix.
 *
 * Solver: LAPACKE_dgelsd (SVD, minimum-norm least squares) rather than
 * dsysv (Bunch-Kaufman) or dgesv (LU).  All three are backward stable on a
 * nonsingular system; dgelsd was chosen because
 *   - it reveals the numerical rank and gives the singular values, so the
 *     caller gets the condition number from which test tolerances are
 *     derived, at no extra cost;
 *   - with dependent constraint rows (a redundant link) dsysv or dgesv
 *     either fail on an exactly zero pivot or, far more often, return
 *     multipliers of size 1/eps from a tiny one, while the SVD treats
 *     singular values <= CDYN_REF_KKT_RCOND * s_max as zero and returns the
 *     minimum-norm solution.  The null space of the KKT matrix is
 *     {(0, mu) : J^T mu = 0}, so that solution has lambda in range(J):
 *     exactly the minimum-norm lambda that the library's "cholesky" solver
 *     returns on a singular A (range(A) = range(J)), whenever the
 *     right-hand side is consistent.  For inconsistent redundant rows
 *     (duplicated constraints that disagree) the two least-squares problems
 *     weigh the residuals differently and need not agree.
 * The cost, O(N^3) with an SVD's constant, does not matter at the sizes a
 * reference is used for.  K is symmetric, so its row-major storage is also
 * its column-major storage and LAPACK is called column-major, without the
 * transposed copies LAPACKE makes for row-major input.
 *
 * cond_a in the info is computed from the singular values of J D
 * (LAPACKE_dgesvd, values only): cond(A) = (sigma_max / sigma_min)^2.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "kkt.h"

/* The scaled matrix, right-hand side and singular values, freed together. */
typedef struct {
  double *k, *b, *s, *jd, *sa, *superb, *f, *dsc;
} work;

static void work_free(work *w)
{
  free(w->k);
  free(w->b);
  free(w->s);
  free(w->jd);
  free(w->sa);
  free(w->superb);
  free(w->f);
  free(w->dsc);
}

int cdyn_ref_kkt_accel(const cdyn_system *sys, double alpha, double beta,
                       double *qdd, double *lambda)
{
  return cdyn_ref_kkt_accel_info(sys, alpha, beta, qdd, lambda, NULL);
}

int cdyn_ref_kkt_accel_info(const cdyn_system *sys, double alpha, double beta,
                            double *qdd, double *lambda,
                            cdyn_ref_kkt_info *info)
{
  static const char *fn = "cdyn_ref_kkt_accel";
  if (sys == NULL)
    return cdyn_error(CDYN_EINVAL, "%s: sys is NULL", fn);
  if (qdd == NULL)
    return cdyn_error(CDYN_EINVAL, "%s: qdd is NULL", fn);
  if (!isfinite(alpha) || !isfinite(beta))
    return cdyn_error(CDYN_EINVAL, "%s: alpha = %g and beta = %g must be "
                      "finite", fn, alpha, beta);
  const size_t n = cdyn_system_size(sys), m = cdyn_system_row_count(sys);
  const size_t nc = cdyn_system_constraint_count(sys);
  if (m > 0 && lambda == NULL)
    return cdyn_error(CDYN_EINVAL, "%s: lambda is NULL but the system has "
                      "%zu constraint rows", fn, m);
  const size_t n3 = 3 * n, dim = n3 + m;
  /* N^2 doubles must be addressable and N must fit LAPACK's integer. */
  if (dim > (size_t)INT32_MAX || dim > SIZE_MAX / sizeof(double) / dim)
    return cdyn_error(CDYN_EINVAL, "%s: the KKT system of size %zu is too "
                      "large for a dense reference", fn, dim);

  work w = {0};
  w.k = calloc(dim * dim, sizeof *w.k);
  w.b = calloc(dim, sizeof *w.b);
  w.s = calloc(dim, sizeof *w.s);
  w.f = calloc(n3, sizeof *w.f);
  w.dsc = calloc(n, sizeof *w.dsc);
  if (!w.k || !w.b || !w.s || !w.f || !w.dsc) {
    work_free(&w);
    return cdyn_error(CDYN_ENOMEM, "%s: out of memory for a KKT system of "
                      "size %zu", fn, dim);
  }

  int rc = cdyn_system_forces(sys, w.f);
  if (rc != CDYN_OK) {
    work_free(&w);
    return rc;
  }
  for (size_t i = 0; i < n; i++) {
    double mass;
    if ((rc = cdyn_system_get_particle(sys, i, &mass, NULL, NULL)) != CDYN_OK) {
      work_free(&w);
      return rc;
    }
    w.dsc[i] = 1.0 / sqrt(mass);
  }

  /* The (1,1) block I and the force rows D F. */
  for (size_t k = 0; k < n3; k++) {
    w.k[k * dim + k] = 1.0;
    w.b[k] = w.dsc[k / 3] * w.f[k];
  }

  /* Constraint rows through each type's public eval. */
  const double *q = cdyn_system_positions(sys);
  const double *v = cdyn_system_velocities(sys);
  const double t = cdyn_system_time(sys);
  size_t row = n3;
  for (size_t c = 0; c < nc; c++) {
    const cdyn_constraint_type *type;
    size_t part[CDYN_MAX_PARTICLES];
    double params[CDYN_MAX_PARAMS];
    cdyn_row rows[CDYN_MAX_ROWS];
    if ((rc = cdyn_system_get_constraint(sys, c, &type, part, params))
        != CDYN_OK) {
      work_free(&w);
      return rc;
    }
    const double *xp[CDYN_MAX_PARTICLES], *vp[CDYN_MAX_PARTICLES];
    for (unsigned a = 0; a < type->nparticles; a++) {
      xp[a] = q + 3 * part[a];
      vp[a] = v + 3 * part[a];
    }
    /* Types fill only their non-zero entries. */
    memset(rows, 0, sizeof rows);
    if ((rc = type->eval(params, xp, vp, t, rows)) != CDYN_OK) {
      work_free(&w);
      return rc;
    }
    for (unsigned r = 0; r < type->rows; r++, row++) {
      if (row >= dim) {
        work_free(&w);
        return cdyn_error(CDYN_EINVAL, "%s: the constraints have more rows "
                          "than cdyn_system_row_count() = %zu", fn, m);
      }
      const cdyn_row *cr = &rows[r];
      double jv = 0;
      for (unsigned a = 0; a < type->nparticles; a++)
        for (int d = 0; d < 3; d++) {
          const size_t col = 3 * part[a] + (size_t)d;
          const double jd = cr->jac[a][d] * w.dsc[part[a]];
          w.k[row * dim + col] += jd;
          w.k[col * dim + row] += jd;
          jv += cr->jac[a][d] * vp[a][d];
        }
      w.b[row] = -cr->jdotv - cr->phi_tt - 2 * alpha * (jv + cr->phi_t) -
                 beta * beta * cr->phi;
    }
  }
  if (row != dim) {
    work_free(&w);
    return cdyn_error(CDYN_EINVAL, "%s: the constraints have %zu rows, "
                      "cdyn_system_row_count() says %zu", fn, row - n3, m);
  }
  for (size_t k = 0; k < dim * dim; k++)
    if (!isfinite(w.k[k])) {
      work_free(&w);
      return cdyn_error(CDYN_ENONFINITE, "%s: the KKT matrix is not finite",
                        fn);
    }
  for (size_t k = 0; k < dim; k++)
    if (!isfinite(w.b[k])) {
      work_free(&w);
      return cdyn_error(CDYN_ENONFINITE, "%s: the right-hand side is not "
                        "finite (row %zu)", fn, k);
    }

  /* cond(A) from the singular values of J D, before dgelsd overwrites K. */
  size_t rank_a = 0;
  double cond_a = 1;
  if (info != NULL && m > 0) {
    const size_t ns = m < n3 ? m : n3;
    w.jd = malloc(m * n3 * sizeof *w.jd);
    w.sa = malloc((ns ? ns : 1) * sizeof *w.sa);
    w.superb = malloc((ns ? ns : 1) * sizeof *w.superb);
    if (!w.jd || !w.sa || !w.superb) {
      work_free(&w);
      return cdyn_error(CDYN_ENOMEM, "%s: out of memory for the SVD of J D",
                        fn);
    }
    for (size_t r = 0; r < m; r++)
      memcpy(w.jd + r * n3, w.k + (n3 + r) * dim, n3 * sizeof *w.jd);
    /*
     * The row-major m x 3n block read column-major is (J D)^T, which has
     * the same singular values.
     */
    const lapack_int inf = LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N',
                                          (lapack_int)n3, (lapack_int)m,
                                          w.jd, (lapack_int)n3, w.sa, NULL, 1,
                                          NULL, 1, w.superb);
    if (inf != 0) {
      work_free(&w);
      return cdyn_error(CDYN_ESOLVE, "%s: LAPACKE_dgesvd of J D failed "
                        "(info %d)", fn, (int)inf);
    }
    /* Eigenvalues of A are sigma^2, sorted decreasingly. */
    const double e0 = w.sa[0] * w.sa[0];
    for (size_t j = 0; j < ns; j++)
      if (w.sa[j] * w.sa[j] > CDYN_REF_KKT_RCOND * e0 && e0 > 0)
        rank_a++;
    if (rank_a > 0)
      cond_a = e0 / (w.sa[rank_a - 1] * w.sa[rank_a - 1]);
  }

  lapack_int rank = 0;
  const lapack_int info_ls =
    LAPACKE_dgelsd(LAPACK_COL_MAJOR, (lapack_int)dim, (lapack_int)dim, 1, w.k,
                   (lapack_int)dim, w.b, (lapack_int)dim, w.s,
                   CDYN_REF_KKT_RCOND, &rank);
  if (info_ls != 0) {
    work_free(&w);
    return cdyn_error(CDYN_ESOLVE, "%s: LAPACKE_dgelsd failed (info %d): %s",
                      fn, (int)info_ls,
                      info_ls > 0 ? "the SVD did not converge"
                                  : "an argument was rejected");
  }
  for (size_t k = 0; k < dim; k++)
    if (!isfinite(w.b[k])) {
      work_free(&w);
      return cdyn_error(CDYN_ENONFINITE, "%s: the solution is not finite",
                        fn);
    }
  for (size_t k = 0; k < n3; k++)
    qdd[k] = w.dsc[k / 3] * w.b[k];
  if (m > 0)
    memcpy(lambda, w.b + n3, m * sizeof *lambda);
  if (info != NULL) {
    info->dim = dim;
    info->rank = (size_t)rank;
    info->cond_kkt = rank > 0 ? w.s[0] / w.s[rank - 1] : INFINITY;
    info->rank_a = rank_a;
    info->cond_a = cond_a;
  }
  work_free(&w);
  return CDYN_OK;
}
