/*
 * tests/fuzz/fuzz_activeset.c: a libFuzzer harness over
 * cdyn_activeset_solve, the contact problem w = A mu + b of 003.
 *
 * The input chooses the algorithm, the size n (1-8), and either a matrix
 * A = J W J^T built from a chosen J and positive weights (positive
 * semi-definite, possibly singular, as the library's own contact problems
 * are), or an A written entry by entry (symmetric or not, definite or
 * not: what the solver must refuse or solve); then b, the equality rows,
 * a previous handled set and the sign tolerance (read by
 * activeset_input.h, which the corpus driver tests/test_lcp_corpus.c
 * shares).  The checks:
 *   - a non-negative status means finite mu and w, handled flags of 0 or
 *     1, and w = A mu + b to rounding (relative to the terms' scale);
 *   - a negative status comes with a message;
 *   - the exact solver (lcp), given a positive semi-definite A and
 *     returning success, satisfies the complementarity conditions of an
 *     inequality row to its tolerances: mu >= 0, w >= 0 and mu w = 0.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cdyn/cdyn.h>

#include "activeset_input.h"
#include "fuzz.h"

#define MAXN FUZZ_AS_MAXN

/* The problem and the result, printed before a failed check aborts. */
#define CHECK(cond, what)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s, n = %zu, rel_tol = %g, rc = %d\n", cdyn_activeset_name(alg), n, tol, rc);  \
      for (size_t i_ = 0; i_ < n; i_++) {                                                         \
        for (size_t j_ = 0; j_ < n; j_++)                                                         \
          fprintf(stderr, " %.17g", A[i_ * n + j_]);                                              \
        fprintf(stderr, " | b %.17g eq %d | mu %.17g w %.17g\n", b[i_], use_eq && eq[i_], mu[i_], w[i_]); \
      }                                                                                            \
      FUZZ_REQUIRE(0, what);                                                                       \
    }                                                                                              \
  } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fuzz_input in = {.data = data, .size = size};
  fuzz_as_input x;
  fuzz_as_decode(&in, &x);
  size_t alg = x.alg, n = x.n;
  const double *A = x.A, *b = x.b, tol = x.tol;
  const unsigned char *eq = x.eq, *prev = x.prev;
  int psd = x.psd, use_eq = x.use_eq, use_prev = x.use_prev;
  uint8_t junk = x.junk;
  double mu[MAXN], w[MAXN];
  unsigned char handled[MAXN];
  /* The outputs start as garbage (a byte of the input, repeated), so that
     a result that depends on what they held before shows as a failure. */
  memset(mu, junk, sizeof mu);
  memset(w, junk, sizeof w);
  memset(handled, junk, sizeof handled);
  cdyn_activeset_report rep;
  int rc = cdyn_activeset_solve(cdyn_activeset_name(alg), n, A, b, use_eq ? eq : NULL, use_prev ? prev : NULL, tol, mu,
                                w, handled, &rep);
  if (rc < 0) {
    FUZZ_REQUIRE(cdyn_errmsg()[0], "a failed solve without a message");
    return 0;
  }
  double scale = 0;
  for (size_t i = 0; i < n; i++) {
    CHECK(isfinite(mu[i]) && isfinite(w[i]), "a successful solve with a non-finite mu or w");
    CHECK(handled[i] <= 1, "a handled flag other than 0 or 1");
    scale = fmax(scale, fabs(b[i]));
    for (size_t j = 0; j < n; j++)
      scale = fmax(scale, fabs(A[i * n + j] * mu[j]));
  }
  /* Summed in long double, whose wider exponent keeps the sum of terms
     near the largest double from overflowing where w itself does not. */
  /* The tolerance: rounding relative to the terms' scale, and the
     absolute error of a multiplier rounded to the subnormal range (half
     the smallest double) times the entries it multiplies. */
  for (size_t i = 0; i < n; i++) {
    long double r = b[i], sub = 0;
    for (size_t j = 0; j < n; j++) {
      r += (long double)A[i * n + j] * mu[j];
      sub += fabsl((long double)A[i * n + j]) * 0x1p-1075L;
    }
    CHECK(fabsl(r - w[i]) <= 1e-9L * fmax(scale, 1e-300) * (long double)n + sub, "w differs from A mu + b");
  }
  if (psd && rc == CDYN_OK && !strcmp(cdyn_activeset_name(alg), "lcp")) {
    /* The exact solver's conditions, at its own tolerances (those of
       cdyn_activeset_solve: tol_w = tol max|b|, tol_mu = tol_w / max A_kk),
       widened by the rounding carried by mu (the scale above). */
    double bmax = 0, dmax = 0;
    for (size_t i = 0; i < n; i++) {
      bmax = fmax(bmax, fabs(b[i]));
      dmax = fmax(dmax, A[i * n + i]);
    }
    double tol_w = tol * fmax(bmax, 1e-300) + 1e-9 * scale, tol_mu = dmax > 0 ? tol_w / dmax : INFINITY;
    for (size_t i = 0; i < n; i++) {
      if (use_eq && eq[i])
        continue;
      CHECK(w[i] >= -tol_w, "lcp: an inequality row left violating");
      CHECK(mu[i] >= -tol_mu, "lcp: a pulling multiplier");
    }
  }
  return 0;
}
