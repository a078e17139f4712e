/*
 * reference/ccd_exact.h: exact continuous collision detection, the
 * reference the library's detector is checked against (doc/cloth.md,
 * "Collision detection").  It shares no code with the library.
 *
 * Every point moves linearly over the step, x(t) = x0 + t (x1 - x0),
 * t in [0, 1].  The inputs are doubles, taken exactly (scaled by a common
 * power of two to integers, GMP's mpz_t); every sign is decided in exact
 * integer arithmetic, so the answer is the true one for the given doubles.
 *
 * Node-triangle: does the node lie in the closed triangle at some t in
 * [0, 1]?  Edge-edge: do the two closed segments meet at some t?
 *
 * Returns 1 (contact; *t_lo <= t* <= *t_hi bracket the first contact time,
 * the bracket shorter than 2^-40 or exact), 0 (none), or
 * REF_CCD_DEGENERATE when at the first candidate contact time the triangle
 * has no area or an edge has no length, which these routines do not
 * decide (a triangle or edge that degenerates where no contact is
 * possible, the parties apart, gives 0).  Parallel edges are decided.
 * REF_CCD_EINVAL for a NULL or non-finite point.  t_lo, t_hi may be NULL.
 * Not thread-safe (scratch numbers are reused across calls).
 */
#ifndef CDYN_REF_CCD_EXACT_H
#define CDYN_REF_CCD_EXACT_H

#define REF_CCD_DEGENERATE 2
#define REF_CCD_EINVAL (-1)

/* p: the node; a, b, c: the triangle; [0] at t = 0, [1] at t = 1. */
int ref_ccd_vf(const double p[2][3], const double a[2][3], const double b[2][3], const double c[2][3], double *t_lo,
               double *t_hi);
/* Edges (p, q) and (r, s). */
int ref_ccd_ee(const double p[2][3], const double q[2][3], const double r[2][3], const double s[2][3], double *t_lo,
               double *t_hi);

#endif
