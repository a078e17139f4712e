/*
 * test_lcp.c: the active-set algorithms (lib/activeset/) against the
 * exhaustive-enumeration reference (reference/lcp_enum.c) and against
 * answers derived by hand.
 *
 * The contact problem (cdyn/contact.h): w = A mu + b, A = J W J^T;
 * equality rows w_k = 0 (mu_k free); inequality rows w_k >= 0, mu_k >= 0,
 * mu_k w_k = 0.  w (and J^T mu) is unique; mu is unique when A is
 * definite.
 *
 * 1. 003's corner (particle in the plane, g1 = x - y >= 0, g2 = y >= 0),
 *    every algorithm, also with g1 as an equality.
 * 2. A few hundred random problems: "lcp" agrees with the enumeration.
 * 3. A wedge where the iterative algorithm ends pulling and "lcp" does
 *    not, derived by hand, and the same seen on the random problems; the
 *    pivots of "lcp" on a singular problem, derived by hand; degenerate
 *    problems of the active-set census (experiments/problems/contact_problems.c)
 *    on which "lcp" or the reference once failed, and those of the fuzz
 *    corpus on which "lcp" gave up (tests/data/lcp-degenerate.txt),
 *    against the reference.
 * 4. Error paths of cdyn_activeset_solve and of the reference (also its
 *    rounding floor at b = -1e300).
 * 5. A particle at rest in a crease of two or three planes, every
 *    algorithm, against static equilibrium derived by hand.
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_rng.h>

#include <cdyn/cdyn.h>

#include "planted.h"
#include "problems/contact_problems.h"
#include "lcp_enum.h"
#include "testutil.h"

static const double EPS = DBL_EPSILON;

/* The library's tolerances for rel_tol (cdyn_as_tolerances). */
static void tolerances(size_t n, const double *A, const double *b, double rel_tol, double *tol_w,
                       double *tol_mu)
{
  double bmax = 0, dmax = 0;
  for (size_t k = 0; k < n; k++) {
    bmax = fmax(bmax, fabs(b[k]));
    dmax = fmax(dmax, A[k * n + k]);
  }
  *tol_w = rel_tol * (bmax > DBL_MIN ? bmax : DBL_MIN);
  *tol_mu = dmax > 0 ? *tol_w / dmax : *tol_w;
}

static int has_algorithm(const char *name)
{
  size_t i;
  return cdyn_activeset_find(name, &i) == CDYN_OK;
}

/* ---- 1. the corner of 003 -------------------------------------------------- */

/*
 * A particle of mass m in the plane at the corner of g1 = x - y >= 0 and
 * g2 = y >= 0, at rest, under a constant force f: J = [[1, -1], [0, 1]],
 * W = I/m, and with J constant and v = 0 the acceleration-level problem
 * (003 eq 6, d = 0) has
 *   qdd = W (f + J^T mu),  w = J qdd = A mu + b,
 *   A = J W J^T = [[2, -1], [-1, 1]] / m,  b = J W f = (f_x - f_y, f_y) / m.
 *
 * f = (2, -1): b = (3, -1)/m.
 *   exact: S = {g2}: mu_2 = -b_2 / A_22 = 1, w_1 = (3 - 1)/m = 2/m >= 0,
 *          mu = (0, 1), qdd = ((2, -1) + (0, 1))/m = (2/m, 0): it slides.
 *          No other set works: {} leaves w_2 = -1/m, {g1} gives
 *          mu_1 = -3/2, {g1, g2} gives mu = (-2, -1) (below).
 *   platt (no carried set: every row handled): A mu = -b gives
 *          2 mu_1 - mu_2 = -3, -mu_1 + mu_2 = 1, so mu = (-2, -1): both
 *          pull (003 §3), qdd = 0.
 *   tendency: b_2 < 0 <= b_1, so S = {g2}: the exact answer.
 *   iterative: the same first set, then nothing is violated: exact.
 * f = (-1, -2): b = (1, -2)/m.
 *   exact: S = {g1, g2}: 2 mu_1 - mu_2 = -1, -mu_1 + mu_2 = 2, so
 *          mu = (1, 3) >= 0, w = 0, qdd = ((-1, -2) + (1, -1) + (0, 3))/m = 0:
 *          it stays in the corner.  No other set works: {} and {g1}
 *          (mu_1 = -1/2) leave w_2 < 0, {g2} leaves w_1 < 0 (below).
 *   platt: every row handled: the exact answer.
 *   tendency: only b_2 < 0, S = {g2}: mu_2 = 2, w_1 = (1 - 2)/m = -1/m < 0:
 *          g1 is violated (003 §4.1, figure 3), qdd = (-1/m, 0).
 *   iterative: {g2} as tendency, then g1 is violated and added: exact.
 *
 * Rounding: A has condition number (3 + sqrt 5)/(3 - sqrt 5) = 6.9; its
 * entries are exact for m = 2 and within eps for m = 3, and a 2x2 solve
 * perturbs mu (|mu| <= 3) by a few eps cond |mu| = 4 eps 6.9 3 ~ 2e-14.
 * The tolerance 1e-13 leaves a factor 5; a wrong set is off by >= 1.
 */
#define CORNER_TOL 1e-13

typedef struct {
  double f[2];
  double mu[2];   /* exact */
  double qdd_m[2]; /* exact qdd times m */
} corner_case;

static const corner_case corner_cases[2] = {
  {{2, -1}, {0, 1}, {2, 0}},
  {{-1, -2}, {1, 3}, {0, 0}},
};

static void corner_problem(double m, const double f[2], double A[4], double b[2])
{
  A[0] = 2 / m, A[1] = -1 / m, A[2] = -1 / m, A[3] = 1 / m;
  b[0] = (f[0] - f[1]) / m, b[1] = f[1] / m;
}

/* qdd = W (f + J^T mu), J^T mu = (mu_1, mu_2 - mu_1). */
static void corner_qdd(double m, const double f[2], const double mu[2], double qdd[2])
{
  qdd[0] = (f[0] + mu[0]) / m;
  qdd[1] = (f[1] - mu[0] + mu[1]) / m;
}

START_TEST(test_corner)
{
  const double masses[2] = {2, 3};
  for (int im = 0; im < 2; im++)
    for (int ic = 0; ic < 2; ic++) {
      double m = masses[im];
      const corner_case *cc = &corner_cases[ic];
      double A[4], b[2], mu[2], w[2], qdd[2];
      unsigned char h[2];
      corner_problem(m, cc->f, A, b);
      double tol_w, tol_mu;
      tolerances(2, A, b, 1e-9, &tol_w, &tol_mu);

      /* The reference: the exact answer, and only one subset accepted. */
      unsigned long acc = 0;
      ck_assert_int_eq(ref_lcp_enumerate(2, A, b, NULL, tol_w, tol_mu, mu, w, h, &acc), CDYN_OK);
      ck_assert_uint_eq(acc, 1);
      for (int k = 0; k < 2; k++)
        ck_assert_msg(fabs(mu[k] - cc->mu[k]) <= CORNER_TOL, "reference m %g f (%g, %g): mu_%d = %.17g",
                      m, cc->f[0], cc->f[1], k + 1, mu[k]);
      ck_assert_int_eq(h[0], cc->mu[0] > 0);
      ck_assert_int_eq(h[1], cc->mu[1] > 0);

      for (size_t a = 0; a < cdyn_activeset_count(); a++) {
        const char *name = cdyn_activeset_name(a);
        cdyn_activeset_report rep;
        ck_assert_msg(cdyn_activeset_solve(name, 2, A, b, NULL, NULL, 1e-9, mu, w, h, &rep) == CDYN_OK,
                      "%s: %s", name, cdyn_errmsg());
        corner_qdd(m, cc->f, mu, qdd);
        /* What each algorithm gives (derived above). */
        double emu[2] = {cc->mu[0], cc->mu[1]}, eqdd[2] = {cc->qdd_m[0] / m, cc->qdd_m[1] / m};
        int pulls = 0, violates = 0;
        if (!strcmp(name, "platt") && ic == 0) {
          emu[0] = -2, emu[1] = -1, eqdd[0] = 0, eqdd[1] = 0;
          pulls = 1;
        } else if (!strcmp(name, "tendency") && ic == 1) {
          emu[0] = 0, emu[1] = 2, eqdd[0] = -1 / m, eqdd[1] = 0;
          violates = 1;
          ck_assert_msg(fabs(w[0] + 1 / m) <= CORNER_TOL, "tendency: w_1 = %.17g, expected -1/m", w[0]);
        } else if (strcmp(name, "platt") && strcmp(name, "tendency") && strcmp(name, "iterative") &&
                   strcmp(name, "lcp")) {
          continue; /* an algorithm this test knows nothing about */
        }
        for (int k = 0; k < 2; k++) {
          ck_assert_msg(fabs(mu[k] - emu[k]) <= CORNER_TOL, "%s m %g f (%g, %g): mu_%d = %.17g, expected %g",
                        name, m, cc->f[0], cc->f[1], k + 1, mu[k], emu[k]);
          ck_assert_msg(fabs(qdd[k] - eqdd[k]) <= CORNER_TOL, "%s m %g f (%g, %g): qdd_%d = %.17g, expected %g",
                        name, m, cc->f[0], cc->f[1], k + 1, qdd[k], eqdd[k]);
        }
        ck_assert_msg(rep.pulls == pulls && rep.violates == violates, "%s m %g case %d: pulls %d violates %d",
                      name, m, ic + 1, rep.pulls, rep.violates);
        ck_assert_uint_eq(rep.candidates, 2);
        ck_assert_uint_eq(rep.inequalities, 2);
      }
    }
  /* The algorithms the derivation is about are all registered. */
  ck_assert(has_algorithm("platt") && has_algorithm("tendency") && has_algorithm("iterative") &&
            has_algorithm("lcp"));
}
END_TEST

/*
 * The corner with g1 flagged as an equality (x = y, mu_1 free) and
 * f = (2, -1): b = (3, -1)/m.  Handling g2 too gives mu = (-2, -1) as
 * for platt above, which pulls on g2; handling g1 alone gives
 * mu_1 = -b_1/A_11 = -3/2, w_2 = b_2 + A_21 mu_1 = (-1 + 3/2)/m = 1/(2m)
 * >= 0: the exact answer (the particle slides along x = y, mu_1 < 0 is
 * allowed on an equality row).
 */
START_TEST(test_corner_equality)
{
  const double m = 3, f[2] = {2, -1};
  double A[4], b[2], mu[2], w[2];
  unsigned char eq[2] = {1, 0}, h[2];
  corner_problem(m, f, A, b);
  double tol_w, tol_mu;
  tolerances(2, A, b, 1e-9, &tol_w, &tol_mu);
  unsigned long acc;
  ck_assert_int_eq(ref_lcp_enumerate(2, A, b, eq, tol_w, tol_mu, mu, w, h, &acc), CDYN_OK);
  ck_assert_uint_eq(acc, 1);
  ck_assert(fabs(mu[0] + 1.5) <= CORNER_TOL && mu[1] == 0 && fabs(w[1] - 0.5 / m) <= CORNER_TOL);
  for (const char *const *name = (const char *const[]){"iterative", "lcp", NULL}; *name; name++) {
    cdyn_activeset_report rep;
    ck_assert_int_eq(cdyn_activeset_solve(*name, 2, A, b, eq, NULL, 1e-9, mu, w, h, &rep), CDYN_OK);
    ck_assert_msg(fabs(mu[0] + 1.5) <= CORNER_TOL && mu[1] == 0 && fabs(w[0]) <= CORNER_TOL &&
                    fabs(w[1] - 0.5 / m) <= CORNER_TOL,
                  "%s: mu = (%.17g, %.17g), w = (%.3g, %.17g)", *name, mu[0], mu[1], w[0], w[1]);
    ck_assert(h[0] == 1 && h[1] == 0);
    ck_assert_uint_eq(rep.inequalities, 1);
    ck_assert(!rep.pulls && !rep.violates);
  }
}
END_TEST

/* ---- 3. a pulling multiplier, by hand ---------------------------------------- */

/*
 * A particle of mass 1 in a wedge: the floor g1 = y >= 0 and the wall
 * g2 = 0.6 x + 0.8 y >= 0, at the apex, at rest, under f = (1, -1).
 * J = [[0, 1], [0.6, 0.8]], A = J J^T = [[1, 0.8], [0.8, 1]],
 * b = J f = (-1, -0.2).
 *   Both rows are violated at mu = 0, so the iterative algorithm (and
 *   tendency, and platt with every row) handles both at once:
 *   A mu = -b,  det A = 0.36,
 *     mu_1 = -(A_22 b_1 - A_12 b_2)/0.36 = -(-1 + 0.16)/0.36 =  7/3,
 *     mu_2 = -(A_11 b_2 - A_21 b_1)/0.36 = -(-0.2 + 0.8)/0.36 = -5/3:
 *   the wall pulls, and nothing is left to add, so it stays.
 *   The exact answer handles the floor alone: mu_1 = -b_1 = 1,
 *   w_2 = b_2 + A_21 mu_1 = -0.2 + 0.8 = 0.6 >= 0: mu = (1, 0),
 *   qdd = f + J^T mu = (1, 0), the particle slides away from the wall.
 * Rounding: 0.6, 0.8 and 0.2 are inexact (eps), cond A = 1.8/0.2 = 9, so
 * the results are within 4 eps 9 (7/3) ~ 2e-14 of these; CORNER_TOL.
 */
START_TEST(test_iterative_pulls_wedge)
{
  const double A[4] = {1, 0.8, 0.8, 1}, b[2] = {-1, -0.2};
  double mu[2], w[2];
  unsigned char h[2];
  cdyn_activeset_report rep;
  ck_assert_int_eq(cdyn_activeset_solve("iterative", 2, A, b, NULL, NULL, 1e-9, mu, w, h, &rep), CDYN_OK);
  ck_assert_msg(fabs(mu[0] - 7.0 / 3) <= CORNER_TOL && fabs(mu[1] + 5.0 / 3) <= CORNER_TOL,
                "iterative: mu = (%.17g, %.17g)", mu[0], mu[1]);
  ck_assert(rep.pulls == 1 && rep.violates == 0 && h[0] && h[1]);
  ck_assert(fabs(rep.min_mu + 5.0 / 3) <= CORNER_TOL);

  ck_assert_int_eq(cdyn_activeset_solve("lcp", 2, A, b, NULL, NULL, 1e-9, mu, w, h, &rep), CDYN_OK);
  ck_assert_msg(fabs(mu[0] - 1) <= CORNER_TOL && mu[1] == 0 && fabs(w[0]) <= CORNER_TOL &&
                  fabs(w[1] - 0.6) <= CORNER_TOL,
                "lcp: mu = (%.17g, %.17g), w = (%.3g, %.17g)", mu[0], mu[1], w[0], w[1]);
  ck_assert(rep.pulls == 0 && rep.violates == 0 && h[0] == 1 && h[1] == 0);
  /* Baraff's pivoting: drive row 1 (C empty: no solve; it joins C), then
     row 2 is no longer violated; the final solve of {1}: 1 solve and 2
     passes. */
  ck_assert_uint_eq(rep.solves, 1);
  ck_assert_uint_eq(rep.iterations, 2);

  double tol_w, tol_mu;
  unsigned long acc;
  tolerances(2, A, b, 1e-9, &tol_w, &tol_mu);
  ck_assert_int_eq(ref_lcp_enumerate(2, A, b, NULL, tol_w, tol_mu, mu, w, h, &acc), CDYN_OK);
  ck_assert(acc == 1 && fabs(mu[0] - 1) <= CORNER_TOL && mu[1] == 0 && h[0] == 1 && h[1] == 0);
}
END_TEST

/*
 * Every kind of pivot of Baraff's method, on a singular problem worked by
 * hand.  A particle of mass 1 in the plane with three walls through the
 * origin, g0 = 2x, g1 = x - y, g2 = -y (all >= 0):
 *   J = [[2, 0], [1, -1], [0, -1]],  A = J J^T = [[4, 2, 0], [2, 2, 1], [0, 1, 1]]
 * (singular: three rows in the plane, J^T (1, -2, 2) = 0), b = (-1, -2, -3).
 * From mu = 0, w = b:
 *   pass 1: drive row 0; C = {}: u = e0, dw = (4, 2, 0); step 1/4.
 *           mu = (1/4, 0, 0), w = (0, -3/2, -3); C = {0}.
 *   pass 2: drive row 1; u_0 = -A_01/A_00 = -1/2, u = (-1/2, 1, 0),
 *           dw = (0, 1, 1); mu_0 reaches 0 at 1/2, before w_1 at 3/2:
 *           row 0 would pull, C -> NC.  mu = (0, 1/2, 0), w = (0, -1, -5/2).
 *   pass 3: C = {}: u = e1, dw = (2, 2, 1) (row 0 of NC moves away); step 1/2.
 *           mu = (0, 1, 0), w = (1, 0, -2); C = {1}, NC = {0}.
 *   pass 4: drive row 2; u_1 = -A_12/A_11 = -1/2, u = (0, -1/2, 1),
 *           dw = (-1, 0, 1/2); ratios: w_0 (NC) 1, mu_1 (C) 2, w_2 4:
 *           row 0 would be violated, NC -> C.  mu = (0, 1/2, 1), w = (0, 0, -3/2).
 *   pass 5: C = {0, 1}: [[4, 2], [2, 2]] u_C = -A_C2 = (0, -1),
 *           u = (1/2, -1, 1), dw = A u = 0: row 2 depends on C (the
 *           semi-definite case); only mu moves, and mu_1 reaches 0 at 1/2:
 *           C -> NC.  mu = (1/4, 0, 3/2), w unchanged.
 *   pass 6: C = {0}: u = e2 (A_02 = 0), dw = (0, 1, 1); step 3/2, row 2
 *           joins C.  mu = (1/4, 0, 3), w = (0, 3/2, 0); C = {0, 2}.
 *   final solve with C = {0, 2}: diag(4, 1) mu_C = (1, 3): mu_C = (1/4, 3).
 * So mu = (1/4, 0, 3), w = (0, 3/2, 0), 7 iterations (6 pivot passes and
 * the final solve) and 5 solves (passes 1 and 3 solve nothing).  Without
 * the NC test of pass 4, row 2 would be driven to zero directly and
 * row 0 driven again later: 7 iterations but 4 solves.  w_1 = 3/2 > 0
 * forces mu_1 = 0, so this mu is the only solution, and only {0, 2} is
 * accepted by the enumeration ({0, 1, 2} would need b in the range of A,
 * but b . (1, -2, 2) = -3; the other five subsets pull or violate).
 * Every value is a small dyadic rational computed from small integers,
 * so rounding is of order eps |mu| ~ 1e-15; CORNER_TOL.
 */
START_TEST(test_pivots_by_hand)
{
  const double A[9] = {4, 2, 0, 2, 2, 1, 0, 1, 1}, b[3] = {-1, -2, -3};
  const double emu[3] = {0.25, 0, 3}, ew[3] = {0, 1.5, 0};
  double mu[3], w[3];
  unsigned char h[3];
  cdyn_activeset_report rep;
  ck_assert_int_eq(cdyn_activeset_solve("lcp", 3, A, b, NULL, NULL, 1e-9, mu, w, h, &rep), CDYN_OK);
  for (int k = 0; k < 3; k++)
    ck_assert_msg(fabs(mu[k] - emu[k]) <= CORNER_TOL && fabs(w[k] - ew[k]) <= CORNER_TOL,
                  "lcp: row %d: mu %.17g w %.17g", k, mu[k], w[k]);
  ck_assert(h[0] == 1 && h[1] == 0 && h[2] == 1);
  ck_assert_uint_eq(rep.iterations, 7);
  ck_assert_uint_eq(rep.solves, 5);
  ck_assert(!rep.pulls && !rep.violates);

  double tol_w, tol_mu;
  unsigned long acc;
  tolerances(3, A, b, 1e-9, &tol_w, &tol_mu);
  ck_assert_int_eq(ref_lcp_enumerate(3, A, b, NULL, tol_w, tol_mu, mu, w, h, &acc), CDYN_OK);
  ck_assert_uint_eq(acc, 1);
  for (int k = 0; k < 3; k++)
    ck_assert(fabs(mu[k] - emu[k]) <= CORNER_TOL && fabs(w[k] - ew[k]) <= CORNER_TOL);
}
END_TEST

/* ---- 2. random problems ------------------------------------------------------ */

#define KMAX 12 /* rows */
#define DMAX 6  /* coordinates */

typedef struct {
  size_t k, d;
  double J[KMAX * DMAX], Wd[DMAX]; /* W = diag(Wd) */
  double A[KMAX * KMAX], b[KMAX];
  unsigned char eq[KMAX];
  int has_eq;
  int planted;                     /* kind 1: a known solution */
  double mustar[KMAX], wstar[KMAX];
} problem;

/*
 * Random problems from gsl_rng_mt19937 (seed 20240607 for the whole
 * sequence).  J is k x d with entries uniform in [-1, 1), k in 1..12 and
 * d in 1..6, so k > d (A singular) in most of them; in a third one row is
 * a copy of another (a duplicated contact, A singular even for k <= d).
 * W = diag of values uniform in [0.5, 2).  b is, by kind = index % 4:
 *   0: J c, c uniform in [-1, 1)^d: what an acceleration-level problem
 *      without Baumgarte terms gives (b = J W F); always solvable, since
 *      the problem is then the minimisation of 1/2 |W^1/2 J^T mu|^2 +
 *      c^T J^T mu over mu >= 0, bounded below;
 *   1: planted: b = w* - A mu* with, per row, mu* uniform in [0.1, 1) and
 *      w* = 0, or mu* = 0 and w* uniform in [0.1, 1) (even odds), so
 *      (mu*, w*) is a solution and w = w* is known;
 *   2: b uniform in [-1, 1)^k: may have no solution when A is singular
 *      (some u >= 0 with J^T u = 0 and u^T b < 0);
 *   3: as 0, with 1 or 2 equality rows (consistent, b_E in range(J_E)).
 * In kind 1 a fifth of the rows are equality rows (mu* of either sign,
 * w* = 0).
 */
static void random_problem(gsl_rng *r, int kind, problem *p)
{
  memset(p, 0, sizeof *p);
  p->k = 1 + gsl_rng_uniform_int(r, KMAX);
  p->d = 1 + gsl_rng_uniform_int(r, DMAX);
  size_t k = p->k, d = p->d;
  for (size_t i = 0; i < k * d; i++)
    p->J[i] = 2 * gsl_rng_uniform(r) - 1;
  if (k >= 2 && gsl_rng_uniform_int(r, 3) == 0) {
    size_t from = gsl_rng_uniform_int(r, k), to = gsl_rng_uniform_int(r, k - 1);
    if (to >= from)
      to++;
    memcpy(p->J + to * d, p->J + from * d, d * sizeof(double));
  }
  for (size_t j = 0; j < d; j++)
    p->Wd[j] = 0.5 + 1.5 * gsl_rng_uniform(r);
  /* One triangle, mirrored: A is exactly symmetric. */
  for (size_t a = 0; a < k; a++)
    for (size_t c = 0; c <= a; c++) {
      double s = 0;
      for (size_t j = 0; j < d; j++)
        s += p->J[a * d + j] * p->Wd[j] * p->J[c * d + j];
      p->A[a * k + c] = p->A[c * k + a] = s;
    }
  if (kind == 0 || kind == 3) {
    double c[DMAX];
    for (size_t j = 0; j < d; j++)
      c[j] = 2 * gsl_rng_uniform(r) - 1;
    for (size_t a = 0; a < k; a++) {
      double s = 0;
      for (size_t j = 0; j < d; j++)
        s += p->J[a * d + j] * c[j];
      p->b[a] = s;
    }
    if (kind == 3) {
      size_t ne = 1 + gsl_rng_uniform_int(r, 2);
      for (size_t e = 0; e < ne && e < k; e++)
        p->eq[gsl_rng_uniform_int(r, k)] = 1;
    }
  } else if (kind == 1) {
    double *mus = p->mustar, *ws = p->wstar;
    p->planted = 1;
    for (size_t a = 0; a < k; a++) {
      p->eq[a] = gsl_rng_uniform_int(r, 5) == 0;
      planted_row(r, p->eq[a], &mus[a], &ws[a]);
    }
    planted_b(k, p->A, mus, ws, p->b);
  } else {
    for (size_t a = 0; a < k; a++)
      p->b[a] = 2 * gsl_rng_uniform(r) - 1;
  }
  for (size_t a = 0; a < k; a++)
    p->has_eq |= p->eq[a];
}

/*
 * cond of the block A_HH of the n x n matrix A over its eigenvalues above
 * 1e-12 of the largest (the rank decisions of the library and of the
 * reference), 1 for an empty block; *deficient (may be NULL) says
 * whether some eigenvalue was below that cut (A_HH singular to rounding).
 */
static double block_cond_of(size_t n, const double *A, const unsigned char *H, int *deficient)
{
  if (deficient)
    *deficient = 0;
  size_t idx[16], h = 0;
  for (size_t a = 0; a < n && h < 16; a++)
    if (H[a])
      idx[h++] = a;
  if (!h)
    return 1;
  gsl_matrix *M = gsl_matrix_alloc(h, h);
  gsl_vector *ev = gsl_vector_alloc(h);
  gsl_eigen_symm_workspace *ws = gsl_eigen_symm_alloc(h);
  for (size_t a = 0; a < h; a++)
    for (size_t c = 0; c < h; c++)
      gsl_matrix_set(M, a, c, A[idx[a] * n + idx[c]]);
  gsl_eigen_symm(M, ev, ws);
  double lmax = gsl_vector_max(ev), lmin = lmax;
  for (size_t a = 0; a < h; a++) {
    double l = gsl_vector_get(ev, a);
    if (l > 1e-12 * lmax && l < lmin)
      lmin = l;
    if (!(l > 1e-12 * lmax) && deficient)
      *deficient = 1;
  }
  gsl_eigen_symm_free(ws);
  gsl_vector_free(ev);
  gsl_matrix_free(M);
  return lmax > 0 ? lmax / lmin : 1;
}

static double block_cond(const problem *p, const unsigned char *H, int *deficient)
{
  return block_cond_of(p->k, p->A, H, deficient);
}

/* qdd - a_free = W J^T mu (d values). */
static void accel(const problem *p, const double *mu, double *out)
{
  for (size_t j = 0; j < p->d; j++) {
    double s = 0;
    for (size_t a = 0; a < p->k; a++)
      s += p->J[a * p->d + j] * mu[a];
    out[j] = p->Wd[j] * s;
  }
}

/*
 * How far two answers (mu1, w1) and (mu2, w2) of p are apart, against the
 * agreement bound derived at test_random_vs_enumeration, cond being the
 * larger condition number of their final blocks: dw and da, the largest
 * differences of w and of the accelerations, and their bounds unit_w and
 * unit_a; bmax = max |b| and scale_w for the planted check.
 */
typedef struct {
  double bmax, scale_w, dw, unit_w, da, unit_a;
} agreement;

static agreement agree(const problem *p, const double *mu1, const double *w1, const double *mu2, const double *w2,
                       double cond)
{
  size_t k = p->k;
  agreement g = {0};
  double scale_a = 0, a1[DMAX], a2[DMAX];
  for (size_t a = 0; a < k; a++) {
    g.bmax = fmax(g.bmax, fabs(p->b[a]));
    double s = 0;
    for (size_t c = 0; c < k; c++)
      s += fabs(p->A[a * k + c]) * (fabs(mu1[c]) + fabs(mu2[c]));
    g.scale_w = fmax(g.scale_w, s);
    g.dw = fmax(g.dw, fabs(w1[a] - w2[a]));
  }
  accel(p, mu1, a1);
  accel(p, mu2, a2);
  for (size_t j = 0; j < p->d; j++) {
    double s = 0;
    for (size_t a = 0; a < k; a++)
      s += fabs(p->J[a * p->d + j]) * (fabs(mu1[a]) + fabs(mu2[a]));
    scale_a = fmax(scale_a, p->Wd[j] * s);
    g.da = fmax(g.da, fabs(a1[j] - a2[j]));
  }
  g.unit_w = 2 * 4 * (double)k * EPS * (1 + cond) * (g.bmax + g.scale_w);
  g.unit_a = 2 * 4 * (double)k * EPS * (1 + cond) * (scale_a > 0 ? scale_a : DBL_MIN);
  return g;
}

#ifndef N_RANDOM /* overridable for longer runs by hand: -DN_RANDOM=... -DSEED=... */
#define N_RANDOM 400
#endif
#ifndef SEED
#define SEED 20240607ul
#endif
#define REL_TOL 1e-9

/*
 * For each problem: the reference and "lcp" both find a solution or both
 * find none; when they do, lcp's result satisfies the problem (no pull,
 * no violation, complementary), and lcp's w and accelerations agree with
 * the reference's.
 *
 * Tolerance of the agreement.  Both results solve A_HH mu_H = -b_H for
 * their final handled set H by a backward-stable method (Cholesky or an
 * eigen-decomposition in the library, an SVD in the reference), so each
 * mu is within c k eps cond(A_HH) |mu| of an exact solution of its set
 * (cond over the kept eigenvalues; the null-space component of a
 * singular block changes neither w nor J^T mu), and w = A mu + b within
 * that times scale_w = max_i sum_j |A_ij| |mu_j| plus the rounding of the
 * sum, k eps (|b| + scale_w).  The two sets give the same exact w (w is
 * unique), so
 *   |w_lcp - w_ref| <= 2 c k eps (1 + max(cond_lcp, cond_ref)) (|b| + scale_w)
 * with c = 4 for the constants of the solves' error bounds
 * (Higham, "Accuracy and Stability of Numerical Algorithms", 2002,
 * chapters 10 and 20; c is well below 4 in practice); the same bound with
 * scale_a = max_j W_j sum_a |J_aj| |mu_a| for the accelerations.
 * The tolerances tol_w, tol_mu (rel_tol = 1e-9) only decide sets; they
 * would enter the difference only for a problem with a value within
 * 1e-9 of a sign change, which random data do not give (and which the
 * construction of kinds 0 and 3 makes exactly 0, with w = 0 on both
 * sides).  A wrong set is off by O(|b|) = O(0.1 .. 1).
 */
START_TEST(test_random_vs_enumeration)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, SEED);
  int solvable = 0, unsolvable = 0, singular = 0, with_eq = 0, iter_pulls = 0, iter_violates = 0, iter_fails = 0;
  int lcp_rounding_violations = 0;
  unsigned most_iter = 0;
  double most_iter_per_row = 0;
  double worst_w = 0, worst_a = 0, worst_abs = 0;
  for (int t = 0; t < N_RANDOM; t++) {
    problem p;
    random_problem(r, t % 4, &p);
    size_t k = p.k;
    double tol_w, tol_mu;
    tolerances(k, p.A, p.b, REL_TOL, &tol_w, &tol_mu);
    double mu_r[KMAX], w_r[KMAX], mu_l[KMAX], w_l[KMAX];
    unsigned char h_r[KMAX], h_l[KMAX];
    unsigned long acc;
    int rc_r = ref_lcp_enumerate(k, p.A, p.b, p.has_eq ? p.eq : NULL, tol_w, tol_mu, mu_r, w_r, h_r, &acc);
    cdyn_activeset_report rep;
    int rc_l = cdyn_activeset_solve("lcp", k, p.A, p.b, p.has_eq ? p.eq : NULL, NULL, REL_TOL, mu_l, w_l,
                                    h_l, &rep);
    ck_assert_msg(rc_r == CDYN_OK || rc_r == CDYN_ESOLVE, "problem %d: reference: %s", t, cdyn_errmsg());
    if (rc_r != CDYN_OK) {
      /* No subset is a solution: the problem has none, and lcp says so. */
      ck_assert_msg(p.k > p.d || p.has_eq, "problem %d: a definite problem without solution", t);
      ck_assert_msg(rc_l == CDYN_EINFEASIBLE && strstr(cdyn_errmsg(), "inconsistent"),
                    "problem %d (k %zu, d %zu, kind %d): the reference finds no solution, lcp returns %d (%s)",
                    t, k, p.d, t % 4, rc_l, cdyn_errmsg());
      unsolvable++;
      continue;
    }
    ck_assert_msg(rc_l == CDYN_OK, "problem %d (k %zu, d %zu, kind %d): lcp: %s", t, k, p.d, t % 4,
                  cdyn_errmsg());
    solvable++;
    if (rep.iterations > most_iter)
      most_iter = rep.iterations;
    most_iter_per_row = fmax(most_iter_per_row, (double)rep.iterations / (double)k);
    int deficient;
    block_cond(&p, (const unsigned char[KMAX]){1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, &deficient);
    singular += deficient;
    with_eq += p.has_eq;

    /* The rounding bound of w of the agreement test below (derived
       there), for the rows outside the handled set. */
    double cond = fmax(block_cond(&p, h_l, NULL), block_cond(&p, h_r, NULL));
    agreement g = agree(&p, mu_l, w_l, mu_r, w_r, cond);
    double bmax = g.bmax, scale_w = g.scale_w, dw = g.dw, da = g.da, unit_w = g.unit_w, unit_a = g.unit_a;

    /* lcp's result is a solution: to tol_w, or on a handled row to the
       rounding of w = A mu + b (REF_LCP_ROUND k eps (|b_a| +
       sum |A_ac mu_c|), as in the reference), which exceeds tol_w only
       when the multipliers are huge (a nearly dependent handled set).  A
       row outside the handled set that depends on it has an exact w of 0
       when the set pins what it constrains; its computed w carries the
       error of the multipliers, amplified by the condition of the set
       (the reference's floor for such rows, reference/lcp_enum.c), so
       it is held to -tol_w - unit_w. */
    ck_assert_msg(!rep.pulls, "problem %d: lcp pulls (min mu %g)", t, rep.min_mu);
    int rounding_violation = 0;
    for (size_t a = 0; a < k; a++) {
      double sc = fabs(p.b[a]);
      for (size_t c = 0; c < k; c++)
        sc += fabs(p.A[a * k + c] * mu_l[c]);
      double tw = tol_w + REF_LCP_ROUND * (double)k * EPS * sc;
      if (p.eq[a]) {
        ck_assert(h_l[a]);
        ck_assert_msg(fabs(w_l[a]) <= tw, "problem %d: equality row %zu w = %g", t, a, w_l[a]);
      } else if (h_l[a]) {
        ck_assert_msg(mu_l[a] >= -tol_mu && fabs(w_l[a]) <= tw, "problem %d row %zu: mu %g w %g", t, a,
                      mu_l[a], w_l[a]);
        rounding_violation |= w_l[a] < -tol_w;
      } else {
        ck_assert_msg(mu_l[a] == 0 && w_l[a] >= -tol_w - unit_w, "problem %d row %zu: mu %g w %g", t, a,
                      mu_l[a], w_l[a]);
        rounding_violation |= w_l[a] < -tol_w;
      }
    }
    ck_assert_msg(rep.violates == rounding_violation, "problem %d: lcp violates %d", t, rep.violates);
    lcp_rounding_violations += rounding_violation;

    /* Agreement with the reference. */
    worst_w = fmax(worst_w, dw / unit_w);
    worst_a = fmax(worst_a, da / unit_a);
    worst_abs = fmax(worst_abs, dw);
    ck_assert_msg(dw <= unit_w, "problem %d (k %zu, d %zu, kind %d, cond %.3g): |w_lcp - w_ref| = %.3g > %.3g", t,
                  k, p.d, t % 4, cond, dw, unit_w);
    /* A planted solution's w* is the unique w (b = w* - A mu* is rounded
       within k eps (|w*| + sum |A| |mu*|), which the bound covers with
       scale_w taken over mu* too). */
    if (p.planted) {
      double sp = 0, dp = 0;
      for (size_t a = 0; a < k; a++) {
        double s = 0;
        for (size_t c = 0; c < k; c++)
          s += fabs(p.A[a * k + c]) * fabs(p.mustar[c]);
        sp = fmax(sp, s);
        dp = fmax(dp, fabs(w_l[a] - p.wstar[a]));
      }
      double unit_p = 2 * 4 * (double)k * EPS * (1 + cond) * (bmax + scale_w + sp);
      worst_w = fmax(worst_w, dp / unit_p);
      ck_assert_msg(dp <= unit_p, "problem %d (k %zu, d %zu, planted, cond %.3g): |w_lcp - w*| = %.3g > %.3g", t,
                    k, p.d, cond, dp, unit_p);
    }
    ck_assert_msg(da <= unit_a, "problem %d (k %zu, d %zu, kind %d, cond %.3g): |a_lcp - a_ref| = %.3g > %.3g", t,
                  k, p.d, t % 4, cond, da, unit_a);

    /* The iterative algorithm on the same problem: when it ends pulling
       or violating, lcp (checked above) does not. */
    double mu_i[KMAX], w_i[KMAX];
    cdyn_activeset_report ri;
    int rc_i = cdyn_activeset_solve("iterative", k, p.A, p.b, p.has_eq ? p.eq : NULL, NULL, REL_TOL, mu_i, w_i,
                                    NULL, &ri);
    /* Its handled set can make the equality rows unsatisfiable (it keeps
       every row it has added), which the common check reports. */
    ck_assert_msg(rc_i == CDYN_OK || (rc_i == CDYN_EINFEASIBLE && p.has_eq), "problem %d: iterative: %s", t,
                  cdyn_errmsg());
    iter_fails += rc_i != CDYN_OK;
    iter_pulls += ri.pulls;
    iter_violates += ri.violates;
  }
  gsl_rng_free(r);
  if (getenv("CDYN_TEST_VERBOSE"))
    printf("lcp vs enumeration: %d problems solvable (%d singular, %d with equality rows), %d without "
           "solution; max |dw| %.3g, max |dw|/bound %.3g, max |da|/bound %.3g; iterative pulls on %d, "
           "violates on %d, inconsistent on %d; lcp rows below -tol_w by rounding: %d; "
           "lcp iterations at most %u (%.2f k)\n",
           solvable, singular, with_eq, unsolvable, worst_abs, worst_w, worst_a, iter_pulls, iter_violates,
           iter_fails, lcp_rounding_violations, most_iter, most_iter_per_row);
  /* The comparison covered what it is meant to. */
  ck_assert_int_ge(solvable, N_RANDOM / 2);
  ck_assert_int_ge(singular, N_RANDOM / 4);
  ck_assert_int_ge(with_eq, N_RANDOM / 8);
  ck_assert_int_ge(unsolvable, 1);
  ck_assert_int_ge(iter_pulls, 1);
}
END_TEST

/*
 * lcp's warm start (lib/activeset/lcp.c, "Starting from a guess"): the
 * random problems of test_random_vs_enumeration, each solved cold and
 * then from four guesses passed as prev: the cold answer's own handled
 * rows, their complement, every row, and a random half.
 *   - Every guess gives the cold status (a solution, or none:
 *     CDYN_EINFEASIBLE), and on a solution no pull, and w and the
 *     accelerations within the agreement bound of
 *     test_random_vs_enumeration (2 c k eps (1 + cond) times the scale,
 *     c = 4, cond over both final handled sets) of the cold answer.
 *   - The exact guess, on a problem the cold start solved with CDYN_OK:
 *     bitwise the cold answer (both end with the solve of the same set,
 *     A_HH mu_H = -b_H), in one solve and one iteration when it holds an
 *     inequality row (an empty guess is the cold start, solves and all).
 *   - Over the problems, the exact guess costs fewer solves in all than
 *     the cold start (the count is printed with CDYN_TEST_VERBOSE).
 */
START_TEST(test_warm_start)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937), *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, SEED);
  gsl_rng_set(g, SEED + 1);
  unsigned long cold_solves = 0, exact_solves = 0;
  int exact_checked = 0, warm_checked = 0;
  double worst = 0;
  for (int t = 0; t < N_RANDOM; t++) {
    problem p;
    random_problem(r, t % 4, &p);
    size_t k = p.k;
    const unsigned char *eq = p.has_eq ? p.eq : NULL;
    double mu_c[KMAX], w_c[KMAX];
    unsigned char h_c[KMAX];
    cdyn_activeset_report rc_rep;
    int rc_c = cdyn_activeset_solve("lcp", k, p.A, p.b, eq, NULL, REL_TOL, mu_c, w_c, h_c, &rc_rep);
    ck_assert_msg(rc_c == CDYN_OK || rc_c == CDYN_EINFEASIBLE || rc_c == CDYN_NOCONV, "problem %d: %s", t,
                  cdyn_errmsg());
    for (int kind = 0; kind < 4; kind++) {
      unsigned char guess[KMAX];
      for (size_t a = 0; a < k; a++) {
        int in = !p.eq[a] && h_c[a];
        guess[a] = kind == 0 ? in : kind == 1 ? !in : kind == 2 ? 1 : gsl_rng_uniform_int(g, 2) == 1;
      }
      double mu[KMAX], w[KMAX];
      unsigned char h[KMAX];
      cdyn_activeset_report rep;
      int rc = cdyn_activeset_solve("lcp", k, p.A, p.b, eq, guess, REL_TOL, mu, w, h, &rep);
      if (rc_c == CDYN_EINFEASIBLE) {
        ck_assert_msg(rc == CDYN_EINFEASIBLE, "problem %d guess %d: no solution cold, %d warm (%s)", t, kind, rc,
                      cdyn_errmsg());
        continue;
      }
      ck_assert_msg(rc == CDYN_OK || rc == CDYN_NOCONV, "problem %d guess %d: %s", t, kind, cdyn_errmsg());
      ck_assert_msg(!rep.pulls, "problem %d guess %d: pulls (min mu %g)", t, kind, rep.min_mu);
      if (kind == 0 && rc_c == CDYN_OK) {
        cold_solves += rc_rep.solves;
        exact_solves += rep.solves;
        int any = 0;
        for (size_t a = 0; a < k; a++)
          any |= guess[a];
        if (any)
          ck_assert_msg(rep.solves == 1 && rep.iterations == 1, "problem %d: the exact guess took %u solves, %u "
                        "iterations", t, rep.solves, rep.iterations);
        else
          ck_assert_msg(rep.solves == rc_rep.solves && rep.iterations == rc_rep.iterations,
                        "problem %d: an empty guess is a cold start", t);
        for (size_t a = 0; a < k; a++)
          ck_assert_msg(mu[a] == mu_c[a] && w[a] == w_c[a] && h[a] == h_c[a], "problem %d row %zu: warm from the "
                        "exact guess mu %.17g w %.17g, cold mu %.17g w %.17g", t, a, mu[a], w[a], mu_c[a], w_c[a]);
        exact_checked++;
      }
      double cond = fmax(block_cond(&p, h, NULL), block_cond(&p, h_c, NULL));
      agreement g = agree(&p, mu, w, mu_c, w_c, cond);
      worst = fmax(worst, fmax(g.dw / g.unit_w, g.da / g.unit_a));
      ck_assert_msg(g.dw <= g.unit_w, "problem %d guess %d (cond %.3g): |w_warm - w_cold| = %.3g > %.3g", t, kind,
                    cond, g.dw, g.unit_w);
      ck_assert_msg(g.da <= g.unit_a, "problem %d guess %d (cond %.3g): |a_warm - a_cold| = %.3g > %.3g", t, kind,
                    cond, g.da, g.unit_a);
      warm_checked++;
    }
  }
  gsl_rng_free(r);
  gsl_rng_free(g);
  if (getenv("CDYN_TEST_VERBOSE"))
    printf("lcp warm start: %d warm solves checked, worst difference from cold %.3g of the bound; exact guess on %d "
           "problems: %lu solves, cold %lu\n",
           warm_checked, worst, exact_checked, exact_solves, cold_solves);
  ck_assert_int_ge(exact_checked, N_RANDOM / 2);
  ck_assert_uint_lt(exact_solves, cold_solves);
}
END_TEST

/* ---- 3b. degenerate problems of the census --------------------------------- */

/*
 * Problems of the active-set census (experiments/studies/active_set_census.c, seed 1,
 * contact configurations of experiments/problems/contact_problems.c) on which the
 * solver or the reference once failed; trials are numbered from 0, the
 * generator seeded once and drawn trial + 1 times.  All are at rest with
 * b = J W f, so a solution exists (qdd = 0 satisfies J qdd >= 0, and the
 * problem is the minimisation of a convex quadratic bounded below over
 * mu >= 0), and the reference must find one.
 *   6296: 11 rows, 2-D, 3 particles, five walls on one particle; a tie
 *         of the ratio test between nearly dependent rows (multipliers of
 *         about 800) left the driven row 6e-13 short of zero, and the
 *         drive then ended in a false "no solution".
 *   7313: 11 rows, 2-D, 4 particles; rounding noise of 1e-13 in the
 *         direction on a row between two particles that the clamped rows
 *         pin clamped and released it at steps of 0 until the pivot
 *         limit.
 *   2557: 8 rows, 2-D, 3 particles, two nearly antiparallel walls on one
 *         particle; the reference accepted no set (its floor for a row
 *         outside the set missed the error the solve puts into the
 *         multipliers, carried by the row's large coefficients in terms
 *         of the set's rows).
 * Checked: lcp solves it and its result satisfies the problem, the
 * reference solves it, and the two agree on w and on the accelerations
 * qdd = W (f + J^T mu) to the bound of test_random_vs_enumeration
 * (derived there: 2 c k eps (1 + cond) times the scale, c = 4, cond the
 * larger of the two final blocks' condition numbers).  A wrong set is off
 * by O(|b|).
 */
START_TEST(test_census_regressions)
{
  static const unsigned long trials[] = {2557, 6296, 7313};
  for (size_t t = 0; t < sizeof trials / sizeof trials[0]; t++) {
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 1);
    cp_problem p;
    for (unsigned long i = 0; i <= trials[t]; i++)
      cp_generate(r, 2, 12, &p);
    gsl_rng_free(r);
    size_t k = p.k, nq = p.d * p.np;
    double tol_w, tol_mu;
    tolerances(k, p.A, p.b, REL_TOL, &tol_w, &tol_mu);
    double mu_r[CP_MAXK], w_r[CP_MAXK], mu_l[CP_MAXK], w_l[CP_MAXK];
    unsigned char h_r[CP_MAXK], h_l[CP_MAXK];
    unsigned long acc;
    ck_assert_msg(ref_lcp_enumerate(k, p.A, p.b, NULL, tol_w, tol_mu, mu_r, w_r, h_r, &acc) == CDYN_OK,
                  "trial %lu: reference: %s", trials[t], cdyn_errmsg());
    cdyn_activeset_report rep;
    ck_assert_msg(cdyn_activeset_solve("lcp", k, p.A, p.b, NULL, NULL, REL_TOL, mu_l, w_l, h_l, &rep) == CDYN_OK,
                  "trial %lu: lcp: %s", trials[t], cdyn_errmsg());
    /* The conditions, as in test_random_vs_enumeration. */
    ck_assert_msg(!rep.pulls && !rep.violates, "trial %lu: lcp pulls %d violates %d", trials[t], rep.pulls,
                  rep.violates);
    for (size_t a = 0; a < k; a++) {
      double sc = fabs(p.b[a]);
      for (size_t c = 0; c < k; c++)
        sc += fabs(p.A[a * k + c] * mu_l[c]);
      double tw = tol_w + REF_LCP_ROUND * (double)k * EPS * sc;
      if (h_l[a])
        ck_assert_msg(mu_l[a] >= -tol_mu && fabs(w_l[a]) <= tw, "trial %lu row %zu: mu %g w %g", trials[t], a,
                      mu_l[a], w_l[a]);
      else
        ck_assert_msg(mu_l[a] == 0 && w_l[a] >= -tol_w, "trial %lu row %zu: mu %g w %g", trials[t], a, mu_l[a],
                      w_l[a]);
    }
    /* Agreement with the reference. */
    double cond = fmax(block_cond_of(k, p.A, h_l, NULL), block_cond_of(k, p.A, h_r, NULL));
    double bmax = 0, scale_w = 0, scale_a = 0, dw = 0, da = 0;
    for (size_t a = 0; a < k; a++) {
      bmax = fmax(bmax, fabs(p.b[a]));
      double s = 0;
      for (size_t c = 0; c < k; c++)
        s += fabs(p.A[a * k + c]) * (fabs(mu_l[c]) + fabs(mu_r[c]));
      scale_w = fmax(scale_w, s);
      dw = fmax(dw, fabs(w_l[a] - w_r[a]));
    }
    double qdd_l[3 * CP_MAXP], qdd_r[3 * CP_MAXP], zero[CP_MAXK] = {0}, qdd_f[3 * CP_MAXP];
    cp_accel(&p, mu_l, qdd_l);
    cp_accel(&p, mu_r, qdd_r);
    cp_accel(&p, zero, qdd_f);
    for (size_t q = 0; q < nq; q++) {
      /* qdd = W f + W J^T mu: the first term is common, the second is
         scaled by W sum_a |J_aq| |mu_a|. */
      double s = 0;
      for (size_t a = 0; a < k; a++)
        s += fabs(p.J[a][q]) * (fabs(mu_l[a]) + fabs(mu_r[a]));
      scale_a = fmax(scale_a, p.w[q / p.d] * s + fabs(qdd_f[q]));
      da = fmax(da, fabs(qdd_l[q] - qdd_r[q]));
    }
    double unit_w = 2 * 4 * (double)k * EPS * (1 + cond) * (bmax + scale_w);
    double unit_a = 2 * 4 * (double)k * EPS * (1 + cond) * scale_a;
    if (getenv("CDYN_TEST_VERBOSE"))
      printf("census trial %lu: %lu accepted sets, cond %.3g, |dw| %.3g (bound %.3g), |da| %.3g (bound %.3g)\n",
             trials[t], acc, cond, dw, unit_w, da, unit_a);
    ck_assert_msg(dw <= unit_w, "trial %lu: |w_lcp - w_ref| = %.3g > %.3g", trials[t], dw, unit_w);
    ck_assert_msg(da <= unit_a, "trial %lu: |a_lcp - a_ref| = %.3g > %.3g", trials[t], da, unit_a);
  }
}
END_TEST

/*
 * The degenerate problems of the fuzz corpus on which lcp used to give up
 * (CDYN_ESOLVE, "no solution after 10 n + 10 pivot passes") while the
 * enumeration, as it then was, accepted a handled set: 18 inputs of
 * tests/fuzz/corpus/activeset, decoded as the harness does
 * (tests/fuzz/activeset_input.h) and stored bit for bit as hex floats in
 * tests/data/lcp-degenerate.txt (J n x d, W d, A n x n, b n, the
 * effective equality flags, rel_tol), with the verdict of the enumeration
 * now.  Seven are solvable; eleven are not: on those the enumeration
 * once accepted a set through a floor that overflowed (see
 * test_reference_overflow), ten of them with b_k = -1e300 or 1.8e308.
 * All have nearly dependent rows (J entries of +-16 that agree to a few
 * digits, d = 3 to 5 for 5 to 8 rows), and the pivoting cycled through
 * rounding, not through exact degeneracy (lcp.c, "Rounding and the
 * pass limit").
 *
 * A solvable one: lcp returns CDYN_OK or CDYN_NOCONV (a row at zero to
 * the rounding of its nearly dependent rows); its multipliers push on
 * the handled rows and are 0 elsewhere; its w and its accelerations
 * W J^T mu agree with the reference's to the bound of
 * test_random_vs_enumeration, 2 c k eps (1 + cond) (|b| + scale), c = 4,
 * cond the larger of the two handled blocks' (over their eigenvalues
 * above 1e-12 of the largest).  The blocks are nearly singular here, so
 * the bound is wide (it is what the rounding of the solves allows, not a
 * tolerance chosen to pass); it still catches a wrong set, which is off
 * by O(|b|).  An unsolvable one: lcp must not claim an exact solution
 * (no CDYN_OK); CDYN_NOCONV comes with its message.
 */
#ifndef CDYN_TEST_DATA
#error "CDYN_TEST_DATA must name the directory tests/data"
#endif

#define DG_MAXN 8
#define DG_MAXD 6

typedef struct {
  char name[64];
  size_t n, d;
  double rel_tol;
  int solvable;
  unsigned char eq[DG_MAXN];
  double W[DG_MAXD], J[DG_MAXN * DG_MAXD], A[DG_MAXN * DG_MAXN], b[DG_MAXN];
} dg_problem;

/* Read `count` numbers after the keyword `key`; 0 on a mismatch. */
static int dg_read(FILE *f, const char *key, size_t count, double *out)
{
  char tok[64];
  if (fscanf(f, "%63s", tok) != 1 || strcmp(tok, key))
    return 0;
  for (size_t i = 0; i < count; i++) {
    if (fscanf(f, "%63s", tok) != 1)
      return 0;
    char *end;
    out[i] = strtod(tok, &end);
    if (*end)
      return 0;
  }
  return 1;
}

/* The next problem of the file: 1, 0 at its end; a malformed block fails
   the test. */
static int dg_next(FILE *f, dg_problem *p)
{
  char tok[64], verdict[64];
  int c;
  /* Comment lines start with '#'. */
  while ((c = fgetc(f)) == '#' || c == '\n')
    if (c == '#')
      while ((c = fgetc(f)) != '\n' && c != EOF)
        ;
  if (c == EOF)
    return 0;
  ungetc(c, f);
  memset(p, 0, sizeof *p);
  ck_assert_msg(fscanf(f, "problem %63s n %zu d %zu rel_tol %63s reference %63s", p->name, &p->n, &p->d, tok, verdict) == 5,
                "lcp-degenerate.txt: a malformed header");
  ck_assert_msg(p->n >= 1 && p->n <= DG_MAXN && p->d >= 1 && p->d <= DG_MAXD, "%s: n %zu d %zu", p->name, p->n, p->d);
  p->rel_tol = strtod(tok, NULL);
  p->solvable = !strcmp(verdict, "solvable");
  ck_assert_msg(p->solvable || !strcmp(verdict, "unsolvable"), "%s: verdict '%s'", p->name, verdict);
  double v[DG_MAXN * DG_MAXN];
  ck_assert_msg(dg_read(f, "eq", p->n, v), "%s: eq", p->name);
  for (size_t k = 0; k < p->n; k++)
    p->eq[k] = v[k] != 0;
  ck_assert_msg(dg_read(f, "W", p->d, p->W), "%s: W", p->name);
  for (size_t i = 0; i < p->n; i++)
    ck_assert_msg(dg_read(f, "J", p->d, p->J + i * p->d), "%s: J row %zu", p->name, i);
  for (size_t i = 0; i < p->n; i++)
    ck_assert_msg(dg_read(f, "A", p->n, p->A + i * p->n), "%s: A row %zu", p->name, i);
  ck_assert_msg(dg_read(f, "b", p->n, p->b), "%s: b", p->name);
  ck_assert_msg(fscanf(f, "%63s", tok) == 1 && !strcmp(tok, "end"), "%s: no end", p->name);
  return 1;
}

/* W J^T mu (d values). */
static void dg_accel(const dg_problem *p, const double *mu, double *a)
{
  for (size_t j = 0; j < p->d; j++) {
    double s = 0;
    for (size_t i = 0; i < p->n; i++)
      s += p->J[i * p->d + j] * mu[i];
    a[j] = p->W[j] * s;
  }
}

START_TEST(test_degenerate_corpus)
{
  const char *path = CDYN_TEST_DATA "/lcp-degenerate.txt";
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  dg_problem p;
  int count = 0, solvable = 0;
  while (dg_next(f, &p)) {
    size_t n = p.n;
    int any_eq = 0;
    for (size_t k = 0; k < n; k++)
      any_eq |= p.eq[k];
    const unsigned char *eq = any_eq ? p.eq : NULL;
    double tol_w, tol_mu, mu_r[DG_MAXN], w_r[DG_MAXN], mu_l[DG_MAXN], w_l[DG_MAXN];
    unsigned char h_r[DG_MAXN], h_l[DG_MAXN];
    tolerances(n, p.A, p.b, p.rel_tol, &tol_w, &tol_mu);
    int rc_r = ref_lcp_enumerate(n, p.A, p.b, eq, tol_w, tol_mu, mu_r, w_r, h_r, NULL);
    ck_assert_msg(rc_r == (p.solvable ? CDYN_OK : CDYN_ESOLVE), "%s: the reference returns %d (%s), stored: %s", p.name,
                  rc_r, cdyn_errmsg(), p.solvable ? "solvable" : "unsolvable");
    cdyn_activeset_report rep;
    int rc_l = cdyn_activeset_solve("lcp", n, p.A, p.b, eq, NULL, p.rel_tol, mu_l, w_l, h_l, &rep);
    count++;
    if (!p.solvable) {
      ck_assert_msg(rc_l != CDYN_OK, "%s: lcp returns CDYN_OK where no handled set is a solution", p.name);
      if (rc_l == CDYN_NOCONV)
        ck_assert_msg(strstr(cdyn_errmsg(), "less accurate"), "%s: %s", p.name, cdyn_errmsg());
      continue;
    }
    solvable++;
    /* lcp refuses its own answer on f5455fbc (its set's products leave the
       double range; tests/test_lcp_corpus.c, test_f5455fbc, says why):
       a refusal, which no caller uses, and nothing to compare.  (A path
       that solves it is checked below as any other.) */
    if (!strcmp(p.name, "f5455fbc6f9554842749b70ebf17423add71a16f") && rc_l != CDYN_OK && rc_l != CDYN_NOCONV) {
      ck_assert_msg(rc_l == CDYN_EUNVERIFIED && strstr(cdyn_errmsg(), "leave the double range"), "%s: lcp returns %d (%s)",
                    p.name, rc_l, cdyn_errmsg());
      continue;
    }
    ck_assert_msg(rc_l == CDYN_OK || rc_l == CDYN_NOCONV, "%s: lcp returns %d (%s)", p.name, rc_l, cdyn_errmsg());
    if (rc_l == CDYN_NOCONV)
      ck_assert_msg(strstr(cdyn_errmsg(), "less accurate than rel_tol asks"), "%s: %s", p.name, cdyn_errmsg());
    for (size_t k = 0; k < n; k++) {
      if (p.eq[k])
        continue;
      if (h_l[k])
        ck_assert_msg(mu_l[k] >= -tol_mu, "%s row %zu: handled, mu %g < -tol_mu %g", p.name, k, mu_l[k], -tol_mu);
      else
        ck_assert_msg(mu_l[k] == 0, "%s row %zu: not handled, mu %g", p.name, k, mu_l[k]);
      if (rc_l == CDYN_OK && !h_l[k])
        ck_assert_msg(w_l[k] >= -tol_w, "%s row %zu: w %g < -tol_w %g with CDYN_OK", p.name, k, w_l[k], -tol_w);
    }
    /* Agreement with the reference (the bound of test_random_vs_enumeration). */
    /* The scales in long double: ten of these problems have b_k near
       1e300 and multipliers near 1e303, whose products' sums overflow a
       double (a bound of inf would pass anything). */
    double cond = fmax(block_cond_of(n, p.A, h_l, NULL), block_cond_of(n, p.A, h_r, NULL));
    long double bmax = 0, scale_w = 0, scale_a = 0, dw = 0, da = 0;
    double a_l[DG_MAXD], a_r[DG_MAXD];
    for (size_t i = 0; i < n; i++) {
      bmax = fmaxl(bmax, fabsl((long double)p.b[i]));
      long double sc = 0;
      for (size_t c = 0; c < n; c++)
        sc += fabsl((long double)p.A[i * n + c]) * (fabsl((long double)mu_l[c]) + fabsl((long double)mu_r[c]));
      scale_w = fmaxl(scale_w, sc);
      dw = fmaxl(dw, fabsl((long double)w_l[i] - (long double)w_r[i]));
    }
    dg_accel(&p, mu_l, a_l);
    dg_accel(&p, mu_r, a_r);
    for (size_t j = 0; j < p.d; j++) {
      long double sc = 0;
      for (size_t i = 0; i < n; i++)
        sc += fabsl((long double)p.J[i * p.d + j]) * (fabsl((long double)mu_l[i]) + fabsl((long double)mu_r[i]));
      scale_a = fmaxl(scale_a, (long double)p.W[j] * sc);
      da = fmaxl(da, fabsl((long double)a_l[j] - (long double)a_r[j]));
    }
    ck_assert_msg(isfinite(w_l[0]) && isfinite(a_l[0]) && isfinite(a_r[0]), "%s: not finite", p.name);
    long double unit_w = 2 * 4 * (long double)n * EPS * (1 + cond) * (bmax + scale_w);
    long double unit_a = 2 * 4 * (long double)n * EPS * (1 + cond) * scale_a;
    ck_assert_msg(isfinite((double)(unit_w / bmax)), "%s: the bound is not finite", p.name);
    if (getenv("CDYN_TEST_VERBOSE"))
      printf("%.8s: lcp %d, cond %.3g, |dw| %.3Lg (bound %.3Lg), |da| %.3Lg (bound %.3Lg)\n", p.name, rc_l, cond, dw,
             unit_w, da, unit_a);
    ck_assert_msg(dw <= unit_w, "%s: |w_lcp - w_ref| = %.3Lg > %.3Lg", p.name, dw, unit_w);
    ck_assert_msg(da <= unit_a, "%s: |a_lcp - a_ref| = %.3Lg > %.3Lg", p.name, da, unit_a);
  }
  fclose(f);
  /* The whole file was read: 18 problems, 7 of them solvable. */
  ck_assert_int_eq(count, 18);
  ck_assert_int_eq(solvable, 7);
}
END_TEST

/* ---- 5. a particle at rest in a crease --------------------------------------- */

/*
 * A particle of mass m = 0.837 kg at rest in 3-D under gravity
 * g_vec = (0, -g, 0), g = 9.81, touching k planes through one point: row
 * k is n_k^T, a unit normal in the x-y plane pointing into the free side.
 * At rest with no stabilisation (d = 0) the acceleration-level problem
 * (003 eq 6) has
 *   W = I / m,  A_ij = n_i . n_j / m,  b_k = n_k . g_vec = -g n_k,y,
 * and an answer mu gives qdd = g_vec + J^T mu / m.  Every row is violated
 * at mu = 0 (b_k < 0), so platt (no carried set: every row), tendency and
 * iterative all handle every row and solve once.  Static equilibrium is
 *   qdd = 0,  i.e.  J^T mu = sum_k mu_k n_k = m g e_y,
 * unique in J^T mu; in mu only when the normals are independent.  Since
 * m g e_y lies in the span of the normals, A_SS mu_S = -b_S is consistent
 * for every handled set S, and any solution of it balances the weight:
 * with z = f + J_S^T mu_S in range(J_S^T), J_S W z = 0 gives
 * z^T W z = 0, z = 0 (see lib/activeset/iterative.c).
 *
 * The variants (s = sin, c = cos):
 *   V: n = (s t, c t, 0), (-s t, c t, 0), t = 0.4137 rad.  The x
 *      balance gives mu_1 = mu_2, the y balance (mu_1 + mu_2) c t = m g:
 *      mu_k = m g / (2 c t) = 4.4837 each, for every algorithm.
 *   asymmetric V: n = (s a, c a, 0), (-s b, c b, 0), a = 0.3719,
 *      b = 0.6571: mu_1 s a = mu_2 s b and mu_1 c a + mu_2 c b = m g give
 *      mu_1 = m g s b / s(a + b), mu_2 = m g s a / s(a + b).
 *   V and a floor: the V plus n_3 = (0, 1, 0) through the same point.
 *      Three rows in a plane depend on each other: the equilibria are
 *      mu = (u, u, m g - 2 u c t), 0 <= u <= m g / (2 c t), a segment,
 *      every point of which is a valid answer.  The least-squares
 *      algorithms (one solve of the singular A with every row, its
 *      minimum-norm solution) return the point of least |mu|_2:
 *      d/du (2 u^2 + (m g - 2 u c t)^2) = 0 gives u = m g c t / (1 + 2 c^2 t)
 *      and mu_3 = m g / (1 + 2 c^2 t), inside the segment.  lcp keeps its
 *      clamped inequality rows independent and returns a vertex: it drives
 *      row 1 (mu_1 = m g c t, w_2 = -g c t (1 - c 2t) < 0, w_3 = -g s^2 t),
 *      then row 2 with u = (-c 2t, 1, 0), dw_2 = s^2 2t / m, whose drive
 *      ends at mu_2 = m g / (2 c t) before mu_1 would reach 0 (at
 *      m g c t / c 2t, larger as c 2t < 2 c^2 t), leaving
 *      mu = (m g / (2 c t), m g / (2 c t), 0) and w_3 = -g s^2 t +
 *      (m g / (2 c t)) 2 s^2 t c t / m = 0: the floor reaches zero exactly
 *      as the drive ends (a degenerate tie; rounding leaves it within
 *      tol_w) and carries nothing.
 *   one plane twice: rows n_1 = n_2 = (s t, c t, 0), n_3 = (-s t, c t, 0),
 *      two contacts on one plane (a cloth node held by two contacts of
 *      one triangle).  Equilibria: mu_1 + mu_2 = m g / (2 c t),
 *      mu_3 = m g / (2 c t).  The minimum-norm solution splits the pair
 *      equally, m g / (4 c t) = 2.2419 each: half the single contact's
 *      value, while J^T mu balances the weight exactly.  lcp drives row 1
 *      (mu_1 = m g c t; w_2 = w_1 = 0, not violated), then row 3 (dw_2 =
 *      A_21 u_1 + A_23 = 0: row 2 stays at 0) and returns
 *      (m g / (2 c t), 0, m g / (2 c t)).
 *
 * Tolerances.  The handled set's solve is backward stable (Cholesky or
 * the eigen-decomposition; Higham 2002, chapters 10 and 20), and A and b
 * are each formed with at most 4 roundings (a dot product of two terms
 * in the plane and a division by m), so the residual r = A mu + b of the
 * computed mu is at most gamma (max_i sum_j |A_ij mu_j| + max |b|) with
 * gamma = 8 k eps (4 k eps for the solve, 4 eps for the data).  The
 * imbalance z = J^T mu - m g e_y lies in the span of the normals, where
 * |J z|_2 >= sigma |z|_2 with sigma the smallest singular value of the
 * 2 x k block of the normals; r = J z / m, so
 *   |z|_2 <= m sqrt(k) |r|_inf / sigma,
 * plus the rounding of forming J^T mu here, k eps sum |mu_k|, and of
 * m g, eps m g; |qdd| <= |z| / m.  Per row, against a value derived
 * above: the forward error of the solve, 2 gamma cond |mu|_inf (cond of
 * the handled block over its nonzero eigenvalues, which for a
 * consistent singular system bounds the minimum-norm solution's error
 * under perturbations that keep its rank, as the eigen cut at 1e-12
 * does), plus 4 eps |mu*| for evaluating the formula.  A wrong answer is
 * off by O(m g) = O(8).
 */
typedef struct {
  const char *name;
  size_t k;
  double n[3][2];          /* the normals' x and y */
  double minnorm[3], vertex[3]; /* the least-squares algorithms' mu and lcp's */
  unsigned char lcp_handled[3];
} crease_case;

/* sigma^2 and the nonzero eigenvalues' ratio of G = sum_k n_k n_k^T
   (2 x 2; A's nonzero eigenvalues are G's over m). */
static void crease_spectrum(const crease_case *cc, double *sigma, double *cond)
{
  double gxx = 0, gxy = 0, gyy = 0;
  for (size_t i = 0; i < cc->k; i++) {
    gxx += cc->n[i][0] * cc->n[i][0];
    gxy += cc->n[i][0] * cc->n[i][1];
    gyy += cc->n[i][1] * cc->n[i][1];
  }
  double tr = gxx + gyy, det = gxx * gyy - gxy * gxy, disc = sqrt(fmax(tr * tr - 4 * det, 0));
  double lmax = 0.5 * (tr + disc), lmin = 2 * det / (tr + disc);
  *sigma = sqrt(lmin);
  *cond = lmax / lmin;
}

START_TEST(test_crease)
{
  const double m = 0.837, g = 9.81, t = 0.4137, a = 0.3719, bb = 0.6571;
  const double st = sin(t), ct = cos(t), mg = m * g;
  crease_case cases[4] = {
    {"V", 2, {{st, ct}, {-st, ct}}, {mg / (2 * ct), mg / (2 * ct)}, {mg / (2 * ct), mg / (2 * ct)}, {1, 1}},
    {"asymmetric V", 2, {{sin(a), cos(a)}, {-sin(bb), cos(bb)}},
     {mg * sin(bb) / sin(a + bb), mg * sin(a) / sin(a + bb)}, {mg * sin(bb) / sin(a + bb), mg * sin(a) / sin(a + bb)},
     {1, 1}},
    {"V and a floor", 3, {{st, ct}, {-st, ct}, {0, 1}},
     {mg * ct / (1 + 2 * ct * ct), mg * ct / (1 + 2 * ct * ct), mg / (1 + 2 * ct * ct)},
     {mg / (2 * ct), mg / (2 * ct), 0}, {1, 1, 0}},
    {"one plane twice", 3, {{st, ct}, {st, ct}, {-st, ct}}, {mg / (4 * ct), mg / (4 * ct), mg / (2 * ct)},
     {mg / (2 * ct), 0, mg / (2 * ct)}, {1, 0, 1}},
  };
  for (int c = 0; c < 4; c++) {
    const crease_case *cc = &cases[c];
    size_t k = cc->k;
    double A[9], b[3], sigma, cond;
    for (size_t i = 0; i < k; i++) {
      b[i] = -g * cc->n[i][1];
      for (size_t j = 0; j < k; j++)
        A[i * k + j] = (cc->n[i][0] * cc->n[j][0] + cc->n[i][1] * cc->n[j][1]) / m;
    }
    crease_spectrum(cc, &sigma, &cond);
    for (size_t al = 0; al < cdyn_activeset_count(); al++) {
      const char *name = cdyn_activeset_name(al);
      int is_lcp = !strcmp(name, "lcp");
      if (!is_lcp && strcmp(name, "platt") && strcmp(name, "tendency") && strcmp(name, "iterative"))
        continue; /* an algorithm this test knows nothing about */
      double mu[3], w[3];
      unsigned char h[3];
      cdyn_activeset_report rep;
      ck_assert_msg(cdyn_activeset_solve(name, k, A, b, NULL, NULL, 1e-9, mu, w, h, &rep) == CDYN_OK, "%s, %s: %s",
                    cc->name, name, cdyn_errmsg());
      /* The residual bound and the equilibrium. */
      const double gamma = 8 * (double)k * EPS;
      double rs = 0, bm = 0, musum = 0;
      for (size_t i = 0; i < k; i++) {
        double s = 0;
        for (size_t j = 0; j < k; j++)
          s += fabs(A[i * k + j] * mu[j]);
        rs = fmax(rs, s);
        bm = fmax(bm, fabs(b[i]));
        musum += fabs(mu[i]);
      }
      double tol_z = m * sqrt((double)k) * gamma * (rs + bm) / sigma + (double)k * EPS * musum + EPS * mg;
      double z[2] = {0, -mg};
      for (size_t i = 0; i < k; i++) {
        z[0] += cc->n[i][0] * mu[i];
        z[1] += cc->n[i][1] * mu[i];
      }
      double qdd[2] = {z[0] / m, (z[1] + mg) / m - g};
      if (getenv("CDYN_TEST_VERBOSE"))
        printf("crease %s, %s: J^T mu - m g e_y = (%.3g, %.3g), bound %.3g\n", cc->name, name, z[0], z[1], tol_z);
      ck_assert_msg(fabs(z[0]) <= tol_z && fabs(z[1]) <= tol_z, "%s, %s: J^T mu - m g e_y = (%.3g, %.3g), bound %.3g",
                    cc->name, name, z[0], z[1], tol_z);
      ck_assert_msg(fabs(qdd[0]) <= tol_z / m && fabs(qdd[1]) <= tol_z / m + 2 * EPS * g,
                    "%s, %s: qdd = (%.3g, %.3g), bound %.3g", cc->name, name, qdd[0], qdd[1], tol_z / m);
      /* The multipliers: unique in the V's, the algorithm's choice on the
         segment otherwise (derived above). */
      const double *want = is_lcp ? cc->vertex : cc->minnorm;
      double wmax = 0;
      for (size_t i = 0; i < k; i++)
        wmax = fmax(wmax, fabs(want[i]));
      for (size_t i = 0; i < k; i++) {
        double tol_mu = 2 * gamma * cond * wmax + 4 * EPS * fabs(want[i]);
        ck_assert_msg(fabs(mu[i] - want[i]) <= tol_mu, "%s, %s: mu_%zu = %.17g, expected %.17g (tolerance %.3g)",
                      cc->name, name, i + 1, mu[i], want[i], tol_mu);
        ck_assert_msg(h[i] == (is_lcp ? cc->lcp_handled[i] : 1), "%s, %s: row %zu handled %d", cc->name, name, i + 1,
                      h[i]);
      }
      ck_assert_msg(!rep.pulls && !rep.violates, "%s, %s: pulls %d violates %d", cc->name, name, rep.pulls,
                    rep.violates);
      if (!is_lcp)
        ck_assert_msg(rep.solves == 1, "%s, %s: %u solves", cc->name, name, rep.solves);
    }
  }
}
END_TEST

/* ---- 4. error paths ---------------------------------------------------------- */

static void expect_error(int rc, int expected, const char *what)
{
  ck_assert_msg(rc == expected, "%s: status %d, expected %d (%s)", what, rc, expected, cdyn_errmsg());
  ck_assert_msg(cdyn_errmsg()[0] != '\0', "%s: no message", what);
}

/*
 * Two problems from the fuzz harness (tests/fuzz/fuzz_activeset.c: A =
 * J W J^T of random rows, nearly dependent here), on which lcp once
 * returned CDYN_OK with a result that is not a solution.  The reference
 * enumeration, at the same tolerances, accepts no handled set on either:
 *   - 8 rows, 5 equality rows, four of them copies: the handled rows'
 *     equations cannot all hold; lcp left one at w = 3.5e-3 against tol_w
 *     = 1.1e-11.  Now CDYN_ESOLVE, naming the row.
 *   - 6 rows of scale 1e4 with coefficients cancelling to 1e-7: a row
 *     judged at zero to the rounding of the nearly dependent rows stood
 *     at w = -21 against tol_w = 1.6e-8.  That became CDYN_NOCONV (a
 *     row left at w = -7.2, "less accurate than rel_tol asks").  Since a
 *     row released by an exchange between dependent rows is not
 *     exchanged back while it is at zero to rounding (lcp.c), the
 *     pivoting takes another path and ends with Farkas' certificate:
 *     row 0 depends on the handled rows 1 and 2 with u >= 0 and
 *     u^T b = -10.6, against a rounding floor of 7e-5 for multipliers of
 *     1.3e5.  So CDYN_EINFEASIBLE, which the reference confirms.  (The
 *     status CDYN_NOCONV is checked on the solvable problems of
 *     test_degenerate_corpus.)
 */
START_TEST(test_degenerate_statuses)
{
  const double a1 = 5080.0899217236793, a2 = -5074.6027242250502, a3 = -5080.2449584960932,
               a4 = 4152.5125003287103, a5 = -5076.551366995368, b2 = 5069.1229357388574,
               b3 = 5074.7575935363775, b4 = -4146.9969945497578, b5 = 5071.0638893127443, c3 = 5080.4000000000005,
               c4 = -4152.6392288208008, c5 = 5076.7062957763674, d4 = 4110.4279072968293, d5 = -4152.4661991582252,
               e5 = 5073.0358124716213;
  const double A1[64] = {a1, a2, a3, a3, a3, a3, a4, a5, /**/ a2, b2, b3, b3, b3, b3, b4, b5,
                         a3, b3, c3, c3, c3, c3, c4, c5, /**/ a3, b3, c3, c3, c3, c3, c4, c5,
                         a3, b3, c3, c3, c3, c3, c4, c5, /**/ a3, b3, c3, c3, c3, c3, c4, c5,
                         a4, b4, c4, c4, c4, c4, d4, d5, /**/ a5, b5, c5, c5, c5, c5, d5, e5};
  const double b1[8] = {0, 0, 0, 0, 0, 0, -10.60400390625, -10.60400390625};
  const unsigned char eq1[8] = {1, 1, 1, 1, 0, 1, 0, 0};
  const double A2[36] = {12325.647667729856, -12325.522280931473, -12326.023828124999, 4108.2984489798546,
                         12295.554836118221, -4213.874133217334, /**/
                         -12325.522280931473, 12325.39693622589, 12325.8984375, -4108.9253906249996,
                         -12295.428530931473, 4214.4729186058048, /**/
                         -12326.023828124999, 12325.8984375, 12326.400000000001, -4108.423828125, -12295.930078125,
                         4214.0027343750007, /**/
                         4108.2984489798555, -4108.9253906249996, -4108.423828125, 12325.647675383092,
                         4078.2064974904069, -11917.133552491665, /**/
                         12295.554836118223, -12295.428530931473, -12295.930078125, 4078.2064974904065,
                         12265.664815270902, -4184.6887841105463, /**/
                         -4213.8741332173349, 4214.4729186058048, 4214.0027343750007, -11917.133552491665,
                         -4184.6887841105463, 11528.83001972437};
  const double b2v[6] = {0, -16, -10.60400390625, 0, 0, 0};
  struct {
    size_t n;
    const double *A, *b;
    const unsigned char *eq;
    double rel_tol;
    int status;
    const char *says;
  } cases[2] = {{8, A1, b1, eq1, 1e-12, CDYN_ESOLVE, "cannot all hold"},
                {6, A2, b2v, NULL, 1e-9, CDYN_EINFEASIBLE, "no solution"}};
  for (int c = 0; c < 2; c++) {
    size_t n = cases[c].n;
    double mu[8], w[8], bmax = 0, amax = 0;
    unsigned long acc = 1;
    for (size_t i = 0; i < n; i++) {
      bmax = fmax(bmax, fabs(cases[c].b[i]));
      amax = fmax(amax, cases[c].A[i * n + i]);
    }
    double tol_w = cases[c].rel_tol * bmax;
    ck_assert_int_eq(ref_lcp_enumerate(n, cases[c].A, cases[c].b, cases[c].eq, tol_w, tol_w / amax, mu, w, NULL, &acc),
                     CDYN_ESOLVE);
    ck_assert_msg(acc == 0, "case %d: the reference accepts %lu sets", c, acc);
    int rc = cdyn_activeset_solve("lcp", n, cases[c].A, cases[c].b, cases[c].eq, NULL, cases[c].rel_tol, mu, w, NULL,
                                  NULL);
    /* The status reached depends on the pivoting through blocks singular
       to rounding, and so on the LAPACK and BLAS kernels' rounding: with
       OpenBLAS's AVX-512 kernels case 1 ends at a set whose multipliers
       exceed the bound of its block, a refusal (CDYN_EUNVERIFIED) and as
       right an answer, which the reference confirms: no set is a solution. */
    ck_assert_msg((rc == cases[c].status && strstr(cdyn_errmsg(), cases[c].says)) ||
                      (rc == CDYN_EUNVERIFIED && strstr(cdyn_errmsg(), "exceed twice the bound")),
                  "case %d: status %d (%s)", c, rc, cdyn_errmsg());
    if (rc > 0) /* a recoverable status: the numbers are usable */
      for (size_t i = 0; i < n; i++) {
        long double r = cases[c].b[i], s = fabs(cases[c].b[i]);
        for (size_t j = 0; j < n; j++) {
          r += (long double)cases[c].A[i * n + j] * mu[j];
          s += fabsl((long double)cases[c].A[i * n + j] * mu[j]);
        }
        ck_assert_msg(isfinite(mu[i]) && fabsl(w[i] - r) <= 8 * (double)n * DBL_EPSILON * s,
                      "case %d, row %zu: mu %g, w %.17g against A mu + b = %.17Lg", c, i, mu[i], w[i], r);
      }
  }
}
END_TEST

START_TEST(test_errors)
{
  const double A[4] = {2, -1, -1, 1}, b[2] = {1, -2};
  double mu[2], w[2];
  for (size_t a = 0; a < cdyn_activeset_count(); a++) {
    const char *name = cdyn_activeset_name(a);
    double bn[2] = {1, NAN}, An[4] = {2, -1, -0.5, 1}, Ad[4] = {-2, -1, -1, 1};
    cdyn_error_clear();
    expect_error(cdyn_activeset_solve(name, 2, A, bn, NULL, NULL, 1e-9, mu, w, NULL, NULL), CDYN_ENONFINITE,
                 "NaN in b");
    cdyn_error_clear();
    expect_error(cdyn_activeset_solve(name, 2, An, b, NULL, NULL, 1e-9, mu, w, NULL, NULL), CDYN_EINVAL,
                 "non-symmetric A");
    cdyn_error_clear();
    expect_error(cdyn_activeset_solve(name, 2, Ad, b, NULL, NULL, 1e-9, mu, w, NULL, NULL), CDYN_EINVAL,
                 "negative diagonal");
    /* Entries near DBL_MAX: the symmetry test's allowance, 1e-12 of
       |A_01| + |A_10| + sqrt(A_00 A_11), once overflowed to infinity and
       let A_01 = 1.3e-6 beside A_10 = 1.8e308 through (fuzz corpus input
       fbb9c410); scaled term by term it is 5.4e296. */
    const double Ab[4] = {DBL_MAX, 1.3e-6, DBL_MAX, DBL_MAX};
    cdyn_error_clear();
    expect_error(cdyn_activeset_solve(name, 2, Ab, b, NULL, NULL, 1e-9, mu, w, NULL, NULL), CDYN_EINVAL,
                 "non-symmetric A near DBL_MAX");
    ck_assert_msg(strstr(cdyn_errmsg(), "not symmetric"), "%s: %s", name, cdyn_errmsg());
    cdyn_error_clear();
    expect_error(cdyn_activeset_solve(name, 0, A, b, NULL, NULL, 1e-9, mu, w, NULL, NULL), CDYN_EINVAL, "n = 0");
    const double bad_tol[7] = {0, 1, -1e-9, 2, NAN, 0.5, 1.0001e-3};
    for (int i = 0; i < 7; i++) {
      cdyn_error_clear();
      expect_error(cdyn_activeset_solve(name, 2, A, b, NULL, NULL, bad_tol[i], mu, w, NULL, NULL), CDYN_EINVAL,
                   "rel_tol outside (0, 1e-3]");
    }
    cdyn_error_clear();
    expect_error(cdyn_activeset_solve(name, 2, A, b, NULL, NULL, 1e-9, NULL, w, NULL, NULL), CDYN_EINVAL,
                 "mu NULL");

    /* Two copies of one equality row that ask for different values:
       A = [[1, 1], [1, 1]], b = (1, 2).  The least-squares solution
       has mu_1 + mu_2 = -3/2 and w = (-1/2, 1/2), far above tol_w. */
    const double Ai[4] = {1, 1, 1, 1}, bi[2] = {1, 2};
    const unsigned char eq[2] = {1, 1};
    cdyn_activeset_report rep;
    cdyn_error_clear();
    expect_error(cdyn_activeset_solve(name, 2, Ai, bi, eq, NULL, 1e-9, mu, w, NULL, &rep), CDYN_EINFEASIBLE,
                 "inconsistent equality set");
    ck_assert_msg(strstr(cdyn_errmsg(), "inconsistent constraint set"), "%s: %s", name, cdyn_errmsg());
    ck_assert_msg(fabs(w[0] + 0.5) <= 1e-15 && fabs(w[1] - 0.5) <= 1e-15, "%s: w = (%g, %g)", name, w[0], w[1]);
    ck_assert_uint_eq(rep.candidates, 2);
    /* The same rows with equal values are consistent. */
    const double bc[2] = {1, 1};
    ck_assert_int_eq(cdyn_activeset_solve(name, 2, Ai, bc, eq, NULL, 1e-9, mu, w, NULL, NULL), CDYN_OK);
    ck_assert(fabs(mu[0] + mu[1] + 1) <= 1e-15 && fabs(w[0]) <= 1e-15 && fabs(w[1]) <= 1e-15);
  }
  cdyn_error_clear();
  expect_error(cdyn_activeset_solve("dantzig", 2, A, b, NULL, NULL, 1e-9, mu, w, NULL, NULL), CDYN_EUNKNOWN,
               "unknown name");
  ck_assert(strstr(cdyn_errmsg(), "lcp") != NULL); /* the message lists the names */

  /* A floor and a ceiling at one place, both pushing inwards and asking
     for opposite accelerations: g1 = y, g2 = -y, W = 1, b = (-1, -1):
     u = (1, 1) >= 0 has A u = 0 and u^T b = -2 < 0, so no mu >= 0 gives
     w >= 0 (w_1 + w_2 = -2 for every mu).  lcp says so; the reference
     accepts no subset. */
  const double Af[4] = {1, -1, -1, 1}, bf[2] = {-1, -1};
  cdyn_error_clear();
  expect_error(cdyn_activeset_solve("lcp", 2, Af, bf, NULL, NULL, 1e-9, mu, w, NULL, NULL), CDYN_EINFEASIBLE,
               "no solution");
  ck_assert(strstr(cdyn_errmsg(), "inconsistent constraint set"));
  unsigned long acc = 99;
  expect_error(ref_lcp_enumerate(2, Af, bf, NULL, 1e-9, 1e-9, mu, w, NULL, &acc), CDYN_ESOLVE,
               "reference: no solution");
  ck_assert_uint_eq(acc, 0);
}
END_TEST

START_TEST(test_reference_limits)
{
  /* 17 inequality rows are refused before any work; 3 inequality rows
     with 14 equality rows (any number is allowed) are solved.  A = I,
     b_k = -1 - k/16 on the equality rows and (-1, 0.5, -0.25) on the
     others: handled rows get mu_k = -b_k, the unviolated one w = 0.5. */
  enum { N = 17 };
  double A[N * N], b[N], mu[N], w[N];
  unsigned char eq[N], h[N];
  memset(A, 0, sizeof A);
  for (size_t i = 0; i < N; i++) {
    A[i * N + i] = 1;
    b[i] = -1 - (double)i / 16;
    eq[i] = i >= 3;
  }
  expect_error(ref_lcp_enumerate(N, A, b, NULL, 1e-9, 1e-9, mu, w, h, NULL), CDYN_EINVAL, "17 inequality rows");
  b[0] = -1, b[1] = 0.5, b[2] = -0.25;
  unsigned long acc;
  ck_assert_int_eq(ref_lcp_enumerate(N, A, b, eq, 1e-9, 1e-9, mu, w, h, &acc), CDYN_OK);
  ck_assert_uint_eq(acc, 1);
  ck_assert(mu[0] == 1 && mu[1] == 0 && mu[2] == 0.25 && w[1] == 0.5 && h[0] && !h[1] && h[2]);
  for (size_t i = 3; i < N; i++)
    ck_assert(mu[i] == -b[i] && w[i] == 0 && h[i]);
  expect_error(ref_lcp_enumerate(0, A, b, NULL, 1e-9, 1e-9, mu, w, h, NULL), CDYN_EINVAL, "n = 0");
  expect_error(ref_lcp_enumerate(2, A, b, NULL, 0, 1e-9, mu, w, h, NULL), CDYN_EINVAL, "tol_w = 0");
}
END_TEST

/*
 * The reference's rounding floor at the edge of the double range.  Two
 * antiparallel walls on one particle, A = [[1, -1], [-1, 1]] (a unit
 * mass, J = (1, -1)^T), b = (0, -1e300): u = (1, 1) >= 0 has A u = 0 and
 * u^T b = -1e300 < 0, so by Farkas' lemma no mu >= 0 gives w >= 0 (w_0 +
 * w_1 = -1e300 for every mu).  Handling row 1 alone gives mu_1 = 1e300
 * and leaves w_0 = -1e300 outside H; the floor of that test,
 * 16 h eps |c_0| (|A_HH| |mu_H| + |b_H|) with |c_0| = 1, is about
 * 3.6e-15 * 2e300 = 7e285, and tol_w = 1e-9 * 1e300 = 1e291, so the set
 * must be refused.  It was accepted while |b_H|_2 was formed from
 * b_1^2 = 1e600, which overflows: the floor was infinite.  lcp says
 * there is no solution (it solves the problem equilibrated).
 */
START_TEST(test_reference_overflow)
{
  const double A[4] = {1, -1, -1, 1}, b[2] = {0, -1e300};
  double mu[2], w[2], tol_w, tol_mu;
  unsigned long acc = 99;
  tolerances(2, A, b, 1e-9, &tol_w, &tol_mu);
  expect_error(ref_lcp_enumerate(2, A, b, NULL, tol_w, tol_mu, mu, w, NULL, &acc), CDYN_ESOLVE,
               "reference: no solution at b = -1e300");
  ck_assert_uint_eq(acc, 0);
  expect_error(cdyn_activeset_solve("lcp", 2, A, b, NULL, NULL, 1e-9, mu, w, NULL, NULL), CDYN_EINFEASIBLE,
               "lcp: no solution at b = -1e300");
  /* The same walls at an ordinary scale, b = (0, -1): the same answer from
     both, so the refusal above is the floor's doing and not the scale's. */
  const double b1[2] = {0, -1};
  tolerances(2, A, b1, 1e-9, &tol_w, &tol_mu);
  expect_error(ref_lcp_enumerate(2, A, b1, NULL, tol_w, tol_mu, mu, w, NULL, &acc), CDYN_ESOLVE,
               "reference: no solution at b = -1");
  ck_assert_uint_eq(acc, 0);
}
END_TEST

/* The early stop: without a count wanted the enumeration stops after the
   subsets of the first accepted one's size, which holds the answer, and
   must return it bit for bit as the full enumeration does (the active-set
   census relies on it).  Census problems of 2-12 rows, seed 7. */
START_TEST(test_reference_early_stop)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  ck_assert_ptr_nonnull(r);
  gsl_rng_set(r, 7);
  cp_problem p;
  unsigned long stopped_short = 0;
  for (int t = 0; t < 300; t++) {
    cp_generate(r, 2, 12, &p);
    double tol_w, tol_mu, mu_a[CP_MAXK], w_a[CP_MAXK], mu_b[CP_MAXK], w_b[CP_MAXK];
    unsigned char h_a[CP_MAXK], h_b[CP_MAXK];
    tolerances(p.k, p.A, p.b, 1e-9, &tol_w, &tol_mu);
    unsigned long acc = 0;
    int rc_a = ref_lcp_enumerate(p.k, p.A, p.b, NULL, tol_w, tol_mu, mu_a, w_a, h_a, &acc);
    int rc_b = ref_lcp_enumerate(p.k, p.A, p.b, NULL, tol_w, tol_mu, mu_b, w_b, h_b, NULL);
    ck_assert_int_eq(rc_a, rc_b);
    if (rc_a != CDYN_OK) {
      cdyn_error_clear();
      continue;
    }
    ck_assert_msg(memcmp(mu_a, mu_b, p.k * sizeof *mu_a) == 0 && memcmp(w_a, w_b, p.k * sizeof *w_a) == 0 &&
                      memcmp(h_a, h_b, p.k) == 0,
                  "problem %d: the early stop changes the answer", t);
    size_t size = 0;
    for (size_t k = 0; k < p.k; k++)
      size += h_a[k];
    stopped_short += size < p.k;
  }
  /* The stop is taken: most answers leave some row unhandled. */
  ck_assert_uint_gt(stopped_short, 150);
  gsl_rng_free(r);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("lcp");
  TCase *tc = tcase_create("lcp");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_corner);
  tcase_add_test(tc, test_corner_equality);
  tcase_add_test(tc, test_iterative_pulls_wedge);
  tcase_add_test(tc, test_pivots_by_hand);
  tcase_add_test(tc, test_random_vs_enumeration);
  tcase_add_test(tc, test_warm_start);
  tcase_add_test(tc, test_census_regressions);
  tcase_add_test(tc, test_degenerate_corpus);
  tcase_add_test(tc, test_crease);
  tcase_add_test(tc, test_errors);
  tcase_add_test(tc, test_degenerate_statuses);
  tcase_add_test(tc, test_reference_limits);
  tcase_add_test(tc, test_reference_overflow);
  tcase_add_test(tc, test_reference_early_stop);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
