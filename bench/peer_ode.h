/*
 * bench/peer_ode.h: the benchmark's problems run in the Open Dynamics
 * Engine (ODE 0.16, double precision), as a peer to compare cdyn against.
 *
 * Each particle is an ODE body and each link a double-ball (DBall) joint
 * between body centres, or between a body centre and a fixed world point.
 * The variants differ in ODE's stepper and its error reduction parameter:
 *   ode-step-erp1     dWorldStep (dense LDL^T), ERP = 1
 *   ode-step-erp0.2   dWorldStep, ERP = 0.2
 *   ode-quick20       dWorldQuickStep (projected SOR), 20 iterations, ERP = 0.2
 *   ode-quick100      dWorldQuickStep, 100 iterations, ERP = 0.2
 * with CFM = 0, no damping and no auto-disable in every variant.
 *
 * Not reentrant: ODE's error handlers are process-wide, and a run installs
 * its own while it lasts.
 */
#ifndef CDYN_BENCH_PEER_ODE_H
#define CDYN_BENCH_PEER_ODE_H

#include "problem.h"

enum {
  PEER_ODE_STEP_ERP1,
  PEER_ODE_STEP_ERP02,
  PEER_ODE_QUICK20,
  PEER_ODE_QUICK100,
  PEER_ODE_VARIANTS
};

/* The variant's name ("ode-step-erp1", ...), or NULL if out of range. */
const char *peer_ode_name(int variant);

/* ODE's version, as its headers give it (e.g. "0.16.2"). */
const char *peer_ode_version(void);

/*
 * Runs `variant` on p with step h for up to `steps` steps.  After each
 * step, once at least min_steps are done, the run stops if the stepping
 * time so far exceeds max_seconds (so max_seconds <= 0 runs exactly
 * min_steps, and INFINITY never stops early).  Only the step calls are
 * timed; the stretch is measured outside them after every step.
 *
 * Fills *out and returns 0; or returns -1 with out->ok = 0 and out->note
 * saying why: an invalid problem, a dWorldStep problem whose dense matrix
 * would be too large (an island of more than 15000 links), a failed step,
 * a non-finite state, or an internal error that ODE reported.  The steps
 * and time up to a failure stay in *out.
 */
int peer_ode_run(const bench_problem *p, int variant, double h, long steps,
                 long min_steps, double max_seconds, bench_run *out);

/*
 * The same, calling observe(ctx, step, x, v) after each step, outside the
 * timed call, with the bodies' positions x and linear velocities v (3n
 * each, valid during the call): a non-zero return ends the run there, as
 * max_seconds does (ok stays 1).  observe may be NULL.
 */
typedef int (*peer_ode_observer)(void *ctx, long step, const double *x, const double *v);
int peer_ode_run_observed(const bench_problem *p, int variant, double h, long steps, long min_steps,
                          double max_seconds, bench_run *out, peer_ode_observer observe, void *ctx);

/* Closes ODE (dCloseODE), if a run opened it; optional at process exit. */
void peer_ode_close(void);

#endif
