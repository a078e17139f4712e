/*
 * watch.c: runs that say when they went wrong.
 *
 * The runner (runner.c) measures how each run ended (exp_outcome); this
 * file tells the user, on stderr, never in a result file:
 *
 *   - a scene's run (exp_watch_run, called by scene.c) that failed a
 *     step, went non-finite, or crossed the error or energy growth its
 *     scene states (run.stop), with the library's reason, and one that
 *     completed with steps whose iteration stopped early (CDYN_NOCONV);
 *     the command then exits EXP_EXIT_RUNFAIL (commands.h);
 *   - an experiment's early ends (exp_watch_summary), whose diverging runs
 *     are results: a summary line, exit status 0;
 *   - a hint where the cause is known: springs integrated explicitly
 *     (every scheme but those with cdyn_scheme_type.implicit_springs) are
 *     stable under symplectic Euler only for h omega < 2, omega the
 *     springs' highest angular frequency, between one spring's
 *     sqrt(k (1/m_i + 1/m_j)) and Gershgorin's bound
 *     (cdyn_system_spring_frequency, core/frequency.c); the hint gives
 *     h omega and the largest h the bound guarantees, 2 / omega_bound;
 *   - progress, on a terminal only (isatty(stderr)), and never when
 *     CDYN_NO_PROGRESS is set: one line, redrawn in place, at most four
 *     times a second.  The runner's: the run, the step, and the time
 *     left, for a run that has taken a second (CDYN_PROGRESS_AFTER
 *     seconds), erased when the run ends, so that a log or a pipe never
 *     sees it; an experiment's own (exp_progress): what, done of total,
 *     kept when done.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/experiment.h"

/* ---- the experiments' tally ------------------------------------------------------------- */

#define WATCH_SCHEMES 32
typedef struct {
  unsigned long runs, ended[EXP_END_DIVERGED + 1], noconv_runs;
  /* The early ends by scheme (the first WATCH_SCHEMES schemes met). */
  const char *scheme[WATCH_SCHEMES];
  unsigned long early[WATCH_SCHEMES];
  int nschemes;
} watch_tally;
static watch_tally tally;

void exp_watch_reset(void) { memset(&tally, 0, sizeof tally); }

static int ended_early(enum exp_end e)
{
  return e == EXP_END_FAILED_STEP || e == EXP_END_NONFINITE || e == EXP_END_ERROR_LIMIT || e == EXP_END_ENERGY_GAIN ||
         e == EXP_END_DIVERGED;
}

void exp_watch_record(const cdyn_stepper *st, const exp_outcome *out)
{
  tally.runs++;
  if (out->end <= EXP_END_DIVERGED)
    tally.ended[out->end]++;
  if (out->noconv_first)
    tally.noconv_runs++;
  const char *name = st ? cdyn_stepper_scheme(st) : NULL;
  if (!name || !ended_early(out->end))
    return;
  int k = 0;
  while (k < tally.nschemes && strcmp(tally.scheme[k], name))
    k++;
  if (k == tally.nschemes && k < WATCH_SCHEMES)
    tally.scheme[tally.nschemes++] = name;
  if (k < tally.nschemes)
    tally.early[k]++;
}

size_t exp_watch_size(void) { return sizeof tally; }

void exp_watch_export(void *buf) { memcpy(buf, &tally, sizeof tally); }

void exp_watch_merge(const void *buf)
{
  watch_tally o;
  memcpy(&o, buf, sizeof o);
  tally.runs += o.runs;
  tally.noconv_runs += o.noconv_runs;
  for (int e = 0; e <= EXP_END_DIVERGED; e++)
    tally.ended[e] += o.ended[e];
  for (int j = 0; j < o.nschemes; j++) {
    int k = 0;
    while (k < tally.nschemes && strcmp(tally.scheme[k], o.scheme[j]))
      k++;
    if (k == tally.nschemes && k < WATCH_SCHEMES)
      tally.scheme[tally.nschemes++] = o.scheme[j];
    if (k < tally.nschemes)
      tally.early[k] += o.early[j];
  }
}

unsigned long exp_watch_early(void)
{
  return tally.ended[EXP_END_FAILED_STEP] + tally.ended[EXP_END_NONFINITE] + tally.ended[EXP_END_ERROR_LIMIT] +
         tally.ended[EXP_END_ENERGY_GAIN] + tally.ended[EXP_END_DIVERGED];
}

void exp_watch_summary(FILE *f, const char *who)
{
  unsigned long early = exp_watch_early();
  if (!tally.runs)
    return;
  if (!early && !tally.noconv_runs) {
    fprintf(f, "%s: every one of its %lu simulations ran to its end\n", who, tally.runs);
    return;
  }
  fprintf(f, "%s: %lu of its %lu simulations ended early (results of the experiment, in its CSV files):", who, early,
          tally.runs);
  static const struct {
    enum exp_end end;
    const char *what;
  } kinds[] = {{EXP_END_FAILED_STEP, "a failed step"},
               {EXP_END_NONFINITE, "a non-finite state"},
               {EXP_END_ERROR_LIMIT, "the error limit"},
               {EXP_END_ENERGY_GAIN, "the energy-gain limit"},
               {EXP_END_DIVERGED, "the divergence rule"}};
  const char *sep = " ";
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    if (tally.ended[kinds[k].end]) {
      fprintf(f, "%s%lu at %s", sep, tally.ended[kinds[k].end], kinds[k].what);
      sep = ", ";
    }
  if (!early)
    fprintf(f, " none");
  for (int k = 0; k < tally.nschemes; k++)
    fprintf(f, "%s%s %lu", k ? ", " : " (by scheme: ", tally.scheme[k], tally.early[k]);
  if (tally.nschemes)
    fputc(')', f);
  if (tally.noconv_runs)
    fprintf(f, "; in %lu, some steps stopped their iteration early (CDYN_NOCONV)", tally.noconv_runs);
  fputc('\n', f);
}

/* ---- the explicit-spring hint ------------------------------------------------------------ */

int exp_watch_spring_limit(const cdyn_stepper *st, const cdyn_system *sys, double h, double *homega,
                           double *h_safe)
{
  size_t i;
  double ws, wb;
  if (!st || !sys || cdyn_system_spring_count(sys) == 0 || cdyn_scheme_find(cdyn_stepper_scheme(st), &i) ||
      cdyn_scheme_implicit_springs(i) || cdyn_system_spring_frequency(sys, &ws, &wb) || !(ws > 0))
    return 0;
  *homega = h * ws;
  *h_safe = 2 / wb;
  return 1;
}

/* The hint, when the springs can explain a run that went wrong: h omega
   of the stiffest spring at or above 1 (the network's highest, up to
   Gershgorin's bound, can be twice that). */
static void spring_hint(FILE *f, const cdyn_stepper *st, const cdyn_system *sys, double h)
{
  double homega, h_safe;
  if (!exp_watch_spring_limit(st, sys, h, &homega, &h_safe) || !(h > h_safe))
    return;
  fprintf(f,
          "cdyn:   hint: scheme %s integrates the springs explicitly, stable (symplectic Euler) only for h omega < 2; "
          "here h omega = %.3g for the stiffest spring alone (omega = sqrt(k (1/m_i + 1/m_j))) and up to %.3g for "
          "the highest mode of the springs together: take h <= %.3g s, soften the springs, or use a scheme implicit "
          "in the springs (baraff-witkin, backward-euler, bdf2)\n",
          cdyn_stepper_scheme(st), homega, 2 * h / h_safe, h_safe);
}

void exp_watch_before(FILE *f, const char *who, const cdyn_stepper *st, const cdyn_system *sys, double h)
{
  double homega, h_safe;
  if (exp_watch_spring_limit(st, sys, h, &homega, &h_safe) && homega >= 2)
    fprintf(f,
            "cdyn: warning: %s: h = %g s is beyond the explicit springs' limit: h omega = %.3g >= 2 for the stiffest "
            "spring, so symplectic Euler will blow up; h <= %.3g s is stable\n",
            who, h, homega, h_safe);
  /* The stepper's own (a constraint type served by finite differences;
     none of a scene's types is, today). */
  const char *w = cdyn_stepper_warning(st);
  if (w && w[0])
    fprintf(f, "cdyn: warning: %s: %s\n", who, w);
}

/* ---- a scene's run ------------------------------------------------------------------------- */

int exp_watch_run(FILE *f, const char *who, const cdyn_stepper *st, const cdyn_system *sys, double h, long steps,
                  const exp_outcome *out, const exp_limits *lim)
{
  int bad = 1;
  double t = (double)out->end_step * h;
  switch (out->end) {
  case EXP_END_FAILED_STEP:
    fprintf(f, "cdyn: warning: %s: step %ld of %ld (t = %g s) failed, status %d (%s): %s\n", who, out->end_step, steps,
            t, out->status, cdyn_strerror(out->status), out->reason[0] ? out->reason : "no reason given");
    break;
  case EXP_END_NONFINITE:
    fprintf(f, "cdyn: warning: %s: the state went non-finite at step %ld of %ld (t = %g s), after e_max = %.3g m: %s\n",
            who, out->end_step, steps, t, out->emax, out->reason[0] ? out->reason : "no reason given");
    break;
  case EXP_END_ERROR_LIMIT:
    fprintf(f,
            "cdyn: warning: %s: the constraint error crossed the scene's run.stop.max_error = %g m at step %ld of %ld "
            "(t = %g s)\n",
            who, lim->e_max, out->end_step, steps, t);
    break;
  case EXP_END_ENERGY_GAIN:
    fprintf(f,
            "cdyn: warning: %s: the energy rose by more than the scene's run.stop.max_energy_gain = %g J at step %ld "
            "of %ld (t = %g s)\n",
            who, lim->gain_max, out->end_step, steps, t);
    break;
  case EXP_END_DIVERGED:
    if (out->div_particle < 0)
      fprintf(f,
              "cdyn: warning: %s: diverged at step %ld of %ld (t = %g s): the constraint error %.6g m is beyond the "
              "divergence rule's %.6g m (1000 times the scene's size; run.stop.divergence, --no-divergence)\n",
              who, out->end_step, steps, t, out->div_value, out->div_limit);
    else
      fprintf(f,
              "cdyn: warning: %s: diverged at step %ld of %ld (t = %g s): particle %ld is %.6g m from where it "
              "started, beyond the divergence rule's %.6g m (1000 times the scene's reach at that time; "
              "run.stop.divergence, --no-divergence)\n",
              who, out->end_step, steps, t, out->div_particle, out->div_value, out->div_limit);
    break;
  default:
    bad = 0;
  }
  if (out->noconv_first)
    fprintf(f, "cdyn: warning: %s: %lu steps stopped their iteration early (CDYN_NOCONV), the first step %ld: %s\n",
            who, out->noconv, out->noconv_first, out->noconv_reason);
  if (bad)
    spring_hint(f, st, sys, h);
  return bad;
}

/* ---- progress ---------------------------------------------------------------------------- */

/* Whether progress is shown: on a terminal, unless CDYN_NO_PROGRESS. */
static int progress_on(void) { return isatty(STDERR_FILENO) && !getenv("CDYN_NO_PROGRESS"); }

/* The progress line: `text` in place of the line on stderr (NULL: erase
   it); `keep`: end it, so that it stays. */
static void progress_line(const char *text, int keep)
{
  fprintf(stderr, "\r\033[K%s%s", text ? text : "", keep ? "\n" : "");
  fflush(stderr);
}

static struct {
  int on;
  char label[200];
  long steps;
  double start, last, after;
  int drawn;
} prog;

void exp_progress_begin(long steps)
{
  prog.on = progress_on();
  const char *after = getenv("CDYN_PROGRESS_AFTER");
  prog.after = after && *after ? strtod(after, NULL) : 1;
  if (!(prog.after >= 0))
    prog.after = 1;
  prog.steps = steps;
  prog.start = prog.last = cdyn_clock();
  prog.drawn = 0;
}

void exp_progress_step(long k)
{
  if (!prog.on || !prog.label[0])
    return;
  double now = cdyn_clock();
  /* Only runs longer than a second (CDYN_PROGRESS_AFTER) get a line; then
     four redraws a second. */
  if (now - prog.start < prog.after || (prog.drawn && now - prog.last < 0.25))
    return;
  prog.last = now;
  double left = k > 0 ? (now - prog.start) * (double)(prog.steps - k) / (double)k : 0;
  char line[400];
  snprintf(line, sizeof line, "%s: step %ld of %ld (%.0f %%), about %.0f s left", prog.label, k, prog.steps,
           prog.steps > 0 ? 100.0 * (double)k / (double)prog.steps : 100.0, left);
  progress_line(line, 0);
  prog.drawn = 1;
}

void exp_progress_end(void)
{
  if (prog.drawn)
    progress_line(NULL, 0);
  prog.drawn = 0;
}

void exp_progress_label(const char *label) { snprintf(prog.label, sizeof prog.label, "%s", label ? label : ""); }

void exp_progress(exp_ctx *ctx, const char *what, long done, long total)
{
  if (!progress_on())
    return;
  double t = cdyn_clock();
  if (done < total && t - ctx->progress_last < 0.25)
    return;
  ctx->progress_last = t;
  char line[400];
  snprintf(line, sizeof line, "  %s: %ld / %ld (%.0f %%)", what, done, total,
           total > 0 ? 100.0 * (double)done / (double)total : 100.0);
  progress_line(line, done >= total);
}
