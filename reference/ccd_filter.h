/*
 * reference/ccd_filter.h: a certified floating-point filter in front of
 * the exact continuous-collision test (reference/ccd_exact.c), for the
 * exact replay (reference/ccd_replay.c).  It answers, for the same query
 * (every point moving linearly over t in [0, 1]), either what the exact
 * test would answer, proved in floating point with outward rounding, or
 * that it cannot tell; the method and its soundness argument are in
 * ccd_filter.c.  It shares no code with the library nor with
 * ccd_exact.c.
 *
 *   REF_FILTER_APART  no contact at any t in [0, 1]: ref_ccd_vf /
 *                     ref_ccd_ee return 0 (never REF_CCD_DEGENERATE);
 *   REF_FILTER_TOUCH  a contact, with the triangle of non-zero area (the
 *                     edges of non-zero length) throughout the step:
 *                     they return 1;
 *   REF_FILTER_UNSURE neither is proved: ask the exact test.
 *
 * REF_CCD_EINVAL (ccd_exact.h) for a NULL or non-finite point.  Points
 * whose coordinates reach 2^200 in magnitude are not filtered (UNSURE).
 * Thread-safe: no state.
 */
#ifndef CDYN_REF_CCD_FILTER_H
#define CDYN_REF_CCD_FILTER_H

#define REF_FILTER_APART 0
#define REF_FILTER_TOUCH 1
#define REF_FILTER_UNSURE 2

/* p: the node; a, b, c: the triangle; [0] at t = 0, [1] at t = 1. */
int ref_filter_vf(const double p[2][3], const double a[2][3], const double b[2][3], const double c[2][3]);
/* Edges (p, q) and (r, s). */
int ref_filter_ee(const double p[2][3], const double q[2][3], const double r[2][3], const double s[2][3]);

#endif
