/*
 * reference/ode.h: the GSL odeiv2 driver shared by the angle-coordinate
 * references (reference/nlink.c, bead.c, spherical.c).
 *
 * What it does.  Each of those references integrates a small first-order
 * system y' = f(t, y) with GSL's rk8pd Runge-Kutta-Prince-Dormand method
 * under GSL's standard step-size control, at a tight tolerance, and offers
 * the same contract for doing so: the caller picks the absolute and
 * relative tolerance (0 for the default 1e-13, otherwise in (0, 1e-6]),
 * advancing to a time lands on it exactly, going back in time is refused,
 * advancing to the current time does nothing, and a failed advance leaves
 * the state and time as they were and says why (CDYN_ENONFINITE when the
 * right-hand side met a non-finite value, CDYN_ESOLVE otherwise).  This
 * module holds that contract once; a reference supplies only its
 * right-hand side and its state arrays.
 *
 * Why a struct embedded in the owner rather than an object of its own:
 * the right-hand side needs the owner (its parameters and work arrays)
 * through the system's params pointer, the owner needs the state between
 * advances to answer its queries, and one allocation per reference keeps
 * "free accepts NULL, nothing leaks on failure" simple.
 *
 * Use.  The owner fills the fields marked "set by the owner", typically
 * with a designated initialiser, then calls cdyn_ref_ode_start(); its
 * right-hand side sets `nonfinite` (through the owner it receives as
 * params) before refusing a non-finite value with GSL_EBADFUNC, which
 * makes the driver stop at once rather than retry with smaller steps.
 */
#ifndef CDYN_REFERENCE_ODE_H
#define CDYN_REFERENCE_ODE_H

#include <gsl/gsl_odeiv2.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The default absolute and relative tolerance of the integrator. */
#define CDYN_REF_ODE_DEFAULT_TOL 1e-13

/* Looser tolerances than this would not make a reference solution. */
#define CDYN_REF_ODE_MAX_TOL 1e-6

/*
 * Describe a failed driver call from what the right-hand side recorded in
 * the owner (params): return the cdyn status with cdyn_error() setting the
 * message, or CDYN_OK to let the generic message stand.  gsl_status is the
 * driver's status, t_fail the time it reached and t_target the time asked.
 */
typedef int (*cdyn_ref_ode_describe)(const void *params, int gsl_status,
                                     double t_fail, double t_target);

typedef struct {
  /* Set by the owner before cdyn_ref_ode_start(). */
  const char *name;       /* owner's prefix, e.g. "cdyn_ref_bead": messages
                             come from name_new and name_advance */
  gsl_odeiv2_system sys;  /* right-hand side, dimension, params = owner */
  double *y;              /* the owner's state, sys.dimension values */
  double *backup;         /* owner's scratch of sys.dimension values */
  cdyn_ref_ode_describe describe; /* may be NULL */

  /* Kept by this module; the right-hand side may set nonfinite. */
  gsl_odeiv2_driver *driver;
  double t;               /* current time */
  int nonfinite;          /* the right-hand side met a non-finite value */
} cdyn_ref_ode;

/*
 * Resolve the tolerances in place: 0 selects CDYN_REF_ODE_DEFAULT_TOL,
 * anything else must lie in (0, CDYN_REF_ODE_MAX_TOL].  Returns
 * CDYN_EINVAL with a message from name_new, naming p->abstol or p->reltol,
 * otherwise CDYN_OK.  Meant to be called while validating the parameters,
 * before anything is allocated.
 */
int cdyn_ref_ode_tolerances(const char *name, double *abstol,
                            double *reltol);

/*
 * Allocate the rk8pd driver for the owner's fields at time 0 with the
 * resolved tolerances.  Returns CDYN_ENOMEM if the driver cannot be
 * allocated (ode->driver is then NULL).
 */
int cdyn_ref_ode_start(cdyn_ref_ode *ode, double abstol, double reltol);

/*
 * Integrate from ode->t to t, which must be finite and not earlier than
 * ode->t; t == ode->t does nothing.  On success ode->t == t exactly.  On
 * failure the state and time are put back and the status says why: the
 * describe callback's, if it returns one, else CDYN_ENONFINITE if the
 * right-hand side set nonfinite, else CDYN_ESOLVE.
 */
int cdyn_ref_ode_advance(cdyn_ref_ode *ode, double t);

/*
 * Put the state y (sys.dimension values, copied into ode->y) and time t
 * back and restart the driver's step-size control, which may have
 * collapsed while failing.  For an owner that undoes several advances.
 */
void cdyn_ref_ode_restart(cdyn_ref_ode *ode, const double *y, double t);

/* Free the driver.  Accepts a driver that was never allocated. */
void cdyn_ref_ode_stop(cdyn_ref_ode *ode);

#ifdef __cplusplus
}
#endif
#endif
