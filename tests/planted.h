/*
 * tests/planted.h: contact problems w = A mu + b with a planted solution,
 * shared by test_lcp and test_subsolve.  Row a gets mu*_a and w*_a that
 * satisfy its conditions (cdyn/contact.h): an equality row a multiplier of
 * either sign and w* = 0; an inequality row, with equal chances, a pushing
 * multiplier in [0.1, 1] and w* = 0, or mu* = 0 and w* in [0.1, 1]; then
 * b = w* - A mu*, so that (mu*, w*) solves the problem.  The draws come
 * from the caller's generator in the order of the rows.
 */
#ifndef CDYN_TESTS_PLANTED_H
#define CDYN_TESTS_PLANTED_H

#include <stddef.h>

#include <gsl/gsl_rng.h>

/* mu* and w* of one row (eq: an equality row). */
static inline void planted_row(gsl_rng *r, int eq, double *mu, double *w)
{
  if (eq) {
    *mu = 2 * gsl_rng_uniform(r) - 1;
    *w = 0;
  } else if (gsl_rng_uniform_int(r, 2)) {
    *mu = 0.1 + 0.9 * gsl_rng_uniform(r);
    *w = 0;
  } else {
    *mu = 0;
    *w = 0.1 + 0.9 * gsl_rng_uniform(r);
  }
}

/* b = w* - A mu*, A n x n row-major. */
static inline void planted_b(size_t n, const double *A, const double *mu, const double *w, double *b)
{
  for (size_t a = 0; a < n; a++) {
    double s = 0;
    for (size_t c = 0; c < n; c++)
      s += A[a * n + c] * mu[c];
    b[a] = w[a] - s;
  }
}

#endif
