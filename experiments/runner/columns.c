/*
 * columns.c: the unit and meaning of every column the experiments write,
 * for the metadata record beside each CSV (FILE.meta.json,
 * "column_info").  exp_csv_open refuses a column that has no entry here,
 * so a new column is documented before it can be written.
 *
 * An entry applies to an experiment (NULL: any), a file (NULL: any; a
 * trailing '*' matches a prefix, so "series-*" is every series-RUN.csv)
 * and a column name, in which '#' stands for a number (x# is x0, x1, ...).
 * The most specific matching entry wins: one naming the experiment and
 * the file, then the experiment, then the file, then neither.
 * Units: SI; "1" is a pure number (a ratio, a count of things without a
 * unit, a flag 0/1), "" is text (a label).
 */
#include <ctype.h>
#include <string.h>

#include "runner/experiment.h"

typedef struct {
  const char *experiment, *file, *column, *unit, *meaning;
} column_def;

static const column_def defs[] = {
  /* Shared by every experiment. */
  {NULL, NULL, "step", "1", "step number k (0: the start, before any step)"},
  {NULL, NULL, "t", "s", "time k h"},
  {NULL, NULL, "e", "m", "constraint error e_n: the sum over constraints of ||Phi_c||_2"},
  {NULL, NULL, "e_sum", "m", "running sum of e_n over steps 1 .. k"},
  {NULL, NULL, "E", "J", "total energy: kinetic plus gravity's and the springs' potential"},
  {NULL, NULL, "x#", "m", "x of node #"},
  {NULL, NULL, "y#", "m", "y of node #"},
  {NULL, NULL, "z#", "m", "z of node #"},
  {NULL, NULL, "scheme", "", "run name: a scheme, or a companion run (a scheme with fixed options)"},
  {NULL, NULL, "h", "s", "step size"},
  {NULL, NULL, "steps", "1", "number of steps of the run"},
  {NULL, NULL, "status", "1", "cdyn status of the step that failed (0: none failed)"},
  {NULL, NULL, "problem", "", "test problem (experiments/problems.h)"},
  {NULL, NULL, "noconv", "1", "steps that returned CDYN_NOCONV (an iteration stopped before its tolerance)"},
  {NULL, NULL, "e_max", "m", "largest e_n of the run"},
  {NULL, NULL, "e_end", "m", "e_n at the end of the run"},
  {NULL, NULL, "E0", "J", "total energy at the start"},
  {NULL, NULL, "E_end", "J", "total energy at the last measured step"},
  {NULL, NULL, "h_max", "s", "largest stable step size before the first unstable grid point (nan: none stable)"},
  {NULL, NULL, "h_fail", "s", "the first unstable grid point above h_max (nan: stable on the whole grid)"},
  {NULL, NULL, "stable", "1", "1 if the run kept the stability rules (experiments/stability.c), else 0"},
  {NULL, NULL, "energy_gain", "J", "E - E(0) at the end of the probe"},

  /* runs.csv, every experiment's */
  {NULL, "runs", "run", "", "run name: a scheme, or a companion run (a scheme with fixed options)"},
  {NULL, "runs", "scheme", "", "the scheme it runs"},
  {NULL, "runs", "role", "", "paper (the experiment's own or --scheme's), extra (--extra-schemes) or companion"},

  /* scene: cdyn run scene FILE (experiments/runner/scene.c) */
  {"scene", NULL, "T", "J", "kinetic energy"},
  {"scene", NULL, "V", "J", "potential energy of gravity and the springs"},
  {"scene", NULL, "px", "kg m/s", "linear momentum, x"},
  {"scene", NULL, "py", "kg m/s", "linear momentum, y"},
  {"scene", NULL, "pz", "kg m/s", "linear momentum, z"},
  {"scene", NULL, "status", "1", "NAME-RUN.csv: the step's cdyn status (0: ok, 1: CDYN_NOCONV); NAME-summary.csv: the status of "
   "the step that failed (0: none)"},
  {"scene", NULL, "particle", "1", "particle index"},
  {"scene", NULL, "x", "m", "x of the particle"},
  {"scene", NULL, "y", "m", "y of the particle"},
  {"scene", NULL, "z", "m", "z of the particle"},
  {"scene", NULL, "vx", "m/s", "x velocity of the particle"},
  {"scene", NULL, "vy", "m/s", "y velocity of the particle"},
  {"scene", NULL, "vz", "m/s", "z velocity of the particle"},
  {"scene", NULL, "run", "", "run name: the scheme"},
  {"scene", NULL, "end", "", "how the run ended: completed, failed-step, nonfinite, error-limit (run.stop.max_error), "
   "energy-gain (run.stop.max_energy_gain)"},
  {"scene", NULL, "digest", "",
   "FNV-1a digest of the bits of t, q and v after every step (experiments/capture.c): equal digests, equal trajectories"},
    {"scene", NULL, "steps", "1", "steps completed and measured"},
  {"scene", NULL, "t_end", "s", "time reached: steps h (from the scene's start time)"},
  {"scene", NULL, "e0", "m", "e_n at the start"},
  {"scene", NULL, "dE_max", "J", "largest |E - E(0)|"},
  {"scene", NULL, "stepper_steps", "1", "steps of the stepper, a contact handler's repeats included"},

  /* arm2-trajectory */
  {"arm2-trajectory", NULL, "y_ref", "m", "y of the last node in the reduced-coordinate reference at t"},
  {"arm2-trajectory", NULL, "dev", "m", "y of the last node minus y_ref"},
  {"arm2-trajectory", "reference", "x#", "m", "x of node # of the reference (node 0 is the pivot at the origin)"},
  {"arm2-trajectory", "reference", "y#", "m", "y of node # of the reference"},
  {"arm2-trajectory", "reference", "E", "J", "total energy of the reference"},
  {"arm2-trajectory", "tracking", "t_track", "s",
   "time until y of the last node first leaves track_tol of the reference (the run's length if never)"},
  {"arm2-trajectory", "tracking", "tracked_all", "1", "1 if it never left the band, else 0"},
  {"arm2-trajectory", "tracking", "max_e", "m", "largest e_n of the run"},

  /* arm5-improved and arm5-baumgarte */
  {NULL, NULL, "x_end", "m", "x of the free end of the arm"},
  {NULL, NULL, "y_end", "m", "y of the free end of the arm"},
  {"arm5-improved", "panels", "variant", "", "reading of \"mass\": uniform (every node) or heavy-end (the free end)"},
  {"arm5-improved", "panels", "mass", "kg", "the panel's mass"},
  {"arm5-improved", "panels", "diverged", "1",
   "1 if a step failed or e_n exceeded diverge_frac of the arm's length (the run stopped)"},
  {"arm5-improved", "panels", "fail_step", "1", "step at which it diverged (steps + 1 if it did not)"},
  {"arm5-improved", "panels", "e_sum", "m", "sum of e_n over the run"},
  {"arm5-improved", "panels", "e_mean", "m", "mean e_n over the run (nan if it diverged)"},
  {"arm5-improved", "panels", "ratio_implicit", "1", "mean e_n of implicit over this run's (nan if either diverged)"},
  {"arm5-improved", "panels", "e_fail", "m",
   "e_n after the step that crossed the limit, refused by the divergence guard (nan if none)"},
  {"arm5-improved", "mass-invariance", "first_second", "m",
   "largest node distance between the light and heavy uniform runs over the first second"},
  {"arm5-improved", "mass-invariance", "whole_run", "m", "the same over the whole run"},
  {NULL, "order", "completed", "1", "1 if the run reached order_T, else 0"},
  {NULL, "order", "e_T", "m", "e_n at order_T"},
  {NULL, "order", "pos_err", "m", "largest node distance from the reduced-coordinate reference at order_T"},
  {"arm5-baumgarte", "sweep", "ia", "1", "index of alpha in the sweep (0: 0, k: 2^(k-3))"},
  {"arm5-baumgarte", "sweep", "ib", "1", "index of beta in the sweep"},
  {"arm5-baumgarte", "sweep", "alpha", "1/s", "Baumgarte's alpha"},
  {"arm5-baumgarte", "sweep", "beta", "1/s", "Baumgarte's beta"},
  {"arm5-baumgarte", "sweep", "fail_step", "1", "step that broke a stability rule (steps + 1 if none)"},
  {"arm5-baumgarte", "sweep", "e_tail", "m", "mean e_n over the last tenth of the run (nan if unstable)"},
  {"arm5-baumgarte", "sweep", "e_mean", "m", "mean e_n over the run (nan if unstable)"},
  {"arm5-baumgarte", "sweep", "gain_max", "J", "largest E - E(0) of the run"},
  {"arm5-baumgarte", "sweep", "e_fail", "m",
   "e_n after the step that exceeded the limit, refused by the divergence guard (nan if none)"},

  /* bad-initial */
  {"bad-initial", NULL, "e_rel", "1", "e_n / e_0"},
  {"bad-initial", NULL, "phidot", "m/s", "|J v + Phi_t| over all rows"},
  {"bad-initial", NULL, "e0", "m", "e_n at the start"},
  {"bad-initial", NULL, "settle_step", "1", "first step after which e_n stays below 1e-2 e_0 (-1: never)"},
  {"bad-initial", NULL, "settle_t", "s", "its time (nan: never)"},
  {"bad-initial", NULL, "overshoot", "1", "largest |Phi_r| of opposite sign to its start, over e_0"},
  {"bad-initial", NULL, "crossings", "1", "sign changes of rows while both values exceed 1e-3 e_0"},
  {"bad-initial", NULL, "phidot0", "m/s", "|J v + Phi_t| at the start"},
  {"bad-initial", NULL, "phidot_end", "m/s", "|J v + Phi_t| at the end"},

  /* bead-circle */
  {"bead-circle", NULL, "x", "m", "x of the bead"},
  {"bead-circle", NULL, "y", "m", "y of the bead"},
  {"bead-circle", NULL, "radial_err", "m", "r - 1, the distance from the circle"},
  {"bead-circle", NULL, "C", "m^2", "002's C = (x.x - 1)/2"},
  {"bead-circle", NULL, "theta", "rad", "angle of the bead from the downward vertical"},
  {"bead-circle", NULL, "theta_ref", "rad", "the exact motion's angle (reference/bead.c)"},
  {"bead-circle", NULL, "angle_err", "rad", "|theta - theta_ref|, wrapped to [0, pi]"},

  /* chain10-stability */
  {"chain10-stability", "starts", "trial", "1", "trial (0: the exact saw tooth; t >= 1: mt19937 seeded with t)"},
  {"chain10-stability", "starts", "node", "1", "node index"},
  {"chain10-stability", "starts", "x", "m", "x of the node"},
  {"chain10-stability", "starts", "y", "m", "y of the node"},
  {"chain10-stability", "starts", "z", "m", "z of the node"},
  {"chain10-stability", "failures", "trial", "1", "trial (0: the exact saw tooth)"},
  {"chain10-stability", "failures", "failed", "1", "1 if the run failed, else 0"},
  {"chain10-stability", "failures", "fail_step", "1", "step of the failure (steps for a survivor)"},
  {"chain10-stability", "failures", "cause", "1",
   "0 none, 1 negative step status, 2 non-finite or unmeasurable state, 3 e_n > fail_tol"},
  {"chain10-stability", "failures", "e0", "m", "e_n at the start"},
  {"chain10-stability", "failures", "e_max", "m", "largest e_n before the failure"},
  {"chain10-stability", "failures", "e_before", "m", "e_n 100 steps before the failure (nan if none)"},
  {"chain10-stability", "failures", "e_prev", "m", "e_n one step before the failure (nan if none)"},
  {"chain10-stability", "failures", "e_mean", "m", "mean e_n over steps 1 .. before the failure"},
  {"chain10-stability", "failures", "ratio", "1", "mean e_n over the last quarter over the first (survivors only)"},
  {"chain10-stability", "failures", "e_fail", "m",
   "e_n after the step that exceeded fail_tol, refused by the divergence guard (nan if none)"},
  {"chain10-stability", "summary", "runs", "1", "runs (the exact start and the trials)"},
  {"chain10-stability", "summary", "failed", "1", "runs that failed"},
  {"chain10-stability", "summary", "fail_min", "1", "smallest failure step (nan if none failed)"},
  {"chain10-stability", "summary", "fail_q1", "1", "first quartile of the failure steps (GSL, linear interpolation)"},
  {"chain10-stability", "summary", "fail_median", "1", "median failure step"},
  {"chain10-stability", "summary", "fail_q3", "1", "third quartile of the failure steps"},
  {"chain10-stability", "summary", "fail_max", "1", "largest failure step"},
  {"chain10-stability", "summary", "e_mean", "m", "mean over runs of each run's mean e_n before its failure"},
  {"chain10-stability", "summary", "e_before_median", "m", "median e_n 100 steps before the failure"},
  {"chain10-stability", "summary", "identical_to_poststab", "1",
   "runs of poststab-mass bitwise identical to poststab's (-1: not compared)"},
  {"chain10-stability", "summary", "E_end_median", "J", "median energy at the last measured step"},
  {"chain10-stability", "survival", "alive", "1", "fraction of the runs still running after the step"},

  /* convergence */
  {"convergence", "convergence", "pos_err", "m", "largest node distance from the reference at T"},
  {"convergence", "convergence", "vel_err", "m/s", "largest node velocity difference from the reference at T"},
  {"convergence", "convergence", "drift", "1", "(E(T) - E(0)) / (m g L)"},
  {"convergence", "convergence", "max_energy_err", "1", "largest |E - E(0)| / (m g L) over the run"},
  {"convergence", "convergence", "lam_err", "N",
   "largest multiplier difference from the exact constraint force at lam_t, over the rows"},
  {"convergence", "convergence", "lam_t", "s", "the time within the last step that the scheme's multipliers belong to"},
  {"convergence", "orders", "declared_order", "1", "the scheme's declared order"},
  {"convergence", "orders", "declared_order_constant_force", "1", "its declared order under a constant force"},
  {"convergence", "orders", "fitted_order", "1", "least-squares slope of log pos_err against log h"},
  {"convergence", "orders", "local_order", "1", "slope between the two finest fitted step sizes"},
  {"convergence", "orders", "points", "1", "step sizes in the fit"},
  {"convergence", "orders", "err_coarse", "m", "pos_err at the coarsest h"},
  {"convergence", "orders", "err_fine", "m", "pos_err at the finest h"},
  {"convergence", "orders", "e_max_fine", "m", "largest e_n at the finest h"},
  {"convergence", "orders", "drift_fine", "1", "drift at the finest h"},
  {"convergence", "orders", "declared_velocity_order", "1", "the scheme's declared velocity order under a constant force"},
  {"convergence", "orders", "fitted_velocity_order", "1", "least-squares slope of log vel_err against log h"},
  {"convergence", "orders", "velocity_points", "1", "step sizes in the velocity fit"},
  {"convergence", "orders", "declared_lambda_order", "1", "the scheme's declared multiplier order (0: not declared)"},
  {"convergence", "orders", "lambda_time", "1", "fraction of the step at which the multipliers apply (0, 0.5, 1)"},
  {"convergence", "orders", "lambda_force", "1", "1: the multipliers are the constraint force; 0: the scheme says they are not"},
  {"convergence", "orders", "fitted_lambda_order", "1", "least-squares slope of log lam_err against log h"},
  {"convergence", "orders", "lambda_points", "1", "step sizes in the multiplier fit"},
  {"convergence", "orders", "lambda_err_fine", "N", "lam_err at the finest h"},

  /* spinning-hoop */
  {"spinning-hoop", NULL, "run", "", "run name: a scheme, a companion run, or the reference"},
  {"spinning-hoop", "hoop-trace", "dtheta", "rad", "theta - theta*, the bead's angle from its relative equilibrium"},
  {"spinning-hoop", "hoop-summary", "stopped", "1", "1: a step failed or e_n exceeded 0.1 R"},
  {"spinning-hoop", "hoop-summary", "left", "1", "1: the bead left its relative equilibrium (max_dev > 5 delta)"},
  {"spinning-hoop", "hoop-summary", "period", "s", "mean time between upward crossings of theta*"},
  {"spinning-hoop", "hoop-summary", "freq_err", "1", "period_ref / period - 1: relative error of the frequency"},
  {"spinning-hoop", "hoop-summary", "centre", "rad", "mean of theta - theta* over whole periods"},
  {"spinning-hoop", "hoop-summary", "amp_ratio", "1", "largest |theta - theta*| over the last period, over the first"},
  {"spinning-hoop", "hoop-summary", "max_dev", "rad", "largest |theta - theta*| over the run"},
  {"spinning-hoop", "hoop-summary", "u_max", "m/s", "largest normal velocity |J v + Phi_t| over the rows and the run"},

  /* stability and stiff-pendulum */
  /* cloth-elongation, cloth-vs-implicit-ode */
  {"cloth-elongation", NULL, "eps_max", "1", "largest elongation (|x_ij| - L0) / L0 over the structural springs"},
  {"cloth-elongation", NULL, "eps_p99", "1", "99th percentile (nearest rank) of the structural springs' elongation"},
  {"cloth-elongation", "cloth-elongation", "active", "1", "strain constraints active after the step"},
  {"cloth-elongation", NULL, "activated", "1", "springs turned into constraints before the step"},
  {"cloth-elongation", NULL, "released", "1", "constraints turned back into springs after the step"},
  {"cloth-elongation", NULL, "flips", "1",
   "springs made constraints again right after their release, cumulative"},
  {"cloth-elongation", NULL, "contacts", "1",
   "ball contacts: separation constraints on (adaptive runs) or nodes projected out (others) at the step"},
  {"cloth-elongation", NULL, "depth", "m", "deepest penetration of a node into the ball after the step"},
  {"cloth-elongation", NULL, "completed", "1", "1: every step was taken; 0: the run failed or blew up"},
  {"cloth-elongation", "cloth-elongation-summary", "eps_max", "1", "largest elongation of any step of the run"},
  {"cloth-elongation", "cloth-elongation-summary", "eps_p99", "1", "largest 99th-percentile elongation of any step"},
  {"cloth-elongation", NULL, "active_max", "1", "most constraints active at once (strain and ball)"},
  {"cloth-elongation", NULL, "depth_max", "m", "deepest penetration into the ball of the run"},
  {"cloth-elongation", NULL, "time_per_step", "s", "wall-clock time per step, hooks included"},
  {"cloth-elongation", NULL, "snap", "1", "snapshot number"},
  {"cloth-elongation", NULL, "tri", "1", "triangle index (the cloth generator's triangles, cdyn_scene_get_patch)"},
  {"cloth-elongation", NULL, "x#", "m", "x of the triangle's corner #"},
  {"cloth-elongation", NULL, "y#", "m", "y of the triangle's corner #"},
  {"cloth-elongation", NULL, "z#", "m", "z of the triangle's corner #"},
  {"cloth-elongation", NULL, "strain", "1", "largest strain |edge| / rest - 1 of the triangle's two structural edges"},
  {"cloth-elongation", NULL, "bx", "m", "x of the ball's centre"},
  {"cloth-elongation", NULL, "by", "m", "y of the ball's centre"},
  {"cloth-elongation", NULL, "bz", "m", "z of the ball's centre"},
  {"cloth-elongation", NULL, "br", "m", "the ball's radius"},
  {"cloth-elongation", "cloth-animation-series", "active", "1", "strain constraints active after the step"},
  {"cloth-elongation", "cloth-animation-series", "iterations", "1",
   "nonlinear (Newton, SHAKE/RATTLE) iterations of the step; 0 for a scheme without"},
  {"cloth-elongation", "cloth-animation-series", "status", "1",
   "cdyn status of the step that failed or was not taken (1: CDYN_NOCONV of a scheme that restores its state), "
   "on the run's last row; 0 otherwise"},
  {"cloth-elongation", NULL, "fail", "",
   "first stability rule the run broke: none, failed-step (status < 0), step-not-taken (CDYN_NOCONV, state "
   "restored), non-finite, strain-bound (largest strain > strain_bound)"},
  {"cloth-elongation", NULL, "steps_done", "1", "steps taken and measured (the run stops at a failed or not-taken step, or at eps > 10)"},
  {"cloth-elongation", "cloth-animation", "stable", "1", "1: the run kept the stability rule (fail = none)"},
  {"cloth-elongation", NULL, "t_fail", "s", "time of the step at which the rule was first broken (nan: stable)"},
  {"cloth-elongation", NULL, "eps_max_measured", "1", "largest structural elongation after any step taken"},
  {"cloth-elongation", NULL, "holds_eps", "1", "1: stable and eps_max_measured <= eps_max"},
  {"cloth-elongation", NULL, "holds_eps_tol", "1", "1: stable and eps_max_measured <= eps_tol"},
  {"cloth-elongation", NULL, "energy_lost_per_s", "W",
   "(E(0) - E(t)) / t, t the last step taken: the cloth's energy (kinetic, gravity's, springs'; the ball's work "
   "included)"},
  {"cloth-elongation", NULL, "newton_iterations_per_step", "1",
   "nonlinear iterations per step called (nan: the scheme counts none)"},
  {"cloth-elongation", NULL, "factorizations_per_step", "1", "numeric factorisations per step called (nan: none)"},
  {"cloth-elongation", NULL, "analyses", "1", "symbolic analyses of a sparse direct solver (a new pattern), over the run"},
  {"cloth-elongation", NULL, "set_changes", "1", "steps that followed a change of the constraint set"},
  {"cloth-elongation", "cloth-animation", "status", "1",
   "cdyn status of the step that failed or was not taken (0: none)"},
  /* cloth-contact */
  {"cloth-contact", NULL, "crossings", "1", "node-triangle and edge-edge pairs that touched during the steps (exact replay)"},
  {"cloth-contact", NULL, "exact", "1", "pairs the replay sent to the exact (GMP) test"},
  {"cloth-contact", NULL, "near", "1", "pairs past the replay's distance bound (near = filtered + exact)"},
  {"cloth-contact", NULL, "pieces", "1",
   "straight pieces the replay followed: one per step, plus one per sub-step cut of a scheme that cuts its steps"},
  {"cloth-contact", NULL, "filtered", "1",
   "pairs past the replay's distance bound that its certified floating-point filter decided (not sent to GMP)"},
  {"cloth-contact", NULL, "degenerate", "1", "pairs the exact test could not decide (zero-area triangle or zero-length edge)"},
  {"cloth-contact", NULL, "min_dist", "m", "smallest distance between non-adjacent mesh elements at a step's end (nan: no pair within 4 delta)"},
  {"cloth-contact", NULL, "ball_gap", "m", "smallest |x_node - c| - r over nodes and balls"},
  {"cloth-contact", NULL, "violation", "1", "largest max(delta - distance, delta - ball gap, 0) / delta"},
  {"cloth-contact", NULL, "contacts", "1", "cloth-cloth contacts active after the step"},
  {"cloth-contact", NULL, "vf", "1", "of which node-triangle"},
  {"cloth-contact", NULL, "ee", "1", "of which edge-edge"},
  {"cloth-contact", NULL, "nn", "1", "of which node-node"},
  {"cloth-contact", NULL, "ball_contacts", "1", "node-ball pairs within r + delta"},
  {"cloth-contact", NULL, "created", "1", "cloth-cloth contacts created"},
  {"cloth-contact", "cloth-contact", "released", "1", "cloth-cloth contacts released"},
  {"cloth-contact", NULL, "releases", "1", "cloth-cloth contacts released over the run"},
  {"cloth-contact", NULL, "delay_max", "steps", "largest release delay: step ends between separation and release"},
  {"cloth-contact", NULL, "delay_mean", "steps", "mean release delay"},
  {"cloth-contact", NULL, "redos", "1", "steps repeated because the taken motion showed a new contact (cumulative)"},
  {"cloth-contact", NULL, "unresolved", "1", "contacts found in a step's motion when no repeat was left"},
  {"cloth-contact", NULL, "parallel", "1", "edge pairs found with an angle's sine below 0.1: no edge-edge constraint"},
  {"cloth-contact", NULL, "endpoint", "1", "edge pairs found meeting at an end: left to the node-triangle pairs"},
  {"cloth-contact", NULL, "redundant", "1", "mode switch: pairs whose node or edge already held a contact, none made"},
  {"cloth-contact", NULL, "contacts_max", "1", "most cloth-cloth contacts at once"},
  {"cloth-contact", NULL, "ball_max", "1", "most node-ball pairs within r + delta at once"},
  {"cloth-contact", NULL, "completed", "1", "1: every step was taken; 0: a step failed"},
  {"cloth-contact", NULL, "detect", "s", "wall-clock time per step in detection (before and after the step)"},
  {"cloth-contact", NULL, "solve", "s", "wall-clock time per step in the step's solves"},
  {"cloth-contact", NULL, "replay", "s", "wall-clock time per step of the exact replay"},
  {"cloth-contact", NULL, "solves", "1", "stepper steps taken, repeats included"},
  {"cloth-contact", "cloth-contact-solve", "rows", "1",
   "mean rows in a step's solves: the system's rows, or the acceleration problem's candidates (scheme contact)"},
  {"cloth-contact", "cloth-contact-solve", "contacts", "1",
   "mean cloth-cloth contacts plus ball-node pairs within r + delta at a step's end"},
  {"cloth-contact", "cloth-contact-solve", "contacts_max", "1",
   "most cloth-cloth contacts plus ball-node pairs within r + delta at a step's end"},
  {"cloth-contact", "cloth-contact-solve", "assembly", "s",
   "wall-clock time per step assembling A (scheme contact: A over the contact problems' candidates)"},
  {"cloth-contact", "cloth-contact-solve", "factor", "s",
   "wall-clock time per step in the linear solver's setups (scheme contact: the sparse factorisations)"},
  {"cloth-contact", "cloth-contact-solve", "solve", "s",
   "wall-clock time per step in the solves (scheme contact: the active-set solves, less their sparse "
   "factorisations)"},
  {"cloth-contact", "cloth-contact-solve", "linear", "s", "assembly + factor + solve"},
  {"cloth-contact", "cloth-contact-solve", "factorizations", "1", "numeric factorisations per step"},
  {"cloth-contact", "cloth-contact-solve", "analyses", "1",
   "symbolic analyses of a sparse solver over the run (a pattern it had not seen)"},
  {"cloth-contact", "cloth-contact-solve", "solves", "1",
   "linear solves per step (scheme contact with subsolve=sparse: the active-set sub-solves; the dense path's are "
   "not counted)"},
  {"cloth-contact", NULL, "snap", "1", "snapshot number"},
  {"cloth-contact", NULL, "tri", "1", "triangle index (the cloth generator's triangles, cdyn_scene_get_patch)"},
  {"cloth-contact", NULL, "x#", "m", "x of the triangle's corner #"},
  {"cloth-contact", NULL, "y#", "m", "y of the triangle's corner #"},
  {"cloth-contact", NULL, "z#", "m", "z of the triangle's corner #"},
  {"cloth-contact", NULL, "flag", "1", "1: a cloth-cloth contact holds a node of the triangle; 2: a node touches a ball; 0: neither"},
  {"cloth-contact", NULL, "ball", "1", "ball number"},
  {"cloth-contact", NULL, "x", "m", "x of the ball's centre"},
  {"cloth-contact", NULL, "y", "m", "y of the ball's centre"},
  {"cloth-contact", NULL, "z", "m", "z of the ball's centre"},
  {"cloth-contact", NULL, "radius", "m", "the ball's radius"},
  {"cloth-contact", NULL, "h", "s", "step size of the run"},
  {"cloth-contact", NULL, "failsafe", "s", "wall-clock time per step in the fail-safe (rigid impact zones)"},
  {"cloth-contact", NULL, "free", "s",
   "wall-clock time per step of the unconstrained step: the cloth alone (no contacts, no balls), the run's scheme, "
   "its first 100 steps"},
  {"cloth-contact", NULL, "held", "1", "share of step ends at which every ball lies within 2 delta of the cloth (its contacts let go beyond)"},
  {"cloth-contact", NULL, "failsafe_steps", "1", "steps whose motion the fail-safe changed"},
  {"cloth-contact", NULL, "failsafe_passes", "1", "the fail-safe's own detection passes over the run"},
  {"cloth-contact", NULL, "failsafe_reused", "1",
   "steps the fail-safe checked by the handler's continuous check of the motion taken (nothing touching: no pass of "
   "its own)"},
  {"cloth-contact", NULL, "failsafe_zones", "1", "impact zones the fail-safe moved, summed over steps"},
  {"cloth-contact", NULL, "failsafe_nodes", "1", "nodes of those zones, summed over steps"},
  {"cloth-contact", NULL, "failsafe_frozen", "1", "zones held still (a pinned node, or still touching when translated)"},
  {"cloth-contact", NULL, "failsafe_unresolved", "1", "steps the fail-safe left with a touching pair"},
  {"cloth-contact", NULL, "failsafe_impulse", "N s", "sum over the changed nodes and steps of m |v_new - v|"},
  {"cloth-contact", NULL, "failsafe_momentum", "N s", "sum over steps of |sum m (v_new - v)| (linear momentum changed)"},
  {"cloth-contact", NULL, "failsafe_energy", "J", "kinetic energy the fail-safe removed (negative: added)"},
  /* collision-cost */
  {"collision-cost", NULL, "grid", "1", "nodes per side of the mesh"},
  {"collision-cost", NULL, "nodes", "1", "nodes of the mesh"},
  {"collision-cost", NULL, "triangles", "1", "triangles of the mesh"},
  {"collision-cost", NULL, "candidates", "1", "broad-phase pairs (node-triangle and edge-edge) of one detection"},
  {"collision-cost", NULL, "contacts", "1", "contacts made by one detection"},
  {"collision-cost", NULL, "exact", "1", "pairs the exact replay sent to the exact (GMP) test"},
  {"collision-cost", NULL, "near", "1", "pairs past the exact replay's distance bound (near = filtered + exact)"},
  {"collision-cost", NULL, "filtered", "1",
   "pairs past the exact replay's distance bound that its certified floating-point filter decided"},
  {"collision-cost", NULL, "before", "s", "wall-clock time of cdyn_contacts_before (mean over reps)"},
  {"collision-cost", NULL, "after", "s", "wall-clock time of cdyn_contacts_after, the check of the motion taken (mean over reps)"},
  {"collision-cost", NULL, "replay", "s", "wall-clock time of the exact replay of the same motion (one call)"},
  {"cloth-vs-implicit-ode", NULL, "solver", "", "linear solver of the run (the stepper option solver; for baraff-witkin, auto is its filtered PCG)"},
  {"cloth-vs-implicit-ode", NULL, "grid", "1", "nodes per side of the patch"},
  {"cloth-vs-implicit-ode", NULL, "nodes", "1", "nodes of the patch, grid^2"},
  {"cloth-vs-implicit-ode", NULL, "k_scale", "1", "factor on every spring constant (Baraff-Witkin's stiffening; 1 otherwise)"},
  {"cloth-vs-implicit-ode", NULL, "time_per_step", "s", "wall-clock time per step over the window"},
  {"cloth-vs-implicit-ode", NULL, "time_probe", "s", "wall-clock time per step over the first probe_steps steps"},
  {"cloth-vs-implicit-ode", NULL, "eps_max", "1", "largest structural elongation over the steps run"},
  {"cloth-vs-implicit-ode", NULL, "frac_mean", "1", "mean fraction of structural springs constrained"},
  {"cloth-vs-implicit-ode", NULL, "frac_max", "1", "largest fraction of structural springs constrained"},
  {"cloth-vs-implicit-ode", NULL, "flips", "1", "springs made constraints again right after their release"},
  {"cloth-vs-implicit-ode", NULL, "completed", "1", "1: every step of the window was taken"},
  {"cloth-vs-implicit-ode", NULL, "best", "1", "1: the method's fastest solver at this grid"},
  {"cloth-vs-implicit-ode", NULL, "newton_iterations_per_step", "1",
   "nonlinear iterations per step called, a last step not taken included (nan: the scheme counts none)"},
  {"cloth-vs-implicit-ode", NULL, "analyses", "1", "symbolic analyses of a sparse direct solver (a new pattern), over the run"},
  {"cloth-vs-implicit-ode", NULL, "set_changes", "1", "steps that followed a change of the constraint set"},
  /* chain-scale-stability */
  {"chain-scale-stability", NULL, "links", "1", "number of links N of the hanging chain"},
  {"chain-scale-stability", NULL, "stretch_max", "1",
   "largest relative link stretch ||x_i - x_j| - l| / l of the probe (the step that crossed the limit included)"},
  {"chain-scale-stability", "chain-scale-map", "omega", "rad/s",
   "omega_N = sqrt(N g / l), the scale of the chain's fastest transverse modes"},
  {"chain-scale-stability", "chain-scale-map", "h_max_omega", "1", "h_max omega_N"},
  {"chain-scale-stability", "chain-scale-energy", "h", "s", "step size, a grid point h = 0.016 2^k"},
  {"chain-scale-stability", "chain-scale-energy", "energy_lost_per_s", "W",
   "(E(0) - E(T)) / T over the run of T seconds, E kinetic plus gravitational"},

  {"stability", "stability", "index", "1", "position of the scheme in the run's list"},
  {"stability", "stability", "pendulum_h_max", "s", "largest stable h, single pendulum from horizontal"},
  {"stability", "stability", "pendulum_h_fail", "s", "first unstable h above it"},
  {"stability", "stability", "chain10_h_max", "s", "largest stable h, 10-link arm from horizontal"},
  {"stability", "stability", "chain10_h_fail", "s", "first unstable h above it"},
  {"stiff-pendulum", "stiff-spring", "k", "N/m", "stiffness of the penalty spring"},
  {"stiff-pendulum", "stiff-spring", "h_limit", "s", "2 sqrt(m/k), the linear stability limit"},
  {"stiff-pendulum", "pbd-stretch", "iterations", "1", "Gauss-Seidel sweeps per step"},
  {"stiff-pendulum", "pbd-stretch", "stretch", "1", "mean e_n / length over the last second"},

  /* step-cost */
  {"step-cost", NULL, "links", "1", "links of the chain"},
  {"step-cost", NULL, "rows", "1", "constraint rows"},
  {"step-cost", NULL, "solves_per_step", "1", "linear solves per step"},
  {"step-cost", NULL, "assemblies_per_step", "1", "assemblies of A per step"},
  {"step-cost", NULL, "us_per_step", "us", "wall-clock time per step, the fastest batch"},

  /* corner */
  {"corner", NULL, "x", "m", "x of the particle"},
  {"corner", NULL, "y", "m", "y of the particle"},
  {"corner", NULL, "vx", "m/s", "x velocity"},
  {"corner", NULL, "vy", "m/s", "y velocity"},
  {"corner", NULL, "ax", "m/s^2", "x acceleration of the step"},
  {"corner", NULL, "ay", "m/s^2", "y acceleration of the step"},
  {"corner", NULL, "g1", "m", "g1 = x - y"},
  {"corner", NULL, "g2", "m", "g2 = y"},
  {"corner", NULL, "mu1", "N", "multiplier of g1 (pushing >= 0)"},
  {"corner", NULL, "mu2", "N", "multiplier of g2"},
  {"corner", NULL, "handled1", "1", "1 if g1 was in the handled set"},
  {"corner", NULL, "handled2", "1", "1 if g2 was in the handled set"},
  {"corner", NULL, "solves", "1", "linear solves of the step's active-set problem"},
  {"corner", NULL, "pulls", "1", "1 if a multiplier pulls"},
  {"corner", NULL, "violates", "1", "1 if a row is left violating"},
  {"corner", NULL, "case", "", "force case: f1 = (2, -1), f2 = (-1, -2)"},
  {"corner", NULL, "algorithm", "", "run: an active-set algorithm, or a scheme that enforces inequalities"},
  {"corner", NULL, "fx", "N", "applied force, x"},
  {"corner", NULL, "fy", "N", "applied force, y"},
  {"corner", NULL, "mass", "kg", "mass of the particle"},
  {"corner", NULL, "ran", "1", "1 if the run ran"},
  {"corner", NULL, "failed", "1", "1 if a step failed"},
  {"corner", NULL, "pen_g1", "m", "largest violation max(-g1, 0)"},
  {"corner", NULL, "pen_g2", "m", "largest violation max(-g2, 0)"},
  {"corner", NULL, "cross_step", "1", "first step with a violation above 1e-12 m (-1: none)"},
  {"corner", NULL, "pull_steps", "1", "steps whose solve pulled"},
  {"corner", NULL, "violate_steps", "1", "steps whose solve left a violating row"},
  {"corner", NULL, "max_solves", "1", "the most linear solves of one step"},
  {"corner", NULL, "max_excess", "1", "the most solves beyond a problem's inequality rows"},
  {"corner", NULL, "ax0", "m/s^2", "x acceleration of the first step"},
  {"corner", NULL, "ay0", "m/s^2", "y acceleration of the first step"},
  {"corner", NULL, "ax0_exact", "m/s^2", "the exact x acceleration"},
  {"corner", NULL, "ay0_exact", "m/s^2", "the exact y acceleration"},
  {"corner", NULL, "dev_exact", "m", "largest distance from the exact motion"},
  {"corner", NULL, "pen_g2_m2", "m", "Platt's largest violation of g2, f = (2, -1), m = 2"},
  {"corner", NULL, "pen_g2_m3", "m", "the same at m = 3"},

  /* active-set-census */
  {"active-set-census", NULL, "algorithm", "", "active-set algorithm"},
  {"active-set-census", NULL, "rows", "1", "rows of the problem (census-summary: all rows of all problems)"},
  {"active-set-census", NULL, "problems", "1", "problems with a reference solution"},
  {"active-set-census", NULL, "exact", "1", "problems solved exactly (accelerations to 1e-7, no pulling)"},
  {"active-set-census", NULL, "accel_ok", "1", "problems with the right accelerations"},
  {"active-set-census", NULL, "penetrates", "1", "problems left with a violating row"},
  {"active-set-census", NULL, "pulls", "1", "problems with a pulling multiplier"},
  {"active-set-census", NULL, "failed", "1", "problems on which the algorithm returned an error"},
  {"active-set-census", NULL, "mean_solves", "1", "mean non-empty linear solves per problem"},
  {"active-set-census", NULL, "max_solves", "1", "most solves of one problem"},
  {"active-set-census", NULL, "excess", "1", "problems with more solves than inequality rows"},
  {"active-set-census", NULL, "seed", "1", "seed of the generator"},
  {"active-set-census", NULL, "trial", "1", "trial number within the seed"},
  {"active-set-census", NULL, "dim", "1", "dimension (2 or 3)"},
  {"active-set-census", NULL, "particles", "1", "particles"},
  {"active-set-census", NULL, "iterative_pulls", "1", "1 if the iterative algorithm pulls"},
  {"active-set-census", NULL, "iterative_penetrates", "1", "1 if it leaves a violating row"},
  {"active-set-census", NULL, "iterative_accel_ok", "1", "1 if its accelerations are right"},
  {"active-set-census", NULL, "lcp_exact", "1", "1 if the LCP solver is exact"},

  /* ccd-census */
  {"ccd-census", NULL, "kind", "", "vf (node-triangle) or ee (edge-edge)"},
  {"ccd-census", NULL, "family", "", "query family (experiments/ccd_queries.h; all: the kind's total)"},
  {"ccd-census", NULL, "queries", "1", "queries made"},
  {"ccd-census", NULL, "built", "1", "queries whose answer is known by construction"},
  {"ccd-census", NULL, "built_contacts", "1", "of those, contacts by construction"},
  {"ccd-census", NULL, "built_wrong", "1", "constructed queries where the reference disagrees with the construction"},
  {"ccd-census", NULL, "contacts", "1", "queries the reference answers with a contact"},
  {"ccd-census", NULL, "degenerate", "1",
   "queries the reference reports as degenerate (zero-area triangle or zero-length edge at the contact)"},
  {"ccd-census", NULL, "false_negatives", "1", "contacts the library does not report"},
  {"ccd-census", NULL, "late", "1", "contacts the library reports after the reference's bracket of the first contact"},
  {"ccd-census", NULL, "false_positives", "1", "contacts the library reports where the reference finds none"},
  {"ccd-census", NULL, "lib_time", "s", "mean wall-clock time of the library per query"},
  {"ccd-census", NULL, "ref_time", "s", "mean wall-clock time of the reference per query"},
  {"ccd-census", NULL, "lib_median", "s", "median wall-clock time of the library per query"},
  {"ccd-census", NULL, "query", "1", "number of the query within its kind and family, in generation order"},
  {"ccd-census", NULL, "reference", "1", "the reference's answer (1 contact, 0 none)"},
  {"ccd-census", NULL, "library", "1", "the library's answer (1 contact, 0 none)"},
  {"ccd-census", "ccd-counterexamples", "late", "1", "1 if the library's contact time is after the reference's"},
  {"ccd-census", NULL, "x#_#", "m",
   "x of point # (1: p; 2-4: a, b, c or q, r, s) at t = # (0 or 1), a C99 hex float (%a)"},
  {"ccd-census", NULL, "y#_#", "m", "y of point # at t = #, a hex float"},
  {"ccd-census", NULL, "z#_#", "m", "z of point # at t = #, a hex float"},

  /* billiard */
  {"billiard", NULL, "min_gap", "m", "smallest gap over all 77 rows (< 0: penetration)"},
  {"billiard", NULL, "min_wall_gap", "m", "smallest ball-wall gap"},
  {"billiard", NULL, "min_pair_gap", "m", "smallest ball-ball gap"},
  {"billiard", NULL, "penetration", "m", "sum of the violations (cdyn_system_penetration)"},
  {"billiard", NULL, "px", "kg m/s", "momentum, x"},
  {"billiard", NULL, "py", "kg m/s", "momentum, y"},
  {"billiard", NULL, "E", "J", "kinetic energy plus the tilt's potential"},
  {"billiard", NULL, "substeps", "1", "sub-steps of the step"},
  {"billiard", NULL, "events", "1", "sub-steps ended at a located activation"},
  {"billiard", NULL, "impulses", "1", "impulse solves"},
  {"billiard", NULL, "accel_solves", "1", "acceleration-level problems solved"},
  {"billiard", NULL, "max_solves", "1", "the most linear solves one problem needed"},
  {"billiard", NULL, "max_excess", "1", "the most solves above a problem's inequality rows"},
  {"billiard", NULL, "handled", "1", "rows handled in the step's last acceleration solve"},
  {"billiard", NULL, "active", "1", "inequality rows with g <= active_tol after the step"},
  {"billiard", NULL, "pulls", "1", "1 if some solve of the step pulled"},
  {"billiard", NULL, "violates", "1", "1 if some solve of the step left a violating row"},
  {"billiard", NULL, "min_mu", "N", "smallest multiplier of the last acceleration solve (< 0 pulls)"},
  {"billiard", NULL, "min_impulse", "N s", "smallest impulse of the last impulse solve"},
  {"billiard", NULL, "snap", "1", "snapshot index"},
  {"billiard", NULL, "ball", "1", "ball index (10 is the cue)"},
  {"billiard", NULL, "x", "m", "x of the ball"},
  {"billiard", NULL, "y", "m", "y of the ball"},
  {"billiard", NULL, "r", "m", "radius"},
  {"billiard", NULL, "cue", "1", "1 for the cue ball"},
  {"billiard", NULL, "run", "", "run name: ALG, ALG-e<low> or ALG-level"},
  {"billiard", NULL, "algorithm", "", "active-set algorithm, or a scheme that enforces inequalities"},
  {"billiard", NULL, "restitution", "1", "coefficient of restitution"},
  {"billiard", NULL, "tilt", "m/s^2", "in-plane gravity towards the corner"},
  {"billiard", NULL, "failed", "1", "1 if a step failed"},
  {"billiard", NULL, "fail_step", "1", "the failed step (nan if none)"},
  {"billiard", NULL, "fail_status", "1", "its status"},
  {"billiard", NULL, "noconv_steps", "1", "steps that returned CDYN_NOCONV"},
  {"billiard", NULL, "max_pen", "m", "largest total penetration"},
  {"billiard", NULL, "max_pen_over_r", "1", "the same over r"},
  {"billiard", NULL, "min_gap_over_r", "1", "smallest gap over r"},
  {"billiard", NULL, "pull_steps", "1", "steps with a pulling multiplier"},
  {"billiard", NULL, "violate_steps", "1", "steps with a violating row"},
  {"billiard", NULL, "max_handled", "1", "most handled rows"},
  {"billiard", NULL, "max_active", "1", "most active rows"},
  {"billiard", NULL, "dE_end", "J", "E(end) - E(0)"},
  {"billiard", NULL, "dE_max", "J", "largest |E - E(0)|"},
  {"billiard", NULL, "KE0", "J", "initial kinetic energy"},
  {"billiard", NULL, "dp_end", "kg m/s", "|p - p_free| at the end, p_free = p(0) + M g_tilt t"},
  {"billiard", NULL, "rack_moved_over_r", "1", "largest displacement of a rack ball at the end, over r"},
};

/* Does `name` match `pattern`, in which '#' stands for one or more digits? */
static int column_match(const char *pattern, const char *name)
{
  while (*pattern) {
    if (*pattern == '#') {
      if (!isdigit((unsigned char)*name))
        return 0;
      while (isdigit((unsigned char)*name))
        name++;
    } else if (*pattern != *name++) {
      return 0;
    }
    pattern++;
  }
  return *name == '\0';
}

static int file_match(const char *pattern, const char *file)
{
  size_t n = strlen(pattern);
  if (n && pattern[n - 1] == '*')
    return !strncmp(pattern, file, n - 1);
  return !strcmp(pattern, file);
}

const char *exp_column_unit(const char *experiment, const char *file, const char *column, const char **meaning)
{
  /* cloth-self-contact writes cloth-contact's files under its own name
     (one scene code, experiments/cloth_contact.c). */
  char alias[128];
  if (experiment && !strcmp(experiment, "cloth-self-contact")) {
    experiment = "cloth-contact";
    if (file && !strncmp(file, "cloth-self-contact", 18)) {
      snprintf(alias, sizeof alias, "cloth-contact%s", file + 18);
      file = alias;
    }
  }
  const column_def *best = NULL;
  int best_score = -1;
  for (size_t k = 0; k < sizeof defs / sizeof defs[0]; k++) {
    const column_def *d = &defs[k];
    if (d->experiment && (!experiment || strcmp(d->experiment, experiment)))
      continue;
    if (d->file && (!file || !file_match(d->file, file)))
      continue;
    if (!column_match(d->column, column))
      continue;
    int score = 2 * (d->experiment != NULL) + (d->file != NULL);
    if (score > best_score) {
      best = d;
      best_score = score;
    }
  }
  if (meaning)
    *meaning = best ? best->meaning : NULL;
  return best ? best->unit : NULL;
}
