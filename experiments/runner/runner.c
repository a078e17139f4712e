/*
 * runner.c: the one step loop of the experiments, and the steppers of
 * their runs.
 *
 * exp_simulate steps a system and ends the run by the rules the suite
 * uses everywhere (experiment.h): a failed step, a state whose constraint
 * error or energy cannot be measured or is not finite, a constraint error
 * above a limit, an energy gain above a limit.  An experiment's own
 * measures come from an observer called after every measured step, which
 * also sees the wall-clock time each step's call took (the timing
 * experiments' measure; the runner's own measurements are outside it).
 * The time of step k is k h, as every experiment's CSV writes it.
 *
 * The error limit is the library's divergence guard: the stepper's
 * max_error is set to e_max for the run (or kept, when the run's own
 * --set value is tighter), so the step that crosses it fails with
 * CDYN_EDIVERGED and its state restored, and the run's last row is the
 * last state within the limit, as after any failed step.  The runner's
 * own test of e_n after each step stays behind it, for a limit the guard
 * cannot take (e_max <= 0 or above 1e300).  The energy-gain limit is the
 * runner's alone.
 *
 * Every run also gets the default divergence rule (experiment.h): with
 * the scene's size L and its reach R(t) at time t (from the start's
 * positions, velocities and forces), the run ends as diverged after the
 * first step at which e_n > 1000 L or a particle lies farther than
 * 1000 R(t) from where it started, unless the run states limits of its
 * own (a scene's run.stop, an experiment's), which replace it.  A scheme that blows up while its state
 * stays finite (a constraint error of 1e27 m on a 1 m cloth) is then a
 * run that ended early, not one that completed; a run that stays within
 * its scene's size is three orders of magnitude from it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/experiment.h"

const exp_limits exp_no_limits = {INFINITY, INFINITY, 0};

int exp_limits_stated(const exp_limits *lim)
{
  return (lim->e_max > 0 && lim->e_max <= 1e300) || isfinite(lim->gain_max);
}
int exp_divergence_off = 0;

/* The default divergence rule of a run: its limits and the start's
   positions (x0, 3n values, the runner's). */
typedef struct diverge {
  int on;
  double e_lim;         /* the constraint error's limit, m */
  double L, vmax, amax; /* the reach R(t) = L + vmax t + amax t^2 / 2 */
  double t0;            /* the start's time */
  const double *x0;
  size_t n;
} diverge;

/* The rule's limits from the start's state (k = 0; experiment.h). */
static void diverge_setup(diverge *dv, cdyn_system *sys, double *F)
{
  size_t n = dv->n;
  const double *x = cdyn_system_positions(sys), *v = cdyn_system_velocities(sys);
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, vmax = 0, amax = 0, L = 0;
  for (size_t i = 0; i < n; i++) {
    for (int d = 0; d < 3; d++) {
      lo[d] = fmin(lo[d], x[3 * i + d]);
      hi[d] = fmax(hi[d], x[3 * i + d]);
    }
    vmax = fmax(vmax, hypot(hypot(v[3 * i], v[3 * i + 1]), v[3 * i + 2]));
  }
  L = hypot(hypot(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]);
  for (size_t k = 0; k < cdyn_system_spring_count(sys); k++) {
    double rest;
    if (!cdyn_system_get_spring(sys, k, NULL, NULL, NULL, NULL, &rest))
      L = fmax(L, rest);
  }
  if (!(L > 0))
    L = 1;
  /* Forces a scheme cannot evaluate at the start fail its first step;
     here they only leave the reach without them. */
  if (F && !cdyn_system_forces(sys, F)) {
    for (size_t i = 0; i < n; i++) {
      double m;
      if (!cdyn_system_get_particle(sys, i, &m, NULL, NULL))
        amax = fmax(amax, hypot(hypot(F[3 * i], F[3 * i + 1]), F[3 * i + 2]) / m);
    }
  } else {
    cdyn_error_clear();
  }
  dv->e_lim = EXP_DIVERGE_FACTOR * L;
  dv->L = L;
  dv->vmax = vmax;
  dv->amax = amax;
  dv->t0 = cdyn_system_time(sys);
  if (!isfinite(EXP_DIVERGE_FACTOR * (L + vmax + amax)))
    dv->on = 0;
}

/* 1 when the state after a step (constraint error e) breaks the rule,
   with what crossed in out. */
static int diverged(const diverge *dv, cdyn_system *sys, double e, exp_outcome *out)
{
  if (!dv->on)
    return 0;
  if (e > dv->e_lim) {
    out->div_value = e;
    out->div_limit = dv->e_lim;
    out->div_particle = -1;
    return 1;
  }
  const double *x = cdyn_system_positions(sys);
  double t = cdyn_system_time(sys) - dv->t0;
  double x_lim = EXP_DIVERGE_FACTOR * (dv->L + dv->vmax * t + 0.5 * dv->amax * t * t), lim2 = x_lim * x_lim;
  for (size_t i = 0; i < dv->n; i++) {
    double a = x[3 * i] - dv->x0[3 * i], b = x[3 * i + 1] - dv->x0[3 * i + 1], c = x[3 * i + 2] - dv->x0[3 * i + 2];
    if (a * a + b * b + c * c > lim2) {
      out->div_value = sqrt(a * a + b * b + c * c);
      out->div_limit = x_lim;
      out->div_particle = (long)i;
      return 1;
    }
  }
  return 0;
}

/* The step loop of exp_simulate_with; guarded0 is the stepper's count
   of guarded steps before the run. */
static int simulate(const exp_sim *sim, cdyn_system *sys, const exp_limits *lim, unsigned long guarded0,
                    diverge *dv, double *work, exp_outcome *out)
{
  cdyn_scene *sc = sim->scene;
  cdyn_stepper *st = sim->st;
  double h = sim->h;
  long steps = sim->steps;
  exp_observer obs = sim->obs;
  void *octx = sim->octx;
  int capture = !sim->continued;
  exp_state s;
  memset(&s, 0, sizeof s);
  s.sys = sys;
  s.st = st;
  for (long k = 0; k <= steps; k++) {
    s.k = k;
    s.t = (double)k * h;
    s.status = CDYN_OK;
    s.step_time = 0;
    if (k > 0) {
      exp_progress_step(k);
      double t0 = cdyn_clock(), tsys = cdyn_system_time(sys);
      int src = sc ? cdyn_scene_step(sc, st, h) : cdyn_stepper_step(st, h);
      s.step_time = cdyn_clock() - t0;
      s.elapsed += s.step_time;
      out->elapsed = s.elapsed;
      /* A scheme whose CDYN_NOCONV restores the state (noconv_restores:
         backward-euler, bdf2) has not taken the step: the run cannot go
         on at this h, so it ends as a failed step with that status. */
      if (src == CDYN_NOCONV && !out->noconv_first) {
        out->noconv_first = k;
        snprintf(out->noconv_reason, sizeof out->noconv_reason, "%s", cdyn_errmsg());
      }
      if (src < 0 || (src == CDYN_NOCONV && cdyn_system_time(sys) == tsys))
        snprintf(out->reason, sizeof out->reason, "%s", cdyn_errmsg());
      if (src == CDYN_NOCONV && cdyn_system_time(sys) == tsys) {
        out->noconv++;
        out->end = EXP_END_FAILED_STEP;
        out->status = src;
        out->end_step = k;
        return CDYN_OK;
      }
      if (src < 0) {
        cdyn_stats stats;
        int guarded = src == CDYN_EDIVERGED && !cdyn_stepper_stats(st, &stats) && stats.guarded > guarded0;
        out->end = guarded ? EXP_END_ERROR_LIMIT : EXP_END_FAILED_STEP;
        if (guarded)
          out->e_fail = stats.last_guarded_error;
        out->status = src;
        out->end_step = k;
        return CDYN_OK;
      }
      if (src == CDYN_NOCONV)
        out->noconv++;
      s.status = src;
    }
    /* A state that has run away (finite, but beyond what the constraint
       types or the energy can evaluate) ends the run like a failed step. */
    int mrc = cdyn_system_energy(sys, &s.T, &s.V);
    if (!mrc)
      mrc = cdyn_system_constraint_error(sys, &s.e);
    s.E = s.T + s.V;
    if (mrc)
      snprintf(out->reason, sizeof out->reason, "%s", cdyn_errmsg());
    else if (!(isfinite(s.e) && isfinite(s.E))) {
      mrc = CDYN_ENONFINITE;
      snprintf(out->reason, sizeof out->reason, "after step %ld the constraint error is %g m and the energy %g J", k,
               s.e, s.E);
    }
    if (mrc) {
      out->end = EXP_END_NONFINITE;
      out->status = mrc;
      out->end_step = k;
      return CDYN_OK;
    }
    if (k == 0) {
      out->e0 = out->emax = s.e;
      out->E0 = s.E;
      if (dv->on)
        diverge_setup(dv, sys, work);
    }
    exp_digest_state(&out->digest, sys);
    if (capture)
      exp_capture_step(sys);
    out->steps = k;
    out->end_step = k;
    out->eend = s.e;
    out->Eend = s.E;
    if (s.e > out->emax)
      out->emax = s.e;
    double gain = s.E - out->E0;
    if (fabs(gain) > out->dEmax)
      out->dEmax = fabs(gain);
    if (gain > out->gain_max)
      out->gain_max = gain;
    if (obs) {
      /* the rule's verdict on this step, for the observer (the run ends
         by it below, after the other limits) */
      double dval = out->div_value, dlim = out->div_limit;
      long dpart = out->div_particle;
      s.diverging = k > 0 && diverged(dv, sys, s.e, out);
      out->div_value = dval, out->div_limit = dlim, out->div_particle = dpart;
      int orc = obs(octx, &s);
      if (orc < 0)
        return orc;
      if (orc > 0) {
        out->end = EXP_END_OBSERVER;
        return CDYN_OK;
      }
    }
    /* The limits judge what the steps did: a start outside them (a
       violated initial state) is still where the run starts. */
    if (k > 0 && !(s.e <= lim->e_max)) {
      out->end = EXP_END_ERROR_LIMIT;
      out->e_fail = s.e;
      return CDYN_OK;
    }
    if (k > 0 && !(gain <= lim->gain_max)) {
      out->end = EXP_END_ENERGY_GAIN;
      return CDYN_OK;
    }
    if (k > 0 && diverged(dv, sys, s.e, out)) {
      out->end = EXP_END_DIVERGED;
      out->status = CDYN_EDIVERGED;
      if (out->div_particle < 0)
        snprintf(out->reason, sizeof out->reason,
                 "after step %ld the constraint error %g m is beyond the divergence rule's %g m", k, out->div_value,
                 out->div_limit);
      else
        snprintf(out->reason, sizeof out->reason,
                 "after step %ld particle %ld is %g m from its start, beyond the divergence rule's %g m", k,
                 out->div_particle, out->div_value, out->div_limit);
      return CDYN_OK;
    }
  }
  return CDYN_OK;
}

int exp_simulate(cdyn_system *sys, cdyn_stepper *st, double h, long steps, const exp_limits *lim, exp_observer obs,
                 void *octx, exp_outcome *out)
{
  exp_sim sim = {.sys = sys, .st = st, .h = h, .steps = steps, .lim = lim, .obs = obs, .octx = octx};
  return exp_simulate_with(&sim, out);
}

int exp_simulate_scene(cdyn_scene *sc, cdyn_system *sys, cdyn_stepper *st, double h, long steps, const exp_limits *lim,
                       exp_observer obs, void *octx, exp_outcome *out)
{
  exp_sim sim = {.scene = sc, .sys = sys, .st = st, .h = h, .steps = steps, .lim = lim, .obs = obs, .octx = octx};
  return exp_simulate_with(&sim, out);
}

int exp_simulate_with(const exp_sim *sim, exp_outcome *out)
{
  memset(out, 0, sizeof *out);
  out->digest = EXP_DIGEST_INIT;
  cdyn_system *sys = sim->scene ? cdyn_scene_system(sim->scene) : sim->sys;
  cdyn_stepper *st = sim->st;
  const exp_limits *lim = sim->lim ? sim->lim : &exp_no_limits;
  out->end = EXP_END_COMPLETED;
  out->e_fail = NAN;
  out->div_value = out->div_limit = NAN;
  out->div_particle = -1;
  /* The default divergence rule: the start's positions, and room for its
     forces (diverge_setup). */
  diverge dv = {.on = !lim->no_divergence && !exp_divergence_off && !exp_limits_stated(lim), .n = cdyn_system_size(sys)};
  double *x0 = NULL;
  if (dv.on) {
    if (!(x0 = malloc(6 * dv.n * sizeof *x0)))
      return cdyn_error(CDYN_ENOMEM, "runner: out of memory for the divergence rule's %zu particles", dv.n);
    memcpy(x0, cdyn_system_positions(sys), 3 * dv.n * sizeof *x0);
    dv.x0 = x0;
  }
  /* The error limit as the stepper's divergence guard (see above), when
     the guard can take it (max_error lies in [0, 1e300]). */
  char saved[64] = "";
  int guard = 0, rc;
  unsigned long guarded0 = 0;
  if (lim->e_max > 0 && lim->e_max <= 1e300) {
    char val[64];
    if ((rc = cdyn_stepper_get(st, "max_error", saved, sizeof saved))) {
      free(x0);
      return rc;
    }
    double cur = strtod(saved, NULL);
    if (!(cur > 0 && cur <= lim->e_max)) {
      snprintf(val, sizeof val, "%.17g", lim->e_max);
      if ((rc = cdyn_stepper_set(st, "max_error", val))) {
        free(x0);
        return rc;
      }
      guard = 1;
    }
    cdyn_stats stats;
    if ((rc = cdyn_stepper_stats(st, &stats))) {
      free(x0);
      return rc;
    }
    guarded0 = stats.guarded;
  }
  /* cdyn export: the run as a scene, as it starts (the guard set). */
  /* The scene written says whether the rule was on (exp_divergence_off too). */
  exp_limits as_run = *lim;
  as_run.no_divergence = !dv.on && !exp_limits_stated(lim);
  if (!sim->continued && (rc = exp_capture_begin(sim->scene, sys, st, sim->h, sim->steps, &as_run))) {
    free(x0);
    return rc;
  }
  exp_progress_begin(sim->steps);
  rc = simulate(sim, sys, lim, guarded0, &dv, x0 ? x0 + 3 * dv.n : NULL, out);
  free(x0);
  exp_progress_end();
  exp_watch_record(st, out);
  if (!sim->continued)
    exp_capture_end();
  /* The stepper's own max_error again, whatever the run did. */
  if (guard) {
    int grc = cdyn_stepper_set(st, "max_error", saved);
    if (!rc)
      rc = grc;
  }
  return rc;
}

exp_runspec exp_plain_run(const char *scheme)
{
  exp_runspec r = {scheme, scheme, NULL, EXP_PAPER};
  return r;
}

exp_runspec exp_run_or_plain(const exp_ctx *ctx, const char *name)
{
  int k = exp_run_index(ctx, name);
  return k >= 0 ? ctx->runs[k] : exp_plain_run(name);
}

int exp_scheme_has_option(const char *scheme, const char *key)
{
  size_t idx;
  if (cdyn_scheme_find(scheme, &idx)) {
    cdyn_error_clear();
    return 0;
  }
  for (size_t k = 0; k < cdyn_scheme_option_count(idx); k++) {
    const char *name;
    cdyn_scheme_option(idx, k, &name, NULL, NULL);
    if (!strcmp(name, key))
      return 1;
  }
  return 0;
}

int exp_contact_info(const cdyn_stepper *st, size_t m, cdyn_contact_report *rep, unsigned char *handled)
{
  /* A scheme without contact reports (cdyn_stepper_contact_report fails
     only for such a scheme) reads as zeros, its multipliers as NaN. */
  if (cdyn_stepper_contact_report(st, rep) || cdyn_stepper_handled(st, handled)) {
    cdyn_error_clear();
    memset(rep, 0, sizeof *rep);
    memset(handled, 0, m);
    rep->accel.min_mu = rep->impulse.min_mu = NAN;
  }
  return CDYN_OK;
}

/* Does stepper st have option `key`? */
static int has_option(const cdyn_stepper *st, const char *key)
{
  for (size_t i = 0; i < cdyn_stepper_option_count(st); i++)
    if (!strcmp(cdyn_stepper_option_name(st, i), key))
      return 1;
  return 0;
}

static int set_pairs(cdyn_stepper *st, const char *const *pairs)
{
  int rc;
  for (const char *const *o = pairs; o && *o; o += 2)
    if ((rc = cdyn_stepper_set(st, o[0], o[1])))
      return rc;
  return CDYN_OK;
}

int exp_stepper_run(exp_ctx *ctx, cdyn_system *sys, const exp_runspec *run, const char *const *extra,
                    cdyn_stepper **out)
{
  cdyn_stepper *st;
  int rc = cdyn_stepper_new(&st, sys, run->scheme);
  if (rc)
    return rc;
  if ((rc = exp_stepper_options(ctx, st, run, extra))) {
    cdyn_stepper_free(st);
    return rc;
  }
  *out = st;
  return CDYN_OK;
}

int exp_stepper_options(exp_ctx *ctx, cdyn_stepper *st, const exp_runspec *run, const char *const *extra)
{
  int rc = CDYN_OK;
  /* The experiment's parameters that are also options of this scheme
     (alpha, beta, ks, ...) are passed on to it, except its own (EXP_OWN:
     a name that means something else to the experiment). */
  for (size_t i = 0; i < cdyn_stepper_option_count(st) && !rc; i++) {
    const char *name = cdyn_stepper_option_name(st, i);
    const char *val = exp_param_string(ctx, name);
    const exp_param *p = ctx->exp->params;
    while (p && p->name && strcmp(p->name, name))
      p++;
    if (val && !(p && p->name && (p->open & EXP_OWN)))
      rc = cdyn_stepper_set(st, name, val);
  }
  /* --set KEY=VALUE for every scheme that has KEY, then SCHEME.KEY or
     RUN.KEY for this run. */
  for (int pass = 0; pass < 2 && !rc; pass++)
    for (int k = 0; k < ctx->nsets && !rc; k++) {
      const exp_set *s = &ctx->sets[k];
      if (pass == 0 && !s->scheme && has_option(st, s->key))
        rc = cdyn_stepper_set(st, s->key, s->value);
      if (pass == 1 && s->scheme && (!strcmp(s->scheme, run->scheme) || !strcmp(s->scheme, run->name)))
        rc = cdyn_stepper_set(st, s->key, s->value);
    }
  if (!rc)
    rc = set_pairs(st, run->overrides);
  if (!rc)
    rc = set_pairs(st, extra);
  return rc;
}

int exp_run(exp_ctx *ctx, const exp_runspec *run, const char *const *extra, exp_builder build, const void *bctx,
            double h, long steps, const exp_limits *lim, exp_observer obs, void *octx, exp_outcome *out, double *q,
            double *v)
{
  cdyn_system *sys = NULL;
  cdyn_stepper *st = NULL;
  memset(out, 0, sizeof *out);
  int rc = build(bctx, &sys);
  if (rc)
    return rc;
  if (!(rc = exp_stepper_run(ctx, sys, run, extra, &st)))
    rc = exp_simulate(sys, st, h, steps, lim, obs, octx, out);
  if (!rc && (q || v))
    rc = cdyn_system_get_state(sys, q, v);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
  return rc;
}
