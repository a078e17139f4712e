/*
 * reference/ode.c: the GSL odeiv2 rk8pd driver shared by the
 * angle-coordinate references; the contract is stated in ode.h.
 *
 * Method.  gsl_odeiv2_driver_apply with gsl_odeiv2_step_rk8pd, the
 * embedded Runge-Kutta-Prince-Dormand (8, 9) pair (Prince & Dormand,
 * J. Comput. Appl. Math. 7 (1981) 67-75), and GSL's standard control,
 * which keeps the local error of each component below
 * abstol + reltol |y_i|.  The driver takes its last step so as to land
 * on the target time exactly.
 *
 * Choices made
 * ------------
 * - The first trial step is 1e-6.  The controller grows it within a few
 *   steps, so it only needs to be small compared with any period of the
 *   pendulums modelled.
 * - When the driver fails it undoes only the failing step, leaving the
 *   state wherever its last successful step took it.  The state is
 *   therefore copied to the owner's backup array before each advance and
 *   put back on failure, and the step-size control is restarted from the
 *   first trial step, since the step may have collapsed while failing; the
 *   next advance then proceeds exactly as from a new object.
 * - GSL reports its own allocation failures through gsl_error(), whose
 *   default handler aborts; the NULL check in cdyn_ref_ode_start is only
 *   reached when the application has installed a handler that returns.
 */
#include <math.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

#include "cdyn/error.h"
#include "ode.h"

static const double first_step = 1e-6;

/* Resolve one tolerance: 0 selects the default, otherwise (0, max]. */
static int resolve_tol(const char *name, const char *field, double *tol)
{
  if (*tol == 0) {
    *tol = CDYN_REF_ODE_DEFAULT_TOL;
    return CDYN_OK;
  }
  if (!(*tol > 0 && *tol <= CDYN_REF_ODE_MAX_TOL))
    return cdyn_error(CDYN_EINVAL, "%s_new: p->%s = %g must be 0 (default "
                      "%g) or in (0, %g]", name, field, *tol,
                      CDYN_REF_ODE_DEFAULT_TOL, CDYN_REF_ODE_MAX_TOL);
  return CDYN_OK;
}

int cdyn_ref_ode_tolerances(const char *name, double *abstol,
                            double *reltol)
{
  int status = resolve_tol(name, "abstol", abstol);
  if (status == CDYN_OK)
    status = resolve_tol(name, "reltol", reltol);
  return status;
}

int cdyn_ref_ode_start(cdyn_ref_ode *ode, double abstol, double reltol)
{
  ode->t = 0;
  ode->nonfinite = 0;
  ode->driver = gsl_odeiv2_driver_alloc_y_new(&ode->sys,
                                              gsl_odeiv2_step_rk8pd,
                                              first_step, abstol, reltol);
  if (ode->driver == NULL)
    return cdyn_error(CDYN_ENOMEM, "%s_new: could not allocate the GSL "
                      "rk8pd driver for dimension %zu", ode->name,
                      ode->sys.dimension);
  return CDYN_OK;
}

void cdyn_ref_ode_stop(cdyn_ref_ode *ode)
{
  if (ode->driver != NULL)
    gsl_odeiv2_driver_free(ode->driver);
  ode->driver = NULL;
}

void cdyn_ref_ode_restart(cdyn_ref_ode *ode, const double *y, double t)
{
  /* memmove: a caller may hand back ode->y itself. */
  memmove(ode->y, y, ode->sys.dimension * sizeof *ode->y);
  ode->t = t;
  gsl_odeiv2_driver_reset_hstart(ode->driver, first_step);
}

int cdyn_ref_ode_advance(cdyn_ref_ode *ode, double t)
{
  if (!isfinite(t))
    return cdyn_error(CDYN_EINVAL, "%s_advance: t = %g is not finite",
                      ode->name, t);
  if (t < ode->t)
    return cdyn_error(CDYN_EINVAL, "%s_advance: t = %.17g is before the "
                      "current time %.17g", ode->name, t, ode->t);
  if (t == ode->t)
    return CDYN_OK;

  memcpy(ode->backup, ode->y, ode->sys.dimension * sizeof *ode->y);
  ode->nonfinite = 0;
  double tc = ode->t;
  const int s = gsl_odeiv2_driver_apply(ode->driver, &tc, t, ode->y);
  if (s == GSL_SUCCESS) {
    ode->t = t;
    return CDYN_OK;
  }

  cdyn_ref_ode_restart(ode, ode->backup, ode->t);
  if (ode->describe != NULL) {
    const int status = ode->describe(ode->sys.params, s, tc, t);
    if (status != CDYN_OK)
      return status;
  }
  if (ode->nonfinite)
    return cdyn_error(CDYN_ENONFINITE, "%s_advance: the state or its "
                      "derivative became non-finite near t = %.17g while "
                      "advancing to %.17g",
                      ode->name, tc, t);
  return cdyn_error(CDYN_ESOLVE, "%s_advance: GSL odeiv2 driver failed with "
                    "status %d (%s) near t = %.17g while advancing to %.17g",
                    ode->name, s, gsl_strerror(s), tc, t);
}
