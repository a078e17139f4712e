/*
 * iterative.c: the iterative ("right") algorithm (003 §4.2, Algorithm 3).
 *
 *   S = {}  (plus the equality rows)
 *   repeat
 *     solve 003 eq 6 with S:  A_SS mu_S = -b_S,  w = A mu + b
 *     N = { k active, k not in S : w_k < 0 }    (violation tendency under
 *                                               the current accelerations)
 *     S = S + N
 *   until N is empty
 *
 * S only grows, so there are at most (active inequality rows) non-empty
 * solves, of growing size (003 §5).  Nothing is ever removed, so a handled
 * multiplier may end negative (the constraint pulls): the exact LCP
 * solution (lcp.c) is the comparison.
 */
#include "activeset/activeset.h"
#include "core/internal.h"

static int solve(cdyn_as_ws *ws, const cdyn_as_problem *p, double *mu, double *w,
                 unsigned char *handled, cdyn_activeset_report *rep)
{
  int rc;
  for (size_t k = 0; k < p->n; k++)
    handled[k] = cdyn_as_is_eq(p, k);
  for (;;) {
    if ((rc = cdyn_as_solve_set(ws, p, handled, mu, w, rep)))
      return rc;
    if (!cdyn_as_add_violated(p, w, handled))
      return CDYN_OK;
  }
}

const cdyn_activeset_type cdyn_activeset_iterative = {
  .name = "iterative",
  .description = "iterative: from an empty set, add every active constraint the current accelerations violate, until none",
  .source = "003 §4.2, Algorithm 3",
  .carries_set = 0,
  .solve = solve,
};
