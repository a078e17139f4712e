/*
 * tests/experiments/test_arm2.c: the experiments arm2-drift and
 * arm2-trajectory (the two-link arm of 000), end to end.
 *
 * - a short arm2-drift run: the files, their exact header and row count,
 *   the step, time and running-sum columns, the exact initial state, the
 *   metadata beside every CSV, runs.csv and the claim verdicts;
 * - that the same command gives byte-identical output;
 * - --scheme (only the named scheme and the experiment's companion run
 *   run, no claim is judged), --extra-schemes (a scheme beside the
 *   paper's, its options reaching it alone), --companions (none: the
 *   companion run left out, its claim not run) and --set (the value
 *   reaches the scheme and the metadata);
 * - a short arm2-trajectory run: the reference keeps the link lengths, the
 *   tracking summary agrees with the per-run files it summarises, and each
 *   run's deviation column is y2 - y_ref against the same reference.
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "harness.h"

/* The header every arm run writes (2 links, so nodes 0, 1, 2). */
#define ARM_COLUMNS "step,t,e,e_sum,x0,y0,z0,x1,y1,z1,x2,y2,z2,E"
enum { C_STEP, C_T, C_E, C_ESUM, C_X0, C_Y0, C_Z0, C_X1, C_Y1, C_Z1, C_X2, C_Y2, C_Z2, C_EN, C_YREF, C_DEV };

static const char *const drift_claims[] = {"arm2.baumgarte_grows", "arm2.poststab_to_zero",
                                           "arm2.implicit_tight"};

/* ---- checks of an arm run ------------------------------------------------------------ */

/*
 * The columns every arm run must satisfy: step = 0 .. steps, t = step h,
 * e >= 0, e_sum the running sum of e; the arm starts on its constraints
 * (e = 0) and at rest in the horizontal, where V = -m g.y = 0 (E = 0).
 */
static void check_arm_run(const char *path, const table *t, double h, long steps)
{
  ck_assert_msg(t->nrows == (size_t)steps + 1, "%s: %zu rows, expected %ld", path, t->nrows, steps + 1);
  double sum = 0;
  for (size_t r = 0; r < t->nrows; r++) {
    double e = tv(t, r, C_E);
    sum += e;
    ck_assert_msg(tv(t, r, C_STEP) == (double)r, "%s: row %zu has step %g", path, r, tv(t, r, C_STEP));
    double want_t = (double)r * h;
    ck_assert_msg(fabs(tv(t, r, C_T) - want_t) <= 1e-15 * fmax(1, want_t), "%s: step %zu at t = %.17g, not %.17g",
                  path, r, tv(t, r, C_T), want_t);
    ck_assert_msg(e >= 0, "%s: step %zu has e = %g < 0", path, r, e);
    ck_assert_msg(fabs(tv(t, r, C_ESUM) - sum) <= 1e-12 * sum, "%s: step %zu: e_sum %.17g, running sum %.17g",
                  path, r, tv(t, r, C_ESUM), sum);
  }
  ck_assert_msg(tv(t, 0, C_E) == 0, "%s: e at step 0 is %g, not 0", path, tv(t, 0, C_E));
  ck_assert_msg(tv(t, 0, C_EN) == 0, "%s: E at step 0 is %g, not 0", path, tv(t, 0, C_EN));
}

/* ---- arm2-drift, short run ------------------------------------------------------- */

START_TEST(test_drift_short_run)
{
  run_ok("run", "arm2-drift", "--steps", "40", "--out", "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  /* The paper's three schemes and Baumgarte without feedback are among
     the runs; each run is one file, and nothing else pretends to be data. */
  char runs[64][64];
  size_t nr;
  read_runs(dir, runs, 64, &nr);
  static const char *const paper[] = {"baumgarte", "poststab", "implicit", "baumgarte-a0b0"};
  for (size_t k = 0; k < 4; k++)
    ck_assert_msg(run_listed(runs, nr, paper[k]), "%s: no run %s", dir, paper[k]);
  for (size_t k = 0; k < nr; k++) {
    pathf(path, "%s/%s.csv", dir, runs[k]);
    table t = read_table(path, ARM_COLUMNS, 0);
    check_arm_run(path, &t, 0.05, 40);
    table_free(&t);
    check_meta(dir, runs[k], "cdyn run arm2-drift --steps 40 --out a", 0.05, 40, "alpha", "2");
  }
  /* A file per run, runs.csv and the claims; each CSV with its record, and
     run.meta.json. */
  dirlist l = list_dir(dir);
  ck_assert_uint_eq(count_suffix(&l, ".csv"), nr + 2);
  ck_assert_uint_eq(count_suffix(&l, ".meta.json"), nr + 2);
  dirlist_free(&l);
  check_no_temporaries(dir);
  ck_assert_uint_eq(check_claims_part(dir, "arm2-drift"), 3);
  /* runs.csv lists the same runs, with their schemes and roles. */
  pathf(path, "%s/runs.csv", dir);
  char *rtext = must_slurp(path), *rl[64];
  size_t nl = split_lines(path, rtext, rl, 64);
  ck_assert_msg(nl == nr + 1 && !strcmp(rl[0], "run,scheme,role"), "%s: %zu lines", path, nl);
  for (size_t k = 0; k < nr; k++) {
    char *f[4];
    ck_assert_int_eq(split_csv(rl[k + 1], f, 4), 3);
    ck_assert_str_eq(f[0], runs[k]);
    ck_assert_str_eq(f[1], strcmp(runs[k], "baumgarte-a0b0") ? runs[k] : "baumgarte");
    ck_assert_str_eq(f[2], strcmp(runs[k], "baumgarte-a0b0") ? "paper" : "companion");
  }
  free(rtext);

  pathf(path, "%s/claims.part.csv", dir);
  char *text = must_slurp(path);
  char *lines[16];
  size_t n = split_lines(path, text, lines, 16);
  ck_assert_msg(n == 3, "%s: %zu lines, expected 3", path, n);
  for (size_t k = 0; k < 3; k++) {
    char *f[8];
    int nf = split_csv(lines[k], f, 8);
    ck_assert_msg(nf == 6, "%s: line %zu has %d fields, expected 6", path, k + 1, nf);
    ck_assert_str_eq(f[0], drift_claims[k]);
    ck_assert_str_eq(f[1], "arm2-drift");
    char *end;
    double measured = strtod(f[2], &end);
    ck_assert_msg(end != f[2] && !*end && isfinite(measured), "%s: %s measured '%s'", path, f[0], f[2]);
    ck_assert_msg(is_verdict(f[4]), "%s: %s has verdict '%s'", path, f[0], f[4]);
  }
  free(text);
}
END_TEST

/* ---- determinism ---------------------------------------------------------------------- */

START_TEST(test_drift_deterministic)
{
  run_ok("run", "arm2-drift", "--steps", "40", "--out", "a");
  run_ok("run", "arm2-drift", "--steps", "40", "--out", "b");
  check_same_output(5);
}
END_TEST

/* ---- --scheme ------------------------------------------------------------------------ */

START_TEST(test_scheme_restricts_run)
{
  run_ok("run", "arm2-drift", "--scheme", "implicit", "--steps", "40", "--out", "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  /* implicit, and the companion run, which belongs to the experiment. */
  char runs[64][64];
  size_t nr;
  read_runs(dir, runs, 64, &nr);
  ck_assert_msg(nr == 2 && !strcmp(runs[0], "implicit") && !strcmp(runs[1], "baumgarte-a0b0"),
                "%s: runs %zu (%s ...)", dir, nr, runs[0]);
  for (size_t k = 0; k < nr; k++) {
    pathf(path, "%s/%s.csv", dir, runs[k]);
    table t = read_table(path, ARM_COLUMNS, 0);
    check_arm_run(path, &t, 0.05, 40);
    table_free(&t);
  }
  pathf(path, "%s/baumgarte.csv", dir);
  ck_assert_msg(!exists(path), "%s written by a --scheme implicit run", path);
  /* Every claim needs a scheme that did not run: all not-run, with why. */
  ck_assert_uint_eq(check_claims_part(dir, "arm2-drift"), 0);
  check_no_temporaries(dir);
}
END_TEST

/* --companions none leaves the companion run out: not in runs.csv, no
   file of its own, named in run.meta.json's skipped, and the claim that
   needs it not run; the paper's runs are the same bytes as with it.
   Naming it keeps it (the same bytes as by default). */
START_TEST(test_companions_none)
{
  run_ok("run", "arm2-drift", "--steps", "40", "--out", "a");
  run_ok("run", "arm2-drift", "--steps", "40", "--companions", "none", "--out", "n");
  run_ok("run", "arm2-drift", "--steps", "40", "--companions", "baumgarte-a0b0", "--out", "k");
  char da[PATH_MAX], dn[PATH_MAX], dk[PATH_MAX], pa[PATH_MAX], pb[PATH_MAX];
  wp(da, "a");
  wp(dn, "n");
  wp(dk, "k");
  char runs[64][64];
  size_t nr;
  read_runs(dn, runs, 64, &nr);
  ck_assert_msg(nr == 3 && !strcmp(runs[2], "implicit"), "%s: %zu runs, the last %s", dn, nr, runs[nr - 1]);
  pathf(pa, "%s/baumgarte-a0b0.csv", dn);
  ck_assert_msg(access(pa, F_OK) != 0, "%s was written", pa);
  pathf(pa, "%s/run.meta.json", dn);
  char *meta = must_slurp(pa);
  ck_assert_msg(strstr(meta, "\"skipped\": \"baumgarte-a0b0 (companion run, left out by --companions)\"") != NULL,
                "%s:\n%s", pa, meta);
  free(meta);
  char *text, *f[6];
  claim_fields(dn, "arm2.baumgarte_grows", &text, f);
  ck_assert_str_eq(f[4], "not-run");
  free(text);
  /* The claims that need no companion: the same verdicts as with it. */
  static const char *const own[] = {"arm2.poststab_to_zero", "arm2.implicit_tight"};
  for (int c = 0; c < 2; c++) {
    char *ta, *fa[6];
    claim_fields(da, own[c], &ta, fa);
    claim_fields(dn, own[c], &text, f);
    ck_assert_msg(!strcmp(fa[4], f[4]) && !strcmp(fa[2], f[2]), "%s: %s %s with --companions none, %s %s without",
                  own[c], f[4], f[2], fa[4], fa[2]);
    free(ta);
    free(text);
  }
  static const char *const same[] = {"baumgarte", "poststab", "implicit", "baumgarte-a0b0"};
  for (size_t k = 0; k < 4; k++)
    for (int d = 0; d < 2; d++) {
      if (d == 0 && k == 3)
        continue;
      size_t na, nb;
      pathf(pa, "%s/%s.csv", da, same[k]);
      pathf(pb, "%s/%s.csv", d ? dk : dn, same[k]);
      char *a = slurp(pa, &na), *b = slurp(pb, &nb);
      ck_assert_msg(a && b && na == nb && !memcmp(a, b, na), "%s differs from %s", pb, pa);
      free(a);
      free(b);
    }
}
END_TEST

/* A scheme beside the paper's: in the files and the metadata, the paper's
   claims judged as before, and its options reach it alone. */
START_TEST(test_extra_scheme)
{
  run_ok("run", "arm2-drift", "--steps", "40", "--out", "a");
  run_ok("run", "arm2-drift", "--steps", "40", "--extra-schemes", "rattle,baumgarte", "--set", "rattle.tol=1e-6",
         "--set", "solver=pcg", "--out", "b");
  char da[PATH_MAX], db[PATH_MAX], pa[PATH_MAX], pb[PATH_MAX];
  wp(da, "a");
  wp(db, "b");
  char runs[64][64];
  size_t nr;
  read_runs(db, runs, 64, &nr);
  ck_assert_msg(nr == 5 && !strcmp(runs[3], "rattle") && !strcmp(runs[4], "baumgarte-a0b0"),
                "%s: %zu runs, the fourth %s", db, nr, runs[3]);
  pathf(pb, "%s/rattle.csv", db);
  table t = read_table(pb, ARM_COLUMNS, 0);
  check_arm_run(pb, &t, 0.05, 40);
  table_free(&t);
  pathf(pa, "%s/rattle.meta.json", db);
  char *meta = must_slurp(pa);
  ck_assert_msg(strstr(meta, "\"tol\": \"9.9999999999999995e-07\"") && strstr(meta, "\"solver\": \"pcg\""),
                "%s: rattle.tol=1e-6 and solver=pcg did not reach rattle:\n%s", pa, meta);
  free(meta);
  /* The solver reaches every run, the tolerance only rattle; pcg changes
     the last bits of implicit's error, and the verdicts stay the table's. */
  pathf(pa, "%s/implicit.meta.json", db);
  meta = must_slurp(pa);
  ck_assert_msg(strstr(meta, "\"solver\": \"pcg\"") && !strstr(meta, "\"tol\""), "%s:\n%s", pa, meta);
  free(meta);
  ck_assert_uint_eq(check_claims_part(db, "arm2-drift"), 3);
  char *text, *f[6];
  claim_fields(db, "arm2.implicit_tight", &text, f);
  ck_assert_msg(strstr(f[5], "with --set solver=pcg") != NULL, "the note does not say the runs were modified: %s",
                f[5]);
  free(text);
  /* Without --set, the paper's runs are the same bytes with or without an
     extra scheme beside them. */
  run_ok("run", "arm2-drift", "--steps", "40", "--extra-schemes", "rattle", "--out", "c");
  static const char *const same[] = {"baumgarte", "poststab", "implicit", "baumgarte-a0b0", "claims.part"};
  for (size_t k = 0; k < 5; k++) {
    size_t na, nc;
    pathf(pa, "%s/%s.csv", da, same[k]);
    pathf(pb, "%s/c/%s.csv", wd, same[k]);
    char *a = slurp(pa, &na), *c = slurp(pb, &nc);
    ck_assert_msg(a && c && na == nc && !memcmp(a, c, na), "%s differs with an extra scheme", pb);
    free(a);
    free(c);
  }
}
END_TEST

/* ---- --set ---------------------------------------------------------------------------- */

START_TEST(test_set_reaches_scheme)
{
  run_ok("run", "arm2-drift", "--scheme", "baumgarte", "--steps", "100", "--out", "def");
  run_ok("run", "arm2-drift", "--set", "alpha=0", "--set", "beta=0", "--scheme", "baumgarte", "--steps", "100",
         "--out", "zero");
  /* The full default run writes baumgarte-a0b0 (alpha = beta = 0 set by
     the experiment itself): the --set run must reproduce it exactly. */
  run_ok("run", "arm2-drift", "--steps", "100", "--out", "all");
  char pd[PATH_MAX], pz[PATH_MAX], pa[PATH_MAX];
  wp(pd, "def/baumgarte.csv");
  wp(pz, "zero/baumgarte.csv");
  wp(pa, "all/baumgarte-a0b0.csv");
  table td = read_table(pd, ARM_COLUMNS, 0), tz = read_table(pz, ARM_COLUMNS, 0);
  check_arm_run(pd, &td, 0.05, 100);
  check_arm_run(pz, &tz, 0.05, 100);
  size_t differ = 0;
  for (size_t r = 0; r < td.nrows; r++)
    differ += tv(&td, r, C_E) != tv(&tz, r, C_E);
  ck_assert_msg(differ > 0, "--set alpha=0 --set beta=0 did not change Baumgarte's error column");
  table_free(&td);
  table_free(&tz);

  size_t nz, na;
  char *z = slurp(pz, &nz), *a = slurp(pa, &na);
  ck_assert_msg(z && a, "cannot read %s or %s", pz, pa);
  ck_assert_msg(nz == na && !memcmp(z, a, nz), "%s differs from %s", pz, pa);
  free(z);
  free(a);

  char dir[PATH_MAX];
  check_meta(wp(dir, "zero"), "baumgarte",
             "cdyn run arm2-drift --set alpha=0 --set beta=0 --scheme baumgarte --steps 100 --out zero", 0.05, 100,
             "alpha", "0");
  check_meta(dir, "baumgarte",
             "cdyn run arm2-drift --set alpha=0 --set beta=0 --scheme baumgarte --steps 100 --out zero", 0.05, 100,
             "beta", "0");
  check_meta(wp(dir, "def"), "baumgarte", "cdyn run arm2-drift --scheme baumgarte --steps 100 --out def", 0.05,
             100, "alpha", "2");
}
END_TEST

/* ---- arm2-trajectory, short run -------------------------------------------------- */

START_TEST(test_trajectory_short_run)
{
  run_ok("run", "arm2-trajectory", "--steps", "20", "--out", "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);

  /* The reference: rigid links of length 1 from the pivot at the origin,
     energy conserved (it starts at rest in the horizontal, E = 0). */
  pathf(path, "%s/reference.csv", dir);
  table ref = read_table(path, "t,x1,y1,x2,y2,E", 0);
  ck_assert_msg(ref.nrows == 21, "%s: %zu rows, expected 21", path, ref.nrows);
  for (size_t r = 0; r < ref.nrows; r++) {
    double t = tv(&ref, r, 0), x1 = tv(&ref, r, 1), y1 = tv(&ref, r, 2), x2 = tv(&ref, r, 3), y2 = tv(&ref, r, 4);
    ck_assert_msg(fabs(t - (double)r * 0.05) <= 1e-15, "%s: row %zu at t = %.17g", path, r, t);
    ck_assert_msg(fabs(hypot(x1, y1) - 1) <= 1e-10, "%s: t = %g: |x1 - x0| = %.17g", path, t, hypot(x1, y1));
    ck_assert_msg(fabs(hypot(x2 - x1, y2 - y1) - 1) <= 1e-10, "%s: t = %g: |x2 - x1| = %.17g", path, t,
                  hypot(x2 - x1, y2 - y1));
    ck_assert_msg(fabs(tv(&ref, r, 5)) <= 1e-8, "%s: t = %g: E = %g, not conserved", path, t, tv(&ref, r, 5));
  }
  check_meta(dir, "reference", "cdyn run arm2-trajectory --steps 20 --out a", 0.05, 20, "track_tol", "0.1");

  /* The tracking summary: each scheme at h, h/2, h/4, h/8 over the same
     1 s, and each row must agree with the run file it summarises. */
  pathf(path, "%s/tracking.csv", dir);
  table tr = read_table(path, "scheme,h,steps,t_track,tracked_all,max_e,E_end", 1);
  ck_assert_msg(tr.nrows == 12, "%s: %zu rows, expected 12", path, tr.nrows);
  static const char *const schemes[] = {"baumgarte", "poststab", "implicit"};
  static const char *const hname[] = {"0.05", "0.025", "0.0125", "0.00625"};
  const double tol = 0.1;
  for (size_t s = 0; s < 3; s++)
    for (size_t d = 0; d < 4; d++) {
      size_t r = 4 * s + d;
      double h = 0.05 / (double)(1 << d);
      long steps = 20L << d;
      ck_assert_str_eq(tr.label[r], schemes[s]);
      ck_assert_msg(tv(&tr, r, 1) == h, "%s: row %zu: h = %.17g, expected %.17g", path, r + 1, tv(&tr, r, 1), h);
      ck_assert_msg(tv(&tr, r, 2) == (double)steps, "%s: row %zu: steps = %g, expected %ld", path, r + 1,
                    tv(&tr, r, 2), steps);
      double t_track = tv(&tr, r, 3), all = tv(&tr, r, 4);
      ck_assert_msg(all == 0 || all == 1, "%s: row %zu: tracked_all = %g", path, r + 1, all);

      char run[PATH_MAX];
      pathf(run, "%s/%s_h%s.csv", dir, schemes[s], hname[d]);
      table t = read_table(run, ARM_COLUMNS ",y_ref,dev", 0);
      check_arm_run(run, &t, h, steps);
      double max_e = 0, first_out = -1;
      for (size_t k = 0; k < t.nrows; k++) {
        double dev = tv(&t, k, C_DEV);
        ck_assert_msg(fabs(dev - (tv(&t, k, C_Y2) - tv(&t, k, C_YREF))) <= 1e-12,
                      "%s: step %zu: dev %.17g != y2 - y_ref", run, k, dev);
        max_e = fmax(max_e, tv(&t, k, C_E));
        if (first_out < 0 && fabs(dev) > tol)
          first_out = tv(&t, k, C_T);
        /* Every run compares with the same reference: where its time grid
           meets the base grid, y_ref is the reference's y2 (exactly at h,
           to the reference's accuracy at h/2^d, whose integration stops at
           other times). */
        if (k % (1u << d) == 0) {
          size_t rr = k >> d;
          ck_assert_msg(tv(&t, k, C_T) == tv(&ref, rr, 0), "%s: step %zu at t = %.17g, reference at %.17g", run, k,
                        tv(&t, k, C_T), tv(&ref, rr, 0));
          double diff = fabs(tv(&t, k, C_YREF) - tv(&ref, rr, 4));
          ck_assert_msg(diff <= (d == 0 ? 1e-12 : 1e-9), "%s: t = %g: y_ref %.17g, reference y2 %.17g", run,
                        tv(&t, k, C_T), tv(&t, k, C_YREF), tv(&ref, rr, 4));
        }
      }
      ck_assert_msg(tv(&tr, r, 5) == max_e, "%s: row %zu: max_e %.17g, but %s has %.17g", path, r + 1,
                    tv(&tr, r, 5), run, max_e);
      ck_assert_msg(tv(&tr, r, 6) == tv(&t, t.nrows - 1, C_EN), "%s: row %zu: E_end %.17g, but %s ends at %.17g",
                    path, r + 1, tv(&tr, r, 6), run, tv(&t, t.nrows - 1, C_EN));
      if (first_out < 0) {
        ck_assert_msg(all == 1 && t_track == (double)steps * h,
                      "%s: row %zu: %s stays within %g, but tracked_all = %g, t_track = %g", path, r + 1, run, tol,
                      all, t_track);
      } else {
        ck_assert_msg(all == 0 && t_track == first_out,
                      "%s: row %zu: %s leaves the band at t = %g, but tracked_all = %g, t_track = %g", path, r + 1, run,
                      first_out, all, t_track);
      }
      table_free(&t);
      pathf(run, "%s_h%s", schemes[s], hname[d]);
      check_meta(dir, run, "cdyn run arm2-trajectory --steps 20 --out a", 0.05, 20, "track_tol", "0.1");
    }
  table_free(&tr);
  table_free(&ref);

  pathf(path, "%s/claims.part.csv", dir);
  char *text = must_slurp(path);
  ck_assert_msg(strstr(text, "arm2.implicit_tracks_reference,") && strstr(text, "arm2.poststab_deviates,"),
                "%s lacks the trajectory claims:\n%s", path, text);
  free(text);
}
END_TEST

/* ---- the suite ----------------------------------------------------------------------------- */

int main(void)
{
  const exp_case cases[] = {{"drift_short_run", test_drift_short_run},
                             {"drift_deterministic", test_drift_deterministic},
                             {"scheme_restricts_run", test_scheme_restricts_run},
                             {"extra_scheme", test_extra_scheme},
                             {"companions_none", test_companions_none},
                             {"set_reaches_scheme", test_set_reaches_scheme},
                             {"trajectory_short_run", test_trajectory_short_run}};
  return exp_run("experiments_arm2", cases, sizeof cases / sizeof cases[0]);
}
