/*
 * reference/nlink.c: planar N-link pendulum of point masses in absolute
 * joint angles, integrated with GSL odeiv2 (rk8pd) at tight tolerance.
 *
 * Equations implemented
 * ---------------------
 * Node 0 is the fixed pivot p = (px, py).  Link i (i = 0..n-1) has length
 * L_i and ends at node i+1, which carries mass m_i.  With the unit vectors
 *
 *   e(th)  = ( sin th, -cos th)     (along the link, downward at th = 0),
 *   e'(th) = ( cos th,  sin th)     (its derivative with respect to th),
 *
 * node k (k = 1..n) is at r_k = p + sum_{i<k} L_i e(th_i) and moves with
 * r_k' = sum_{i<k} L_i e'(th_i) w_i, where w_i = th_i'.  Since
 * e'(th_i) . e'(th_j) = cos(th_i - th_j),
 *
 *   T = 1/2 sum_{k=1..n} m_{k-1} |r_k'|^2
 *     = 1/2 sum_{i,j} mu_ij L_i L_j cos(th_i - th_j) w_i w_j,
 *
 * because the pair (i, j) occurs in |r_k'|^2 for every node k > max(i, j),
 * so it collects the masses
 *
 *   mu_ij = sum_{q >= max(i,j)} m_q.
 *
 * The potential is
 *
 *   V = g sum_k m_{k-1} y_k = g py sum_q m_q - g sum_i mu_ii L_i cos th_i.
 *
 * Write M_ij = mu_ij L_i L_j cos(th_i - th_j), so T = 1/2 w^T M w.
 * Lagrange's equations d/dt dT/dw_i - dT/dth_i + dV/dth_i = 0 need
 *
 *   d/dt dT/dw_i = sum_j M_ij w_j'
 *                  - sum_j mu_ij L_i L_j sin(th_i - th_j) (w_i - w_j) w_j,
 *   dT/dth_i     = - sum_j mu_ij L_i L_j sin(th_i - th_j) w_i w_j
 *                  (th_i enters the (i,j) and (j,i) terms, each giving half;
 *                  the diagonal is constant),
 *   dV/dth_i     = g mu_ii L_i sin th_i.
 *
 * The w_i w_j terms cancel, which leaves
 *
 *   sum_j mu_ij L_i L_j cos(th_i - th_j) w_j'
 *     = - sum_j mu_ij L_i L_j sin(th_i - th_j) w_j^2 - g mu_ii L_i sin th_i.
 *
 * For n = 1 this is m L^2 th'' = -m g L sin th, the simple pendulum.
 *
 * M is symmetric positive definite for every configuration:
 * w^T M w = sum_k m_{k-1} |J_k w|^2, where column i of J_k is L_i e'(th_i)
 * for i < k.  If that vanishes then J_1 w = L_0 e'(th_0) w_0 = 0 forces
 * w_0 = 0, then J_2 w = 0 forces w_1 = 0, and so on.  So M is factored by
 * Cholesky (dposv).
 *
 * The first-order system integrated is y = (th_0..th_{n-1}, w_0..w_{n-1})
 * with y' = (w, M^{-1} b), b the right-hand side above.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <lapacke.h>

#include "cdyn/error.h"
#include "nlink.h"
#include "ode.h"

/*
 * Why the right-hand side last refused to evaluate, for the message.  A
 * non-finite state is told by the shared driver's generic message.
 */
enum rhs_failure {
  RHS_OK = 0,
  RHS_NONFINITE_SYSTEM,
  RHS_SOLVE,
  RHS_NONFINITE_RESULT
};

struct cdyn_ref_nlink {
  size_t n;
  double g;
  double px, py;
  double *len;          /* n link lengths */
  double *mass;         /* n node masses, mass[i] at node i+1 */
  double *tail;         /* tail[i] = sum_{q >= i} mass[q] = mu_ii */
  double *y;            /* 2n state: angles, then angular velocities */
  double *y_backup;     /* state at the start of an advance */
  double *y_sample;     /* state at the start of a sample */
  double *mmat;         /* n x n mass matrix, overwritten by its factor */
  double *rhs;          /* n right-hand side, overwritten by accelerations */
  cdyn_ref_ode ode;     /* integrator; holds the current time */
  enum rhs_failure failure;
  lapack_int info;      /* LAPACKE status of the failed solve */
};

/*
 * The right-hand side for GSL.  It must not allocate and must never hand
 * NaN or infinity back to the stepper: GSL_EBADFUNC makes the evolve
 * function stop at once instead of retrying with smaller steps, which would
 * not help with a non-finite state.
 */
static int nlink_rhs(double t, const double y[], double dydt[], void *params)
{
  cdyn_ref_nlink *r = params;
  const size_t n = r->n;
  const double *th = y, *w = y + n;
  double *M = r->mmat, *b = r->rhs;
  (void)t;

  for (size_t i = 0; i < 2 * n; i++)
    if (!isfinite(y[i])) {
      r->ode.nonfinite = 1;
      return GSL_EBADFUNC;
    }

  int finite = 1;
  for (size_t i = 0; i < n; i++) {
    double bi = -r->g * r->tail[i] * r->len[i] * sin(th[i]);
    for (size_t j = 0; j < n; j++) {
      const double mu = r->tail[i > j ? i : j];
      const double c = mu * r->len[i] * r->len[j];
      const double d = th[i] - th[j];
      M[i * n + j] = c * cos(d);
      bi -= c * sin(d) * w[j] * w[j];
    }
    b[i] = bi;
    finite = finite && isfinite(bi);
  }
  for (size_t k = 0; k < n * n; k++)
    finite = finite && isfinite(M[k]);
  if (!finite) {
    r->failure = RHS_NONFINITE_SYSTEM;
    return GSL_EBADFUNC;
  }

  /*
   * M is stored row-major in a flat array with leading dimension n.  Being
   * symmetric, the same array is also M in column-major order, and b is a
   * single contiguous column either way.  The solve is therefore requested
   * as column-major: LAPACKE's row-major path would malloc and transpose
   * copies of both on every call, and the right-hand side must not
   * allocate.  The result is identical.
   */
  const lapack_int nn = (lapack_int)n;
  const lapack_int info = LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', nn, 1, M, nn,
                                        b, nn);
  if (info != 0) {
    r->failure = RHS_SOLVE;
    r->info = info;
    return GSL_EBADFUNC;
  }

  for (size_t i = 0; i < n; i++) {
    if (!isfinite(b[i])) {
      r->failure = RHS_NONFINITE_RESULT;
      return GSL_EBADFUNC;
    }
    dydt[i] = w[i];
    dydt[n + i] = b[i];
  }
  return GSL_SUCCESS;
}

/* Check one array of n parameters: present, finite and, if asked, > 0. */
static int check_array(const double *a, size_t n, const char *name,
                       int positive)
{
  if (a == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_new: p->%s is NULL", name);
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(a[i]))
      return cdyn_error(CDYN_EINVAL,
                        "cdyn_ref_nlink_new: p->%s[%zu] = %g is not finite",
                        name, i, a[i]);
    if (positive && !(a[i] > 0))
      return cdyn_error(CDYN_EINVAL,
                        "cdyn_ref_nlink_new: p->%s[%zu] = %g must be > 0",
                        name, i, a[i]);
  }
  return CDYN_OK;
}

/*
 * Describe a failed driver call from what the right-hand side recorded
 * about why it refused (the shared driver's describe callback).  RHS_OK
 * leaves the generic message, which covers a non-finite state and GSL's
 * own failures.
 */
static int describe_failure(const void *params, int gsl_status,
                            double t_fail, double t_target)
{
  const cdyn_ref_nlink *r = params;
  switch (r->failure) {
  case RHS_NONFINITE_SYSTEM:
    return cdyn_error(CDYN_ENONFINITE, "cdyn_ref_nlink_advance: mass matrix "
                      "or force overflowed near t = %.17g while advancing to "
                      "%.17g", t_fail, t_target);
  case RHS_NONFINITE_RESULT:
    return cdyn_error(CDYN_ENONFINITE, "cdyn_ref_nlink_advance: angular "
                      "accelerations overflowed near t = %.17g while "
                      "advancing to %.17g", t_fail, t_target);
  case RHS_SOLVE:
    return cdyn_error(CDYN_ESOLVE, "cdyn_ref_nlink_advance: LAPACKE_dposv "
                      "failed with info = %ld near t = %.17g (GSL status "
                      "%d)", (long)r->info, t_fail, gsl_status);
  case RHS_OK:
    break;
  }
  return CDYN_OK;
}

int cdyn_ref_nlink_new(cdyn_ref_nlink **out, const cdyn_ref_nlink_params *p)
{
  if (out == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_new: out is NULL");
  *out = NULL;
  if (p == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_new: p is NULL");

  const size_t n = p->n;
  if (n == 0)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_new: p->n = 0, need >= 1");
  /*
   * The work arrays hold n*n + 10n doubles in one block, and n is passed
   * to LAPACK as lapack_int; refuse sizes for which either overflows.
   */
  if (n > (size_t)INT32_MAX || n > SIZE_MAX / sizeof(double) / (n + 10))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_new: p->n = %zu is too "
                      "large", n);

  int status;
  if ((status = check_array(p->length, n, "length", 1)) != CDYN_OK ||
      (status = check_array(p->mass, n, "mass", 1)) != CDYN_OK ||
      (status = check_array(p->theta0, n, "theta0", 0)) != CDYN_OK)
    return status;
  if (p->omega0 != NULL &&
      (status = check_array(p->omega0, n, "omega0", 0)) != CDYN_OK)
    return status;
  if (!(isfinite(p->g) && p->g >= 0))
    return cdyn_error(CDYN_EINVAL,
                      "cdyn_ref_nlink_new: p->g = %g must be finite and >= 0",
                      p->g);
  for (int d = 0; d < 2; d++)
    if (!isfinite(p->pivot[d]))
      return cdyn_error(CDYN_EINVAL,
                        "cdyn_ref_nlink_new: p->pivot[%d] = %g is not finite",
                        d, p->pivot[d]);
  double abstol = p->abstol, reltol = p->reltol;
  if ((status = cdyn_ref_ode_tolerances("cdyn_ref_nlink", &abstol,
                                        &reltol)) != CDYN_OK)
    return status;

  cdyn_ref_nlink *r = calloc(1, sizeof *r);
  if (r == NULL)
    return cdyn_error(CDYN_ENOMEM, "cdyn_ref_nlink_new: out of memory for "
                      "the pendulum object");
  /* One block for all arrays, so that there is a single thing to free. */
  double *block = malloc((n * n + 10 * n) * sizeof *block);
  if (block == NULL) {
    free(r);
    return cdyn_error(CDYN_ENOMEM, "cdyn_ref_nlink_new: out of memory for "
                      "%zu links", n);
  }
  r->n = n;
  r->g = p->g;
  r->px = p->pivot[0];
  r->py = p->pivot[1];
  r->len = block;
  r->mass = r->len + n;
  r->tail = r->mass + n;
  r->y = r->tail + n;
  r->y_backup = r->y + 2 * n;
  r->y_sample = r->y_backup + 2 * n;
  r->rhs = r->y_sample + 2 * n;
  r->mmat = r->rhs + n;

  memcpy(r->len, p->length, n * sizeof *r->len);
  memcpy(r->mass, p->mass, n * sizeof *r->mass);
  double acc = 0;
  for (size_t i = n; i-- > 0;) {
    acc += r->mass[i];
    r->tail[i] = acc;
  }
  memcpy(r->y, p->theta0, n * sizeof *r->y);
  for (size_t i = 0; i < n; i++)
    r->y[n + i] = p->omega0 != NULL ? p->omega0[i] : 0.0;

  r->ode = (cdyn_ref_ode){
    .name = "cdyn_ref_nlink",
    .sys = {.function = nlink_rhs, .dimension = 2 * n, .params = r},
    .y = r->y,
    .backup = r->y_backup,
    .describe = describe_failure,
  };
  /* The object's own free copes with a driver that was not allocated. */
  if ((status = cdyn_ref_ode_start(&r->ode, abstol, reltol)) != CDYN_OK)
    cdyn_ref_nlink_free(r);
  else
    *out = r;
  return status;
}

void cdyn_ref_nlink_free(cdyn_ref_nlink *r)
{
  if (r == NULL)
    return;
  cdyn_ref_ode_stop(&r->ode);
  free(r->len); /* the start of the single array block */
  free(r);
}

int cdyn_ref_nlink_advance(cdyn_ref_nlink *r, double t)
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_advance: r is NULL");
  /* A failure recorded by an earlier advance must not describe this one. */
  r->failure = RHS_OK;
  return cdyn_ref_ode_advance(&r->ode, t);
}

double cdyn_ref_nlink_time(const cdyn_ref_nlink *r)
{
  return r != NULL ? r->ode.t : NAN;
}

int cdyn_ref_nlink_angles(const cdyn_ref_nlink *r, double *theta,
                          double *omega)
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_angles: r is NULL");
  if (theta != NULL)
    memcpy(theta, r->y, r->n * sizeof *theta);
  if (omega != NULL)
    memcpy(omega, r->y + r->n, r->n * sizeof *omega);
  return CDYN_OK;
}

/* Node positions from the angles, shared by positions and sample. */
static void node_positions(const cdyn_ref_nlink *r, double *xy)
{
  double x = r->px, y = r->py;
  for (size_t i = 0; i < r->n; i++) {
    x += r->len[i] * sin(r->y[i]);
    y -= r->len[i] * cos(r->y[i]);
    xy[2 * i] = x;
    xy[2 * i + 1] = y;
  }
}

int cdyn_ref_nlink_positions(const cdyn_ref_nlink *r, double *xy)
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_positions: r is NULL");
  if (xy == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_positions: xy is NULL");
  node_positions(r, xy);
  return CDYN_OK;
}

int cdyn_ref_nlink_velocities(const cdyn_ref_nlink *r, double *vxy)
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_velocities: r is NULL");
  if (vxy == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_velocities: vxy is NULL");
  const double *th = r->y, *w = r->y + r->n;
  double vx = 0, vy = 0;
  for (size_t i = 0; i < r->n; i++) {
    vx += r->len[i] * cos(th[i]) * w[i];
    vy += r->len[i] * sin(th[i]) * w[i];
    vxy[2 * i] = vx;
    vxy[2 * i + 1] = vy;
  }
  return CDYN_OK;
}

int cdyn_ref_nlink_accelerations(cdyn_ref_nlink *r, double *axy)
{
  if (r == NULL || axy == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_accelerations: NULL argument");
  const size_t n = r->n;
  double *dydt = malloc(2 * n * sizeof *dydt);
  if (!dydt)
    return cdyn_error(CDYN_ENOMEM, "cdyn_ref_nlink_accelerations: out of memory");
  r->failure = RHS_OK;
  r->ode.nonfinite = 0;
  if (nlink_rhs(r->ode.t, r->y, dydt, r) != GSL_SUCCESS) {
    free(dydt);
    if (r->ode.nonfinite || r->failure == RHS_NONFINITE_SYSTEM || r->failure == RHS_NONFINITE_RESULT)
      return cdyn_error(CDYN_ENONFINITE, "cdyn_ref_nlink_accelerations: a value is not finite at t = %g", r->ode.t);
    return cdyn_error(CDYN_ESOLVE, "cdyn_ref_nlink_accelerations: the mass matrix cannot be factored at t = %g",
                      r->ode.t);
  }
  const double *th = r->y, *w = r->y + n, *wd = dydt + n;
  double ax = 0, ay = 0;
  for (size_t i = 0; i < n; i++) {
    /* e = (sin, -cos), e' = (cos, sin): L (e' w' - e w^2). */
    ax += r->len[i] * (cos(th[i]) * wd[i] - sin(th[i]) * w[i] * w[i]);
    ay += r->len[i] * (sin(th[i]) * wd[i] + cos(th[i]) * w[i] * w[i]);
    axy[2 * i] = ax;
    axy[2 * i + 1] = ay;
  }
  free(dydt);
  return CDYN_OK;
}

int cdyn_ref_nlink_tensions(cdyn_ref_nlink *r, double *tension, double *residual)
{
  if (r == NULL || tension == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_tensions: NULL argument");
  const size_t n = r->n;
  double *axy = malloc(2 * n * sizeof *axy);
  if (!axy)
    return cdyn_error(CDYN_ENOMEM, "cdyn_ref_nlink_tensions: out of memory");
  int rc = cdyn_ref_nlink_accelerations(r, axy);
  if (rc) {
    free(axy);
    return rc;
  }
  double next = 0, ux_next = 0, uy_next = 0, worst = 0;
  for (size_t k = n; k-- > 0;) {
    /* Node k+1 carries mass[k] and ends link k. */
    double ux = sin(r->y[k]), uy = -cos(r->y[k]);
    double fx = -r->mass[k] * axy[2 * k] + next * ux_next;
    double fy = -r->mass[k] * (r->g + axy[2 * k + 1]) + next * uy_next;
    double T = ux * fx + uy * fy;
    double across = fabs(-uy * fx + ux * fy);
    double scale = r->mass[k] * r->g + fabs(T);
    if (scale > 0 && across / scale > worst)
      worst = across / scale;
    tension[k] = T;
    next = T;
    ux_next = ux;
    uy_next = uy;
  }
  free(axy);
  if (residual)
    *residual = worst;
  return CDYN_OK;
}

int cdyn_ref_nlink_energy(const cdyn_ref_nlink *r, double *E)
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_energy: r is NULL");
  if (E == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_energy: E is NULL");
  /*
   * Summed node by node in Cartesian form rather than through the mass
   * matrix, so that the energy is an independent check on the equations
   * of motion and needs no work array.
   */
  const double *th = r->y, *w = r->y + r->n;
  double y = r->py, vx = 0, vy = 0, kin = 0, pot = 0;
  for (size_t i = 0; i < r->n; i++) {
    y -= r->len[i] * cos(th[i]);
    vx += r->len[i] * cos(th[i]) * w[i];
    vy += r->len[i] * sin(th[i]) * w[i];
    kin += 0.5 * r->mass[i] * (vx * vx + vy * vy);
    pot += r->mass[i] * r->g * y;
  }
  const double e = kin + pot;
  if (!isfinite(e))
    return cdyn_error(CDYN_ENONFINITE, "cdyn_ref_nlink_energy: energy "
                      "overflowed (T = %g, V = %g)", kin, pot);
  *E = e;
  return CDYN_OK;
}

int cdyn_ref_nlink_sample(cdyn_ref_nlink *r, size_t nt, const double *times,
                          double *xy)
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_sample: r is NULL");
  if (nt == 0)
    return CDYN_OK;
  if (times == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_sample: times is NULL");
  if (xy == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_sample: xy is NULL");
  /* Check every time first so that a bad list changes nothing. */
  double prev = r->ode.t;
  for (size_t j = 0; j < nt; j++) {
    if (!isfinite(times[j]))
      return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_sample: times[%zu] = %g "
                        "is not finite", j, times[j]);
    if (times[j] < prev)
      return cdyn_error(CDYN_EINVAL, "cdyn_ref_nlink_sample: times[%zu] = "
                        "%.17g is before %.17g (%s)", j, times[j], prev,
                        j == 0 ? "the current time" : "the previous time");
    prev = times[j];
  }

  const double t_start = r->ode.t;
  memcpy(r->y_sample, r->y, 2 * r->n * sizeof *r->y);
  const size_t row = 2 * r->n;
  for (size_t j = 0; j < nt; j++) {
    const int status = cdyn_ref_nlink_advance(r, times[j]);
    if (status != CDYN_OK) {
      cdyn_ref_ode_restart(&r->ode, r->y_sample, t_start);
      return status;
    }
    node_positions(r, xy + j * row);
  }
  return CDYN_OK;
}
