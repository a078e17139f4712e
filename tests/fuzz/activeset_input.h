/*
 * tests/fuzz/activeset_input.h: how an input of the active-set fuzz harness
 * (tests/fuzz/fuzz_activeset.c) is read as a contact problem
 *   w = A mu + b,  equality rows: w = 0;  inequality rows: w >= 0, mu >= 0,
 *   mu w = 0   (cdyn/contact.h),
 * shared by the harness and by the corpus driver (tests/test_lcp_corpus.c),
 * so that the driver sees every committed input as the harness does.
 *
 * The input chooses, byte by byte (fuzz.h): the algorithm, the size n
 * (1-8), and either A = J W J^T from a chosen J (n x d, d = 1-6) and
 * positive diagonal weights W (positive semi-definite, possibly singular,
 * as the library's own contact problems are), or an A written entry by
 * entry (symmetric or not, definite or not); then per row b_k and a byte
 * of flags (equality row, member of the previous handled set); the sign
 * tolerance; whether the equality and previous flags are used; and a
 * byte the outputs are filled with before the solve.
 */
#ifndef CDYN_FUZZ_ACTIVESET_INPUT_H
#define CDYN_FUZZ_ACTIVESET_INPUT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <cdyn/cdyn.h>

#include "fuzz.h"

#define FUZZ_AS_MAXN 8 /* rows */
#define FUZZ_AS_MAXD 6 /* columns of J */

typedef struct {
  size_t alg, n;
  int psd;       /* A = J W J^T (J, W and d below are set) */
  size_t d;
  double J[FUZZ_AS_MAXN * FUZZ_AS_MAXD], W[FUZZ_AS_MAXD];
  double A[FUZZ_AS_MAXN * FUZZ_AS_MAXN], b[FUZZ_AS_MAXN];
  unsigned char eq[FUZZ_AS_MAXN], prev[FUZZ_AS_MAXN];
  double tol;    /* rel_tol as passed to cdyn_activeset_solve */
  int use_eq, use_prev;
  uint8_t junk;  /* the byte the outputs start as */
} fuzz_as_input;

static inline void fuzz_as_decode(fuzz_input *in, fuzz_as_input *x)
{
  memset(x, 0, sizeof *x);
  x->alg = fuzz_byte(in) % cdyn_activeset_count();
  size_t n = x->n = 1 + fuzz_byte(in) % FUZZ_AS_MAXN;
  x->psd = fuzz_byte(in) & 1;
  if (x->psd) {
    size_t d = x->d = 1 + fuzz_byte(in) % FUZZ_AS_MAXD;
    for (size_t k = 0; k < n * d; k++)
      x->J[k] = fuzz_small(in);
    for (size_t k = 0; k < d; k++)
      x->W[k] = 0.05 + fabs(fuzz_small(in));
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < n; j++) {
        double s = 0;
        for (size_t k = 0; k < d; k++)
          s += x->J[i * d + k] * x->W[k] * x->J[j * d + k];
        x->A[i * n + j] = s;
      }
  } else {
    for (size_t k = 0; k < n * n; k++)
      x->A[k] = fuzz_double(in);
  }
  for (size_t k = 0; k < n; k++) {
    x->b[k] = (fuzz_byte(in) & 7) ? fuzz_small(in) : fuzz_double(in);
    uint8_t f = fuzz_byte(in);
    x->eq[k] = (f & 3) == 0;
    x->prev[k] = (f >> 2) & 1;
  }
  /* Tolerances: the usual ones, the edges of the accepted range, and
     subnormal, huge and non-finite ones; or any of fuzz_double's (its
     specials and 1e-12 .. 1e12 of either sign). */
  static const double tols[] = {1e-9, 1e-12, 1e-6, 0.5, 0.0, -1.0, NAN, 2.220446049250313e-16, 1e-3,
                                1.4005173080440274e-312, 4.9e-324, 1e-300, 1e300, INFINITY};
  uint8_t tk = fuzz_byte(in);
  x->tol = tk < 200 ? tols[tk % (sizeof tols / sizeof tols[0])] : fuzz_double(in);
  x->use_eq = fuzz_byte(in) & 1;
  x->use_prev = fuzz_byte(in) & 1;
  x->junk = fuzz_byte(in);
}

#endif
