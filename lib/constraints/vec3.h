/*
 * constraints/vec3.h: small 3-vector helpers shared by the constraint types
 * (private; static inline so that each type stays one translation unit).
 *
 * Unit vector of a moving vector.  For n(s) with n' = dn/ds, n'' = d2n/ds2,
 * N = |n| > 0 and e = n / N, differentiating e = n / N twice gives
 *   e'  = (n' - (e.n') e) / N
 *   e'' = (n'' - (e.n'') e) / N - |e'|^2 e - 2 (e.n' / N) e'
 * (the first term is the part of n'' across e, the second keeps |e| = 1,
 * the third is the change of 1/N).  For a vector whose ends move with
 * constant velocity (n'' = 0) this is the familiar e'' = -|e'|^2 e -
 * 2 (N'/N) e'.  Several types need these, so they are written once here.
 *
 * Second derivatives in position (for the types' `hess`).  For a fixed
 * vector A, f = A.e has gradient g = (A - f e) / N in n and Hessian
 *   d^2 f / dn dn = -(e g^T + g e^T) / N - f (I - e e^T) / N^2
 * (differentiate g with df = g.dn, de = (I - e e^T) dn / N, dN = e.dn).
 * For two unit vectors e = n / N, w = m / M and a fixed matrix C,
 * f = e^T C w has the mixed block d^2 f / dn dm = P_e C P_w / (N M),
 * P_e = I - e e^T.  A type whose Phi is a function of differences
 * e_j = x_to(j) - x_from(j) of its particles has the Hessian in x of
 * its Hessian H in the e_j by the chain rule, d e_j / d x = +-I:
 * block (p, q) of K is sum over j, l of s_pj s_ql H_jl, s_pj = +1 if
 * p = to(j), -1 if p = from(j), else 0.
 */
#ifndef CDYN_CONSTRAINTS_VEC3_H
#define CDYN_CONSTRAINTS_VEC3_H

#include <float.h>
#include <math.h>

#include "cdyn/constraint.h"
#include "cdyn/error.h"

static inline double cdyn_dot3(const double a[3], const double b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void cdyn_cross3(const double a[3], const double b[3], double c[3])
{
  double c0 = a[1] * b[2] - a[2] * b[1];
  double c1 = a[2] * b[0] - a[0] * b[2];
  double c2 = a[0] * b[1] - a[1] * b[0];
  c[0] = c0;
  c[1] = c1;
  c[2] = c2;
}

static inline void cdyn_sub3(const double a[3], const double b[3], double c[3])
{
  c[0] = a[0] - b[0];
  c[1] = a[1] - b[1];
  c[2] = a[2] - b[2];
}

/*
 * First and second s-derivatives e1, e2 of e = n / N (see the file's
 * comment), given e, N, n' (dn) and n'' (ddn, may be NULL for zero).
 * Either output may be NULL.
 */
static inline void cdyn_unit_derivs(const double e[3], double N, const double dn[3],
                                    const double *ddn, double e1[3], double e2[3])
{
  double edn = cdyn_dot3(e, dn), d1[3];
  for (int k = 0; k < 3; k++)
    d1[k] = (dn[k] - edn * e[k]) / N;
  if (e1)
    for (int k = 0; k < 3; k++)
      e1[k] = d1[k];
  if (e2) {
    double edd = ddn ? cdyn_dot3(e, ddn) : 0.0, d1d1 = cdyn_dot3(d1, d1);
    for (int k = 0; k < 3; k++)
      e2[k] = ((ddn ? ddn[k] : 0.0) - edd * e[k]) / N - d1d1 * e[k] - 2.0 * (edn / N) * d1[k];
  }
}

/*
 * The Hessian H (3 x 3, row-major) in n of f = A.e, e = n / N the unit
 * vector of n (see the file's comment).
 */
static inline void cdyn_unit_dot_hess(const double e[3], double N, const double A[3], double H[9])
{
  double f = cdyn_dot3(A, e), g[3];
  for (int k = 0; k < 3; k++)
    g[k] = (A[k] - f * e[k]) / N;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      H[3 * i + j] = -(e[i] * g[j] + g[i] * e[j]) / N - f * ((i == j) - e[i] * e[j]) / (N * N);
}

/* The matrix C (row-major) with a^T C b = w . (a x b), C_ij = eps_ijk w_k;
   C a = a x w, so C = -[w]x. */
static inline void cdyn_triple_matrix(const double w[3], double C[9])
{
  C[0] = 0;
  C[1] = w[2];
  C[2] = -w[1];
  C[3] = -w[2];
  C[4] = 0;
  C[5] = w[0];
  C[6] = w[1];
  C[7] = -w[0];
  C[8] = 0;
}

/* C = A B for 3 x 3 row-major matrices; with ta, A^T in place of A. */
static inline void cdyn_mul33(const double *A, int ta, const double *B, double *C)
{
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++)
        s += (ta ? A[3 * k + i] : A[3 * i + k]) * B[3 * k + j];
      C[3 * i + j] = s;
    }
}

/*
 * Block (I, J) of a symmetric matrix H of m x m blocks of 3 x 3 (row-major)
 * set to M, and block (J, I) to M^T.
 */
static inline void cdyn_put_block(double *H, unsigned m, unsigned I, unsigned J, const double M[9])
{
  unsigned w = 3 * m;
  for (unsigned i = 0; i < 3; i++)
    for (unsigned j = 0; j < 3; j++)
      H[(3 * I + i) * w + 3 * J + j] = H[(3 * J + j) * w + 3 * I + i] = M[3 * i + j];
}

/* The mixed block P_e C P_w / (N M) (see the file's comment). */
static inline void cdyn_unit_pair_hess(const double e[3], double N, const double w[3], double M,
                                       const double C[9], double H[9])
{
  double Pe[9], Pw[9], T[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      Pe[3 * i + j] = (i == j) - e[i] * e[j];
      Pw[3 * i + j] = (i == j) - w[i] * w[j];
    }
  cdyn_mul33(Pe, 0, C, T);
  cdyn_mul33(T, 0, Pw, H);
  for (int k = 0; k < 9; k++)
    H[k] /= N * M;
}

/*
 * K ((3 np)^2, row-major, overwritten) = s times the Hessian in the
 * particles' positions of a function whose Hessian in the m differences
 * e_j = x[to[j]] - x[from[j]] is H ((3 m)^2, row-major): see the file's
 * comment.
 */
static inline void cdyn_hess_scatter(unsigned m, const unsigned *to, const unsigned *from, const double *H,
                                     double s, unsigned np, double *K)
{
  unsigned n = 3 * np, w = 3 * m;
  for (unsigned k = 0; k < n * n; k++)
    K[k] = 0;
  for (unsigned j = 0; j < m; j++)
    for (unsigned l = 0; l < m; l++)
      for (unsigned a = 0; a < 3; a++)
        for (unsigned b = 0; b < 3; b++) {
          double h = s * H[(3 * j + a) * w + 3 * l + b];
          K[(3 * to[j] + a) * n + 3 * to[l] + b] += h;
          K[(3 * to[j] + a) * n + 3 * from[l] + b] -= h;
          K[(3 * from[j] + a) * n + 3 * to[l] + b] -= h;
          K[(3 * from[j] + a) * n + 3 * from[l] + b] += h;
        }
}

/* K = 0 for np particles (a type linear in x). */
static inline void cdyn_hess_zero(unsigned np, double *K)
{
  for (unsigned k = 0; k < 9 * np * np; k++)
    K[k] = 0;
}

/*
 * A one-particle type's eval at rest (zero velocity) into rows (at most
 * CDYN_MAX_ROWS): the checks its hess runs first, so that hess fails
 * exactly where eval does.
 */
typedef int (*cdyn_eval_fn)(const double *params, const double *const *x, const double *const *v, double t,
                            cdyn_row *rows);
static inline int cdyn_eval_at_rest(cdyn_eval_fn eval, const double *params, const double *const *x, double t,
                                    cdyn_row *rows)
{
  static const double rest[3] = {0, 0, 0};
  const double *v[1] = {rest};
  return eval(params, x, v, t, rows);
}

/*
 * CDYN_OK when every value of K ((3 np)^2) is finite, else CDYN_ENONFINITE
 * with a message naming the type (`hess` reports, as eval does, a value
 * that overflowed: here also through multipliers that are too large).
 */
static inline int cdyn_hess_finite(const char *what, const double *K, unsigned np)
{
  for (unsigned k = 0; k < 9 * np * np; k++)
    if (!isfinite(K[k]))
      return cdyn_error(CDYN_ENONFINITE,
                        "%s constraint: a geometric stiffness value is not finite (positions or multipliers too large)",
                        what);
  return CDYN_OK;
}

/*
 * K = s I (3 x 3), the geometric stiffness of a row (|d|^2 - R^2) / (2 R)
 * with s = its multiplier over R, checked finite for `what`.
 */
static inline int cdyn_hess_scaled_identity(const char *what, double s, double *K)
{
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      K[3 * a + b] = a == b ? s : 0.0;
  return cdyn_hess_finite(what, K, 1);
}

/*
 * 1 when every value a type filled into its rows (phi, phi_t, jdotv,
 * phi_tt and the Jacobian blocks of its np particles) is finite.
 */
static inline int cdyn_rows_finite(const cdyn_row *rows, unsigned nrows, unsigned np)
{
  for (unsigned r = 0; r < nrows; r++) {
    const cdyn_row *w = &rows[r];
    if (!isfinite(w->phi) || !isfinite(w->phi_t) || !isfinite(w->jdotv) || !isfinite(w->phi_tt))
      return 0;
    for (unsigned p = 0; p < np; p++)
      if (!isfinite(w->jac[p][0]) || !isfinite(w->jac[p][1]) || !isfinite(w->jac[p][2]))
        return 0;
  }
  return 1;
}

/*
 * |a| without overflow or underflow for finite a of any size (scaled by
 * the largest component), so that "zero vector" means exactly zero and a
 * huge but finite parameter vector is not taken for an infinite one.
 */
static inline double cdyn_norm3(const double a[3])
{
  double m = fmax(fabs(a[0]), fmax(fabs(a[1]), fabs(a[2])));
  if (!(m > 0) || !isfinite(m))
    return m;
  double b0 = a[0] / m, b1 = a[1] / m, b2 = a[2] / m;
  return m * sqrt(b0 * b0 + b1 * b1 + b2 * b2);
}

/*
 * The row of a linear constraint Phi = c n.(x - p) on one particle
 * (parameters p[3], n[3]): J = c n^T, and Phi_t, (Jv)_q v, phi_tt are 0.
 * plane takes c = 1/|n|, halfspace c = 1.
 */
static inline int cdyn_linear_row(const char *what, const double *p, const double *x, double c, cdyn_row *row)
{
  double d[3];
  cdyn_sub3(x, p, d);
  for (int k = 0; k < 3; k++)
    row->jac[0][k] = c * p[3 + k];
  row->phi = cdyn_dot3(row->jac[0], d);
  if (!cdyn_rows_finite(row, 1, 1))
    return cdyn_error(CDYN_ENONFINITE, "%s constraint: a value is not finite (position non-finite or beyond 1e308)",
                      what);
  return CDYN_OK;
}

/*
 * The geometric stiffness of such a row: K = 0 (3 x 3), Phi being linear
 * in x, after the checks of cdyn_linear_row, so that hess fails where
 * eval does.
 */
static inline int cdyn_linear_hess(const char *what, const double *p, const double *x, double c, double *K)
{
  cdyn_row row = {0};
  int rc = cdyn_linear_row(what, p, x, c, &row);
  if (rc)
    return rc;
  cdyn_hess_zero(1, K);
  return CDYN_OK;
}

/* A wall's or plane's parameters p[3], n[3]: n finite and non-zero. */
static inline int cdyn_check_normal(const char *what, const double *p)
{
  double nn = cdyn_norm3(p + 3);
  if (!isfinite(nn) || !(nn > 0))
    return cdyn_error(CDYN_EINVAL, "%s constraint: normal (%g, %g, %g) must be finite and non-zero", what, p[3],
                      p[4], p[5]);
  return CDYN_OK;
}

/*
 * The offset of d along the unit normal of a x b, shared by node_triangle
 * (a, b the triangle's edges, d the node from its first vertex) and
 * edge_edge (a, b the two edges, d between their first ends):
 *   n = a x b, N = |n|, nh = n / N,  phi = nh . d
 * With g = (d - (nh.d) nh) / N = dphi/dn and dn = da x b + a x db:
 *   dphi/da = b x g,  dphi/db = g x a,  dphi/dd = nh.
 * Along a motion with a' = fa, b' = fb, d' = fd (and a'' = b'' = d'' = 0,
 * the ends moving at constant velocity): n' = fa x b + a x fb,
 * n'' = 2 fa x fb, and with nh', nh'' from cdyn_unit_derivs
 *   phi'' = nh''.d + 2 nh'.fd.
 * Second derivatives (cdyn_normal_offset_hess): phi is a function of n
 * and d, and n = a x b is bilinear, dn = Na da + Nb db with Na = -[b]x,
 * Nb = [a]x.  With Hn = d^2 phi / dn dn = -(nh g^T + g nh^T) / N
 * - phi P / N^2 (the unit-vector Hessian above, A = d), P = I - nh nh^T,
 * d^2 phi / dn dd = P / N, and the second derivative of n entering
 * through g . (a x b) = a^T C(g) b (cdyn_triple_matrix), the Hessian in
 * (a, b, d) is
 *   H_aa = Na^T Hn Na,  H_ab = Na^T Hn Nb + C(g),  H_bb = Nb^T Hn Nb,
 *   H_ad = Na^T P / N,  H_bd = Nb^T P / N,         H_dd = 0.
 * Returns CDYN_OK; CDYN_ENONFINITE when the inputs overflow; and
 * CDYN_EDEGENERATE when N <= 16 eps |a| |b|, where the direction of n is
 * rounding noise (parallel edges, a triangle without area), with `what`
 * naming the constraint type and `degenerate` describing that case.
 */
typedef struct cdyn_normal_offset {
  double phi, da[3], db[3], dd[3], second;
} cdyn_normal_offset;

/* n = a x b and N = |n| after the checks above (eval's and hess's). */
static inline int cdyn_normal_frame(const double a[3], const double b[3], const double d[3], const char *what,
                                    const char *degenerate, double n[3], double *Nout)
{
  cdyn_cross3(a, b, n);
  double N = sqrt(cdyn_dot3(n, n));
  double la = sqrt(cdyn_dot3(a, a)), lb = sqrt(cdyn_dot3(b, b));
  if (!isfinite(N) || !isfinite(la) || !isfinite(lb) || !isfinite(cdyn_dot3(d, d)))
    return cdyn_error(CDYN_ENONFINITE, "%s constraint: positions non-finite or too large (beyond 1e77)", what);
  if (!(N > 16 * DBL_EPSILON * la * lb))
    return cdyn_error(CDYN_EDEGENERATE, "%s constraint: %s (|n| = %g for lengths %g, %g)", what, degenerate, N,
                      la, lb);
  *Nout = N;
  return CDYN_OK;
}

static inline int cdyn_normal_offset_eval(const double a[3], const double b[3], const double d[3],
                                          const double fa[3], const double fb[3], const double fd[3],
                                          const char *what, const char *degenerate,
                                          cdyn_normal_offset *out)
{
  double n[3], N = 0;
  int rc = cdyn_normal_frame(a, b, d, what, degenerate, n, &N);
  if (rc)
    return rc;
  double nh[3] = {n[0] / N, n[1] / N, n[2] / N}, nd = cdyn_dot3(nh, d), g[3];
  for (int k = 0; k < 3; k++)
    g[k] = (d[k] - nd * nh[k]) / N;
  out->phi = nd;
  cdyn_cross3(b, g, out->da);
  cdyn_cross3(g, a, out->db);
  for (int k = 0; k < 3; k++)
    out->dd[k] = nh[k];
  double dn[3], u[3], w[3], ddn[3], nh1[3], nh2[3];
  cdyn_cross3(fa, b, u);
  cdyn_cross3(a, fb, w);
  cdyn_cross3(fa, fb, ddn);
  for (int k = 0; k < 3; k++) {
    dn[k] = u[k] + w[k];
    ddn[k] *= 2;
  }
  cdyn_unit_derivs(nh, N, dn, ddn, nh1, nh2);
  out->second = cdyn_dot3(nh2, d) + 2 * cdyn_dot3(nh1, fd);
  return CDYN_OK;
}

/* The Hessian H (9 x 9, row-major, variables a, b, d) of phi (see above). */
static inline int cdyn_normal_offset_hess(const double a[3], const double b[3], const double d[3],
                                          const char *what, const char *degenerate, double H[81])
{
  double n[3], N = 0;
  int rc = cdyn_normal_frame(a, b, d, what, degenerate, n, &N);
  if (rc)
    return rc;
  double nh[3] = {n[0] / N, n[1] / N, n[2] / N}, nd = cdyn_dot3(nh, d), g[3];
  for (int k = 0; k < 3; k++)
    g[k] = (d[k] - nd * nh[k]) / N;
  double Hn[9], Na[9], Nb[9], Cg[9], P[9], T[9], B[9];
  cdyn_unit_dot_hess(nh, N, d, Hn);
  cdyn_triple_matrix(b, Na); /* C(b) = -[b]x */
  cdyn_triple_matrix(a, Nb);
  for (int k = 0; k < 9; k++)
    Nb[k] = -Nb[k]; /* [a]x */
  cdyn_triple_matrix(g, Cg);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      P[3 * i + j] = ((i == j) - nh[i] * nh[j]) / N;
  for (int k = 0; k < 81; k++)
    H[k] = 0;
  cdyn_mul33(Na, 1, Hn, T);
  cdyn_mul33(T, 0, Na, B);
  cdyn_put_block(H, 3, 0, 0, B);
  cdyn_mul33(T, 0, Nb, B);
  for (int k = 0; k < 9; k++)
    B[k] += Cg[k];
  cdyn_put_block(H, 3, 0, 1, B);
  cdyn_mul33(Na, 1, P, B);
  cdyn_put_block(H, 3, 0, 2, B);
  cdyn_mul33(Nb, 1, Hn, T);
  cdyn_mul33(T, 0, Nb, B);
  cdyn_put_block(H, 3, 1, 1, B);
  cdyn_mul33(Nb, 1, P, B);
  cdyn_put_block(H, 3, 1, 2, B);
  return CDYN_OK;
}

/*
 * A whole normal-offset constraint row (node_triangle, edge_edge): the
 * three differences a, b, d are x[to[j]] - x[from[j]] (j = 0, 1, 2), the
 * kernel above gives Phi + h and its gradients in a, b, d, and the chain
 * rule through the differences gives J: +dPhi/de_j on particle to[j],
 * -dPhi/de_j on from[j].  (Jv)_q v is the kernel's Phi''; Phi_t = phi_tt
 * = 0.  Checks the thickness h = p[0] >= 0 too (cdyn_check_thickness).
 */
typedef struct cdyn_offset_layout {
  unsigned to[3], from[3];
  const char *what, *degenerate;
} cdyn_offset_layout;

static inline int cdyn_check_thickness(const char *what, const double *p)
{
  if (!isfinite(p[0]) || !(p[0] >= 0))
    return cdyn_error(CDYN_EINVAL, "%s constraint: thickness %g must be finite and >= 0", what, p[0]);
  return CDYN_OK;
}

static inline int cdyn_offset_row(const cdyn_offset_layout *L, double h, const double *const *x,
                                  const double *const *v, cdyn_row *row)
{
  double e[3][3], f[3][3];
  for (int j = 0; j < 3; j++) {
    cdyn_sub3(x[L->to[j]], x[L->from[j]], e[j]);
    cdyn_sub3(v[L->to[j]], v[L->from[j]], f[j]);
  }
  cdyn_normal_offset o = {0};
  int rc = cdyn_normal_offset_eval(e[0], e[1], e[2], f[0], f[1], f[2], L->what, L->degenerate, &o);
  if (rc)
    return rc;
  row->phi = o.phi - h;
  const double *g[3] = {o.da, o.db, o.dd};
  for (int p = 0; p < 4; p++)
    for (int k = 0; k < 3; k++)
      row->jac[p][k] = 0;
  for (int j = 0; j < 3; j++)
    for (int k = 0; k < 3; k++) {
      row->jac[L->to[j]][k] += g[j][k];
      row->jac[L->from[j]][k] -= g[j][k];
    }
  row->jdotv = o.second;
  if (!cdyn_rows_finite(row, 1, 4))
    return cdyn_error(CDYN_ENONFINITE, "%s constraint: a value is not finite", L->what);
  return CDYN_OK;
}

/*
 * The geometric stiffness lambda Hess Phi of a normal-offset row: the
 * kernel's Hessian in (a, b, d) through the differences, as in
 * cdyn_offset_row (the thickness is a constant and drops out).
 */
static inline int cdyn_offset_hess(const cdyn_offset_layout *L, const double *const *x, double lambda, double *K)
{
  double e[3][3], H[81];
  for (int j = 0; j < 3; j++)
    cdyn_sub3(x[L->to[j]], x[L->from[j]], e[j]);
  int rc = cdyn_normal_offset_hess(e[0], e[1], e[2], L->what, L->degenerate, H);
  if (rc)
    return rc;
  cdyn_hess_scatter(3, L->to, L->from, H, lambda, 4, K);
  return cdyn_hess_finite(L->what, K, 4);
}

#endif
