/*
 * lcp.c: the exact solution of the contact problem by principal pivoting
 * (Dantzig's method in the form of Baraff, "Fast contact force computation
 * for nonpenetrating rigid bodies", SIGGRAPH 1994; the principal pivoting
 * methods of Cottle, Pang and Stone, "The Linear Complementarity Problem",
 * 1992, chapter 4; the least-index rule of Bland, "New finite pivoting
 * rules for the simplex method", Math. Oper. Res. 2, 1977, in the form
 * of the criss-cross method of den Hertog, Roos and Terlaky, "The linear
 * complementarity problem, sufficient matrices, and the criss-cross
 * method", Linear Algebra Appl. 187, 1993).
 *
 * The problem (cdyn/contact.h), over n rows with E the equality rows:
 *   w = A mu + b,  A = J W J^T symmetric positive semi-definite,
 *   k in E:      w_k = 0, mu_k of any sign,
 *   k not in E:  w_k >= 0, mu_k >= 0, mu_k w_k = 0.
 *
 * Baraff's algorithm keeps two sets of rows: C ("clamped", w_k = 0 and
 * mu_k >= 0, the handled set) and NC (mu_k = 0 and w_k >= 0, rows that
 * once were in C).  The other rows have mu_k = 0 and have not been looked
 * at yet.  While some row d outside C has w_d < 0, it is driven to zero:
 *   repeat
 *     fdirection:  dmu_d = 1,  A_CC dmu_C = -A_Cd,  dmu = 0 elsewhere;
 *                  dw = A dmu  (so dw_C = 0: C stays clamped)
 *     maxstep:     the largest s >= 0 such that along mu + s dmu
 *                    w_d <= 0                      (d reaches zero: s = -w_d/dw_d, if dw_d > 0)
 *                    mu_i >= 0 for i in C          (s = -mu_i/dmu_i, if dmu_i < 0)
 *                    w_i >= 0 for i in NC          (s = -w_i/dw_i, if dw_i < 0)
 *     mu += s dmu, w += s dw, and the row j that limited s changes set:
 *       j in C:  its multiplier would pull: C -> NC, and repeat;
 *       j in NC: it would be violated:      NC -> C, and repeat;
 *       j = d:   d joins C, and the drive ends.
 * A finished drive leaves d in C (or NC) for good: rows only move between
 * C and NC afterwards, so there are at most n finished drives.
 *
 * Equality rows.  They are in C from the start (mu_E solves
 * A_EE mu_E = -b_E first), never leave it, and are skipped in the ratio
 * test because their multipliers may take either sign.  An equality set
 * whose equations have no solution (b_E not in the range of A_EE) is
 * reported as CDYN_EINFEASIBLE "inconsistent constraint set" right after that
 * first solve (cdyn_as_check_equalities).
 *
 * The semi-definite case (derived here; Baraff discusses the same case).
 * Write A = G G^T (G = J W^(1/2)).  Then A_Cd = G_C g_d lies in the range
 * of A_CC = G_C G_C^T, so the fdirection system is consistent even when
 * A_CC is singular, and cdyn_as_subsolve's minimum-norm least-squares
 * solution is a valid direction.  With u = dmu, dw_C = 0 gives
 * dw_d = u^T A u = |G^T u|^2 >= 0, and dw_d = 0 exactly when row d
 * depends on the rows of C; then dw = A u = 0 everywhere, the step
 * changes no w and only the multipliers of C move, until one of them
 * reaches zero and leaves C.  If none does (no dmu_i < 0 on the
 * inequality rows of C, no blocking row in NC), then u >= 0 on the
 * inequality rows, A u = 0 and u^T b = u^T w = w_d < 0: by Farkas' lemma
 * no mu gives w >= 0, and the problem has no solution; this is reported
 * as CDYN_EINFEASIBLE "inconsistent constraint set".  A row k of NC with
 * dw_k != 0 does not depend on C, and d joins C only with dw_d > 0, so
 * in exact arithmetic the inequality rows of C stay independent of each
 * other and of E: A_CC is singular only through dependent equality rows,
 * and the multipliers of the inequality rows in C are unique.
 *
 * Choices made where the sources are silent
 * ----------------------------------------
 * - Which row to drive: the lowest-index row outside C with
 *   w_d < -tol_w (the least-index rule, which makes the path
 *   deterministic).  Rows with -tol_w <= w_d < 0 are left, as every
 *   algorithm of the library treats them (cdyn_as_finish's "violates").
 * - Does d depend on C?  dw_d = A_dd + A_dC u_C is computed with an error
 *   of about eps u^T |A| u (the error of u_C, amplified by A_dC A_CC^-1 =
 *   -u_C^T, meets the perturbation of A_CC in a quadratic form), whatever
 *   the condition of A_CC.  So d counts as independent when
 *     dw_d > max(rank_tol max_{C+d} A_kk, LCP_ROUND (|C| + 1) eps u^T |A| u),
 *   the first term being the rank decision of cdyn_as_subsolve (dw_d is
 *   the Schur complement its Cholesky factorisation of A_{C+d} would
 *   pivot on), so that C never holds a row the next sub-solve would cut.
 * - Noise levels of the direction.  With rs = sum_j sqrt(A_jj) |u_j|
 *   over the support C + {d} of u, a row k of NC blocks only when
 *     dw_k < -LCP_DIR_TOL sqrt(A_kk) rs,
 *   and a row i of C only when
 *     sqrt(A_ii) u_i < -LCP_DIR_TOL rs
 *   (LCP_DIR_TOL = 1e-10).  A row that depends on C has an exact
 *   dw_k = 0, and a row of C outside the combination that d depends on
 *   an exact u_i = 0; their computed values are rounding noise, and
 *   letting that noise clamp a row makes C dependent, letting it release
 *   a row undoes a clamp at a step of 0 (both cycle).  The noise is
 *   relative to the whole of u, not to the terms that make up dw_k or to
 *   u_i itself: the sub-solve is normwise backward stable, so every
 *   computed u_j carries an error of about eps cond(A_CC) times the
 *   largest (scaled) component.  A row that shares no particle with the
 *   rows whose u_j are large has sum_j |A_kj u_j| made of that noise
 *   alone, and a scale built from those terms calls the noise
 *   significant (trial 7313 of the census, seed 1: a separation row
 *   between two particles that C pins got dw_k = -1e-13 with
 *   sum_j |A_kj u_j| of the same size, was clamped at a step of 0,
 *   released at the next pass by a u_k = -0.12 of the now dependent C,
 *   and so on until the pivot limit).  rs bounds every such sum, since
 *   |A_kj| <= sqrt(A_kk A_jj) for a positive semi-definite A, and does
 *   not vanish with the geometry.  A row of NC whose small dw_k is
 *   ignored loses at most s 1e-10 sqrt(A_kk) rs in the step s, and is
 *   driven again if that puts it below -tol_w; a row of C whose small
 *   u_i is ignored can end with mu_i a little below zero, which the
 *   final check below releases.
 * - Negative ratios (mu_i or w_i a rounding error below zero) count as a
 *   step of 0 (a degenerate pivot).
 * - Ties in the ratio test: among C and NC the lowest index of C, then of
 *   NC, except at a step of 0, where the lowest index of C and NC
 *   together wins (see "Degenerate pivots" below); d wins (the drive
 *   ends) when it reaches zero at the smallest step, which is never 0
 *   while w_d < 0.  When another row j blocks first but the step leaves w_d
 *   within tol_w of zero, d and j reach their bounds together: d is
 *   clamped (w_d = 0, to within tol_w, as every algorithm of the library
 *   treats a row), and j is released if it is in C or stays in NC at
 *   w_j = 0.  d is independent of C (dw_d > 0), so C stays independent.
 *   In a singular problem ties are structural, not accidental: when the
 *   clamped rows fix the accelerations of some particles, every other
 *   row through those particles reaches zero at the same step, and
 *   rounding must not decide that d stops short of zero.  A relative
 *   window on the two steps does not suffice when the rows are nearly
 *   dependent (trial 6296 of the census, seed 1: multipliers of about
 *   800, the two steps apart by 1.2e-9 of themselves, a row of NC clamped
 *   with w_d = -6e-13 left over; d then depended on the new C, rounding
 *   noise of 3e-9 in u released a row at a step of 2e11, and the drive
 *   ended in a false "no solution").
 * - A row that depends on C: d depends on C and no row blocks.  Then
 *   A u = 0, so w_d = u^T b - u_C^T w_C, and at the solution of C
 *   (w_C = 0) the exact w_d is u^T b, the value of Farkas' certificate.
 *   Its computed value, and the w_d kept by the updates, carry the error
 *   that the sub-solves' rounding puts into the multipliers (a
 *   backward-stable solve with |E| <= g |A_CC| moves w_d by about
 *   u_C^T E mu_C), carried by u: at most about
 *     floor_d = LCP_ROUND (|C| + 1) eps sum_{i in C + d} |u_i| (|b_i| +
 *               sum_j |A_ij mu_j|).
 *   When the rows of C are nearly dependent (two nearly antiparallel
 *   walls pinning a particle, multipliers of 1e3 .. 1e4), u is large and
 *   this floor is far above tol_w, while the exact w_d of a row through
 *   the pinned particle is 0 (trials 2691 and 7638 of the census with
 *   seed 2 left w_d = -2e-9 and -3.5e-9 against tol_w = 1.4e-9 and
 *   1.1e-9).  So d counts as at zero when w_d or u^T b is at least
 *   -tol_w - floor_d:
 *   - if mu_d = 0, d is left out of C with mu_d = 0 and marked as at
 *     zero (LCP_ZERO): it is not driven again, and the final check does
 *     not count it as violated, until C changes;
 *   - if the drive has moved mu_d, d is clamped (a tie that rounding gave
 *     to another row; the minimum-norm sub-solves allow the dependent C).
 *   Otherwise, if the drive has already moved mu_d, this is Farkas'
 *   certificate above, and the problem has no solution.  If mu_d = 0 the
 *   dependence can be one of the rank tolerance (a nearly dependent
 *   row), which a different C may lift, so d is put aside (LCP_STUCK) and
 *   the other violated rows are driven first; the problem has no solution
 *   only when every violated row is put aside.
 *   When a row of C blocks, the step along u releases it (an exchange:
 *   only multipliers move, from the released row to d and the rest of
 *   C), after which d may no longer depend on C and can be driven up.
 *   The released row keeps w = 0 in exact arithmetic, and is marked as
 *   released by an exchange (LCP_SWAP, otherwise a row of NC).  If
 *   rounding later shows it below -tol_w while it depends on C, at zero
 *   to floor_d and with mu_d = 0, it is at zero (LCP_ZERO as above)
 *   before any row of C is looked at: exchanging back cannot bring a w
 *   that is zero to rounding closer to zero, and it cycles.  Two copies
 *   of one row (the fuzz corpus input 3b9f5f11, rows 6 and 7) passed a
 *   multiplier of 1.6e5 from one to the other and back, each exchange
 *   leaving the other copy at w = -4.8e-7 against tol_w = 1.1e-8 (inside
 *   floor_d = 3e-6), until the pass limit.  A row released by an
 *   ordinary pivot keeps the exchange: it can end in a better
 *   conditioned set (trial 2213 of the census with seed 7 ends with
 *   min w = -1.5e-9 against tol_w = 1.6e-9 through it, -3.8e-9 without).
 * - Updates are incremental as in Baraff (mu += s dmu, w += s dw), so a
 *   pivot costs one sub-solve of size |C| and O(n |C|) products.  When no
 *   row is left to drive, mu_C is solved once more from A_CC mu_C = -b_C
 *   (cdyn_as_solve_set) so that the result has the accuracy of a single
 *   solve and not the drift of the updates; if that final result pulls
 *   (mu_k < -tol_mu on C) or violates (w_k < -tol_w off C), which only
 *   rounding can cause, the pulling rows leave C and pivoting resumes.
 * - Degenerate pivots (derived here).  In exact arithmetic the method
 *   terminates with the least-index rule at steps of 0, for three
 *   reasons.  (1) At most n drives: C keeps mu >= 0 and NC keeps
 *   w >= 0 (the ratio test), so a row that has finished a drive is never
 *   driven again.  (2) Finitely many positive steps in a drive: with C
 *   independent, the point of the line is a function of C and mu_d
 *   (mu_C solves A_CC mu_C = -b_C - A_Cd mu_d, mu = 0 off C + d); a step
 *   ends where one row reaches its bound, a linear equation in mu_d, so
 *   the ends of the steps take finitely many values, and mu_d grows at
 *   every positive step.  (3) Every run of steps of 0 is finite: the
 *   point does not move, and the run pivots on the degenerate rows D
 *   (rows of C at mu = 0, rows of NC at w = 0) only.  With the rows of C
 *   off D eliminated (a Schur complement, positive semi-definite like
 *   A), it is principal pivoting on the complementarity problem of the
 *   direction: u_D >= 0, (A u)_D >= 0, u_D (A u)_D = 0, u_d = 1, whose
 *   basic variables are u_i (i in C) and (A u)_k (k in NC).  The rows
 *   that block at 0 are exactly its infeasible basic variables, and a
 *   pivot on one of them is a diagonal pivot, always possible (a clamped
 *   row is independent of C, since dw_k != 0; a released one has
 *   (A_CC^-1)_ii > 0).  Taking the lowest index among them is then the
 *   least-index criss-cross method, finite for sufficient matrices,
 *   positive semi-definite ones among them (den Hertog, Roos and Terlaky,
 *   Linear Algebra Appl. 187, 1993), and it ends with a feasible basis
 *   (the direction problem has a solution: it is the minimum of
 *   u^T A u >= 0 over u_d = 1, u_D >= 0), after which the step is
 *   positive.  The former rule (C before NC at every tie) can cycle
 *   there: at the degenerate point of a drive of row 3 with
 *   J = [[-3, 2, 1, 0], [3, -3, -1, -2], [1, -2, -1, -3], [3, -3, 3, 1]],
 *   W = I, C = {1, 2}, NC = {0}, it releases 1, releases 2 (where
 *   clamping 0 was possible), clamps 0, 1, 2, releases 0 and is back at
 *   C = {1, 2}, in exact arithmetic.  The least-index rule clamps 0
 *   instead and ends the run.  (That point was found among random
 *   partitions at fully degenerate points; no problem started from
 *   mu = 0 was found to reach it, nor to cycle in exact arithmetic
 *   otherwise, in 70000 random degenerate integer problems and 200000
 *   built around those rows.)
 * - Rounding and the pass limit.  The argument above does not survive
 *   rounding: a row of NC can fall below -tol_w through the drift of the
 *   incremental updates and be driven again, and nearly dependent rows
 *   make the rank decisions of the drives and of the final solve
 *   disagree.  Over the 393 inputs of the fuzz corpus
 *   (tests/fuzz/corpus/activeset; tests/test_lcp_corpus.c classifies
 *   them), every one on which the pivoting stopped at the pass limit did
 *   so through rounding, in problems with multipliers of 1e5 .. 1e16 or
 *   right-hand sides of 1e300: NC rows driven again, resumptions after
 *   the final check, exchanges between copies of a row, and runs of
 *   steps of 0 that clamped and released one row in turn (which exact
 *   arithmetic excludes: a row clamped at a step of 0 has u_j > 0 at
 *   the next pass).  The least-index rule changed none of them.  The number of pivot passes (and of the
 *   resumptions above) is therefore limited to 10 n + 10, far above the
 *   at most n drives of a few pivots each that the method needs (on
 *   60000 random problems of up to 12 rows, those of tests/test_lcp.c
 *   with 12 seeds, the most was 28 iterations, never more than 3 k; on
 *   the 30000 problems of the active-set census with seeds 1 to 3, at
 *   most 25 solves; in those 30000 the final check let one row stand
 *   below -tol_w as at zero to rounding); beyond it the pivoting stops,
 *   and the last clamped set's own solution (mu_C from A_CC mu_C = -b_C,
 *   mu = 0 off C) is returned as CDYN_NOCONV, for the verification below
 *   to accept or refuse.  (It had been CDYN_ESOLVE, no answer.  Of the 36
 *   inputs of the fuzz corpus that stop there, on 8d255aea, b_1 = -1e300,
 *   the last set is the one the reference accepts, and its solution
 *   passes; on 33 it is refused, CDYN_EUNVERIFIED; on one it overflows,
 *   CDYN_ENONFINITE, and on one it leaves an equality row unsatisfied,
 *   CDYN_EINFEASIBLE.  The reference accepts no set on any of those 35.)
 * - A row left below -tol_w as at zero to rounding (LCP_ZERO) makes the
 *   result recoverable, CDYN_NOCONV, not exact: a fuzzed problem of nearly
 *   antiparallel rows left w = -26 against tol_w = 1.6e-8, inside the
 *   rounding floor of its multipliers but far from what rel_tol asks.
 *   Such a result is verified like any other (below); none of those in
 *   the fuzz corpus passes.
 *
 * Verification of the answer (derived in common.c, cdyn_as_verify)
 * ------------------------------------------------------------------
 * The checks above judge the iterate against floors of the form
 * LCP_ROUND n eps (|b_k| + sum_j |A_kj mu_j|), which grow with the
 * multipliers they judge: on the fuzz corpus input 3686c8fb (|b| = 8.4,
 * A_kk = 1e4) lcp clamped four rows whose block has an eigenvalue of
 * 1.8e-12 (rounding noise in a block of largest eigenvalue 2e4), passed
 * the sub-solve's Cholesky pivot test, and returned CDYN_OK with
 * multipliers of 2e13 and w = 37 on a handled row, inside that floor
 * (1.1e4 on that row).  So lcp declares itself exact (the type object's flag
 * `exact`), and its caller verifies every answer it returns with a
 * success status (CDYN_OK or CDYN_NOCONV) against a bound that comes
 * from the problem alone.  With C the handled rows,
 *   every solution on C obeys  |mu_C|_2 <= M = |bt_C|_2 / l_C,
 *   bt_k = max(0, -b_k) on an inequality row, |b_k| on an equality row,
 *   l_C = the smallest eigenvalue of A_CC above rank_tol lambda_max(A_CC),
 * because complementarity gives mu_C^T A_CC mu_C = -b_C^T mu_C <=
 * |bt_C|_2 |mu_C|_2 (mu_k >= 0 on the inequality rows), and a minimum-norm
 * mu_C lies in the span of the eigenvectors above the rank cut, where
 * mu_C^T A_CC mu_C >= l_C |mu_C|_2^2 (the argument of Mathias and Pang,
 * Linear Algebra Appl. 132, 1990, for |x| <= |(-q)_+| / c(M), with the
 * quadratic form on the handled block in place of c(M)).  The answer is
 * refused unless |mu_C|_2 <= 2 M (+ |tol_mu_C|_2), and, with
 *   T_k = tol_w_k + 16 n eps (|b_k| + sqrt(A_kk sum_{j in C} A_jj) 2 M)
 * (the rounding of forming w_k and of a backward-stable solve at any
 * solution within the bound, |A_kj| <= sqrt(A_kk A_jj)), every row has
 * |(A mu + b)_k - w_k| <= T_k, every equality row |w_k| <= T_k and every
 * inequality row w_k >= -T_k, mu_k >= -tol_mu_k and mu_k <= tol_mu_k or
 * |w_k| <= T_k, in double precision on the problem as the caller gave it
 * (an answer whose terms |b_k| + sum_j |A_kj mu_j| leave the double range
 * cannot be checked there, and is refused).  A refusal is
 * CDYN_EUNVERIFIED, a negative status: the contact scheme fails its step
 * and the stepper restores the state; cdyn_activeset_solve leaves the
 * refused numbers in mu and w for inspection.  On 3686c8fb, M = 1.98
 * (l_C = 4.2: the eigenvalue 1.8e-12 is below the cut, and the
 * minimum-norm solution has no component along it) against |mu_C| =
 * 2.8e13.  Over the fuzz corpus every success of lcp the reference
 * rejected (6 CDYN_OK, 17 CDYN_NOCONV) is refused, and every one it
 * accepts passes but f5455fbc, whose set lcp reaches has multipliers
 * whose products with A leave the double range (the reference solves
 * that problem at another set).
 *
 * Starting from a guess (a warm start; derived here)
 * --------------------------------------------------
 * A caller that solves a sequence of problems whose clamped sets change
 * little (a contact scheme, sub-step after sub-step) can pass the last
 * set as p->prev, a guess of the inequality rows to clamp (the type's
 * flag `warm_starts`).  The method above needs only that its state obey
 * the invariants of a drive's end: w_C = 0 and mu_C >= 0 on the
 * inequality rows of C, NC empty or at w >= 0.  So C is set to E and the
 * guessed inequality rows, mu_C is solved from A_CC mu_C = -b_C, and
 * every inequality row of C with mu_k < -tol_mu is released together (a
 * block pivot), the rest solved again, until none pulls: each pruning
 * removes at least one row, so at most |guess| + 1 solves.  Then every
 * row of C must hold its equation, |w_k| <= tol_w plus the final check's
 * rounding floor; if one does not (nearly dependent guessed rows whose
 * equations cannot all hold, or equality rows that the guessed rows make
 * look inconsistent), the guess is abandoned and the solve starts cold
 * from C = E.  Otherwise the drives start from that C with NC empty: it
 * is the state a cold start would have reached had it driven those rows
 * first, so the argument of finiteness below holds as it stands (at most
 * n drives, each row that has finished one keeping mu >= 0 in C or
 * w >= 0 in NC).  The answer does not depend on the guess beyond
 * rounding where the multipliers are unique (the inequality rows of C
 * independent, as above); where they are not, it is one of the
 * solutions.  When the guess is the answer's own set, no row is driven:
 * the first solve is the final one, and the cost is one factorisation
 * (with sparse sub-solves: one numeric factorisation of A_CC, and one
 * symbolic analysis when the pattern is new).  An empty guess (no
 * inequality row) is the cold start, bit for bit.
 *
 * Counting: every fdirection with |C| >= 1 is one solve, every pivot pass
 * one iteration; the first solve of the equality rows (when there are
 * any) and each final solve count one iteration and, when not empty, one
 * solve.
 *
 * Storage: mu and w are the iterates, handled is C, ws->set holds NC (and
 * which of its rows an exchange released) and the rows put aside,
 * ws->tmp[0] dmu, ws->tmp[1] dw, ws->tmp[2] the
 * fdirection right-hand side (ws->tmp[3] belongs to cdyn_as_solve_set).  Nothing is allocated.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "activeset/activeset.h"
#include "core/internal.h"

/* Relative size below which a component of dw on a row of NC, or of u
   on a row of C, is rounding noise (see the choices above). */
#define LCP_DIR_TOL 1e-10
/* The constant of the rounding estimate of dw_d (see the choices above). */
#define LCP_ROUND 16.0

/* Values of the NC flags (ws->set). */
enum { LCP_FREE = 0, LCP_NC = 1, LCP_STUCK = 2, LCP_ZERO = 3, LCP_SWAP = 4 };
/* What drive() did with row d, besides its status (which is a cdyn status,
   CDYN_OK or negative, never one of these). */
enum lcp_drive {
  LCP_DRIVE_DONE,  /* d joined C (or NC, at zero within tol_w) */
  LCP_DRIVE_STUCK, /* d depends on C and no row blocks: it cannot move */
  LCP_DRIVE_ZERO   /* d is at zero to rounding, depending on C */
};

typedef struct lcp_state {
  cdyn_as_ws *ws;
  const cdyn_as_problem *p;
  double *mu, *w;
  unsigned char *C, *NC;
  cdyn_activeset_report *rep;
  unsigned long passes, limit;
  int fresh; /* mu, w are C's solution from one solve, untouched since (the warm start's) */
} lcp_state;

static int too_many(const lcp_state *s)
{
  return cdyn_error(CDYN_ESOLVE,
                    "active set lcp: no solution after %lu pivot passes on %zu rows (limit 10 n + 10): "
                    "the pivoting cycles",
                    s->passes, s->p->n);
}

/*
 * Drive row d (outside C, w_d < -tol_w) to zero: Baraff's drive-to-zero.
 * swapped says that d was released by an exchange between dependent rows
 * (LCP_SWAP): while it depends on C and is at zero to rounding it is not
 * exchanged back (see "A row that depends on C" above).
 * Returns CDYN_OK or a negative status; on CDYN_OK *out says
 * LCP_DRIVE_DONE when d has joined C (or NC, at zero within tol_w),
 * LCP_DRIVE_ZERO when d depends on C with w_d = 0 to rounding at the
 * solution of C (mu_d = 0), LCP_DRIVE_STUCK when d depends on C and no
 * row blocks (mu_d is then 0 again).
 */
static int drive(lcp_state *s, size_t d, int swapped, enum lcp_drive *out)
{
  *out = LCP_DRIVE_DONE;
  s->fresh = 0;
  const cdyn_as_problem *p = s->p;
  const double *A = p->A;
  size_t n = p->n;
  double *u = s->ws->tmp[0], *dw = s->ws->tmp[1], *rhs = s->ws->tmp[2];
  for (;;) {
    if (++s->passes > s->limit)
      return too_many(s);
    /* fdirection: A_CC u_C = -A_Cd, u_d = 1. */
    cdyn_as_column(p, d, -1.0, rhs);
    size_t size;
    int rc = cdyn_as_subsolve(s->ws, n, A, s->C, rhs, p->rank_tol, u, &size);
    if (rc)
      return rc;
    u[d] = 1;
    s->rep->iterations++;
    if (size)
      s->rep->solves++;
    /* dw = A u over the support C + {d} of u; u^T |A| u with the
       largest diagonal entry over the support, for the test of dw_d;
       and the noise scale rs = sum_j sqrt(A_jj) |u_j| over the support
       (see the choices above). */
    double quad, dmax, rs;
    cdyn_as_direction(p, s->C, d, u, dw, &quad, &dmax, &rs);
    double dw_min = fmax(p->rank_tol * dmax, LCP_ROUND * (double)(size + 1) * DBL_EPSILON * quad);
    /* maxstep.  Among C and NC the first smallest ratio wins (C before
       NC, lower index first), except at a step of 0, where the lowest
       index of C and NC together wins (the least-index rule that makes
       the degenerate pivots finite; see "Degenerate pivots" above);
       components of u and dw below their noise levels do not block. */
    double step = INFINITY;
    size_t j = n;
    for (size_t i = 0; i < n; i++)
      if (s->C[i] && !cdyn_as_is_eq(p, i) && sqrt(cdyn_as_diag(p, i)) * u[i] < -LCP_DIR_TOL * rs) {
        double r = s->mu[i] > 0 ? s->mu[i] / -u[i] : 0;
        if (r < step) {
          step = r;
          j = i;
        }
      }
    for (size_t k = 0; k < n; k++)
      if ((s->NC[k] == LCP_NC || s->NC[k] == LCP_SWAP) && dw[k] < -LCP_DIR_TOL * sqrt(cdyn_as_diag(p, k)) * rs) {
        double r = s->w[k] > 0 ? s->w[k] / -dw[k] : 0;
        if (r < step || (r == 0 && step == 0 && k < j)) {
          step = r;
          j = k;
        }
      }
    /* d ends its drive when it reaches zero first, or when a blocking row
       leaves it within tol_w of zero (a tie; see the choices above). */
    int d_done = 0;
    if (dw[d] > dw_min) {
      double r = s->w[d] < 0 ? -s->w[d] / dw[d] : 0;
      if (r <= step) {
        step = r;
        j = d;
      } else if (s->w[d] + step * dw[d] >= -cdyn_as_tol_w(p, d)) {
        d_done = 1;
      }
    } else if (j == n || (swapped && s->mu[d] == 0)) {
      /* d depends on C: A u = 0, so w_d = u^T b - u_C^T w_C, and at the
         solution of C (w_C = 0) the exact w_d is u^T b.  Both w_d (kept
         by the updates) and u^T b (formed afresh) carry the error that
         the sub-solves' rounding puts into the multipliers, carried by
         u: at most about LCP_ROUND (|C| + 1) eps sum_{i in C + d} |u_i|
         (|b_i| + sum_j |A_ij mu_j|) (see the choices above).  d is at
         zero when either is within tol_w and that floor of zero.  This
         is decided before the rows of C that would block are looked at:
         a step along u changes no w, so releasing them only moves
         multipliers between dependent rows, which cannot bring a w_d
         that is zero to rounding any closer (see "A row that depends on
         C" above). */
      double floor_d = 0, utb = 0;
      for (size_t i = 0; i < n; i++)
        if (s->C[i] || i == d) {
          double sc = cdyn_as_row_scale(p, i, s->mu);
          floor_d += fabs(u[i]) * sc;
          utb += u[i] * p->b[i];
        }
      floor_d *= LCP_ROUND * (double)(size + 1) * DBL_EPSILON;
      int at_zero = fmax(s->w[d], utb) >= -cdyn_as_tol_w(p, d) - floor_d;
      if (at_zero && s->mu[d] == 0) {
        *out = LCP_DRIVE_ZERO;
        return CDYN_OK;
      }
      if (j < n) {
        /* Not at zero, and a row of C blocks: the step along u releases
           it, after which d may no longer depend on C. */
      } else if (at_zero) {
        /* An earlier pass of this drive clamped a row just as d reached
           zero, and rounding gave that row the step.  d is clamped too
           (C then depends on it, which the minimum-norm sub-solves
           allow). */
        s->C[d] = 1;
        return CDYN_OK;
      } else if (s->mu[d] == 0) {
        *out = LCP_DRIVE_STUCK;
        return CDYN_OK;
      } else {
        return cdyn_error(CDYN_EINFEASIBLE,
                          "inconsistent constraint set: inequality row %zu (w = %.6g) cannot be brought "
                          "to w >= 0 by multipliers >= 0 (it depends on the handled rows, whose "
                          "multipliers would all grow; the contact problem has no solution)",
                          d, s->w[d]);
      }
    }
    /* The step. */
    s->mu[d] += step;
    for (size_t i = 0; i < n; i++)
      if (s->C[i])
        s->mu[i] += step * u[i];
    for (size_t k = 0; k < n; k++)
      s->w[k] += step * dw[k];
    if (j == d) {
      s->w[d] = 0;
      s->C[d] = 1;
      return CDYN_OK;
    }
    if (s->C[j]) {
      /* Its multiplier would pull: release the row. */
      s->mu[j] = 0;
      s->C[j] = 0;
      s->NC[j] = dw[d] > dw_min ? LCP_NC : LCP_SWAP;
    } else if (d_done) {
      /* j reaches zero together with d: j stays in NC, at zero. */
      s->w[j] = 0;
    } else {
      /* It would be violated: clamp it. */
      s->w[j] = 0;
      s->NC[j] = LCP_FREE;
      s->C[j] = 1;
    }
    if (d_done) {
      s->w[d] = 0;
      s->C[d] = 1;
      return CDYN_OK;
    }
  }
}

/*
 * Drive every row outside C with w_d < -tol_w, lowest index first.  A row
 * that gets stuck is put aside until some other row has been driven (C
 * has changed); when only stuck rows are left, the problem has no
 * solution.
 */
static int drive_all(lcp_state *s)
{
  const cdyn_as_problem *p = s->p;
  size_t n = p->n;
  for (;;) {
    size_t d = n, stuck = n;
    for (size_t k = 0; k < n && d == n; k++) {
      if (s->C[k] || !(s->w[k] < -cdyn_as_tol_w(p, k)))
        continue;
      if (s->NC[k] == LCP_ZERO)
        continue;
      if (s->NC[k] == LCP_STUCK) {
        if (stuck == n)
          stuck = k;
      } else {
        d = k;
      }
    }
    if (d == n) {
      if (stuck == n)
        return CDYN_OK;
      return cdyn_error(CDYN_EINFEASIBLE,
                        "inconsistent constraint set: inequality row %zu (w = %.6g) cannot be brought "
                        "to w >= 0 by multipliers >= 0 (it depends on the handled rows to the rank "
                        "tolerance; the contact problem has no solution)",
                        stuck, s->w[stuck]);
    }
    int swapped = s->NC[d] == LCP_SWAP;
    s->NC[d] = LCP_FREE;
    enum lcp_drive how;
    int rc = drive(s, d, swapped, &how);
    if (rc < 0)
      return rc;
    if (how == LCP_DRIVE_STUCK || how == LCP_DRIVE_ZERO) {
      s->NC[d] = how == LCP_DRIVE_STUCK ? LCP_STUCK : LCP_ZERO;
      continue;
    }
    /* C has changed: every row put aside is looked at again. */
    for (size_t k = 0; k < n; k++)
      if (s->NC[k] == LCP_STUCK || s->NC[k] == LCP_ZERO)
        s->NC[k] = LCP_FREE;
  }
}

static int pivot(lcp_state *s);

/*
 * The warm start (see "Starting from a guess" above): C = E + the guessed
 * inequality rows, solved, and pruned of its pulling rows, a solve for
 * each pruning, until mu_C >= -tol_mu; then every row of C must hold its
 * equation (w_k = 0 to tol_w and the final check's rounding).  Returns 1
 * when C is such a set (mu, w are its solution), 0 when there is no
 * guess or the guess is abandoned (C is then E alone, for the cold
 * start), or a negative status.
 */
static int warm_start(lcp_state *s)
{
  const cdyn_as_problem *p = s->p;
  size_t n = p->n;
  int any = 0;
  if (!p->prev)
    return 0;
  for (size_t k = 0; k < n; k++)
    if (!cdyn_as_is_eq(p, k) && p->prev[k]) {
      s->C[k] = 1;
      any = 1;
    }
  if (!any)
    return 0;
  int rc;
  for (;;) {
    if ((rc = cdyn_as_solve_set(s->ws, p, s->C, s->mu, s->w, s->rep)))
      return rc;
    int pulled = 0;
    for (size_t k = 0; k < n; k++)
      if (s->C[k] && !cdyn_as_is_eq(p, k) && s->mu[k] < -cdyn_as_tol_mu(p, k)) {
        s->C[k] = 0;
        pulled = 1;
      }
    if (!pulled)
      break;
    if (++s->passes > s->limit)
      return too_many(s);
  }
  for (size_t k = 0; k < n; k++) {
    if (!s->C[k])
      continue;
    double sc = cdyn_as_row_scale(p, k, s->mu);
    if (fabs(s->w[k]) > cdyn_as_tol_w(p, k) + LCP_ROUND * (double)n * DBL_EPSILON * sc) {
      /* Nearly dependent guessed rows whose equations cannot all hold
         (or an equality set they make look inconsistent): start cold. */
      for (size_t i = 0; i < n; i++)
        s->C[i] = cdyn_as_is_eq(p, i);
      return 0;
    }
  }
  s->fresh = 1;
  return 1;
}

/*
 * The pivoting, then, when it stops at the pass limit, the last clamped
 * set's own solution: mu_C from A_CC mu_C = -b_C (cdyn_as_solve_set),
 * returned as CDYN_NOCONV.  Its caller verifies it (cdyn_as_conclude),
 * and refuses it unless it is a solution to the rounding the problem
 * allows (see "Rounding and the pass limit" above).
 */
static int solve(cdyn_as_ws *ws, const cdyn_as_problem *p, double *mu, double *w,
                 unsigned char *handled, cdyn_activeset_report *rep)
{
  size_t n = p->n;
  lcp_state s = {.ws = ws, .p = p, .mu = mu, .w = w, .C = handled, .NC = ws->set, .rep = rep,
                 .passes = 0, .limit = 10ul * (unsigned long)n + 10ul};
  int rc = pivot(&s);
  if (rc != CDYN_ESOLVE || s.passes <= s.limit)
    return rc;
  char msg[512];
  snprintf(msg, sizeof msg, "%s", cdyn_errmsg());
  for (size_t k = 0; k < n; k++)
    if (!cdyn_as_is_eq(p, k) && !handled[k])
      mu[k] = 0;
  if ((rc = cdyn_as_solve_set(ws, p, handled, mu, w, rep)))
    return rc;
  return cdyn_error(CDYN_NOCONV, "%s; the result is the last clamped set's solution, less accurate than rel_tol "
                    "asks unless its verification passes", msg);
}

static int pivot(lcp_state *s)
{
  const cdyn_as_problem *p = s->p;
  cdyn_as_ws *ws = s->ws;
  double *mu = s->mu, *w = s->w;
  unsigned char *handled = s->C;
  cdyn_activeset_report *rep = s->rep;
  size_t n = p->n;
  int rc, any_eq = 0;
  for (size_t k = 0; k < n; k++) {
    handled[k] = cdyn_as_is_eq(p, k);
    s->NC[k] = LCP_FREE;
    any_eq |= handled[k];
  }
  if ((rc = warm_start(s)) < 0)
    return rc;
  if (rc) {
    /* Started from the guess: C holds it, pruned to mu_C >= 0. */
  } else if (any_eq) {
    if ((rc = cdyn_as_solve_set(ws, p, handled, mu, w, rep)))
      return rc;
    /* An inconsistent equality set: report it with the least-squares
       result filled in. */
    if (cdyn_as_check_equalities(p, mu, w))
      return cdyn_as_finish(p, mu, w, handled, rep);
  } else {
    for (size_t k = 0; k < n; k++) {
      mu[k] = 0;
      w[k] = p->b[k];
    }
  }
  for (;;) {
    if ((rc = drive_all(s))) {
      if (rc == CDYN_EINFEASIBLE) {
        /* No solution: fill the report from the last iterate, keeping the
           message of the drive. */
        char msg[512];
        snprintf(msg, sizeof msg, "%s", cdyn_errmsg());
        cdyn_as_finish(p, mu, w, handled, rep);
        return cdyn_error(CDYN_EINFEASIBLE, "%s", msg);
      }
      return rc;
    }
    /* The final solve with the clamped set, then its check (a warm
       start that no drive has moved has just made it). */
    if (!s->fresh && (rc = cdyn_as_solve_set(ws, p, handled, mu, w, rep)))
      return rc;
    s->fresh = 0;
    int pulled = 0, violated = 0;
    for (size_t k = 0; k < n; k++) {
      if (cdyn_as_is_eq(p, k))
        continue;
      if (handled[k] && mu[k] < -cdyn_as_tol_mu(p, k)) {
        handled[k] = 0;
        pulled = 1;
      } else if (!handled[k] && w[k] < -cdyn_as_tol_w(p, k) && s->NC[k] != LCP_ZERO) {
        violated = 1;
      }
    }
    if (pulled)
      for (size_t k = 0; k < n; k++)
        if (s->NC[k] == LCP_ZERO)
          s->NC[k] = LCP_FREE;
    /* The clamped rows' equations must hold: w_k = 0 to tol_w and the
       rounding of the final solve.  Nearly dependent clamped rows with
       incompatible b (two nearly parallel walls at different offsets)
       leave the least-squares solve a residual instead, far above it: the
       solver has not found a solution, and may not exist one. */
    if (!pulled)
      for (size_t k = 0; k < n; k++) {
        if (!handled[k] || cdyn_as_is_eq(p, k))
          continue;
        double sc = cdyn_as_row_scale(p, k, mu);
        if (fabs(w[k]) > cdyn_as_tol_w(p, k) + LCP_ROUND * (double)n * DBL_EPSILON * sc)
          return cdyn_error(CDYN_ESOLVE,
                            "active set lcp: the handled row %zu is left at w = %.6g, not 0: the handled rows are "
                            "nearly dependent and their equations cannot all hold (the contact problem may have "
                            "no solution)",
                            k, w[k]);
      }
    if (!pulled && !violated) {
      /* A row judged at zero to the rounding of nearly dependent rows may
         stand below -tol_w: within what the problem's conditioning lets
         the solves resolve, but not what rel_tol asked.  The result is
         then recoverable, not exact, and says so. */
      for (size_t k = 0; k < n; k++)
        if (!handled[k] && !cdyn_as_is_eq(p, k) && s->NC[k] == LCP_ZERO && w[k] < -cdyn_as_tol_w(p, k))
          return cdyn_error(CDYN_NOCONV,
                            "active set lcp: row %zu is left at w = %.6g, below -tol_w = %.3g but within the "
                            "rounding of nearly dependent rows; the result is less accurate than rel_tol asks",
                            k, w[k], -cdyn_as_tol_w(p, k));
      return CDYN_OK;
    }
    if (++s->passes > s->limit)
      return too_many(s);
    if (pulled && (rc = cdyn_as_solve_set(ws, p, handled, mu, w, rep)))
      return rc;
  }
}

const cdyn_activeset_type cdyn_activeset_lcp = {
  .name = "lcp",
  .description = "exact LCP solution by principal pivoting (Dantzig/Baraff), equality rows always clamped",
  .source = "Baraff 1994 (SIGGRAPH) §4-6; Cottle, Pang and Stone 1992 §4.2",
  .carries_set = 0,
  .warm_starts = 1,
  .exact = 1,
  .solve = solve,
};
