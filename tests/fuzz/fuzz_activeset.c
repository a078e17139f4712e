/*
 * tests/fuzz/fuzz_activeset.c: a libFuzzer harness over
 * cdyn_activeset_solve, the contact problem w = A mu + b of 003.
 *
 * The input chooses the algorithm, the size n (1-8), and either a matrix
 * A = J W J^T built from a chosen J and positive weights (positive
 * semi-definite, possibly singular, as the library's own contact problems
 * are), or an A written entry by entry (symmetric or not, definite or
 * not: what the solver must refuse or solve); then b, the equality rows,
 * a previous handled set and the sign tolerance.  The checks:
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

#include "fuzz.h"

#define MAXN 8

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
  size_t alg = fuzz_byte(&in) % cdyn_activeset_count();
  size_t n = 1 + fuzz_byte(&in) % MAXN;
  double A[MAXN * MAXN], b[MAXN], mu[MAXN], w[MAXN];
  unsigned char eq[MAXN], prev[MAXN], handled[MAXN];
  int psd = fuzz_byte(&in) & 1;
  if (psd) {
    /* A = J W J^T, J: n x d, d = 1 .. 6 */
    size_t d = 1 + fuzz_byte(&in) % 6;
    double J[MAXN * 6], W[6];
    for (size_t k = 0; k < n * d; k++)
      J[k] = fuzz_small(&in);
    for (size_t k = 0; k < d; k++)
      W[k] = 0.05 + fabs(fuzz_small(&in));
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < n; j++) {
        double s = 0;
        for (size_t k = 0; k < d; k++)
          s += J[i * d + k] * W[k] * J[j * d + k];
        A[i * n + j] = s;
      }
  } else {
    for (size_t k = 0; k < n * n; k++)
      A[k] = fuzz_double(&in);
  }
  for (size_t k = 0; k < n; k++) {
    b[k] = (fuzz_byte(&in) & 7) ? fuzz_small(&in) : fuzz_double(&in);
    uint8_t f = fuzz_byte(&in);
    eq[k] = (f & 3) == 0;
    prev[k] = (f >> 2) & 1;
  }
  /* Tolerances: the usual ones, the edges of the accepted range, and
     subnormal, huge and non-finite ones; or any of fuzz_double's (its
     specials and 1e-12 .. 1e12 of either sign). */
  static const double tols[] = {1e-9, 1e-12, 1e-6, 0.5, 0.0, -1.0, NAN, 2.220446049250313e-16, 1e-3,
                                1.4005173080440274e-312, 4.9e-324, 1e-300, 1e300, INFINITY};
  uint8_t tk = fuzz_byte(&in);
  double tol = tk < 200 ? tols[tk % (sizeof tols / sizeof tols[0])] : fuzz_double(&in);
  int use_eq = fuzz_byte(&in) & 1, use_prev = fuzz_byte(&in) & 1;
  /* The outputs start as garbage (a byte of the input, repeated), so that
     a result that depends on what they held before shows as a failure. */
  uint8_t junk = fuzz_byte(&in);
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
