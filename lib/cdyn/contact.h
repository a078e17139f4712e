/*
 * cdyn/contact.h: inequality constraints g(q) >= 0 and the active-set
 * algorithms that decide which of them to handle (003).
 *
 * Any constraint can be flagged as an inequality: each of its rows is then
 * a condition g_k(q) >= 0 (Phi_k >= 0 in the notation of constraint.h).  A
 * row is violated when g_k < 0 and active when g_k <= active_tol.  Only the
 * scheme "contact" enforces inequalities; the equality-only schemes refuse
 * a system that has them.
 *
 * Sign convention of this header (003's): an inequality row pushes with the
 * force +J_k^T mu_k, so mu_k >= 0 pushes and mu_k < 0 pulls.  (The stepper's
 * cdyn_stepper_multipliers keeps the library convention M qdd + J^T lambda
 * = F, so lambda = -mu there.)
 *
 * A contact problem, at the acceleration level or the velocity level, is
 * the linear complementarity problem over its n candidate rows
 *   w = A mu + b,   A = J W J^T,
 *   equality rows:    w_k = 0, mu_k of any sign;
 *   inequality rows:  w_k >= 0, mu_k >= 0, mu_k w_k = 0.
 * At the acceleration level w = J qdd - d (003 eq 6, d from eq 5), at the
 * velocity level w is the post-impulse normal velocity plus the
 * restitution target.  An active-set algorithm picks the handled set S,
 * solves A_SS mu_S = -b_S with mu = 0 off S, and may iterate.
 *
 * The algorithms and their equations: doc/schemes.md, "Inequality
 * constraints".
 */
#ifndef CDYN_CONTACT_H
#define CDYN_CONTACT_H

#include <stddef.h>

#include "cdyn/stepper.h"
#include "cdyn/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flag constraint c (all its rows) as an inequality Phi >= 0 (on != 0) or
   an equality (on == 0). */
int cdyn_system_set_inequality(cdyn_system *sys, size_t c, int on);
int cdyn_system_is_inequality(const cdyn_system *sys, size_t c, int *on);
/* Number of inequality rows. */
size_t cdyn_system_inequality_rows(const cdyn_system *sys);
/* A wall: the half-space n.(x_i - p) >= 0, n not normalised (a
   "halfspace" constraint flagged as an inequality); a distance when |n| = 1. */
int cdyn_system_add_wall(cdyn_system *sys, size_t i, const double p[3], const double n[3],
                         size_t *id);
/* Separation |x_i - x_j| >= d, d > 0: two balls of radii summing to d (a
   "distance" constraint flagged as an inequality). */
int cdyn_system_add_separation(cdyn_system *sys, size_t i, size_t j, double d, size_t *id);
/* Sum over inequality rows of their violation max(0, -g_k). */
int cdyn_system_penetration(const cdyn_system *sys, double *pen);

/* What one active-set solve did. */
typedef struct cdyn_activeset_report {
  unsigned candidates;    /* rows in the problem */
  unsigned inequalities;  /* of which inequality rows */
  unsigned handled;       /* rows in the handled set S at the end */
  unsigned solves;        /* linear solves of size >= 1 */
  unsigned iterations;    /* passes of the algorithm (solves of size 0 count) */
  int pulls;              /* a handled inequality row has mu_k < -tol_mu */
  int violates;           /* an inequality row has w_k < -tol_w */
  double min_mu;          /* smallest inequality multiplier (0 if none) */
  double min_w;           /* smallest inequality w (0 if none) */
} cdyn_activeset_report;

/* The registry of active-set algorithms: platt, tendency, iterative, lcp. */
size_t cdyn_activeset_count(void);
const char *cdyn_activeset_name(size_t i);
const char *cdyn_activeset_description(size_t i);
const char *cdyn_activeset_source(size_t i);
int cdyn_activeset_find(const char *name, size_t *index);

/*
 * Solve one contact problem with the algorithm `name`.
 *   n          rows, 1 .. 4096
 *   A          n*n row-major, symmetric positive semi-definite
 *   b          n values
 *   equality   n flags (NULL: no equality rows)
 *   prev       n flags: the handled set carried from an earlier solve, for
 *              the algorithms that carry one (platt); NULL: none carried
 *              (platt then handles every row, its rule at a first contact).
 *              "lcp" takes it as a guess of the inequality rows to clamp
 *              and starts from it (a warm start: its answer is the same,
 *              to rounding, with any guess; the guess of the answer's own
 *              set costs one solve); tendency and iterative ignore it
 *   rel_tol    sign tolerance, relative: tol_w = rel_tol max_k |b_k|,
 *              tol_mu = tol_w / max_k A_kk; 2^-52 (DBL_EPSILON) <= rel_tol <= 1e-3
 * Outputs (any may be NULL except mu and w): mu, w (n each), handled (n
 * flags), rep.  Allocates its workspace; a stepper's step does not.
 *
 * A problem with a diagonal entry of A or max |b_k| beyond 2^+-400 is
 * solved equilibrated by powers of two (exact; the sign tests stay those
 * above), and w recomputed from A and b as given.
 *
 * Returns CDYN_OK (mu and w finite); CDYN_EUNKNOWN for an unknown name;
 * CDYN_EINVAL for bad arguments (n, NULL pointers, rel_tol, A not
 * symmetric, with a negative diagonal or failing the 2 x 2 semi-definite
 * test A_jk^2 <= A_jj A_kk, rows spanning more than doubles can decide
 * together even equilibrated); CDYN_ENONFINITE when A or b is not finite
 * or mu or w overflow; CDYN_EINFEASIBLE "inconsistent constraint set"
 * when, with any algorithm, an equality row keeps |w_k| > tol_w after the
 * final solve (its equation has no solution with the other handled rows;
 * mu, w and rep then hold the least-squares result), and with "lcp" also
 * when the rows admit no solution at all (mu, w and rep then hold its
 * last iterate).  "lcp" alone: CDYN_ESOLVE when it ends with handled
 * rows whose equations do not hold (nearly dependent rows with
 * incompatible b); CDYN_NOCONV (recoverable: mu and w usable, less
 * accurate than rel_tol asks) when a row is left below -tol_w within the
 * rounding of nearly dependent rows, or when the pivoting stops at its
 * limit of 10 n + 10 passes and the last clamped set's solution is
 * returned; CDYN_EUNVERIFIED when its answer (which would have been
 * CDYN_OK or CDYN_NOCONV) fails its verification: multipliers beyond the
 * bound |mu_C|_2 <= |bt_C|_2 / l_C that every solution on the handled rows
 * C obeys, or a residual, sign or complementarity beyond tolerances
 * derived from A, b and that bound (lib/activeset/lcp.c, "Verification of
 * the answer"); mu, w and rep then hold the refused answer, which is not
 * a solution.  lcp never returns CDYN_OK or CDYN_NOCONV with an answer
 * that fails that verification.
 */
int cdyn_activeset_solve(const char *name, size_t n, const double *A, const double *b,
                         const unsigned char *equality, const unsigned char *prev,
                         double rel_tol, double *mu, double *w, unsigned char *handled,
                         cdyn_activeset_report *rep);

/* What the last step of a "contact" stepper did. */
typedef struct cdyn_contact_report {
  unsigned substeps;       /* sub-steps the step was cut into */
  unsigned events;         /* sub-steps ended at a located activation */
  unsigned impulses;       /* velocity-level (impulse) solves */
  unsigned accel_solves;   /* acceleration-level problems solved */
  unsigned max_solves;     /* the most linear solves one problem needed */
  unsigned max_excess;     /* the most solves above that problem's inequality rows */
  int pulls;               /* some solve of the step left a pulling multiplier */
  int violates;            /* some solve of the step left a violating row */
  cdyn_activeset_report accel;   /* the last acceleration-level solve */
  cdyn_activeset_report impulse; /* the last impulse solve (zeros if none) */
} cdyn_contact_report;

int cdyn_stepper_contact_report(const cdyn_stepper *st, cdyn_contact_report *rep);
/* The handled set of the last acceleration-level solve (m flags, one per row). */
int cdyn_stepper_handled(const cdyn_stepper *st, unsigned char *handled);

#ifdef __cplusplus
}
#endif
#endif
