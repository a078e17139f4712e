/*
 * tests/experiments/test_bead_circle.c: the experiment bead-circle (002's
 * bead on a circle), end to end: the constraint C and the radius r
 * recomputed from the x and y columns, the angle against the exact motion
 * of reference/bead.h, implicit's C = |step|^2 / 2, and the claim
 * verdicts recomputed from the rows.
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "bead.h"
#include "harness.h"

/* ---- bead-circle ------------------------------------------------------------------- */

#define BEAD_COLUMNS "step,t,x,y,radial_err,C,theta,theta_ref,angle_err"
enum { BD_STEP, BD_T, BD_X, BD_Y, BD_RADIAL, BD_C, BD_TH, BD_THREF, BD_AERR };

/*
 * One bead run of `steps` steps of h from rest at 2 rad on the unit
 * circle: step and time columns, the radial error r - 1 and 002's
 * C = (x.x - 1)/2 from the x and y columns (the bead stays in z = 0: no
 * force has a z component), the angle atan2(x, -y), the exact motion
 * from reference/bead.h and the wrapped difference of the two.
 * C, r and theta are computed from x and y as the experiment computes
 * them; x.x is about 1 for the runs that stay near the circle, where
 * rounding is a few 1e-16, and the tolerance grows with x.x for the run
 * that blows up.  The reference is the same function at the same t.
 */
static table check_run(const char *path, long steps, double h, int may_diverge)
{
  table t = read_table(path, BEAD_COLUMNS, 0);
  if (may_diverge && t.nrows >= 2 && t.nrows < (size_t)steps + 1) {
    /* Ended by the divergence rule: e_n = |C| past 1000 L at the last
       row and not before, L = 1 m (the box around the start (sin 2,
       -cos 2) and the origin). */
    double clast = fabs(tv(&t, t.nrows - 1, BD_C)), cprev = fabs(tv(&t, t.nrows - 2, BD_C));
    double L = hypot(sin(2.0), cos(2.0));
    ck_assert_msg(clast > 1000 * L && cprev <= 1000 * L, "%s: ended at row %zu with |C| %g after %g, limit %g", path,
                  t.nrows, clast, cprev, 1000 * L);
  } else {
    ck_assert_msg(t.nrows == (size_t)steps + 1, "%s: %zu rows, expected %ld", path, t.nrows, steps + 1);
  }
  for (size_t r = 0; r < t.nrows; r++) {
    double x = tv(&t, r, BD_X), y = tv(&t, r, BD_Y), tt = tv(&t, r, BD_T), xx = x * x + y * y;
    ck_assert_msg(tv(&t, r, BD_STEP) == (double)r && fabs(tt - (double)r * h) <= 1e-15 * fmax(1, tt),
                  "%s: row %zu: step %g at t = %.17g", path, r + 1, tv(&t, r, BD_STEP), tt);
    ck_assert_msg(fabs(tv(&t, r, BD_C) - (xx - 1) / 2) <= 1e-15 * fmax(1, xx),
                  "%s: step %zu: C = %.17g, (r^2 - 1)/2 = %.17g", path, r, tv(&t, r, BD_C), (xx - 1) / 2);
    ck_assert_msg(fabs(tv(&t, r, BD_RADIAL) - (hypot(x, y) - 1)) <= 1e-15 * fmax(1, xx),
                  "%s: step %zu: radial_err %.17g, r - 1 = %.17g", path, r, tv(&t, r, BD_RADIAL), hypot(x, y) - 1);
    ck_assert_msg(fabs(tv(&t, r, BD_TH) - atan2(x, -y)) <= 1e-15, "%s: step %zu: theta %.17g, atan2(x, -y) %.17g",
                  path, r, tv(&t, r, BD_TH), atan2(x, -y));
    double th;
    ck_assert_int_eq(cdyn_ref_bead_exact(1.0, G, 2.0, tt, &th, NULL), CDYN_OK);
    ck_assert_msg(fabs(tv(&t, r, BD_THREF) - th) <= 1e-12, "%s: t = %g: theta_ref %.17g, exact %.17g", path, tt,
                  tv(&t, r, BD_THREF), th);
    double d = fabs(remainder(tv(&t, r, BD_TH) - th, 2 * PI));
    ck_assert_msg(fabs(tv(&t, r, BD_AERR) - d) <= 1e-12, "%s: t = %g: angle_err %.17g, |theta - theta_ref| %.17g",
                  path, tt, tv(&t, r, BD_AERR), d);
  }
  /* The start: at rest at 2 rad, on the circle. */
  ck_assert_msg(tv(&t, 0, BD_X) == sin(2.0) && tv(&t, 0, BD_Y) == -cos(2.0) && tv(&t, 0, BD_THREF) == 2.0,
                "%s: starts at (%.17g, %.17g), theta_ref %.17g", path, tv(&t, 0, BD_X), tv(&t, 0, BD_Y),
                tv(&t, 0, BD_THREF));
  return t;
}

static table check_bead_run(const char *path, long steps, double h) { return check_run(path, steps, h, 0); }

START_TEST(test_bead_circle)
{
  run_ok("run", "bead-circle", "--scheme", "implicit", "--steps", "200", "--out", "a");
  const char *cmd = "cdyn run bead-circle --scheme implicit --steps 200 --out a";
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  static const char *const runs[] = {"no-feedback", "feedback", "implicit"};
  table t[3];
  for (size_t k = 0; k < 3; k++) {
    pathf(path, "%s/bead-%s.csv", dir, runs[k]);
    t[k] = check_bead_run(path, 200, 0.01);
    pathf(path, "bead-%s", runs[k]);
    check_meta(dir, path, cmd, 0.01, 200, "theta0", "2");
  }
  /* The feedback-stiffness sweep: at least one run, each a bead run
     (the stiffest, ks = 1e4, blows up at h = 0.01 and ends by the
     divergence rule). */
  dirlist l = list_dir(dir);
  size_t nks = 0, ncsv = count_suffix(&l, ".csv");
  for (size_t k = 0; k < l.n; k++)
    if (!strncmp(l.name[k], "bead-feedback-ks", 16) && has_suffix(l.name[k], ".csv")) {
      pathf(path, "%s/%s", dir, l.name[k]);
      table s = check_run(path, 200, 0.01, 1);
      table_free(&s);
      nks++;
    }
  dirlist_free(&l);
  ck_assert_msg(nks >= 1, "%s: no bead-feedback-ks*.csv", dir);
  char run_list[64][64];
  size_t nr;
  read_runs(dir, run_list, 64, &nr);
  ck_assert_msg(nr == 3 && ncsv == nr + nks + 2,
                "%s: %zu CSV files, expected the %zu runs, %zu sweep runs, runs.csv and the claims", dir, ncsv, nr, nks);
  check_claims_part(dir, "bead-circle");

  /*
   * Implicit on 002's circle: its step enforces C + J d = 0 at the start
   * of the step (one linearised Newton step, d = x+ - x the step's
   * displacement, J = x^T), and C is quadratic, C(x + d) = C + x.d +
   * |d|^2 / 2 exactly, so after every step C = |d|^2 / 2: the error is the
   * square of the step, never the drift of the ones before.  The rounding
   * of x.x ~ 1 (a few 1e-16) bounds the difference.
   */
  for (size_t r = 1; r < t[2].nrows; r++) {
    double dx = tv(&t[2], r, BD_X) - tv(&t[2], r - 1, BD_X), dy = tv(&t[2], r, BD_Y) - tv(&t[2], r - 1, BD_Y);
    ck_assert_msg(fabs(tv(&t[2], r, BD_C) - (dx * dx + dy * dy) / 2) <= 1e-15,
                  "bead-implicit: step %zu: C = %.17g, |x+ - x|^2 / 2 = %.17g", r, tv(&t[2], r, BD_C),
                  (dx * dx + dy * dy) / 2);
  }
  /* Without feedback nothing pulls the bead back and the error adds up;
     with ks = kd = 4 (critically damped at 2/s) it decays over the 2 s. */
  size_t end = t[0].nrows - 1;
  ck_assert_msg(fabs(tv(&t[0], end, BD_RADIAL)) > fabs(tv(&t[1], end, BD_RADIAL)),
                "bead: |r - 1| at the end %.4g without feedback, %.4g with", fabs(tv(&t[0], end, BD_RADIAL)),
                fabs(tv(&t[1], end, BD_RADIAL)));
  for (size_t k = 0; k < 3; k++)
    table_free(&t[k]);
}
END_TEST

START_TEST(test_bead_circle_claims)
{
  run_ok("run", "bead-circle", "--steps", "200", "--out", "c");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "c");
  check_no_temporaries(dir);
  pathf(path, "%s/bead-no-feedback.csv", dir);
  table nofb = check_bead_run(path, 200, 0.01);
  pathf(path, "%s/bead-feedback.csv", dir);
  table fb = check_bead_run(path, 200, 0.01);

  /* The measures, from the runs' rows as studies/bead_circle.c defines them: the
     mean |r - 1| over steps 1 .. N/4 and over the last N/4 steps without
     feedback, and the largest |r - 1| with feedback. */
  const size_t N = 200, Q = N / 4;
  double first = 0, last = 0, fbmax = 0;
  for (size_t k = 1; k <= N; k++) {
    double dr = fabs(tv(&nofb, k, BD_RADIAL));
    first += k <= Q ? dr / Q : 0;
    last += k > N - Q ? dr / Q : 0;
  }
  for (size_t k = 0; k <= N; k++)
    fbmax = fmax(fbmax, fabs(tv(&fb, k, BD_RADIAL)));
  check_claim(dir, "bead.drift_without_feedback", (exp_value[]){{"last_quarter", last}, {"growth", last / first}}, 2,
              1e-5);
  check_claim(dir, "bead.feedback_holds", (exp_value[]){{"max_error", fbmax}}, 1, 1e-5);
  ck_assert_uint_eq(check_claims_part(dir, "bead-circle"), 2);
  table_free(&nofb);
  table_free(&fb);
}
END_TEST

/* ---- the suite ----------------------------------------------------------------------------- */

int main(void)
{
  const exp_case cases[] = {{"bead_circle", test_bead_circle},
                             {"bead_circle_claims", test_bead_circle_claims}};
  return exp_run("experiments_bead_circle", cases, sizeof cases / sizeof cases[0]);
}
