/*
 * reference/nlink.h: a planar N-link pendulum of point masses, integrated in
 * joint angles to tight tolerance, for checking particle-based constraint
 * schemes against an independent solution.
 *
 * Conventions.  The motion is in the x-y plane with gravity of magnitude g
 * acting in -y.  Node 0 is a fixed pivot and carries no mass.  Link i
 * (i = 0..n-1) has length L_i and ends at node i+1, which carries the point
 * mass m_i.  theta_i is the absolute angle of link i measured from the
 * downward vertical, counter-clockwise positive, so that node k (k = 1..n)
 * sits at
 *
 *   x_k = px + sum_{i<k} L_i sin(theta_i),
 *   y_k = py - sum_{i<k} L_i cos(theta_i).
 *
 * All angles at pi/2 is a horizontal chain along +x; all at 0 hangs straight
 * down.  The equations of motion are written out at the top of nlink.c.
 *
 * Every function that returns int returns a cdyn status (cdyn/error.h): on
 * failure the object is left as it was before the call and cdyn_errmsg()
 * says why.
 */
#ifndef CDYN_REFERENCE_NLINK_H
#define CDYN_REFERENCE_NLINK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An N-link pendulum together with its integrator and current state. */
typedef struct cdyn_ref_nlink cdyn_ref_nlink;

/*
 * Parameters for cdyn_ref_nlink_new().  The arrays are copied, so the caller
 * may reuse or free them once cdyn_ref_nlink_new() has returned.
 */
typedef struct {
  size_t n;              /* number of links, >= 1 */
  const double *length;  /* n lengths, > 0, finite */
  const double *mass;    /* n masses at nodes 1..n, > 0, finite */
  double g;              /* gravity magnitude, >= 0, finite, acting in -y */
  double pivot[2];       /* fixed node 0 */
  const double *theta0;  /* n initial absolute angles (rad), finite */
  const double *omega0;  /* n initial angular velocities, may be NULL = 0 */
  double abstol, reltol; /* 0 means default 1e-13; otherwise must be in (0, 1e-6] */
} cdyn_ref_nlink_params;

/*
 * Create a pendulum at time 0 in the state given by p.  On success *out
 * holds the new object; on failure *out is set to NULL (if out is not NULL)
 * and nothing is leaked.  Returns CDYN_EINVAL for invalid parameters and
 * CDYN_ENOMEM if memory runs out.
 */
int cdyn_ref_nlink_new(cdyn_ref_nlink **out, const cdyn_ref_nlink_params *p);

/* Release a pendulum.  Accepts NULL. */
void cdyn_ref_nlink_free(cdyn_ref_nlink *r);

/*
 * Integrate forward to time t, which must be finite and not earlier than
 * the current time; t equal to the current time does nothing.  The object
 * lands exactly on t, so later calls continue from there.  Returns
 * CDYN_EINVAL for a bad t, CDYN_ESOLVE if the integrator or the mass-matrix
 * solve fails, and CDYN_ENONFINITE if the state or its derivative would
 * overflow; on any failure the state and time are unchanged.
 */
int cdyn_ref_nlink_advance(cdyn_ref_nlink *r, double t);

/* The current time, or NaN if r is NULL. */
double cdyn_ref_nlink_time(const cdyn_ref_nlink *r);

/*
 * Copy the n current absolute angles into theta and the n angular
 * velocities into omega.  Either pointer may be NULL to skip that output.
 */
int cdyn_ref_nlink_angles(const cdyn_ref_nlink *r, double *theta,
                          double *omega);

/* Write the positions of nodes 1..n as 2n values x_1, y_1, ..., x_n, y_n. */
int cdyn_ref_nlink_positions(const cdyn_ref_nlink *r, double *xy);

/* Write the velocities of nodes 1..n as 2n values, laid out as positions. */
int cdyn_ref_nlink_velocities(const cdyn_ref_nlink *r, double *vxy);

/*
 * The n node accelerations (x, y pairs, laid out as in
 * cdyn_ref_nlink_positions()) of the current state: the angular
 * accelerations of the equations of motion (nlink.c) carried through
 * r_k'' = sum_{i<k} L_i (e'(th_i) w_i' - e(th_i) w_i^2).  CDYN_ESOLVE if
 * the mass matrix cannot be factored, CDYN_ENONFINITE if a value is not
 * finite.
 */
int cdyn_ref_nlink_accelerations(cdyn_ref_nlink *r, double *axy);

/*
 * The tension of each link (n values, positive when the link pulls its
 * ends together), from Newton's second law on the nodes taken from the
 * free end inwards: with u_i = e(th_i) the unit vector of link i from node
 * i to node i+1 and g_v = (0, -g),
 *   m_i r_{i+1}'' = m_i g_v - T_i u_i + T_{i+1} u_{i+1},   T_n = 0,
 * so T_i = u_i . (m_i g_v - m_i r_{i+1}'' + T_{i+1} u_{i+1}).  The part of
 * that balance across u_i vanishes for the exact accelerations; its
 * largest magnitude over the nodes, relative to m_i g + |T_i|, goes to
 * *residual (may be NULL): a check of the equations of motion (rounding
 * level, ~1e-15).
 */
int cdyn_ref_nlink_tensions(cdyn_ref_nlink *r, double *tension, double *residual);

/*
 * Total energy T + V with T = 1/2 sum_k m_k |v_k|^2 and V = sum_k m_k g y_k,
 * evaluated from the Cartesian node positions and velocities.  The zero of
 * V is y = 0, not the pivot, so E depends on pivot[1].  Returns
 * CDYN_ENONFINITE if the result overflows.
 */
int cdyn_ref_nlink_energy(const cdyn_ref_nlink *r, double *E);

/*
 * Convenience: advance through nt times in non-decreasing order, none
 * earlier than the current time, and after reaching times[j] write the node
 * positions to xy[2n*j .. 2n*j + 2n - 1] (row j, laid out as in
 * cdyn_ref_nlink_positions()).  The object ends at times[nt-1].  The times
 * are checked before anything is integrated, and if integration fails part
 * way the object is returned to its state before the call.  nt == 0 does
 * nothing, and times and xy may then be NULL.
 */
int cdyn_ref_nlink_sample(cdyn_ref_nlink *r, size_t nt, const double *times,
                          double *xy);

#ifdef __cplusplus
}
#endif
#endif
