/*
 * strainlimit.c: adaptive strain limiting, springs <-> distance
 * constraints (000 sec. 4; 001 sec. V-B; cdyn/cloth.h).
 *
 *   before a step:  eps_s = (|x_i - x_j| - L0) / L0 > eps_max  ->  spring s
 *                   off, its constraint |x_i - x_j| = L on, L = length L0
 *                   (default (1 + eps_max) L0: the constraint holds the
 *                   spring at its limit; at_current: L = the spring's
 *                   length then, Phi = 0, nothing to correct);
 *   after a step:   lambda_c < -release  ->  constraint c off, its spring on;
 *                   before the next step such a spring becomes a
 *                   constraint again only beyond eps_max + hysteresis.
 * The papers release a constraint "when the constraint force is working to
 * resist the shrinkage"; with Phi = |x_ij| - L and M qdd + J^T lambda = F,
 * a link in tension has lambda > 0, so a negative lambda pushes the nodes
 * apart: that is the release, with an optional threshold.
 *
 * Order: before walks the watched springs in the order given, after the
 * active constraints in the same order, so a run is bitwise reproducible.
 * Each watched spring's constraint is added once, switched off, when the
 * limiter is made: a switch is then cdyn_system_enable_spring and
 * cdyn_system_enable_constraint, which allocate nothing, and a stepper
 * built afterwards sizes its rows and A's pattern for every watched spring
 * active at once (stepper/layout.c sizes for every live constraint), so
 * its steps do not allocate either, whatever the active set (a sparse
 * solver's analysis of a set it has not seen excepted: cdyn/stepper.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cdyn/cloth.h"
#include "core/internal.h"

struct cdyn_strainlimit {
  cdyn_system *sys;
  cdyn_strainlimit_opts o;
  size_t n;
  size_t *spring;     /* n watched springs */
  size_t *con;        /* n: its constraint (added off) */
  unsigned char *on;  /* n: the constraint is active */
  unsigned char *just_released; /* n: released at the last after */
  cdyn_strainlimit_counts counts;
};

void cdyn_strainlimit_free(cdyn_strainlimit *sl)
{
  if (!sl)
    return;
  free(sl->spring);
  free(sl->con);
  free(sl->on);
  free(sl->just_released);
  free(sl);
}

int cdyn_strainlimit_new(cdyn_strainlimit **out, cdyn_system *sys, const size_t *springs, size_t count,
                         const cdyn_strainlimit_opts *o)
{
  if (!out || !sys || !o || (count && !springs))
    return cdyn_error(CDYN_EINVAL, "cdyn_strainlimit_new: NULL argument");
  *out = NULL;
  if (!(o->eps_max > 0) || !isfinite(o->eps_max))
    return cdyn_error(CDYN_EINVAL, "cdyn_strainlimit_new: eps_max = %g must be finite and > 0", o->eps_max);
  if (!(o->length == 0 || (o->length >= 1 && isfinite(o->length))))
    return cdyn_error(CDYN_EINVAL, "cdyn_strainlimit_new: length = %g must be 0 (the limit) or >= 1", o->length);
  if (!(o->release >= 0) || !isfinite(o->release))
    return cdyn_error(CDYN_EINVAL, "cdyn_strainlimit_new: release = %g must be finite and >= 0", o->release);
  if (!(o->hysteresis >= 0) || !isfinite(o->hysteresis))
    return cdyn_error(CDYN_EINVAL, "cdyn_strainlimit_new: hysteresis = %g must be finite and >= 0", o->hysteresis);
  if (o->mode != CDYN_LIMIT_SWITCH && o->mode != CDYN_LIMIT_INEQUALITY)
    return cdyn_error(CDYN_EINVAL, "cdyn_strainlimit_new: mode %d is neither CDYN_LIMIT_SWITCH nor CDYN_LIMIT_INEQUALITY",
                      o->mode);
  if (o->mode == CDYN_LIMIT_INEQUALITY && o->at_current)
    return cdyn_error(CDYN_EINVAL, "cdyn_strainlimit_new: at_current applies to the switching mode only");
  size_t ns = cdyn_system_spring_count(sys);
  unsigned char *seen = calloc(ns ? ns : 1, 1);
  if (!seen)
    return cdyn_error(CDYN_ENOMEM, "cdyn_strainlimit_new: out of memory");
  for (size_t a = 0; a < count; a++) {
    int on = 0;
    if (springs[a] >= ns || seen[springs[a]]) {
      size_t k = springs[a];
      free(seen);
      return cdyn_error(CDYN_EINVAL, "cdyn_strainlimit_new: spring %zu is %s", k,
                        k >= ns ? "out of range" : "listed twice");
    }
    seen[springs[a]] = 1;
    cdyn_system_spring_enabled(sys, springs[a], &on);
    if (!on) {
      free(seen);
      return cdyn_error(CDYN_EINVAL, "cdyn_strainlimit_new: spring %zu is off (or a constraint already)", springs[a]);
    }
  }
  free(seen);
  cdyn_strainlimit *sl = calloc(1, sizeof *sl);
  if (!sl)
    return cdyn_error(CDYN_ENOMEM, "cdyn_strainlimit_new: out of memory");
  size_t nn = count ? count : 1;
  sl->spring = malloc(nn * sizeof *sl->spring);
  sl->con = malloc(nn * sizeof *sl->con);
  sl->just_released = calloc(nn, 1);
  sl->on = calloc(nn, 1);
  if (!sl->spring || !sl->con || !sl->just_released || !sl->on) {
    cdyn_strainlimit_free(sl);
    return cdyn_error(CDYN_ENOMEM, "cdyn_strainlimit_new: out of memory for %zu springs", count);
  }
  memcpy(sl->spring, springs, count * sizeof *springs);
  sl->sys = sys;
  sl->o = *o;
  sl->n = count;
  /* Every watched spring's constraint, added now: switched off (SWITCH),
     or a tether flagged as an inequality and on for good (INEQUALITY). */
  double scale = o->length > 0 ? o->length : 1 + o->eps_max;
  int rc = cdyn_system_reserve(sys, cdyn_system_constraint_count(sys) + count, 0, ns);
  for (size_t a = 0; a < count && !rc; a++) {
    const cdyn_spring *sp = &sys->springs[springs[a]];
    if (o->mode == CDYN_LIMIT_INEQUALITY) {
      size_t pp[2] = {sp->i, sp->j};
      double L = scale * sp->rest;
      if (!(rc = cdyn_system_add_constraint(sys, cdyn_constraint_tether, pp, &L, &sl->con[a])))
        rc = cdyn_system_set_inequality(sys, sl->con[a], 1);
    } else if (!(rc = cdyn_system_add_distance(sys, sp->i, sp->j, scale * sp->rest, &sl->con[a])))
      rc = cdyn_system_enable_constraint(sys, sl->con[a], 0);
    if (rc) {
      /* Take back the constraints added so far. */
      int keep = rc;
      for (size_t b = 0; b < a; b++)
        cdyn_system_remove_constraint(sys, sl->con[b]);
      cdyn_strainlimit_free(sl);
      return keep;
    }
  }
  if (rc) {
    cdyn_strainlimit_free(sl);
    return rc;
  }
  *out = sl;
  return CDYN_OK;
}

/*
 * INEQUALITY: nothing switches; the counts say how many tethers are at
 * their limit (strain within 1e-9 of it, or beyond), and how that number
 * moved since the last count (activated: up, released: down).
 */
static int count_at_limit(cdyn_strainlimit *sl, const double *q)
{
  size_t at = 0;
  double scale = sl->o.length > 0 ? sl->o.length : 1 + sl->o.eps_max;
  for (size_t a = 0; a < sl->n; a++) {
    const cdyn_spring *sp = &sl->sys->springs[sl->spring[a]];
    const double *xi = q + 3 * sp->i, *xj = q + 3 * sp->j;
    double d0 = xi[0] - xj[0], d1 = xi[1] - xj[1], d2 = xi[2] - xj[2];
    double r = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
    sl->on[a] = r >= scale * sp->rest * (1 - 1e-9);
    at += sl->on[a];
  }
  sl->counts.activated = at > sl->counts.active ? at - sl->counts.active : 0;
  sl->counts.released = at < sl->counts.active ? sl->counts.active - at : 0;
  sl->counts.active = at;
  return CDYN_OK;
}

int cdyn_strainlimit_before(cdyn_strainlimit *sl)
{
  if (!sl)
    return cdyn_error(CDYN_EINVAL, "cdyn_strainlimit_before: NULL argument");
  const double *q = cdyn_system_positions(sl->sys);
  if (sl->o.mode == CDYN_LIMIT_INEQUALITY)
    return count_at_limit(sl, q);
  size_t activated = 0;
  for (size_t a = 0; a < sl->n; a++) {
    if (sl->on[a])
      continue;
    const cdyn_spring *sp = &sl->sys->springs[sl->spring[a]];
    const double *xi = q + 3 * sp->i, *xj = q + 3 * sp->j;
    double d0 = xi[0] - xj[0], d1 = xi[1] - xj[1], d2 = xi[2] - xj[2];
    double eps = (sqrt(d0 * d0 + d1 * d1 + d2 * d2) - sp->rest) / sp->rest;
    if (eps > sl->o.eps_max + (sl->just_released[a] ? sl->o.hysteresis : 0)) {
      int rc;
      if (sl->o.at_current) {
        double L = sp->rest * (1 + eps);
        if ((rc = cdyn_system_set_constraint_params(sl->sys, sl->con[a], &L)))
          return rc;
      }
      if ((rc = cdyn_system_enable_spring(sl->sys, sl->spring[a], 0)) ||
          (rc = cdyn_system_enable_constraint(sl->sys, sl->con[a], 1)))
        return rc;
      sl->on[a] = 1;
      activated++;
      if (sl->just_released[a])
        sl->counts.flips++;
    }
    sl->just_released[a] = 0;
  }
  sl->counts.activated = activated;
  sl->counts.total_activated += activated;
  sl->counts.active += activated;
  return CDYN_OK;
}

int cdyn_strainlimit_after(cdyn_strainlimit *sl, const cdyn_stepper *st)
{
  if (!sl || !st)
    return cdyn_error(CDYN_EINVAL, "cdyn_strainlimit_after: NULL argument");
  if (sl->o.mode == CDYN_LIMIT_INEQUALITY)
    return count_at_limit(sl, cdyn_system_positions(sl->sys));
  size_t released = 0;
  for (size_t a = 0; a < sl->n; a++) {
    if (!sl->on[a])
      continue;
    double lambda;
    size_t rows;
    int rc = cdyn_stepper_constraint_multipliers(st, sl->con[a], &lambda, &rows);
    if (rc)
      return rc;
    if (lambda < -sl->o.release) {
      if ((rc = cdyn_system_enable_constraint(sl->sys, sl->con[a], 0)) ||
          (rc = cdyn_system_enable_spring(sl->sys, sl->spring[a], 1)))
        return rc;
      sl->on[a] = 0;
      sl->just_released[a] = 1;
      released++;
    }
  }
  sl->counts.released = released;
  sl->counts.total_released += released;
  sl->counts.active -= released;
  return CDYN_OK;
}

int cdyn_strainlimit_counts_get(const cdyn_strainlimit *sl, cdyn_strainlimit_counts *counts)
{
  if (!sl || !counts)
    return cdyn_error(CDYN_EINVAL, "cdyn_strainlimit_counts_get: NULL argument");
  *counts = sl->counts;
  return CDYN_OK;
}

/* ---- Provot 1995 ------------------------------------------------------------- */

/*
 * For a spring (i, j) with d = x_i - x_j, r = |d|, r > L = (1 + eps_max) L0:
 *   delta = (r - L) d / r,  x_i -= w_i / (w_i + w_j) delta,  x_j += w_j / (w_i + w_j) delta,
 * w = 0 for a fixed node, 1/m else; v moves by the same amount / h.
 */
int cdyn_provot_limit(cdyn_system *sys, const size_t *springs, size_t count, double eps_max, int sweeps, double h,
                      const unsigned char *fixed, size_t *moved)
{
  if (!sys || (count && !springs))
    return cdyn_error(CDYN_EINVAL, "cdyn_provot_limit: NULL argument");
  if (!(eps_max > 0) || !isfinite(eps_max))
    return cdyn_error(CDYN_EINVAL, "cdyn_provot_limit: eps_max = %g must be finite and > 0", eps_max);
  if (sweeps < 1)
    return cdyn_error(CDYN_EINVAL, "cdyn_provot_limit: %d sweeps; at least 1", sweeps);
  if (!(h > 0) || !isfinite(h))
    return cdyn_error(CDYN_EINVAL, "cdyn_provot_limit: h = %g must be finite and > 0", h);
  for (size_t a = 0; a < count; a++)
    if (springs[a] >= sys->nsprings)
      return cdyn_error(CDYN_EINVAL, "cdyn_provot_limit: spring %zu out of range (%zu springs)", springs[a],
                        sys->nsprings);
  size_t n = 0;
  double *q = sys->q, *v = sys->v;
  /* A finite state stays finite: every correction is a fraction of a
     link's own excess length. */
  if (!cdyn_all_finite(q, 3 * sys->n) || !cdyn_all_finite(v, 3 * sys->n))
    return cdyn_error(CDYN_ENONFINITE, "cdyn_provot_limit: the state is not finite");
  for (int sweep = 0; sweep < sweeps; sweep++)
    for (size_t a = 0; a < count; a++) {
      const cdyn_spring *sp = &sys->springs[springs[a]];
      size_t i = sp->i, j = sp->j;
      double wi = fixed && fixed[i] ? 0 : sys->winv[i], wj = fixed && fixed[j] ? 0 : sys->winv[j];
      if (wi + wj == 0)
        continue;
      double d[3] = {q[3 * i] - q[3 * j], q[3 * i + 1] - q[3 * j + 1], q[3 * i + 2] - q[3 * j + 2]};
      double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), L = (1 + eps_max) * sp->rest;
      if (!(r > L))
        continue;
      double s = (r - L) / (r * (wi + wj));
      for (int k = 0; k < 3; k++) {
        double di = wi * s * d[k], dj = wj * s * d[k];
        q[3 * i + k] -= di;
        q[3 * j + k] += dj;
        v[3 * i + k] -= di / h;
        v[3 * j + k] += dj / h;
      }
      n++;
    }
  if (moved)
    *moved = n;
  return CDYN_OK;
}
