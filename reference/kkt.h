/*
 * reference/kkt.h: the constrained accelerations and multipliers of a
 * cdyn_system from the full dense saddle-point (KKT) system, for checking
 * the library's A = J W J^T path against a solve that shares none of it.
 *
 * The system solved (sign convention of the library, 001 eqs 3-10):
 *
 *   [ M  J^T ] [ qdd    ]   [ F                                          ]
 *   [ J   0  ] [ lambda ] = [ -jdotv - phi_tt - 2 alpha (J v + Phi_t)    ]
 *                           [                    - beta^2 Phi            ]
 *
 * at the system's current state and time, where M is the diagonal mass
 * matrix, F the applied forces (cdyn_system_forces), and the constraint
 * rows Phi, J, Phi_t, jdotv = (J v)_q v, phi_tt = 2 Phi_qt v + Phi_tt come
 * from each constraint type's public eval.  alpha = beta = 0 is the plain
 * index-1 system; other values are Baumgarte's stabilisation, as in the
 * library's "baumgarte" scheme.  How it is solved is explained in kkt.c.
 *
 * The reference reads the system only through the public API (cdyn/cdyn.h).
 * It allocates its dense (3n + m)^2 matrix on every call: it is meant for
 * small systems in tests, not for use inside a step.
 */
#ifndef CDYN_REFERENCE_KKT_H
#define CDYN_REFERENCE_KKT_H

#include <stddef.h>

#include "cdyn/cdyn.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Singular values of the scaled KKT matrix at or below this fraction of
 * the largest are treated as zero (the rank decision of LAPACK's dgelsd).
 */
#define CDYN_REF_KKT_RCOND 1e-12

/* What a solve found out about the matrix. */
typedef struct {
  size_t dim;      /* 3n + m */
  size_t rank;     /* numerical rank of the scaled KKT matrix (dim if the
                      constraint rows are independent) */
  double cond_kkt; /* 2-norm condition number of the scaled KKT matrix over
                      the singular values kept */
  size_t rank_a;   /* numerical rank of A = J W J^T: eigenvalues above
                      CDYN_REF_KKT_RCOND times the largest (m = 0: 0) */
  double cond_a;   /* 2-norm condition number of A over those eigenvalues
                      (1 when m = 0) */
} cdyn_ref_kkt_info;

/*
 * qdd (3n values) and lambda (m values; may be NULL when m = 0) at the
 * current state of sys.  alpha and beta must be finite.  Returns
 * CDYN_EINVAL for bad arguments, the status of cdyn_system_forces or of a
 * constraint's eval if either fails, CDYN_ENOMEM, CDYN_ESOLVE if the SVD
 * does not converge and CDYN_ENONFINITE if the system or the result is not
 * finite.  Dependent constraint rows are not an error: the result is then
 * the minimum-norm least-squares solution (see kkt.c); info->rank says so.
 */
int cdyn_ref_kkt_accel(const cdyn_system *sys, double alpha, double beta,
                       double *qdd, double *lambda);

/* The same, also filling *info (which may be NULL). */
int cdyn_ref_kkt_accel_info(const cdyn_system *sys, double alpha, double beta,
                            double *qdd, double *lambda,
                            cdyn_ref_kkt_info *info);

#ifdef __cplusplus
}
#endif
#endif
