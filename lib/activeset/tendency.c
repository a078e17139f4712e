/*
 * tendency.c: the violation-tendency algorithm (003 §4.1, Algorithm 2).
 *
 * An active inequality constraint is handled only if the unconstrained
 * acceleration would violate it:
 *   S = { k active : J_k qdd_free < d_k },  i.e.  w_k(mu = 0) < 0,
 * then 003 eq 6 is solved once with S.  Equality rows are always handled,
 * so "unconstrained" means constrained by them alone: a first solve with
 * the equality rows gives the accelerations the tendency is measured at.
 *
 * Reading of Algorithm 2: its loop is not in 003's text; the set is
 * rebuilt at each step from the unconstrained acceleration, as 003 writes
 * for "the beginning of the animation", and nothing is carried.  With
 * f = (-1, -2) in the corner the handled g2 pushes the particle through
 * the ignored g1 (003 figure 3).
 */
#include "activeset/activeset.h"
#include "core/internal.h"

static int solve(cdyn_as_ws *ws, const cdyn_as_problem *p, double *mu, double *w,
                 unsigned char *handled, cdyn_activeset_report *rep)
{
  int rc;
  for (size_t k = 0; k < p->n; k++)
    handled[k] = cdyn_as_is_eq(p, k);
  if ((rc = cdyn_as_solve_set(ws, p, handled, mu, w, rep)))
    return rc;
  if (!cdyn_as_add_violated(p, w, handled))
    return CDYN_OK;
  return cdyn_as_solve_set(ws, p, handled, mu, w, rep);
}

const cdyn_activeset_type cdyn_activeset_tendency = {
  .name = "tendency",
  .description = "violation tendency: handle the active constraints the unconstrained acceleration violates; one solve",
  .source = "003 §4.1, Algorithm 2",
  .carries_set = 0,
  .solve = solve,
};
