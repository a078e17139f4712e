/*
 * contact_problems.h: random small contact configurations (beyond 003).
 *
 * np particles (1-4) in d dimensions (2 or 3), masses log-uniform in
 * [0.1, 10] kg, k constraints (kmin .. kmax), all active (g = 0), at rest:
 *   a wall on particle i:      the row n^T on x_i, n a random unit normal;
 *   a separation of i and j:   the row u^T on x_i and -u^T on x_j, u a
 *                              random unit direction (each pair at most
 *                              once, chosen with probability 1/2 while
 *                              pairs are left);
 * applied forces f_p = m_p g_p, g_p standard normal per component.  Then
 *   A = J W J^T,  b = J W f     (003 eq 6 at rest, no stabilisation)
 * and an answer mu gives qdd = W (f + J^T mu).  Draws come from the given
 * generator in the order of cp_generate, so a seed and a trial number
 * name a problem.
 */
#ifndef CDYN_CONTACT_PROBLEMS_H
#define CDYN_CONTACT_PROBLEMS_H

#include <stddef.h>

#include <gsl/gsl_rng.h>

#define CP_MAXK 16
#define CP_MAXP 4

typedef struct {
  size_t k, np, d;
  double J[CP_MAXK][3 * CP_MAXP];
  double w[CP_MAXP]; /* inverse masses */
  double f[3 * CP_MAXP];
  double A[CP_MAXK * CP_MAXK], b[CP_MAXK];
} cp_problem;

/* Draw the next problem, 1 <= kmin <= kmax <= CP_MAXK. */
void cp_generate(gsl_rng *r, size_t kmin, size_t kmax, cp_problem *p);
/* qdd = W (f + J^T mu), d np values. */
void cp_accel(const cp_problem *p, const double *mu, double *qdd);

#endif
