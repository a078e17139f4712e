/*
 * numeric.c: the numeric helpers at the bottom of the library, used by
 * every layer above: the monotonic clock of the statistics' times, and the
 * finiteness test that guards every state, force and result.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stddef.h>
#include <time.h>

#include "cdyn/stepper.h"

double cdyn_clock(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cdyn_all_finite(const double *x, size_t len)
{
  /* x * 0 is 0 for a finite x and NaN for an infinite or NaN one, so the
     sums are 0 exactly when every x is finite: a loop without branches,
     in four independent sums (one sum would wait on each addition). */
  double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  size_t k = 0;
  for (; k + 4 <= len; k += 4) {
    a0 += x[k] * 0.0;
    a1 += x[k + 1] * 0.0;
    a2 += x[k + 2] * 0.0;
    a3 += x[k + 3] * 0.0;
  }
  for (; k < len; k++)
    a0 += x[k] * 0.0;
  return a0 + a1 + a2 + a3 == 0;
}
