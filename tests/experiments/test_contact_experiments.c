/*
 * tests/experiments/test_contact_experiments.c: the contact experiments
 * corner, active-set-census, ccd-census and billiard, end to end.
 *
 * - corner (003 figures 1-5): each case's runs step by step (the gaps as
 *   written, each algorithm's first steps against h^2 / m), the summary
 *   against the runs, and the four corner claims by the table's rules on
 *   the summary;
 * - active-set-census: the summary per algorithm (the exact solver exact
 *   on every problem, the iterative algorithm never penetrating and never
 *   taking more solves than rows), and every counterexample of the run in
 *   the committed list tests/data/census-counterexamples.csv;
 * - ccd-census, a quick run: no false negative or late contact, the
 *   constructed queries as built, the family rows against the totals,
 *   every disagreement replayed from its hex floats through the library
 *   and the exact reference, the same bytes on rerun but for the times;
 * - billiard: a short run's start against the rack's geometry, its series
 *   against the summary, the snapshots, the claim by the table's rule and
 *   the same bytes on rerun; and the momentum kept until the first wall
 *   contact.
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

#include "ccd_exact.h"
#include "harness.h"

/* ---- corner (003 figures 1-5) ------------------------------------------------------------ */

#define CORNER_COLUMNS "step,t,x,y,vx,vy,ax,ay,g1,g2,mu1,mu2,handled1,handled2,solves,pulls,violates"
enum { CO_STEP, CO_T, CO_X, CO_Y, CO_VX, CO_VY, CO_AX, CO_AY, CO_G1, CO_G2, CO_MU1, CO_MU2, CO_H1, CO_H2,
       CO_SOLVES, CO_PULLS, CO_VIOL };
#define CORNER_SUMMARY "case,algorithm,fx,fy,mass,ran,failed,pen_g1,pen_g2,cross_step,pull_steps,violate_steps," \
                       "max_solves,max_excess,ax0,ay0,ax0_exact,ay0_exact,dev_exact"
enum { CS_CASE, CS_ALG, CS_FX, CS_FY, CS_M, CS_RAN, CS_FAILED, CS_PEN1, CS_PEN2, CS_CROSS, CS_PULLS, CS_VIOL,
       CS_SOLVES, CS_EXCESS, CS_AX0, CS_AY0 };

static table corner_run(const char *dir, const char *cs, int m, const char *alg, long steps)
{
  char path[PATH_MAX];
  pathf(path, "%s/corner-%s-m%d-%s.csv", dir, cs, m, alg);
  table t = read_table_nan(path, CORNER_COLUMNS, 0);
  ck_assert_msg(t.nrows == (size_t)steps + 1, "%s: %zu rows, expected %ld", path, t.nrows, steps + 1);
  for (size_t r = 0; r < t.nrows; r++) {
    ck_assert_msg(tv(&t, r, CO_STEP) == (double)r, "%s: row %zu is step %g", path, r, tv(&t, r, CO_STEP));
    /* g1 = x - y and g2 = y as written */
    ck_assert_msg(tv(&t, r, CO_G1) == tv(&t, r, CO_X) - tv(&t, r, CO_Y) && tv(&t, r, CO_G2) == tv(&t, r, CO_Y),
                  "%s: row %zu: g1, g2 are not x - y, y", path, r);
  }
  return t;
}

START_TEST(test_corner)
{
  const long N = 40;
  const double h = 0.01;
  run_ok("run", "corner", "--steps", "40", "--out", "co");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "co");
  check_no_temporaries(dir);
  check_meta(dir, "corner-summary", "cdyn run corner --steps 40 --out co", h, N, "tau_over_h", "10");
  check_meta(dir, "corner-f1-m2-platt", "cdyn run corner --steps 40 --out co", h, N, "tau_over_h", "10");
  pathf(path, "%s/corner-summary.csv", dir);
  table s = read_table(path, CORNER_SUMMARY, 2);
  char runs[64][64];
  size_t nr;
  read_runs(dir, runs, 64, &nr);
  ck_assert_msg(nr >= 3 && s.nrows == 4 * nr, "%s: %zu rows for %zu runs", path, s.nrows, nr);

  for (int m = 2; m <= 3; m++) {
    double md = m;
    /*
     * Iterative, f = (2, -1): the first solve (S empty) gives w = b =
     * (3/m, -1/m), g2 joins, and A_22 mu_2 = -b_2 with A_22 = 1/m gives
     * mu_2 = 1, qdd = (2/m, 0): 003 §4.1's answer.  Then g1 > 0 is
     * inactive.  Symplectic Euler with a constant qdd puts x_k =
     * (2/m) h^2 k (k + 1) / 2 exactly in exact arithmetic; each step rounds
     * x by an ulp or so, hence the relative 1e-12.  y stays 0 up to the
     * rounding of v_y + h a_y with a_y = (-1/m) + mu/m (1e-17 here).
     */
    table it = corner_run(dir, "f1", m, "iterative", N);
    for (size_t k = 0; k <= (size_t)N; k++) {
      double kk = (double)k, xe = (2 / md) * h * h * kk * (kk + 1) / 2;
      ck_assert_msg(fabs(tv(&it, k, CO_X) - xe) <= 1e-12 * xe + 1e-300, "iterative f1 m = %d: x_%zu = %.17g, "
                    "exact %.17g", m, k, tv(&it, k, CO_X), xe);
      ck_assert_msg(fabs(tv(&it, k, CO_Y)) <= 1e-15, "iterative f1 m = %d: y_%zu = %g", m, k, tv(&it, k, CO_Y));
    }
    ck_assert_msg(fabs(tv(&it, 0, CO_MU2) - 1) <= 1e-14 && tv(&it, 0, CO_MU1) == 0 && tv(&it, 0, CO_H1) == 0 &&
                  tv(&it, 0, CO_H2) == 1,
                  "iterative f1 m = %d: first step mu = (%g, %g), handled (%g, %g); expected (0, 1), {g2}", m,
                  tv(&it, 0, CO_MU1), tv(&it, 0, CO_MU2), tv(&it, 0, CO_H1), tv(&it, 0, CO_H2));
    table_free(&it);
    /*
     * Iterative, f = (-1, -2): S = {} gives b = (1/m, -2/m), g2 joins;
     * with g2 alone qdd = (-1/m, 0), so w_1 = -1/m < 0 and g1 joins; with
     * both, qdd = 0 and J^T mu = -f gives mu = (1, 3).  Two solves.
     */
    it = corner_run(dir, "f2", m, "iterative", N);
    for (size_t k = 0; k <= (size_t)N; k++)
      ck_assert_msg(fabs(tv(&it, k, CO_X)) <= 1e-15 && fabs(tv(&it, k, CO_Y)) <= 1e-15,
                    "iterative f2 m = %d: (x, y)_%zu = (%g, %g), expected the corner", m, k, tv(&it, k, CO_X),
                    tv(&it, k, CO_Y));
    ck_assert_msg(fabs(tv(&it, 0, CO_MU1) - 1) <= 1e-14 && fabs(tv(&it, 0, CO_MU2) - 3) <= 1e-14 &&
                  tv(&it, 0, CO_SOLVES) == 2,
                  "iterative f2 m = %d: mu = (%.17g, %.17g) after %g solves; expected (1, 3) after 2", m,
                  tv(&it, 0, CO_MU1), tv(&it, 0, CO_MU2), tv(&it, 0, CO_SOLVES));
    table_free(&it);
    /*
     * Platt, f = (2, -1) (003 §3): both constraints handled at the first
     * step give qdd = 0 and J^T mu = -f, mu = (-2, -1): both pull and are
     * dropped.  The second step is free, qdd = (2/m, -1/m): v_y = -h/m
     * and y_2 = h v_y = -h^2/m, below the wall.
     */
    table pl = corner_run(dir, "f1", m, "platt", N);
    ck_assert_msg(fabs(tv(&pl, 0, CO_MU1) + 2) <= 1e-14 && fabs(tv(&pl, 0, CO_MU2) + 1) <= 1e-14 &&
                  tv(&pl, 0, CO_PULLS) == 1,
                  "platt f1 m = %d: first mu = (%g, %g), pulls %g", m, tv(&pl, 0, CO_MU1), tv(&pl, 0, CO_MU2),
                  tv(&pl, 0, CO_PULLS));
    /* qdd = 0 up to the rounding of a_free + W J^T mu (a few eps of 2/m),
       moved by h^2. */
    ck_assert_msg(fabs(tv(&pl, 1, CO_X)) <= 1e-15 * h * h && fabs(tv(&pl, 1, CO_Y)) <= 1e-15 * h * h &&
                  tv(&pl, 1, CO_H1) == 0 && tv(&pl, 1, CO_H2) == 0,
                  "platt f1 m = %d: after the first step (%g, %g), second step handles (%g, %g)", m,
                  tv(&pl, 1, CO_X), tv(&pl, 1, CO_Y), tv(&pl, 1, CO_H1), tv(&pl, 1, CO_H2));
    ck_assert_msg(same(tv(&pl, 2, CO_Y), -h * h / md, 1e-15 * h * h), "platt f1 m = %d: y_2 = %.17g, expected %.17g",
                  m, tv(&pl, 2, CO_Y), -h * h / md);
    table_free(&pl);
    /*
     * Tendency, f = (-1, -2) (003 §4.1): the unconstrained acceleration
     * (-1/m, -2/m) violates only g2, whose multiplier 2 gives qdd =
     * (-1/m, 0): x_1 = -h^2/m, through g1.
     */
    table td = corner_run(dir, "f2", m, "tendency", N);
    ck_assert_msg(fabs(tv(&td, 0, CO_MU2) - 2) <= 1e-14 && tv(&td, 0, CO_H1) == 0 && tv(&td, 0, CO_H2) == 1,
                  "tendency f2 m = %d: first mu_2 = %g, handled (%g, %g)", m, tv(&td, 0, CO_MU2), tv(&td, 0, CO_H1),
                  tv(&td, 0, CO_H2));
    ck_assert_msg(same(tv(&td, 1, CO_X), -h * h / md, 1e-15 * h * h) && tv(&td, 1, CO_G1) < 0,
                  "tendency f2 m = %d: x_1 = %.17g, expected %.17g", m, tv(&td, 1, CO_X), -h * h / md);
    table_free(&td);
  }
  /* The summary agrees with the runs: Platt's violation of g2 in case 1
     is at least h^2/m (its second step), the iterative rows none. */
  for (size_t r = 0; r < s.nrows; r++) {
    const char *l = s.label[r];
    double m = tv(&s, r, CS_M);
    if (!strcmp(l, "f1,platt"))
      ck_assert_msg(tv(&s, r, CS_PEN2) >= h * h / m * (1 - 1e-12) && tv(&s, r, CS_CROSS) == 2,
                    "summary %s m = %g: pen_g2 %g, crossing at %g", l, m, tv(&s, r, CS_PEN2), tv(&s, r, CS_CROSS));
    if (!strncmp(l, "f1,iterative", 12) || !strncmp(l, "f2,iterative", 12))
      ck_assert_msg(tv(&s, r, CS_RAN) == 1 && tv(&s, r, CS_PEN1) <= 1e-15 && tv(&s, r, CS_PEN2) <= 1e-15 &&
                    tv(&s, r, CS_CROSS) == -1 && tv(&s, r, CS_EXCESS) == 0,
                    "summary %s m = %g: pen %g / %g", l, m, tv(&s, r, CS_PEN1), tv(&s, r, CS_PEN2));
  }
  /* The claims are the four corner ones, with the table's rules applied
     to the summary's rows. */
  double pen[3][2][2]; /* platt, tendency, iterative x case x mass; NaN: no row */
  int ok[3] = {1, 1, 1};
  static const char *const algs[3] = {"platt", "tendency", "iterative"};
  for (int a = 0; a < 3; a++)
    for (int c = 0; c < 2; c++)
      for (int j = 0; j < 2; j++)
        pen[a][c][j] = NAN;
  double g1[2] = {NAN, NAN};
  for (size_t r = 0; r < s.nrows; r++)
    for (int a = 0; a < 3; a++)
      for (int c = 0; c < 2; c++) {
        char lab[64];
        snprintf(lab, sizeof lab, "f%d,%s", c + 1, algs[a]);
        if (strcmp(s.label[r], lab))
          continue;
        int j = tv(&s, r, CS_M) == 2 ? 0 : 1;
        pen[a][c][j] = fmax(tv(&s, r, CS_PEN1), tv(&s, r, CS_PEN2));
        ok[a] &= tv(&s, r, CS_RAN) == 1 && tv(&s, r, CS_FAILED) == 0;
        if (a == 1 && c == 1)
          g1[j] = tv(&s, r, CS_PEN1);
      }
  double p2 = pen[0][0][0], p3 = pen[0][0][1];
  check_claim(dir, "corner.platt_crosses",
              (exp_value[]){{"violation_m2", p2}, {"violation_m3", p3}, {"small_m2", p2}, {"m3_over_m2", p3 / p2}}, 4,
              1e-5);
  check_claim(dir, "corner.tendency_fixes_case1",
              (exp_value[]){{"violation", ok[1] ? fmax(pen[1][0][0], pen[1][0][1]) : INFINITY}}, 1, 1e-5);
  check_claim(dir, "corner.tendency_fails_case2",
              (exp_value[]){{"g1_m2", g1[0]}, {"g1_m3", g1[1]}}, 2, 1e-5);
  double ipen = 0;
  for (int c = 0; c < 2; c++)
    for (int j = 0; j < 2; j++)
      ipen = fmax(ipen, pen[2][c][j]);
  check_claim(dir, "corner.iterative_exact", (exp_value[]){{"violation", ok[2] ? ipen : INFINITY}}, 1, 1e-5);
  ck_assert_uint_eq(check_claims_part(dir, "corner"), 4);
  table_free(&s);
}
END_TEST

/* ---- active-set-census (beyond 003) ------------------------------------------------------- */

#define CENSUS_SUMMARY "algorithm,rows,problems,exact,accel_ok,penetrates,pulls,failed,mean_solves,max_solves,excess"
enum { CE_ALG, CE_ROWS, CE_PROBLEMS, CE_EXACT, CE_AOK, CE_PEN, CE_PULLS, CE_FAILED, CE_MEAN, CE_MAX, CE_EXCESS };
#define CENSUS_CX "seed,trial,rows,dim,particles,iterative_pulls,iterative_penetrates,iterative_accel_ok,lcp_exact"

START_TEST(test_census)
{
  run_ok("run", "active-set-census", "--set", "problems=300", "--out", "ce");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "ce");
  check_no_temporaries(dir);
  check_meta(dir, "census-summary", "cdyn run active-set-census --set problems=300 --out ce", 0.01, 1, "problems",
             "300");
  pathf(path, "%s/census-summary.csv", dir);
  table s = read_table(path, CENSUS_SUMMARY, 1);
  /* Four algorithms, each a total row (rows = 0) and one per size 2..12. */
  ck_assert_uint_eq(s.nrows, 4 * 12);
  static const char *const algs[] = {"platt", "tendency", "iterative", "lcp"};
  for (size_t a = 0; a < 4; a++) {
    size_t r0 = a * 12;
    ck_assert_str_eq(s.label[r0], algs[a]);
    ck_assert_msg(tv(&s, r0, CE_ROWS) == 0, "%s: the first row of %s is not its total", path, algs[a]);
    double sum = 0, exact = 0;
    for (size_t k = 1; k < 12; k++) {
      ck_assert_str_eq(s.label[r0 + k], algs[a]);
      ck_assert_msg(tv(&s, r0 + k, CE_ROWS) == (double)(k + 1), "%s: row %zu", path, r0 + k);
      sum += tv(&s, r0 + k, CE_PROBLEMS);
      exact += tv(&s, r0 + k, CE_EXACT);
      /* exact implies accelerations right and no pull */
      ck_assert_msg(tv(&s, r0 + k, CE_EXACT) <= tv(&s, r0 + k, CE_AOK), "%s: %s exact > accel_ok", path, algs[a]);
    }
    ck_assert_msg(sum == tv(&s, r0, CE_PROBLEMS) && exact == tv(&s, r0, CE_EXACT),
                  "%s: %s: the sizes sum to %g problems / %g exact, the total says %g / %g", path, algs[a], sum,
                  exact, tv(&s, r0, CE_PROBLEMS), tv(&s, r0, CE_EXACT));
    ck_assert_msg(tv(&s, r0, CE_PROBLEMS) >= 299, "%s: %s ran %g problems", path, algs[a], tv(&s, r0, CE_PROBLEMS));
  }
  /* The exact solver: exact on all; the iterative algorithm: never more
     solves than rows (003 §5), never penetrating (it adds every violated
     row); Platt at a first contact: one solve each. */
  ck_assert_msg(tv(&s, 36, CE_EXACT) == tv(&s, 36, CE_PROBLEMS) && tv(&s, 36, CE_FAILED) == 0,
                "lcp exact on %g of %g", tv(&s, 36, CE_EXACT), tv(&s, 36, CE_PROBLEMS));
  ck_assert_msg(tv(&s, 24, CE_EXCESS) == 0 && tv(&s, 24, CE_PEN) == 0 && tv(&s, 24, CE_MAX) <= 12,
                "iterative: %g problems with more solves than rows, %g penetrating", tv(&s, 24, CE_EXCESS),
                tv(&s, 24, CE_PEN));
  ck_assert_msg(tv(&s, 0, CE_MAX) == 1, "platt made %g solves at most", tv(&s, 0, CE_MAX));
  /* Every counterexample of this run is in the committed regression list
     (tests/data: the 10,000-problem run of the same seed, whose first 300
     trials are these). */
  pathf(path, "%s/counterexamples.csv", dir);
  table cx = read_table(path, CENSUS_CX, 0);
  ck_assert_msg(cx.nrows == 300 - tv(&s, 24, CE_EXACT),
                "%s: %zu counterexamples, but iterative was not exact on %g", path, cx.nrows,
                300 - tv(&s, 24, CE_EXACT));
  pathf(path, "%s/census-counterexamples.csv", CDYN_TEST_DATA);
  table ref = read_table(path, CENSUS_CX, 0);
  size_t j = 0;
  for (size_t r = 0; r < cx.nrows; r++) {
    while (j < ref.nrows && tv(&ref, j, 1) < tv(&cx, r, 1))
      j++;
    ck_assert_msg(j < ref.nrows, "trial %g is not in %s", tv(&cx, r, 1), path);
    for (size_t c = 0; c < 9; c++)
      ck_assert_msg(tv(&ref, j, c) == tv(&cx, r, c), "trial %g, column %zu: %g here, %g in %s", tv(&cx, r, 1), c,
                    tv(&cx, r, c), tv(&ref, j, c), path);
  }
  table_free(&cx);
  table_free(&ref);
  pathf(path, "%s/claims.part.csv", dir);
  char *text = must_slurp(path);
  char *lines[4], *fl[8];
  ck_assert_uint_eq(split_lines(path, text, lines, 4), 1);
  ck_assert_uint_eq(split_csv(lines[0], fl, 8), 6);
  ck_assert_str_eq(fl[0], "iterative.terminates");
  ck_assert_str_eq(fl[4], "holds");
  free(text);
  table_free(&s);
}
END_TEST

/* ---- ccd-census (beyond the papers) ------------------------------------------------------ */

#define CCD_SUMMARY                                                                                                  \
  "kind,family,queries,built,built_contacts,built_wrong,contacts,degenerate,false_negatives,late,false_positives"
enum { CC_QUERIES = 2, CC_BUILT, CC_BCONTACTS, CC_BWRONG, CC_CONTACTS, CC_DEGEN, CC_FN, CC_LATE, CC_FP };
#define CCD_CX                                                                                                       \
  "kind,family,query,reference,library,late,x1_0,y1_0,z1_0,x1_1,y1_1,z1_1,x2_0,y2_0,z2_0,x2_1,y2_1,z2_1,x3_0,y3_0," \
  "z3_0,x3_1,y3_1,z3_1,x4_0,y4_0,z4_0,x4_1,y4_1,z4_1"

/* The report with the table rows cut after their ninth column (the
   three time columns go) and without the line of the library's times
   per query: what must not change between two runs. */
static char *ccd_report_untimed(const char *path)
{
  char *text = must_slurp(path), *out = malloc(strlen(text) + 1), *o = out;
  ck_assert_ptr_nonnull(out);
  for (char *line = text; *line;) {
    char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
    size_t keep = len, bars = 0;
    if (!strncmp(line, "The library per query:", 22))
      keep = 0;
    else if (line[0] == '|')
      for (size_t k = 0; k < len; k++)
        if (line[k] == '|' && ++bars == 10) {
          keep = k + 1;
          break;
        }
    memcpy(o, line, keep);
    o += keep;
    line += len;
  }
  *o = '\0';
  free(text);
  return out;
}

/*
 * A quick ccd-census (600 random queries, 12 per constructed family and
 * kind), run twice: no false negative, no late contact, no constructed
 * query on which the reference contradicts the construction; the family
 * rows add up to each kind's total, with the numbers of queries asked
 * for, and the constructed families built to touch on their even queries
 * (near-miss on none, graze on all); ccd-counterexamples.csv holds exactly
 * the disagreements counted, each of which replays through the reference
 * and the library as recorded (its points are read back bit for bit from
 * their hex floats); every family has a time, and no claim is judged.  The
 * same command gives the same bytes but for the timing file and the
 * report's time columns.
 */
START_TEST(test_ccd_census)
{
  static const char *const fams[] = {"random", "coplanar", "parallel", "root-t0",   "root-t1",
                                     "vertex", "edge",     "leading-zero", "near-miss", "graze"};
  for (int pass = 0; pass < 2; pass++)
    run_ok("run", "ccd-census", "--set", "random=600", "--set", "degenerate=12", "--out", pass ? "b" : "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  check_meta(dir, "ccd-census", "cdyn run ccd-census --set random=600 --set degenerate=12 --out a", 0, 0,
             "degenerate", "12");
  pathf(path, "%s/ccd-census.csv", dir);
  table t = read_table(path, CCD_SUMMARY, 2);
  ck_assert_uint_eq(t.nrows, 2 * 11);
  double disagreements = 0;
  for (size_t ee = 0; ee < 2; ee++) {
    double sum[CC_FP + 1] = {0};
    for (size_t f = 0; f <= 10; f++) {
      size_t row = 11 * ee + f;
      char want[64];
      snprintf(want, sizeof want, "%s,%s", ee ? "ee" : "vf", f < 10 ? fams[f] : "all");
      ck_assert_msg(!strcmp(t.label[row], want), "%s: row %zu is %s, expected %s", path, row + 1, t.label[row], want);
      ck_assert_msg(tv(&t, row, CC_FN) == 0 && tv(&t, row, CC_LATE) == 0 && tv(&t, row, CC_BWRONG) == 0,
                    "%s: %s: %g false negatives, %g late, %g built wrong", path, want, tv(&t, row, CC_FN),
                    tv(&t, row, CC_LATE), tv(&t, row, CC_BWRONG));
      ck_assert(tv(&t, row, CC_CONTACTS) + tv(&t, row, CC_DEGEN) <= tv(&t, row, CC_QUERIES));
      if (f == 10) {
        for (int c = CC_QUERIES; c <= CC_FP; c++)
          ck_assert_msg(sum[c] == tv(&t, row, c), "%s: %s: column %d sums to %g over the families, %g in the total",
                        path, want, c, sum[c], tv(&t, row, c));
        disagreements += tv(&t, row, CC_FN) + tv(&t, row, CC_LATE) + tv(&t, row, CC_FP);
        continue;
      }
      for (int c = CC_QUERIES; c <= CC_FP; c++)
        sum[c] += tv(&t, row, c);
      double q = f ? 12 : 300, built_contacts = f == 0 || f == 8 ? 0 : f == 9 ? 12 : 6;
      ck_assert_msg(tv(&t, row, CC_QUERIES) == q && tv(&t, row, CC_BUILT) == (f ? q : 0) &&
                      tv(&t, row, CC_BCONTACTS) == built_contacts,
                    "%s: %s: %g queries, %g built, %g built to touch", path, want, tv(&t, row, CC_QUERIES),
                    tv(&t, row, CC_BUILT), tv(&t, row, CC_BCONTACTS));
      /* With the construction right, the reference's contacts are the
         built ones but for degenerate queries. */
      if (f)
        ck_assert(tv(&t, row, CC_CONTACTS) + tv(&t, row, CC_DEGEN) >= built_contacts);
    }
  }
  /* The disagreements, replayed. */
  pathf(path, "%s/ccd-counterexamples.csv", dir);
  char *text = must_slurp(path), *lines[4096];
  size_t n = split_lines(path, text, lines, 4096);
  ck_assert_str_eq(lines[0], CCD_CX);
  ck_assert_msg((double)(n - 1) == disagreements, "%s: %zu rows for %g disagreements", path, n - 1, disagreements);
  for (size_t k = 1; k < n; k++) {
    char *f[32];
    ck_assert_int_eq(split_csv(lines[k], f, 32), 30);
    int ee = !strcmp(f[0], "ee"), want = atoi(f[3]), lib = atoi(f[4]), late = atoi(f[5]);
    double x[4][2][3], lo, hi, tl;
    for (int c = 0; c < 24; c++) {
      char *end;
      x[c / 6][c / 3 % 2][c % 3] = strtod(f[6 + c], &end);
      ck_assert_msg(end != f[6 + c] && !*end, "%s: row %zu: '%s'", path, k, f[6 + c]);
    }
    int ref = ee ? ref_ccd_ee(x[0], x[1], x[2], x[3], &lo, &hi) : ref_ccd_vf(x[0], x[1], x[2], x[3], &lo, &hi);
    int hit = -1;
    if (ee)
      ck_assert_int_eq(cdyn_ccd_ee(x[0][0], x[0][1], x[1][0], x[1][1], x[2][0], x[2][1], x[3][0], x[3][1], 1e-6, &hit,
                                   &tl),
                       CDYN_OK);
    else
      ck_assert_int_eq(cdyn_ccd_vf(x[0][0], x[0][1], x[1][0], x[1][1], x[2][0], x[2][1], x[3][0], x[3][1], 1e-6, &hit,
                                   &tl),
                       CDYN_OK);
    ck_assert_msg(ref == want && hit == lib && (want == 1 && hit && tl > hi) == late && (want != lib || late),
                  "%s: row %zu (%s %s %s): reference %d, library %d; recorded %d, %d, late %d", path, k, f[0], f[1],
                  f[2], ref, hit, want, lib, late);
  }
  free(text);
  /* The times: every family's, never negative. */
  pathf(path, "%s/ccd-census-time.csv", dir);
  table tt = read_table(path, "kind,family,queries,lib_time,ref_time,lib_median", 2);
  ck_assert_uint_eq(tt.nrows, t.nrows);
  for (size_t r = 0; r < tt.nrows; r++)
    ck_assert(!strcmp(tt.label[r], t.label[r]) && tv(&tt, r, 2) == tv(&t, r, CC_QUERIES) && tv(&tt, r, 3) > 0 &&
              tv(&tt, r, 4) > 0 && tv(&tt, r, 5) > 0);
  table_free(&tt);
  table_free(&t);
  ck_assert_uint_eq(check_claims_part(dir, "ccd-census"), 0);
  /* Determinism, the times aside. */
  char pa[PATH_MAX], pb[PATH_MAX];
  pathf(pa, "%s/report.part.md", dir);
  wp(pb, "b/report.part.md");
  char *ra = ccd_report_untimed(pa), *rb = ccd_report_untimed(pb);
  ck_assert_msg(!strcmp(ra, rb), "the reports differ beyond their times:\n%s\n---\n%s", ra, rb);
  ck_assert_msg(strstr(ra, "| ee | near-miss | 12 | 0 (0.0 %) | 0 | 0 | 0 |") != NULL, "%s:\n%s", pa, ra);
  free(ra);
  free(rb);
  unlink(pa);
  unlink(pb);
  pathf(pa, "%s/ccd-census-time.csv", dir);
  wp(pb, "b/ccd-census-time.csv");
  unlink(pa);
  unlink(pb);
  check_same_output(3);
}
END_TEST

#define BIL_SERIES_COLUMNS                                                                                          \
  "step,t,min_gap,min_wall_gap,min_pair_gap,penetration,px,py,E,status,substeps,events,impulses,accel_solves,"    \
  "max_solves,max_excess,handled,active,pulls,violates,min_mu,min_impulse"
enum { B_STEP, B_T, B_GAP, B_WALL, B_PAIR, B_PEN, B_PX, B_PY, B_E, B_STATUS, B_SUB, B_EVENTS, B_IMPULSES, B_ACCEL,
       B_SOLVES, B_EXCESS, B_HANDLED, B_ACTIVE, B_PULLS, B_VIOLATES, B_MINMU, B_MINIMP };
#define BIL_SUMMARY_COLUMNS                                                                                         \
  "run,algorithm,restitution,tilt,steps,failed,fail_step,fail_status,noconv_steps,max_pen,max_pen_over_r,"        \
  "min_gap,min_gap_over_r,pull_steps,violate_steps,max_solves,max_excess,max_handled,max_active,events,impulses," \
  "E0,dE_end,dE_max,KE0,dp_end,min_mu,min_impulse,rack_moved_over_r"
/* Columns of summary.csv (two text labels, then numbers). */
enum { BL_E = 2, BL_TILT, BL_STEPS, BL_FAILED, BL_FAILSTEP, BL_FAILSTATUS, BL_NOCONV, BL_MAXPEN, BL_MAXPEN_R, BL_MINGAP,
       BL_MINGAP_R, BL_PULLS, BL_VIOLATES, BL_SOLVES, BL_EXCESS, BL_HANDLED, BL_ACTIVE, BL_EVENTS, BL_IMPULSES, BL_E0,
       BL_DEEND, BL_DEMAX, BL_KE0, BL_DPEND, BL_MINMU, BL_MINIMP, BL_RACK };
#define BIL_R 0.0286 /* the default radius (m) */
#define BIL_MASS 0.17
#define BIL_SPEED 2.0
#define BIL_TILT 0.5

/* The run names of a billiard run of `algs`, in its order: each
   algorithm, then its restitution_low (0.5) run, then its level run. */
static void billiard_names(const char *const *algs, size_t nalg, char names[][64])
{
  for (size_t a = 0; a < nalg; a++) {
    snprintf(names[3 * a], 64, "%s", algs[a]);
    snprintf(names[3 * a + 1], 64, "%s-e0.5", algs[a]);
    snprintf(names[3 * a + 2], 64, "%s-level", algs[a]);
  }
}

/*
 * One run's series against what billiard.c promises, and the summary row
 * recomputed from it: rows 0 .. steps, t = step h; min_gap the smaller of
 * the wall and pair minima; the total penetration at least the largest
 * single violation and at most 77 times it; every status >= 0; row 0 (no
 * step) without solver counts.
 */
static table check_billiard_series(const char *dir, const char *name, const table *sum, size_t row, long steps, double h)
{
  char path[PATH_MAX];
  pathf(path, "%s/series-%s.csv", dir, name);
  table t = read_table(path, BIL_SERIES_COLUMNS, 0);
  ck_assert_msg(t.nrows == (size_t)steps + 1, "%s: %zu rows, expected %ld", path, t.nrows, steps + 1);
  double maxpen = 0, mingap = INFINITY, dEmax = 0, minmu = 0, minimp = 0;
  double pulls = 0, viol = 0, solves = 0, excess = 0, events = 0, impulses = 0, handled = 0, active = 0;
  const double E0 = tv(&t, 0, B_E);
  for (size_t r = 0; r < t.nrows; r++) {
    ck_assert_msg(tv(&t, r, B_STEP) == (double)r && tv(&t, r, B_T) == (double)r * h, "%s: row %zu: step %g at t = %g",
                  path, r, tv(&t, r, B_STEP), tv(&t, r, B_T));
    double g = tv(&t, r, B_GAP), pen = tv(&t, r, B_PEN);
    ck_assert_msg(g == fmin(tv(&t, r, B_WALL), tv(&t, r, B_PAIR)), "%s: row %zu: min_gap %g is not min(%g, %g)", path,
                  r, g, tv(&t, r, B_WALL), tv(&t, r, B_PAIR));
    double worst = fmax(0, -g);
    ck_assert_msg(pen >= worst * (1 - 1e-15) && pen <= 77 * worst * (1 + 1e-15),
                  "%s: row %zu: penetration %g against the largest violation %g", path, r, pen, worst);
    ck_assert_msg(tv(&t, r, B_STATUS) >= 0, "%s: row %zu has status %g", path, r, tv(&t, r, B_STATUS));
    if (r == 0)
      for (int c = B_STATUS; c <= B_MINIMP; c++)
        ck_assert_msg(c == B_ACTIVE || tv(&t, 0, c) == 0, "%s: row 0 (no step) has column %d = %g", path, c,
                      tv(&t, 0, c));
    else
      ck_assert_msg(tv(&t, r, B_SUB) >= 1, "%s: row %zu: %g sub-steps", path, r, tv(&t, r, B_SUB));
    ck_assert_msg(tv(&t, r, B_ACTIVE) <= 77 && tv(&t, r, B_HANDLED) <= 77, "%s: row %zu: more than 77 rows", path, r);
    maxpen = fmax(maxpen, pen);
    mingap = fmin(mingap, g);
    dEmax = fmax(dEmax, fabs(tv(&t, r, B_E) - E0));
    minmu = fmin(minmu, tv(&t, r, B_MINMU));
    minimp = fmin(minimp, tv(&t, r, B_MINIMP));
    pulls += tv(&t, r, B_PULLS);
    viol += tv(&t, r, B_VIOLATES);
    solves = fmax(solves, tv(&t, r, B_SOLVES));
    excess = fmax(excess, tv(&t, r, B_EXCESS));
    handled = fmax(handled, tv(&t, r, B_HANDLED));
    active = fmax(active, tv(&t, r, B_ACTIVE));
    events += tv(&t, r, B_EVENTS);
    impulses += tv(&t, r, B_IMPULSES);
  }
  /* The summary row says the same. */
  ck_assert_str_eq(sum->label[row], name);
  const double want[][2] = {{BL_STEPS, (double)steps}, {BL_FAILED, 0}, {BL_FAILSTEP, (double)steps},
                            {BL_MAXPEN, maxpen},       {BL_MINGAP, mingap}, {BL_PULLS, pulls},
                            {BL_VIOLATES, viol},       {BL_SOLVES, solves}, {BL_EXCESS, excess},
                            {BL_HANDLED, handled},     {BL_ACTIVE, active}, {BL_EVENTS, events},
                            {BL_IMPULSES, impulses},   {BL_E0, E0},         {BL_DEEND, tv(&t, steps, B_E) - E0},
                            {BL_DEMAX, dEmax},         {BL_MINMU, minmu},   {BL_MINIMP, minimp}};
  for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
    int c = (int)want[k][0];
    double got = tv(sum, row, c);
    ck_assert_msg(got == want[k][1] || fabs(got - want[k][1]) <= 1e-15 * fabs(want[k][1]),
                  "summary.csv %s: column %d is %.17g, the series gives %.17g", name, c + 1, got, want[k][1]);
  }
  ck_assert_msg(tv(sum, row, BL_MAXPEN_R) == tv(sum, row, BL_MAXPEN) / BIL_R &&
                  tv(sum, row, BL_MINGAP_R) == tv(sum, row, BL_MINGAP) / BIL_R,
                "summary.csv %s: the columns over r are not the values / r", name);
  return t;
}

/*
 * The start in snapshot 0 against the geometry billiard.c states: rack
 * rows j = 0 .. 3 of 4 - j balls at x = r + s + (j + 2k) r,
 * y = r + s + j sqrt(3) r (s the rack gap), the cue at
 * (12 r, 12 r) + 0.25 r (1, -1)/sqrt(2); with s = 0 the rack touches the
 * walls with ball 0 (x) and row 0 (y), and 18 pairs touch.
 */
static void check_billiard_snapshots(const char *dir, const char *name, double gap, int nsnap)
{
  char path[PATH_MAX];
  pathf(path, "%s/snapshots-%s.csv", dir, name);
  table t = read_table(path, "snap,t,ball,x,y,r,cue", 0);
  ck_assert_msg(t.nrows == (size_t)nsnap * 11, "%s: %zu rows, expected %d snapshots of 11 balls", path, t.nrows,
                nsnap);
  static const double times[] = {0, 0.1, 0.2};
  for (size_t r = 0; r < t.nrows; r++) {
    ck_assert_msg(tv(&t, r, 0) == (double)(r / 11) && tv(&t, r, 2) == (double)(r % 11), "%s: row %zu is snap %g ball %g",
                  path, r, tv(&t, r, 0), tv(&t, r, 2));
    ck_assert_msg(fabs(tv(&t, r, 1) - times[r / 11]) <= 1e-12, "%s: snapshot %zu at t = %g", path, r / 11,
                  tv(&t, r, 1));
    ck_assert_msg(tv(&t, r, 5) == BIL_R && tv(&t, r, 6) == (double)(r % 11 == 10), "%s: row %zu: r %g, cue %g", path, r,
                  tv(&t, r, 5), tv(&t, r, 6));
  }
  double x[11], y[11];
  int b = 0;
  const double s = gap * BIL_R, c = 1 / sqrt(2.0);
  for (int j = 0; j < 4; j++)
    for (int k = 0; k < 4 - j; k++, b++) {
      x[b] = BIL_R + s + (j + 2 * k) * BIL_R;
      y[b] = BIL_R + s + j * sqrt(3.0) * BIL_R;
    }
  x[10] = 12 * BIL_R + 0.25 * BIL_R * c;
  y[10] = 12 * BIL_R - 0.25 * BIL_R * c;
  for (b = 0; b < 11; b++)
    ck_assert_msg(fabs(tv(&t, b, 3) - x[b]) <= 4 * DBL_EPSILON * x[b] && fabs(tv(&t, b, 4) - y[b]) <= 4 * DBL_EPSILON * y[b],
                  "%s: ball %d starts at (%.17g, %.17g), expected (%.17g, %.17g)", path, b, tv(&t, b, 3), tv(&t, b, 4),
                  x[b], y[b]);
  if (gap == 0) {
    int touching = 0, xwall = 0, ywall = 0;
    for (b = 0; b < 11; b++) {
      xwall += fabs(tv(&t, b, 3) - BIL_R) <= 1e-15;
      ywall += fabs(tv(&t, b, 4) - BIL_R) <= 1e-15;
      for (int o = b + 1; o < 11; o++) {
        double d = hypot(tv(&t, b, 3) - tv(&t, o, 3), tv(&t, b, 4) - tv(&t, o, 4));
        touching += fabs(d - 2 * BIL_R) <= 1e-15;
      }
    }
    ck_assert_msg(touching == 18 && xwall == 1 && ywall == 4, "%s: %d touching pairs, %d balls on x = r, %d on y = r",
                  path, touching, xwall, ywall);
  }
  table_free(&t);
}

START_TEST(test_billiard_short_run)
{
  run_ok("run", "billiard", "--steps", "300", "--set", "algorithms=iterative,tendency", "--out", "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  const char *cmd = "cdyn run billiard --steps 300 --set algorithms=iterative,tendency --out a";
  static const char *const algs[] = {"iterative", "tendency"};
  char names[6][64];
  billiard_names(algs, 2, names);
  pathf(path, "%s/summary.csv", dir);
  table sum = read_table(path, BIL_SUMMARY_COLUMNS, 2);
  ck_assert_uint_eq(sum.nrows, 6);
  check_meta(dir, "summary", cmd, 1e-3, 300, "algorithms", "iterative,tendency");
  for (size_t k = 0; k < 6; k++) {
    char lab[160];
    snprintf(lab, sizeof lab, "%.63s,%.31s", names[k], algs[k / 3]);
    ck_assert_msg(!strcmp(sum.label[k], lab), "summary.csv row %zu is %s, expected %s", k + 1, sum.label[k], lab);
    ck_assert_msg(tv(&sum, k, BL_E) == (k % 3 == 1 ? 0.5 : 1.0) && tv(&sum, k, BL_TILT) == (k % 3 == 2 ? 0 : BIL_TILT),
                  "summary.csv %s: restitution %g, tilt %g", names[k], tv(&sum, k, BL_E), tv(&sum, k, BL_TILT));
    char base[96];
    snprintf(base, sizeof base, "series-%.63s", names[k]);
    check_meta(dir, base, cmd, 1e-3, 300, "tilt", "0.5");
    snprintf(base, sizeof base, "snapshots-%.63s", names[k]);
    check_meta(dir, base, cmd, 1e-3, 300, "restitution_low", "0.5");
    /* Keep only the label's run name for check_billiard_series. */
    *strchr(sum.label[k], ',') = '\0';
    table t = check_billiard_series(dir, names[k], &sum, k, 300, 1e-3);
    check_billiard_snapshots(dir, names[k], 0, 3);
    /* At the start 18 pairs touch, and ball 0 and row 0 touch the walls. */
    ck_assert_msg(tv(&t, 0, B_ACTIVE) == 23, "%s: %g active rows at the start, expected 23", names[k],
                  tv(&t, 0, B_ACTIVE));
    /* The initial kinetic energy is the cue's. */
    ck_assert_msg(fabs(tv(&sum, k, BL_KE0) - 0.5 * BIL_MASS * BIL_SPEED * BIL_SPEED) <= 1e-15,
                  "%s: KE0 = %.17g", names[k], tv(&sum, k, BL_KE0));
    /* The iterative runs keep every gap within the claim's threshold. */
    if (k < 3)
      ck_assert_msg(tv(&sum, k, BL_MAXPEN_R) <= 1e-6, "%s: penetration %g r", names[k], tv(&sum, k, BL_MAXPEN_R));
    table_free(&t);
  }
  /* The claim, by the table's rule, from the iterative row. */
  check_claim(dir, "billiard.iterative_handles",
              (exp_value[]){{"failures", tv(&sum, 0, BL_FAILED)}, {"penetration", tv(&sum, 0, BL_MAXPEN_R)}}, 2, 1e-5);
  ck_assert_uint_eq(check_claims_part(dir, "billiard"), 1);
  char *text, *f[6];
  claim_fields(dir, "billiard.iterative_handles", &text, f);
  ck_assert_msg(strstr(f[5], "tendency") != NULL, "the claim's note does not give the other runs: %s", f[5]);
  free(text);
  pathf(path, "%s/report.part.md", dir);
  text = must_slurp(path);
  for (size_t k = 0; k < 6; k++) {
    char cell[96];
    snprintf(cell, sizeof cell, "| %.63s |", names[k]);
    ck_assert_msg(strstr(text, cell) != NULL, "%s has no row for %s", path, names[k]);
  }
  free(text);
  check_no_temporaries(dir);
  table_free(&sum);

  /* The same command gives the same bytes. */
  run_ok("run", "billiard", "--steps", "300", "--set", "algorithms=iterative,tendency", "--out", "b");
  static const char *const files[] = {"series-iterative.csv", "series-tendency-e0.5.csv", "snapshots-tendency.csv",
                                      "summary.csv", "claims.part.csv"};
  for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
    char pa[PATH_MAX], pb[PATH_MAX];
    size_t la, lb;
    char *ta = slurp(wp(pa, "a/%s", files[k]), &la), *tb = slurp(wp(pb, "b/%s", files[k]), &lb);
    ck_assert_msg(ta && tb && la == lb && !memcmp(ta, tb, la), "%s differs between two identical runs", files[k]);
    free(ta);
    free(tb);
  }
}
END_TEST

/*
 * With the rack 3 r away from both walls the break happens in free space.
 * Until the first wall contact the only external force is the tilt, so
 * p(t_k) = p(0) + M g_tilt t_k (M = 11 m; the level runs: p(0)).  A wall
 * can only act in step k if some ball comes within one step's travel of
 * it, so the check runs while every row so far has min_wall_gap > 2 v h
 * (v = 2 m/s bounds every speed: the kinetic energy is the cue's plus
 * what the tilt releases, far below (2 v)^2 m / 2 in 0.3 s).  Pair impulses
 * and forces are equal and opposite; each step rounds each of the 11
 * momenta by a few eps |m v_i|, and sum_i m |v_i| <= sqrt(11) |p(0)| plus
 * the tilt's share, so over 300 steps (each with an impulse sub-step or
 * two) the drift stays below 8000 eps (|p(0)| + M g_tilt t).  The window
 * must contain the impact (a step with an impulse), or the test proves
 * nothing.
 */
START_TEST(test_billiard_momentum)
{
  run_ok("run", "billiard", "--steps", "300", "--set", "algorithms=iterative,tendency", "--set", "rack_gap=3", "--out",
         "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  static const char *const algs[] = {"iterative", "tendency"};
  char names[6][64];
  billiard_names(algs, 2, names);
  pathf(path, "%s/summary.csv", dir);
  table sum = read_table(path, BIL_SUMMARY_COLUMNS, 2);
  ck_assert_uint_eq(sum.nrows, 6);
  const double h = 1e-3, M = 11 * BIL_MASS;
  for (size_t k = 0; k < 6; k++) {
    *strchr(sum.label[k], ',') = '\0';
    table t = check_billiard_series(dir, names[k], &sum, k, 300, h);
    check_billiard_snapshots(dir, names[k], 3, 3);
    ck_assert_msg(tv(&t, 0, B_ACTIVE) == 18, "%s: %g active rows at the start, expected the 18 touching pairs",
                  names[k], tv(&t, 0, B_ACTIVE));
    const double gt = -tv(&sum, k, BL_TILT) / sqrt(2.0);
    const double p0x = tv(&t, 0, B_PX), p0y = tv(&t, 0, B_PY);
    ck_assert_msg(fabs(p0x + BIL_MASS * BIL_SPEED / sqrt(2.0)) <= 1e-15 && p0x == p0y, "%s: p(0) = (%.17g, %.17g)",
                  names[k], p0x, p0y);
    size_t r;
    double impulses = 0;
    for (r = 0; r < t.nrows && tv(&t, r, B_WALL) > 2 * BIL_SPEED * h; r++) {
      double tk = tv(&t, r, B_T), tol = 8000 * DBL_EPSILON * (hypot(p0x, p0y) + M * fabs(gt) * tk);
      double ex = p0x + M * gt * tk, ey = p0y + M * gt * tk;
      ck_assert_msg(fabs(tv(&t, r, B_PX) - ex) <= tol && fabs(tv(&t, r, B_PY) - ey) <= tol,
                    "%s: step %zu: p = (%.17g, %.17g), expected (%.17g, %.17g) to %.3g", names[k], r, tv(&t, r, B_PX),
                    tv(&t, r, B_PY), ex, ey, tol);
      impulses += tv(&t, r, B_IMPULSES);
    }
    ck_assert_msg(impulses > 0, "%s: no impact before the first wall contact (step %zu)", names[k], r);
    table_free(&t);
  }
  table_free(&sum);
}
END_TEST

/* ---- the suite ----------------------------------------------------------------------------- */

int main(void)
{
  const exp_case cases[] = {{"corner", test_corner},
                             {"census", test_census},
                             {"ccd_census", test_ccd_census},
                             {"billiard_short_run", test_billiard_short_run},
                             {"billiard_momentum", test_billiard_momentum}};
  return exp_run("experiments_contact", cases, sizeof cases / sizeof cases[0]);
}
