/*
 * contact_problems.c: random small contact configurations, for the
 * active-set census (experiments/studies/active_set_census.c) and its regression tests
 * (tests/test_census.c).  See contact_problems.h for the model.
 */
#include <math.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "problems/contact_problems.h"

static void unit(gsl_rng *r, size_t d, double *u)
{
  double nn;
  do {
    nn = 0;
    for (size_t c = 0; c < d; c++) {
      u[c] = gsl_ran_gaussian(r, 1.0);
      nn += u[c] * u[c];
    }
  } while (nn < 1e-12);
  nn = sqrt(nn);
  for (size_t c = 0; c < d; c++)
    u[c] /= nn;
}

void cp_generate(gsl_rng *r, size_t kmin, size_t kmax, cp_problem *p)
{
  memset(p, 0, sizeof *p);
  p->d = 2 + gsl_rng_uniform_int(r, 2);
  p->np = 1 + gsl_rng_uniform_int(r, CP_MAXP);
  p->k = kmin + gsl_rng_uniform_int(r, kmax - kmin + 1);
  size_t d = p->d, np = p->np, nq = d * np;
  for (size_t i = 0; i < np; i++) {
    p->w[i] = 1.0 / exp(log(0.1) + gsl_rng_uniform(r) * (log(10.0) - log(0.1)));
    for (size_t c = 0; c < d; c++)
      p->f[d * i + c] = gsl_ran_gaussian(r, 1.0) / p->w[i];
  }
  int used[CP_MAXP][CP_MAXP] = {{0}};
  size_t pairs_left = np * (np - 1) / 2;
  for (size_t row = 0; row < p->k; row++) {
    double u[3];
    if (pairs_left && gsl_rng_uniform(r) < 0.5) {
      size_t i, j;
      do {
        i = gsl_rng_uniform_int(r, np);
        j = gsl_rng_uniform_int(r, np);
      } while (i == j || used[i][j]);
      used[i][j] = used[j][i] = 1;
      pairs_left--;
      unit(r, d, u);
      for (size_t c = 0; c < d; c++) {
        p->J[row][d * i + c] = u[c];
        p->J[row][d * j + c] = -u[c];
      }
    } else {
      size_t i = gsl_rng_uniform_int(r, np);
      unit(r, d, u);
      for (size_t c = 0; c < d; c++)
        p->J[row][d * i + c] = u[c];
    }
  }
  for (size_t a = 0; a < p->k; a++) {
    for (size_t c = 0; c < p->k; c++) {
      double s = 0;
      for (size_t q = 0; q < nq; q++)
        s += p->J[a][q] * p->w[q / d] * p->J[c][q];
      p->A[a * p->k + c] = s;
    }
    double s = 0;
    for (size_t q = 0; q < nq; q++)
      s += p->J[a][q] * p->w[q / d] * p->f[q];
    p->b[a] = s;
  }
}

/* qdd = W (f + J^T mu) */
void cp_accel(const cp_problem *p, const double *mu, double *qdd)
{
  size_t nq = p->d * p->np;
  for (size_t q = 0; q < nq; q++) {
    double s = p->f[q];
    for (size_t a = 0; a < p->k; a++)
      s += p->J[a][q] * mu[a];
    qdd[q] = p->w[q / p->d] * s;
  }
}

