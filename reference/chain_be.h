/*
 * reference/chain_be.h: a hanging chain of point masses stepped by the
 * fully implicit constraint step, solved by full Newton (with the
 * constraints' second derivatives), for finding out whether that step
 * stays stable where the library's schemes, which leave the second
 * derivatives out, do not (the chain-scale-stability experiment).
 *
 * The chain: node 0 fixed at p0, nodes 1..N of mass m, link j (1..N)
 * between node j-1 and node j with c_j = |x_j - x_(j-1)| - l, gravity g
 * (3 components).  The step (the equations of lib/schemes/newton.c, the
 * library convention M qdd + J^T lambda = F):
 *
 *   m (x+ - x - h v) / h^2 - m g + sum_j lambda_j grad_x c_j(x+) = 0,
 *   c_j(x+) = 0 for every j,                  v+ = (x+ - x) / h,
 *
 * solved for (x+, lambda) by Newton's method on the whole system, whose
 * matrix is the KKT matrix
 *
 *   [ m/h^2 I + sum_j lambda_j Hess c_j    J^T ]
 *   [ J                                    0   ],
 *
 * Hess c_j = +-(I - n n^T) / r on the blocks of link j (n the unit vector
 * along it, r its length).  The unknowns are ordered node by node,
 * (x_1, lambda_1, x_2, lambda_2, ...), which makes the matrix banded with
 * 7 sub- and super-diagonals; it is solved by LAPACK's dgbsv (LU with
 * partial pivoting).  Newton starts from x+ = x + h v + h^2 g and the
 * last step's lambda, and stops when every |c_j| and every
 * |residual_i| h^2 / m is at most tol l.
 *
 * It shares no code with the library: the constraint values, Jacobians
 * and Hessians are written out here.  Statuses are cdyn's (cdyn/error.h).
 */
#ifndef CDYN_REFERENCE_CHAIN_BE_H
#define CDYN_REFERENCE_CHAIN_BE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cdyn_ref_chain_be cdyn_ref_chain_be;

/*
 * A chain of `links` links (1 .. 1e6) in the state q, v (3 (links + 1)
 * values each, node 0 first; node 0's velocity is ignored: it is fixed).
 * length and mass > 0 and finite, g finite.  CDYN_EINVAL, CDYN_ENOMEM.
 */
int cdyn_ref_chain_be_new(cdyn_ref_chain_be **out, size_t links, double length, double mass, const double g[3],
                          const double *q, const double *v);
void cdyn_ref_chain_be_free(cdyn_ref_chain_be *c);

/*
 * One step of h > 0.  tol in (0, 1e-3], max_iter >= 1.  Returns CDYN_OK
 * and the iterations taken in *iters (may be NULL); CDYN_NOCONV (the
 * state unchanged) when Newton has not converged in max_iter iterations,
 * CDYN_ESOLVE when the matrix is singular, CDYN_ENONFINITE when an
 * iterate is not finite.
 */
int cdyn_ref_chain_be_step(cdyn_ref_chain_be *c, double h, double tol, int max_iter, int *iters);

/* The state: 3 (links + 1) positions and velocities, links multipliers. */
const double *cdyn_ref_chain_be_q(const cdyn_ref_chain_be *c);
const double *cdyn_ref_chain_be_v(const cdyn_ref_chain_be *c);
const double *cdyn_ref_chain_be_lambda(const cdyn_ref_chain_be *c);
/* Kinetic plus gravitational energy, m (|v|^2 / 2 - g . x) summed over nodes 1..N. */
double cdyn_ref_chain_be_energy(const cdyn_ref_chain_be *c);

#ifdef __cplusplus
}
#endif
#endif
