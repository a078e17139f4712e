/*
 * tests/experiments/test_watch.c: runs that say when they went wrong
 * (experiments/runner/watch.c), end to end.
 *
 * - a scene that blows up: a 12 x 12 cloth of 0.5 kg with k_struct =
 *   1000 N/m at h = 5 ms, past the explicit springs' limit h omega < 2.
 *   The program warns before the run, ends it by the default divergence
 *   rule while its state is still finite (without the rule, at the
 *   non-finite state, with the library's reason), gives the step that
 *   Gershgorin's bound makes stable (recomputed here from the cloth's
 *   springs: the interior node's row, every node of equal mass), writes
 *   the results up to the last step, and exits 3; --failed-runs-ok makes
 *   it 0;
 * - the default divergence rule (experiments/runner/runner.c):
 *   - the hanging 32 x 32 cloth with a 10 % strain limit under implicit
 *     with geometric_stiffness=diagonal at 1/60 s, which without the rule
 *     completed with a constraint error of 1e27 m: it ends as diverged,
 *     exit 3, at the first step whose constraint error passes 1000 L,
 *     L = sqrt(2) m (the box around the cloth and the origin), the
 *     previous row within it; "divergence": false and --no-divergence
 *     give the completed run again (the same digest), exit 0; a stated
 *     max_error replaces the rule;
 *   - two particles on a stiff spring past h omega < 2, no constraint:
 *     the run ends when a particle passes 1000 R(t) from its start, R(t)
 *     = L + v0 t (L = 1 m, no force at the start), the last recorded
 *     positions beyond it and the ones before within it;
 *   - a thrown particle falling for 10 s is not stopped;
 * - a scene whose energy crosses its stated run.stop.max_energy_gain,
 *   and one whose error crosses run.stop.max_error: each reported, exit 3;
 * - a scene whose steps stop an iteration early (newton with max_iter =
 *   1): reported, exit 0 (the run completed);
 * - the same scene at a step within the limit: no warning, exit 0;
 * - progress on a terminal, and none into a pipe;
 * - an experiment whose runs end early (bad-initial's four runs that
 *   diverge, a result of the experiment): exit 0 and the summary line
 *   counting them.
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "harness.h"

/* The stiff cloth scene NAME.json, run by `scheme` at h for `steps`, with
   `stop` ("" or ", \"stop\": {...}") in its run. */
static void write_scene(const char *name, const char *scheme, double h, long steps, const char *stop)
{
  char path[4096];
  FILE *f = fopen(wp(path, "%s.json", name), "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f,
          "{\"cdyn_scene\": 1, \"name\": \"%s\", \"gravity\": [0, -9.81, 0],\n"
          " \"generators\": [{\"type\": \"cloth\", \"nx\": 12, \"ny\": 12, \"origin\": [-0.5, 0, -0.5],\n"
          "   \"u\": [1, 0, 0], \"v\": [0, 0, 1], \"mass\": 0.5, \"k_struct\": 1000, \"k_shear\": 20,\n"
          "   \"k_bend\": 2, \"damping\": 0.02, \"pins\": [0, 11]}],\n"
          " \"scheme\": \"%s\", \"run\": {\"h\": %.17g, \"steps\": %ld%s}, \"record\": {\"every\": 10}}\n",
          name, scheme, h, steps, stop);
  ck_assert_int_eq(fclose(f), 0);
}

/* The number after `key` in s (NaN when absent). */
static double number_after(const char *s, const char *key)
{
  const char *p = strstr(s, key);
  return p ? strtod(p + strlen(key), NULL) : NAN;
}

START_TEST(test_blowup_scene)
{
  write_scene("stiff", "implicit", 0.005, 400, "");
  proc p = run_cdyn("run", "scene", "stiff.json", "--scheme", "implicit,baraff-witkin", "--out", "o");
  /* baraff-witkin takes pins only: this cloth has only pins, so it runs;
     it integrates the springs implicitly and is not warned about. */
  ck_assert_msg(p.status == 3, "status %d; stderr:\n%s", p.status, p.err);
  /* Before the run: the limit, for the explicit scheme alone. */
  ck_assert_msg(strstr(p.err, "warning: stiff implicit: h = 0.005 s is beyond the explicit springs' limit"), "%s",
                p.err);
  ck_assert_msg(!strstr(p.err, "stiff baraff-witkin: h ="), "%s", p.err);
  /* One structural spring: omega = sqrt(k (2/m)), m = 0.5 / 144 kg. */
  double m = 0.5 / 144, w1 = sqrt(1000 * 2 / m);
  double homega = number_after(p.err, "h omega = ");
  ck_assert_msg(fabs(homega - 0.005 * w1) < 0.005 * 0.005 * w1, "h omega %g, expected %g", homega, 0.005 * w1);
  /* After it: the end by the divergence rule, then the hint. */
  ck_assert_msg(strstr(p.err, "warning: stiff implicit: diverged at step "), "%s", p.err);
  /* Gershgorin's row of an interior node (4 structural, 4 shear and 4
     bend springs, equal masses): omega^2 <= 2 (4 k_struct + 4 k_shear +
     4 k_bend) / m; the stable step 2 / omega. */
  double wb = sqrt(2 * (4 * 1000 + 4 * 20 + 4 * 2) / m), hs = number_after(p.err, "take h <= ");
  ck_assert_msg(fabs(hs - 2 / wb) < 0.005 * 2 / wb, "hint h %g, expected %g:\n%s", hs, 2 / wb, p.err);
  ck_assert_msg(strstr(p.err, "1 of the 2 runs ended early"), "%s", p.err);
  /* The results are written, up to the last good step, and say how the
     run ended. */
  char path[4096];
  char *sum = must_slurp(wp(path, "o/stiff-summary.csv"));
  ck_assert_msg(strstr(sum, "\nimplicit,implicit,diverged,") && strstr(sum, "\nbaraff-witkin,baraff-witkin,completed,"),
                "%s", sum);
  free(sum);
  ck_assert(exists(wp(path, "o/stiff-implicit.csv")) && exists(wp(path, "o/run.meta.json")));
  proc_free(&p);

  /* --failed-runs-ok: the same warnings, status 0. */
  p = run_cdyn("run", "scene", "stiff.json", "--out", "o2", "--failed-runs-ok");
  ck_assert_msg(p.status == 0, "status %d; stderr:\n%s", p.status, p.err);
  ck_assert_msg(strstr(p.err, "diverged at step"), "%s", p.err);
  proc_free(&p);

  /* Without the rule: on to the non-finite state, with the library's
     reason. */
  p = run_cdyn("run", "scene", "stiff.json", "--scheme", "implicit", "--out", "o4", "--no-divergence");
  ck_assert_msg(p.status == 3, "status %d; stderr:\n%s", p.status, p.err);
  ck_assert_msg(strstr(p.err, "warning: stiff implicit: the state went non-finite at step "), "%s", p.err);
  ck_assert_msg(strstr(p.err, "overflowed"), "no reason from the library:\n%s", p.err);
  proc_free(&p);
}
END_TEST

START_TEST(test_stated_limits)
{
  /* The energy: a gain of 1 mJ, crossed well before the blow-up. */
  write_scene("gain", "implicit", 0.005, 400, ", \"stop\": {\"max_energy_gain\": 0.001}");
  proc p = run_cdyn("run", "scene", "gain.json", "--out", "o");
  ck_assert_msg(p.status == 3, "status %d; stderr:\n%s", p.status, p.err);
  ck_assert_msg(strstr(p.err, "warning: gain implicit: the energy rose by more than the scene's "
                              "run.stop.max_energy_gain = 0.001 J at step "),
                "%s", p.err);
  ck_assert_msg(strstr(p.err, "hint: scheme implicit integrates the springs explicitly"), "%s", p.err);
  proc_free(&p);
  /* The constraint error (the pins, here), past 1 mm. */
  write_scene("err", "implicit", 0.005, 400, ", \"stop\": {\"max_error\": 0.001}");
  p = run_cdyn("run", "scene", "err.json", "--out", "o3");
  ck_assert_msg(p.status == 3, "status %d; stderr:\n%s", p.status, p.err);
  ck_assert_msg(strstr(p.err, "warning: err implicit: the constraint error crossed the scene's run.stop.max_error = "
                              "0.001 m at step "),
                "%s", p.err);
  proc_free(&p);
}
END_TEST

/* The last two rows of a CSV (the header skipped), each split into at
   most 16 fields; returns the number of data rows. */
static int last_rows(char *text, char *prev[16], char *last[16], int *nprev, int *nlast)
{
  char *lines[2] = {NULL, NULL};
  int rows = -1;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] == '#')
      continue;
    rows++;
    lines[0] = lines[1];
    lines[1] = line;
  }
  ck_assert_msg(rows >= 2, "%d rows", rows);
  *nprev = split_csv(lines[0], prev, 16);
  *nlast = split_csv(lines[1], last, 16);
  return rows;
}

/* The hanging 32 x 32 cloth of 0.5 kg, pinned at two corners, 10 %
   strain limit, under implicit with the diagonal geometric stiffness
   and CHOLMOD at 1/60 s for 120 steps, with `stop` in its run. */
static void write_hanging(const char *name, const char *stop)
{
  char path[4096];
  FILE *f = fopen(wp(path, "%s.json", name), "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f,
          "{\"cdyn_scene\": 1, \"name\": \"%s\", \"gravity\": [0, -9.81, 0],\n"
          " \"generators\": [{\"type\": \"cloth\", \"nx\": 32, \"ny\": 32, \"origin\": [-0.5, 0, -0.5],\n"
          "   \"u\": [1, 0, 0], \"v\": [0, 0, 1], \"mass\": 0.5, \"k_struct\": 100, \"k_shear\": 20,\n"
          "   \"k_bend\": 2, \"damping\": 0.02, \"pins\": [0, 31], \"strain_limit\": {\"eps_max\": 0.1}}],\n"
          " \"scheme\": {\"name\": \"implicit\", \"options\": {\"geometric_stiffness\": \"diagonal\", \"solver\": "
          "\"cholmod\"}},\n"
          " \"run\": {\"h\": %.17g, \"steps\": 120%s}}\n",
          name, 1.0 / 60, stop);
  ck_assert_int_eq(fclose(f), 0);
}

/* The digest column of a scene's one-run summary. */
static void summary_digest(const char *file, char *digest, size_t size)
{
  char path[4096];
  char *sum = must_slurp(wp(path, "%s", file));
  /* The header, then one data row: run,scheme,end,digest,... */
  char *row = strchr(sum, '\n'), *fields[16];
  ck_assert_ptr_nonnull(row);
  row++;
  char *end = strchr(row, '\n');
  if (end)
    *end = 0;
  ck_assert_int_ge(split_csv(row, fields, 16), 4);
  snprintf(digest, size, "%s", fields[3]);
  free(sum);
}

START_TEST(test_divergence_rule)
{
  char path[4096], *prev[16], *last[16];
  int np, nl;
  double L = sqrt(2.0), elim = 1000 * L;
  write_hanging("hang", "");
  proc p = run_cdyn("run", "scene", "hang.json", "--out", "o");
  ck_assert_msg(p.status == 3, "status %d; stderr:\n%s", p.status, p.err);
  ck_assert_msg(strstr(p.err, "warning: hang implicit: diverged at step ") && strstr(p.err, "the constraint error "),
                "%s", p.err);
  double lim = number_after(p.err, "beyond the divergence rule's ");
  ck_assert_msg(fabs(lim - elim) <= 1e-3 * elim, "limit %g m, expected 1000 sqrt(2) = %g m", lim, elim);
  char *sum = must_slurp(wp(path, "o/hang-summary.csv"));
  ck_assert_msg(strstr(sum, "\nimplicit,implicit,diverged,"), "%s", sum);
  free(sum);
  /* The series: step,t,e,... every step; the last row crossed, the one
     before did not. */
  char *ser = must_slurp(wp(path, "o/hang-implicit.csv"));
  int rows = last_rows(ser, prev, last, &np, &nl);
  ck_assert(np >= 3 && nl >= 3);
  double e_prev = strtod(prev[2], NULL), e_last = strtod(last[2], NULL);
  ck_assert_msg(e_last > elim && e_prev <= elim && rows < 121, "rows %d, e %g then %g, limit %g", rows, e_prev,
                e_last, elim);
  free(ser);
  proc_free(&p);

  /* Off, in the scene and on the command line: the run completes, its
     constraint error beyond 1e20 m, exit 0, the same trajectory. */
  write_hanging("hangoff", ", \"stop\": {\"divergence\": false}");
  p = run_cdyn("run", "scene", "hangoff.json", "--out", "o2");
  ck_assert_msg(p.status == 0, "status %d; stderr:\n%s", p.status, p.err);
  ck_assert_msg(strstr(p.out, "completed after 120 of 120 steps"), "%s", p.out);
  double emax = number_after(p.out, "e_max ");
  ck_assert_msg(emax > 1e20, "e_max %g", emax);
  proc_free(&p);
  p = run_cdyn("run", "scene", "hang.json", "--out", "o3", "--no-divergence");
  ck_assert_msg(p.status == 0 && strstr(p.out, "completed after 120 of 120 steps"), "status %d:\n%s%s", p.status,
                p.out, p.err);
  proc_free(&p);
  char d2[64], d3[64];
  summary_digest("o2/hangoff-summary.csv", d2, sizeof d2);
  summary_digest("o3/hang-summary.csv", d3, sizeof d3);
  ck_assert_str_eq(d2, d3);
  /* The scene as run says so. */
  char *as_run = must_slurp(wp(path, "o2/hangoff-implicit.scene.json"));
  ck_assert_msg(strstr(as_run, "\"divergence\": false"), "%s", as_run);
  free(as_run);

  /* A stated limit replaces the rule: the run goes on past 1000 L to
     its own 1e9 m. */
  write_hanging("hanglim", ", \"stop\": {\"max_error\": 1e9}");
  p = run_cdyn("run", "scene", "hanglim.json", "--out", "o5");
  ck_assert_msg(p.status == 3, "status %d; stderr:\n%s", p.status, p.err);
  ck_assert_msg(!strstr(p.err, "divergence rule") &&
                  strstr(p.err, "the constraint error crossed the scene's run.stop.max_error = 1e+09 m"),
                "%s", p.err);
  proc_free(&p);
}
END_TEST

START_TEST(test_divergence_distance)
{
  /* Two particles 1 m apart on a spring of 1e4 N/m (omega = sqrt(2 k /
     m) = 141 rad/s), one moving at 1 cm/s, at h = 0.05 s (h omega = 7):
     symplectic Euler blows up.  L = 1 m (the box of the particles and
     the origin, the rest length), v0 = 0.01 m/s, no force at the start:
     the limit at step k is 1000 (1 + 0.01 k h) m. */
  char path[4096];
  FILE *f = fopen(wp(path, "pair.json"), "w");
  ck_assert_ptr_nonnull(f);
  fputs("{\"cdyn_scene\": 1, \"name\": \"pair\", \"gravity\": [0, 0, 0],\n"
        " \"particles\": [{\"x\": [0, 0, 0]}, {\"x\": [1, 0, 0], \"v\": [0.01, 0, 0]}],\n"
        " \"springs\": [{\"i\": 0, \"j\": 1, \"k\": 10000}],\n"
        " \"scheme\": \"implicit\", \"run\": {\"h\": 0.05, \"steps\": 200},\n"
        " \"record\": {\"positions\": true}}\n",
        f);
  ck_assert_int_eq(fclose(f), 0);
  proc p = run_cdyn("run", "scene", "pair.json", "--out", "o");
  ck_assert_msg(p.status == 3, "status %d; stderr:\n%s", p.status, p.err);
  ck_assert_msg(strstr(p.err, "warning: pair implicit: diverged at step ") && strstr(p.err, "from where it started"),
                "%s", p.err);
  double kend = number_after(p.err, "diverged at step "), hk = 0.05;
  double xlim = 1000 * (1 + 0.01 * kend * hk), xprev = 1000 * (1 + 0.01 * (kend - 1) * hk);
  double lim = number_after(p.err, "beyond the divergence rule's ");
  ck_assert_msg(fabs(lim - xlim) <= 1e-3 * xlim, "limit %g m, expected %g m", lim, xlim);
  /* The state file: step,t,particle,x,y,z; two particles a step.  The
     last step has a particle beyond the limit, the step before none. */
  char *st = must_slurp(wp(path, "o/pair-implicit-state.csv"));
  char *last[16];
  int nl;
  double x0[2][3] = {{0, 0, 0}, {1, 0, 0}}, dmax[2] = {0, 0};
  long kstep[2] = {-1, -1};
  int rows = 0;
  for (char *line = strtok(st, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] == '#' || !strncmp(line, "step", 4))
      continue;
    nl = split_csv(line, last, 16);
    ck_assert_int_ge(nl, 6);
    long k = strtol(last[0], NULL, 10);
    int i = (int)strtol(last[2], NULL, 10);
    ck_assert(i == 0 || i == 1);
    if (k != kstep[1]) {
      kstep[0] = kstep[1], dmax[0] = dmax[1];
      kstep[1] = k, dmax[1] = 0;
    }
    double d = hypot(hypot(strtod(last[3], NULL) - x0[i][0], strtod(last[4], NULL) - x0[i][1]),
                     strtod(last[5], NULL) - x0[i][2]);
    dmax[1] = fmax(dmax[1], d);
    rows++;
  }
  ck_assert_msg(kstep[1] == (long)kend && kstep[0] == kstep[1] - 1 && dmax[1] > xlim && dmax[0] <= xprev,
                "steps %ld, %ld: distances %g, %g; limits %g, %g (%d rows)", kstep[0], kstep[1], dmax[0], dmax[1],
                xprev, xlim, rows);
  free(st);
  proc_free(&p);

  /* A particle thrown at 5 m/s and falling for 10 s goes 450 m, within
     its reach (1 + 50 + 490.5 m at 10 s): it is not stopped. */
  f = fopen(wp(path, "throw.json"), "w");
  ck_assert_ptr_nonnull(f);
  fputs("{\"cdyn_scene\": 1, \"name\": \"throw\", \"gravity\": [0, -9.81, 0],\n"
        " \"particles\": [{\"x\": [0, 0, 0], \"v\": [3, 4, 0]}],\n"
        " \"scheme\": \"implicit\", \"run\": {\"h\": 0.01, \"steps\": 1000}}\n",
        f);
  ck_assert_int_eq(fclose(f), 0);
  p = run_cdyn("run", "scene", "throw.json", "--out", "o2");
  ck_assert_msg(p.status == 0 && strstr(p.out, "completed after 1000 of 1000 steps"), "status %d:\n%s%s", p.status,
                p.out, p.err);
  proc_free(&p);
}
END_TEST

START_TEST(test_noconv_reported)
{
  /* A soft cloth well within the limit, newton allowed one iteration: it
     completes, and says its steps stopped early. */
  char path[4096];
  FILE *f = fopen(wp(path, "soft.json"), "w");
  ck_assert_ptr_nonnull(f);
  fputs("{\"cdyn_scene\": 1, \"name\": \"soft\", \"gravity\": [0, -9.81, 0],\n"
        " \"generators\": [{\"type\": \"cloth\", \"nx\": 6, \"ny\": 6, \"origin\": [-0.5, 0, -0.5],\n"
        "   \"u\": [1, 0, 0], \"v\": [0, 0, 1], \"mass\": 0.5, \"k_struct\": 10, \"k_shear\": 2,\n"
        "   \"k_bend\": 0.2, \"pins\": [0, 5]}],\n"
        " \"links\": [{\"i\": 7, \"j\": 28}],\n"
        " \"scheme\": {\"name\": \"newton\", \"options\": {\"max_iter\": 1}}, \"run\": {\"h\": 0.01, \"steps\": 50}}\n",
        f);
  ck_assert_int_eq(fclose(f), 0);
  proc p = run_cdyn("run", "scene", "soft.json", "--out", "o");
  ck_assert_msg(p.status == 0, "status %d; stderr:\n%s", p.status, p.err);
  ck_assert_msg(strstr(p.err, "warning: soft newton: ") && strstr(p.err, "stopped their iteration early (CDYN_NOCONV)") &&
                  strstr(p.err, "newton: "),
                "%s", p.err);
  ck_assert_msg(!strstr(p.err, "hint"), "%s", p.err);
  proc_free(&p);
}
END_TEST

START_TEST(test_good_scene_quiet)
{
  /* The same cloth at h = 1 ms: h omega = 0.76 for one spring, 1.54 at
     Gershgorin's bound, within the limit. */
  write_scene("calm", "implicit", 0.001, 100, "");
  proc p = run_cdyn("run", "scene", "calm.json", "--out", "o");
  ck_assert_msg(p.status == 0, "status %d; stderr:\n%s", p.status, p.err);
  ck_assert_msg(!strstr(p.err, "warning"), "%s", p.err);
  proc_free(&p);
}
END_TEST

START_TEST(test_experiment_summary)
{
  proc p = run_cdyn("run", "bad-initial", "--out", "b");
  ck_assert_msg(p.status == 0, "status %d; stderr:\n%s", p.status, p.err);
  /* improved, improved-ab2, penalty and penalty-euler blow up from the
     violated start (their errors reached 1e72 to 1e152 m without the
     rule): each ends by the divergence rule, with its status. */
  ck_assert_msg(strstr(p.out, "bad-initial: 4 of its ") && strstr(p.out, "simulations ended early"), "%s", p.out);
  ck_assert_msg(strstr(p.out, "4 at the divergence rule (by scheme: improved 1, improved-ab2 1, penalty 1, "
                              "penalty-euler 1)"),
                "%s", p.out);
  char path[4096];
  char *sum = must_slurp(wp(path, "b/bad-initial-summary.csv"));
  ck_assert_msg(strstr(sum, "\nimproved,") && strstr(sum, ",-10\n"), "%s", sum);
  free(sum);
  proc_free(&p);
}
END_TEST


/* Progress: on a terminal (util-linux's `script` gives the run one) the
   run's step, erased when it ends; never into a pipe. */
START_TEST(test_progress_on_terminal)
{
  if (system("command -v script >/dev/null 2>&1")) {
    printf("# SKIP progress_on_terminal: no `script` to give the run a terminal\n");
    return;
  }
  write_scene("calm", "implicit", 0.001, 300, "");
  char cmd[8192], path[4096];
  snprintf(cmd, sizeof cmd,
           "cd '%s' && CDYN_PROGRESS_AFTER=0 script -qec \"'%s' run scene calm.json --out o\" /dev/null > tty.txt",
           wp(path, "."), getenv("CDYN_PROGRAM"));
  ck_assert_int_eq(system(cmd), 0);
  char *tty = must_slurp(wp(path, "tty.txt"));
  ck_assert_msg(strstr(tty, "calm implicit: step 1 of 300 (0 %)") && strstr(tty, "\r\033[Kcalm implicit: completed"),
                "%s", tty);
  free(tty);
  proc p = run_cdyn("run", "scene", "calm.json", "--out", "o2");
  ck_assert_msg(p.status == 0 && !strstr(p.err, "step 1 of"), "%s", p.err);
  proc_free(&p);
}
END_TEST

int main(void)
{
  Suite *s = exp_suite("experiments_watch");
  add(s, "blowup_scene", test_blowup_scene);
  add(s, "stated_limits", test_stated_limits);
  add(s, "divergence_rule", test_divergence_rule);
  add(s, "divergence_distance", test_divergence_distance);
  add(s, "noconv_reported", test_noconv_reported);
  add(s, "good_scene_quiet", test_good_scene_quiet);
  add(s, "experiment_summary", test_experiment_summary);
  add(s, "progress_on_terminal", test_progress_on_terminal);
  return tu_run(s);
}
