/*
 * core/frequency.c: the highest angular frequency of a system's springs,
 * the number behind the step-size limit of springs integrated explicitly.
 *
 * Linearised about any state, the springs' stiffness is
 *   K = sum_s H_s,  H_s = k_s d d^T + k_s (1 - L0_s / l_s) (I - d d^T)
 * on the particles (i, j) of spring s (d its unit direction, l its length),
 * and the undamped modes of M qdd = -K q have the frequencies omega with
 * omega^2 the eigenvalues of M^-1/2 K M^-1/2.  A stretched spring's H_s is
 * at most k_s I (1 - L0/l < 1), so K is at most the scalar, mass-spring
 * Laplacian sum_s k_s (e_i - e_j)(e_i - e_j)^T times I_3, and Gershgorin's
 * theorem on its mass-scaled rows bounds
 *   omega_max^2 <= max_i sum_{s at i} k_s (1/m_i + 1/sqrt(m_i m_j)).     (1)
 * One spring between free particles alone has
 *   omega_s^2 = k_s (1/m_i + 1/m_j),                                      (2)
 * and a network of them has omega_max >= max_s omega_s (the Rayleigh
 * quotient of the mode that moves i and j apart along d is (2)).  So
 * max_s omega_s <= omega_max <= the bound (1): equal for a chain of equal
 * springs, sqrt(2) apart for a square grid.
 *
 * Symplectic Euler, undamped, is stable for h omega < 2 on every mode;
 * explicit Euler is unstable at any h (its growth is 1 + O(h^2 omega^2)
 * per step), RK4 stable for h omega < 2.83.  Damping and compressed
 * springs (whose transverse stiffness is negative) change the numbers a
 * little; the limit h < 2 / omega_max is the one doc/scene-format.md and
 * the cdyn program state.  Springs switched off (strain limiting's
 * constraints) do not count.
 */
#include <math.h>
#include <stdlib.h>

#include "core/internal.h"

int cdyn_system_spring_frequency(const cdyn_system *sys, double *omega_spring, double *omega_bound)
{
  if (!sys || !omega_spring || !omega_bound)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_spring_frequency: NULL argument");
  double *row = calloc(sys->n, sizeof *row);
  if (!row && sys->n)
    return cdyn_error(CDYN_ENOMEM, "cdyn_system_spring_frequency: out of memory");
  double w2 = 0;
  for (size_t k = 0; k < sys->nsprings; k++) {
    const cdyn_spring *sp = &sys->springs[k];
    if (!sp->enabled)
      continue;
    double mi = sys->mass[sp->i], mj = sys->mass[sp->j];
    double s2 = sp->k * (1 / mi + 1 / mj), cross = sp->k / sqrt(mi * mj);
    if (s2 > w2)
      w2 = s2;
    row[sp->i] += sp->k / mi + cross;
    row[sp->j] += sp->k / mj + cross;
  }
  double b2 = 0;
  for (size_t i = 0; i < sys->n; i++)
    if (row[i] > b2)
      b2 = row[i];
  free(row);
  *omega_spring = sqrt(w2);
  *omega_bound = sqrt(b2);
  return CDYN_OK;
}
