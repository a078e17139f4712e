/*
 * tests/ext_scheme.h: a scheme written outside the library, against the
 * installed <cdyn/cdyn.h> (cdyn/scheme.h) alone, as a researcher would
 * write one.  It is 001's first-order implicit scheme (eqs 11-16):
 *   A lambda = Phi / h^2 + Phi_t / h + J (v / h + W F),   at (q, t),
 *   v+ = v + h W (F - J^T lambda),  q+ = q + h v+,
 * written from the equations with the public building blocks, so that
 * it must reproduce the library's own "implicit" bit for bit: the test
 * that the public interface gives a scheme everything the built-in ones
 * use.  The test programs that include this register it under the name
 * "ext-implicit" (ext_register), and their loops over the registered
 * schemes then run it through the same checks as every other scheme.
 *
 * Its state is work arrays only, allocated by cdyn_state_alloc and freed
 * by free(); it keeps no history, so it has no reset and no changed.
 */
#ifndef CDYN_EXT_SCHEME_H
#define CDYN_EXT_SCHEME_H

#include <stddef.h>
#include <stdlib.h>

#include <cdyn/cdyn.h>

typedef struct {
  double *a, *u, *jt; /* 3n: W F then the acceleration, v / h + W F, J^T lambda */
  double *b;          /* m: the right-hand side */
} ext_state;

static int ext_alloc(void **state, size_t n, size_t mcap)
{
  const size_t off[] = {offsetof(ext_state, a), offsetof(ext_state, u), offsetof(ext_state, jt),
                        offsetof(ext_state, b)};
  const size_t len[] = {3 * n, 3 * n, 3 * n, mcap};
  return cdyn_state_alloc(state, sizeof(ext_state), off, len, 4);
}

static int ext_step(cdyn_stepper *st, void *state, double h)
{
  const ext_state *s = state;
  const cdyn_scheme_data *d = cdyn_stepper_data(st);
  size_t n3 = 3 * d->n;
  int rc = cdyn_free_accel(st, d->q, d->v, d->t, s->a);
  if (rc)
    return rc;
  int status = CDYN_OK;
  if (d->m) {
    if ((rc = cdyn_prepare(st, d->q, d->v, d->t)))
      return rc;
    for (size_t k = 0; k < n3; k++)
      s->u[k] = d->v[k] / h + s->a[k];
    cdyn_jmul(st, s->u, s->b);
    for (size_t r = 0; r < d->m; r++)
      s->b[r] += d->rows[r].phi / (h * h) + d->rows[r].phi_t / h;
    if ((status = cdyn_solve(st, s->b, d->lambda)) < 0)
      return status;
    cdyn_jtmul(st, d->lambda, s->jt);
    for (size_t k = 0; k < n3; k++)
      s->a[k] -= d->winv[k / 3] * s->jt[k];
  }
  for (size_t k = 0; k < n3; k++) {
    d->v[k] += h * s->a[k];
    d->q[k] += h * d->v[k];
  }
  return status;
}

static const cdyn_scheme_type ext_implicit = {
  .name = "ext-implicit",
  .description = "001's first-order implicit scheme, written outside the library (test)",
  .source = "001 eqs 11-16",
  .order = 1,
  /* Its multiplier is a backward-Euler impulse over the step: the force
     averaged over it, which belongs to the midpoint, at first order. */
  .lambda_order = 1,
  .lambda_time = CDYN_LAMBDA_MID,
  .alloc = ext_alloc,
  .free = free,
  .step = ext_step,
};

/* Register the scheme; 0 on success.  Each test program does it once, in
   main, before its suites count the schemes. */
static inline int ext_register(void) { return cdyn_scheme_register(&ext_implicit); }

#endif
