/*
 * pin.c: a particle pinned to a point that may move with time
 * (001's "point-node constraints" for fixed ends; 002's moving anchor).
 *
 *   p(t)     = p0 + u t + a (sin(w t + phi) - sin(phi))
 *   p'(t)    = u + a w cos(w t + phi)
 *   p''(t)   = -a w^2 sin(w t + phi)
 *   Phi      = x - p(t)                    (three rows, one per axis)
 *   J        = I
 *   Phi_t    = -p'(t)
 *   (Jv)_q v = 0
 *   phi_tt   = 2 Phi_qt v + Phi_tt = -p''(t)
 *   Hess Phi = 0                           (Phi is linear in x)
 *
 * The error measure of the library, the Euclidean norm of a constraint's
 * rows, makes a pin's error |x - p(t)|.
 * Parameters: p0[3], u[3], a[3], w, phi.
 */
#include <math.h>

#include "core/internal.h"

static const char *const names[] = {"p0x", "p0y", "p0z", "ux", "uy", "uz",
                                    "ax",  "ay",  "az",  "omega", "phase"};

static int eval(const double *p, const double *const *x, const double *const *v,
                double t, cdyn_row *row)
{
  (void)v;
  const double *p0 = p, *u = p + 3, *a = p + 6;
  double w = p[9], ph = p[10];
  double s = sin(w * t + ph), c = cos(w * t + ph), s0 = sin(ph);
  for (int k = 0; k < 3; k++) {
    double pos = p0[k] + u[k] * t + a[k] * (s - s0);
    double vel = u[k] + a[k] * w * c;
    double acc = -a[k] * w * w * s;
    row[k].phi = x[0][k] - pos;
    row[k].jac[0][k] = 1.0;
    row[k].phi_t = -vel;
    row[k].phi_tt = -acc;
  }
  return CDYN_OK;
}

static int hess(const double *p, const double *const *x, double t, const double *lambda, double *K)
{
  (void)p;
  (void)x;
  (void)t;
  (void)lambda;
  for (int k = 0; k < 9; k++)
    K[k] = 0;
  return CDYN_OK;
}

const cdyn_constraint_type cdyn_ctype_pin = {
  .name = "pin",
  .description = "particle on a moving point x = p0 + u t + a (sin(w t + phi) - sin phi)",
  .nparticles = 1,
  .nparams = 11,
  .rows = 3,
  .param_names = names,
  .check = NULL,
  .eval = eval,
  .hess = hess,
};

