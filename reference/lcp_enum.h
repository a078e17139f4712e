/*
 * reference/lcp_enum.h: the contact problem solved by exhaustive
 * enumeration of the handled set, for checking the library's active-set
 * algorithms (lib/activeset/) against a method that shares none of their
 * code.
 *
 * The problem (cdyn/contact.h), over n rows with E the equality rows and
 * I the inequality rows:
 *   w = A mu + b,  A symmetric positive semi-definite,
 *   k in E:  w_k = 0, mu_k of any sign;
 *   k in I:  w_k >= 0, mu_k >= 0, mu_k w_k = 0.
 * For every subset S of I the handled set H = S + E gives
 *   A_HH mu_H = -b_H  (minimum-norm least squares),  mu_k = 0 off H,
 *   w = A mu + b,
 * and S is accepted when
 *   mu_k >= -tol_mu    for k in S,
 *   w_k  >= -tol_w'_k  for k in I \ S,
 *   |w_k| <= tol_w'_k  for k in H (the handled equations hold: the
 *                      least-squares solution is a solution),
 * where tol_w'_k = tol_w + REF_LCP_ROUND n eps (|b_k| + sum_j |A_kj mu_j|)
 * adds the rounding error of w = A mu + b and of the solve.
 * Every solution of the problem is, up to the tolerances, an accepted
 * subset's (take S = {k in I : mu_k > 0} and a minimum-norm mu), and
 * every accepted subset is a solution; w, and J^T mu when A = J W J^T, are
 * the same for all of them, mu only when A is definite.
 */
#ifndef CDYN_REFERENCE_LCP_ENUM_H
#define CDYN_REFERENCE_LCP_ENUM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most inequality rows enumerated (2^16 subsets). */
#define REF_LCP_MAX_INEQ 16

/*
 * Singular values of A_HH at or below this fraction of the largest are
 * treated as zero by the least-squares solve (LAPACK dgelsd's rcond).
 */
#define REF_LCP_RCOND 1e-12

/* The constant of the rounding floor of the w tests (see above). */
#define REF_LCP_ROUND 16

/*
 * Enumerate the 2^|I| subsets of the inequality rows of the problem
 * (n rows, A n*n row-major, b n values, equality n flags or NULL for none).
 * tol_w > 0 and tol_mu > 0 are the absolute tolerances above.
 *
 * On success fills mu and w (n each) with the accepted subset that has the
 * fewest rows (ties: the smallest max |mu_k|, then the lowest bitmask,
 * bit i standing for the i-th inequality row in index order), handled (n flags: that subset plus E;
 * may be NULL) and *accepted (how many subsets were accepted; may be
 * NULL), and returns CDYN_OK.
 *
 * Errors (codes of cdyn/error.h, message through cdyn_errmsg):
 *   CDYN_EINVAL      n = 0, A, b, mu or w NULL, a tolerance not positive
 *                    and finite, or more than REF_LCP_MAX_INEQ inequality
 *                    rows;
 *   CDYN_ENONFINITE  A or b not finite;
 *   CDYN_ENOMEM      out of memory;
 *   CDYN_ESOLVE      LAPACK failed, or no subset was accepted (the problem
 *                    has no solution within the tolerances; *accepted is
 *                    then 0 and mu, w are left unspecified).
 * Subsets are visited by size, then bitmask; with accepted NULL the search
 * stops after the last subset of the first accepted one's size, and
 * returns the same answer, bit for bit: every subset that can be the
 * answer (none smaller is accepted, and among those of its size the
 * choice, smallest max |mu_k| then lowest bitmask, sees them all) has been
 * visited, and each subset's solve and test do not depend on which others
 * were visited.  That is much less work when the answer is small.
 * It allocates on every call: a reference for tests, not for a step.
 */
int ref_lcp_enumerate(size_t n, const double *A, const double *b, const unsigned char *equality,
                      double tol_w, double tol_mu, double *mu, double *w, unsigned char *handled,
                      unsigned long *accepted);

#ifdef __cplusplus
}
#endif
#endif
