/*
 * cdyn/error.h: status codes and error messages.
 *
 * Every public cdyn function returns an int status.  Zero is success.
 * Negative codes are fatal for the call that returned them (bad input,
 * out of memory, a state that has become non-finite); the objects involved
 * are left as they were before the call.  Positive codes are recoverable
 * (an iterative solve that did not reach its tolerance): the result is
 * usable but less accurate than asked for.  This follows the sign
 * convention of SUNDIALS' linear solvers.
 *
 * CDYN_EINFEASIBLE is fatal for the call (a step that meets it restores
 * the state) but says something other than CDYN_EINVAL: the arguments
 * were valid, and the contact problem they pose has no solution (an
 * equality row that cannot hold with the others, or inequality rows that
 * no pushing multipliers satisfy).  The remedy is in the model, not in
 * the call: a smaller step does not help.
 *
 * CDYN_EUNVERIFIED is fatal for the call too: an algorithm that declares
 * itself exact (the active-set algorithm "lcp") found an answer that does
 * not pass the check of the contact problem it was asked to solve (its
 * residual, signs or complementarity beyond what rounding allows at the
 * problem's scale and conditioning, or multipliers beyond what any
 * solution can have).  The numbers it leaves are not a solution and must
 * not be used as one; the problem is usually too ill-conditioned for
 * double precision (nearly dependent rows), or has no solution.
 *
 * The message belonging to the most recent non-zero status is kept per
 * thread and returned by cdyn_errmsg().
 *
 * Statuses, messages and what a failed call leaves: doc/reliability.md.
 */
#ifndef CDYN_ERROR_H
#define CDYN_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum cdyn_status {
  CDYN_OK = 0,
  CDYN_NOCONV = 1,      /* iterative method stopped before its tolerance */
  CDYN_EINVAL = -1,     /* invalid argument */
  CDYN_ENOMEM = -2,     /* allocation failed */
  CDYN_ENONFINITE = -3, /* a state, force or result is NaN or infinite */
  CDYN_EUNKNOWN = -4,   /* unknown scheme, solver, type or option name */
  CDYN_EDEGENERATE = -5,/* geometry where a constraint is not differentiable */
  CDYN_ESTALE = -6,     /* no longer returned: steppers follow changes of the system */
  CDYN_ECALLBACK = -7,  /* a user callback reported failure */
  CDYN_EIO = -8,        /* file could not be written or read */
  CDYN_ESOLVE = -9,     /* a linear or nonlinear solve failed outright */
  CDYN_EDIVERGED = -10, /* a method's iteration diverged */
  CDYN_EINFEASIBLE = -11, /* a contact problem has no solution: the constraint set is inconsistent */
  CDYN_EUNVERIFIED = -12  /* an exact solver's answer failed its verification against the problem */
};

/* The message of the last non-zero status set in this thread ("" if none). */
const char *cdyn_errmsg(void);

/* A fixed description of a status code. */
const char *cdyn_strerror(int status);

/*
 * Record a status and a printf-style message for cdyn_errmsg(), and return
 * the status, so that `return cdyn_error(CDYN_EINVAL, "h = %g", h);` reads
 * naturally.  User callbacks may call it to explain their own failures.
 */
int cdyn_error(int status, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;

/* Forget the last message. */
void cdyn_error_clear(void);

/*
 * Suggestions for messages ("unknown key 'sceme'; did you mean
 * 'scheme'?"): the optimal string alignment distance of a and b (the
 * fewest insertions, deletions, substitutions and adjacent swaps; their
 * first 63 bytes; (size_t)-1 for a NULL), and whether a candidate that
 * far from `word` is near enough to suggest (1 to 2 edits, fewer than
 * half the word's length).  Equations: base/words.c.
 */
size_t cdyn_word_distance(const char *a, const char *b);
int cdyn_word_near(const char *word, size_t distance);

#ifdef __cplusplus
}
#endif
#endif
