/*
 * tests/experiments/test_watch.c: runs that say when they went wrong
 * (experiments/runner/watch.c), end to end.
 *
 * - a scene that blows up: a 12 x 12 cloth of 0.5 kg with k_struct =
 *   1000 N/m at h = 5 ms, past the explicit springs' limit h omega < 2.
 *   The program warns before the run, reports the run's end on stderr
 *   with the library's reason, gives the step that Gershgorin's bound
 *   makes stable (recomputed here from the cloth's springs: the interior
 *   node's row, every node of equal mass), writes the results up to the
 *   last good step, and exits 3; --failed-runs-ok makes it 0;
 * - a scene whose energy crosses its stated run.stop.max_energy_gain,
 *   and one whose error crosses run.stop.max_error: each reported, exit 3;
 * - a scene whose steps stop an iteration early (newton with max_iter =
 *   1): reported, exit 0 (the run completed);
 * - the same scene at a step within the limit: no warning, exit 0;
 * - progress on a terminal, and none into a pipe;
 * - an experiment whose run ends early (bad-initial's non-finite run, a
 *   result of the experiment): exit 0 and the summary line counting it.
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
  /* After it: the end, the library's reason, the hint. */
  ck_assert_msg(strstr(p.err, "warning: stiff implicit: the state went non-finite at step "), "%s", p.err);
  ck_assert_msg(strstr(p.err, "overflowed"), "no reason from the library:\n%s", p.err);
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
  ck_assert_msg(strstr(sum, "\nimplicit,implicit,nonfinite,") && strstr(sum, "\nbaraff-witkin,baraff-witkin,completed,"),
                "%s", sum);
  free(sum);
  ck_assert(exists(wp(path, "o/stiff-implicit.csv")) && exists(wp(path, "o/run.meta.json")));
  proc_free(&p);

  /* --failed-runs-ok: the same warnings, status 0. */
  p = run_cdyn("run", "scene", "stiff.json", "--out", "o2", "--failed-runs-ok");
  ck_assert_msg(p.status == 0, "status %d; stderr:\n%s", p.status, p.err);
  ck_assert_msg(strstr(p.err, "went non-finite"), "%s", p.err);
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
  ck_assert_msg(strstr(p.out, "bad-initial: 1 of its ") && strstr(p.out, "simulations ended early"), "%s", p.out);
  ck_assert_msg(strstr(p.out, "1 at a non-finite state"), "%s", p.out);
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
  add(s, "noconv_reported", test_noconv_reported);
  add(s, "good_scene_quiet", test_good_scene_quiet);
  add(s, "experiment_summary", test_experiment_summary);
  add(s, "progress_on_terminal", test_progress_on_terminal);
  return tu_run(s);
}
