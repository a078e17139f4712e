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
 *
 * Dependent rows (derived here).  When the handled rows depend on each
 * other (three planes through one line, or one contact present twice),
 * A_SS = J_S W J_S^T is singular and cdyn_as_solve_set returns the
 * minimum-norm least-squares mu_S.  The multipliers are then not unique,
 * but the force they apply is.  At the acceleration level b = J a_free - d,
 * and for a resting set of rows (d = 0) b_S = J_S W f lies in the range of
 * J_S W^(1/2), which is that of A_SS: the system is consistent, and its
 * minimum-norm solution solves it exactly (to rounding),
 *   J_S W (f + J_S^T mu_S) = 0,  i.e.  J_S qdd = 0.
 * If moreover f lies in the span of the handled rows (gravity on a
 * particle at the bottom of a crease whose normals span the vertical
 * plane), z = f + J_S^T mu_S = J_S^T y for some y, and
 * z^T W z = y^T J_S W z = 0 gives z = 0: J_S^T mu_S = -f, the handled
 * rows carry the load exactly, qdd = 0, whichever of the equilibria mu_S
 * is.  Among them (an affine set; every point with mu_S >= 0 is a valid
 * answer) the minimum-norm solution is the one of least |mu_S|_2: two
 * copies of one contact share its multiplier equally, each carrying half
 * of what one contact alone would.  lcp keeps its clamped inequality rows
 * independent and returns a vertex of that set instead (one copy carries
 * it all).  tests/test_lcp.c (test_crease) derives both for a V of two
 * planes, a V with a floor and a V with one plane twice.
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
