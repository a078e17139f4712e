/*
 * platt.c: Platt's algorithm (003 §3, Algorithm 1; Platt 1992).
 *
 * The handled set S is carried from step to step.  At a first contact S
 * holds every active constraint.  Each step solves 003 eq 6 once with S,
 *   A_SS mu_S = -b_S,   qdd = a_free + W J_S^T mu_S,
 * and after the step S is updated by the scheme (lib/schemes/contact.c):
 * a handled constraint stays while its multiplier pushes (mu_k > 0) and
 * an ignored one is added once it is violated (g_k(q+) < 0).
 *
 * Here: S = equality rows plus p->prev (every row when p->prev is NULL).
 * One solve; nothing is added or removed within the step, so the result
 * may pull (mu_k < 0) or let an ignored active row violate (w_k < 0):
 * 003 figure 2.
 */
#include "activeset/activeset.h"
#include "core/internal.h"

static int solve(cdyn_as_ws *ws, const cdyn_as_problem *p, double *mu, double *w,
                 unsigned char *handled, cdyn_activeset_report *rep)
{
  for (size_t k = 0; k < p->n; k++)
    handled[k] = cdyn_as_is_eq(p, k) || !p->prev || p->prev[k];
  return cdyn_as_solve_set(ws, p, handled, mu, w, rep);
}

const cdyn_activeset_type cdyn_activeset_platt = {
  .name = "platt",
  .description = "Platt: keep handled constraints while they push, add them once violated; one solve",
  .source = "003 §3, Algorithm 1",
  .carries_set = 1,
  .solve = solve,
};
