/*
 * ccd_census.c: ccd-census, beyond the papers (doc/cloth.md, "Collision
 * detection" and "An exact reference is possible": the detector is held
 * to missing nothing, counted against an exact reference): the library's
 * continuous collision detection
 * (cdyn_ccd_vf, cdyn_ccd_ee, lib/collision/ccd.c: conservative interval bisection)
 * against the exact reference (ref_ccd_vf, ref_ccd_ee,
 * reference/ccd_exact.c: integers, Bernstein bounds and Sturm sequences),
 * query by query.
 *
 * The queries (experiments/problems/ccd_queries.h gives each family in full): four
 * points moving linearly over t in [0, 1], node-triangle (vf) or
 * edge-edge (ee).  `random` of them (half vf, half ee) in the unit box
 * with displacements in [-1/2, 1/2]^3, a third of them shifted to cross;
 * and `degenerate` of each kind in each constructed degenerate family,
 * built exactly on dyadic rationals so that the answer is known by
 * construction: coplanar motion, parallel edges (vf: the node along an
 * edge's line), a root at t = 0, at t = 1, contact at a vertex, along an
 * edge, a vanishing t^3 coefficient of the coplanarity cubic, near misses
 * 2^-30 (about 9.3e-10) outside and grazing touches at distance 0; half of
 * each built to touch and half to miss (near misses all miss, grazes all
 * touch), the misses certified by a separating plane.
 *
 * Each query is answered by the library (time resolution tol) and by the
 * reference, each timed with CLOCK_MONOTONIC around its call.  Counted per
 * family and kind: queries, contacts (the reference's 1), degenerate (the
 * reference's REF_CCD_DEGENERATE: a zero-area triangle or zero-length edge
 * at the contact, counted apart, not a disagreement), false negatives (the
 * library's no where the reference says yes), late (the library's yes at
 * a time after the reference's bracket of the first contact, which the
 * library promises not to do), false positives (the library's yes where
 * the reference says no), and for the constructed families the queries on
 * which the reference disagrees with the construction (built_wrong: one of
 * them is wrong).  Every disagreement (false negative, late, false
 * positive) goes to ccd-counterexamples.csv with the 8 points as C99 hex
 * floats ("%a"), so it replays exactly; tests/data/
 * ccd-census-counterexamples.csv is the default run's with the library's
 * earlier interval-arithmetic test (1,897 false positives, none left
 * now), replayed by tests/test_ccd_census.c.  The draws come from one gsl mt19937 stream
 * seeded with `seed`, family by family (random first), vf then ee: the
 * same command gives the same queries and counts, bit for bit; the times
 * (each side's mean per query, the library's median) go to
 * ccd-census-time.csv, to the report's last three columns and to the
 * line after its table (the library's mean and median over the random
 * and over the constructed queries), which change from run to run.  No claim of the papers rests on this census:
 * the report's table is its result (the rule the experiment keeps: no
 * false negative, no late contact, no query built wrong; tests assert it).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include <cdyn/collision.h>
#include <cdyn/stepper.h>

#include "ccd_exact.h"
#include "problems/ccd_queries.h"
#include "runner/experiment.h"

static const exp_param params[] = {
  {"random", "100000", EXP_INT, 0, 1e8, 0, "random queries, half node-triangle and half edge-edge"},
  {"degenerate", "600", EXP_INT, 0, 1e7, 0, "constructed queries of each degenerate family and kind"},
  {"seed", "1", EXP_INT, 0, 4294967295.0, 0, "seed of the gsl mt19937 stream"},
  {"tol", "1e-6", EXP_REAL, 0, 0.5, EXP_OPEN_MIN, "the library's time resolution (cdyn_ccd_vf, cdyn_ccd_ee)"},
  EXP_PARAMS_END};

static int check(exp_ctx *ctx)
{
  if (exp_param_long(ctx, "random") + exp_param_long(ctx, "degenerate") == 0)
    return cdyn_error(CDYN_EINVAL, "random = 0 and degenerate = 0: no query to make");
  return CDYN_OK;
}

static const char *const kind_names[2] = {"vf", "ee"};

/* ---- the census --------------------------------------------------------------------------- */

typedef struct {
  unsigned long queries, built, built_contacts, built_wrong, contacts, degenerate, fn, late, fp;
  double lib_time, ref_time, lib_median;
} tally;

static void add_tally(tally *to, const tally *t)
{
  to->queries += t->queries, to->built += t->built, to->built_contacts += t->built_contacts;
  to->built_wrong += t->built_wrong, to->contacts += t->contacts, to->degenerate += t->degenerate;
  to->fn += t->fn, to->late += t->late, to->fp += t->fp;
  to->lib_time += t->lib_time, to->ref_time += t->ref_time;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of v[0 .. n - 1] (reordered); 0 for none. */
static double median(double *v, size_t n)
{
  if (!n)
    return 0;
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#define CX_COLUMNS                                                                                                   \
  "kind,family,query,reference,library,late,x1_0,y1_0,z1_0,x1_1,y1_1,z1_1,x2_0,y2_0,z2_0,x2_1,y2_1,z2_1,x3_0,y3_0," \
  "z3_0,x3_1,y3_1,z3_1,x4_0,y4_0,z4_0,x4_1,y4_1,z4_1"

/* A disagreement as a row of text: the points as hex floats. */
static int write_cx(exp_csv *cx, int ee, int fam, unsigned long i, int ref, int lib, int late,
                    const double x[4][2][3])
{
  char buf[30][40];
  const char *f[30];
  snprintf(buf[0], sizeof buf[0], "%s", kind_names[ee]);
  snprintf(buf[1], sizeof buf[1], "%s", ccdq_family_names[fam]);
  snprintf(buf[2], sizeof buf[2], "%lu", i);
  snprintf(buf[3], sizeof buf[3], "%d", ref);
  snprintf(buf[4], sizeof buf[4], "%d", lib);
  snprintf(buf[5], sizeof buf[5], "%d", late);
  for (int p = 0; p < 4; p++)
    for (int e = 0; e < 2; e++)
      for (int k = 0; k < 3; k++)
        snprintf(buf[6 + 6 * p + 3 * e + k], sizeof buf[0], "%a", x[p][e][k]);
  for (int c = 0; c < 30; c++)
    f[c] = buf[c];
  return exp_csv_row_labels(cx, f, 30, NULL, 0);
}

static int run(exp_ctx *ctx)
{
  int rc;
  unsigned long nrand = (unsigned long)exp_param_long(ctx, "random");
  unsigned long ndeg = (unsigned long)exp_param_long(ctx, "degenerate");
  double seed_d, tol;
  exp_param_double(ctx, "seed", &seed_d);
  exp_param_double(ctx, "tol", &tol);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  if (!r)
    return cdyn_error(CDYN_ENOMEM, "ccd-census: out of memory for the generator");
  gsl_rng_set(r, (unsigned long)seed_d);

  static tally t[CCDQ_NFAM][2];
  memset(t, 0, sizeof t);
  unsigned long total = 2 * ndeg * (CCDQ_NFAM - 1) + nrand, done = 0;
  /* The library's time of every query, family by family and kind by
     kind from off[fam][ee], for the medians; and room to gather groups. */
  size_t off[CCDQ_NFAM][2], at = 0;
  for (int fam = 0; fam < CCDQ_NFAM; fam++)
    for (int ee = 0; ee < 2; ee++) {
      off[fam][ee] = at;
      at += fam == CCDQ_RANDOM ? (ee ? nrand / 2 : nrand - nrand / 2) : ndeg;
    }
  double *lt = malloc((total ? total : 1) * sizeof *lt), *scratch = malloc((total ? total : 1) * sizeof *scratch);
  if (!lt || !scratch) {
    free(lt);
    free(scratch);
    gsl_rng_free(r);
    return cdyn_error(CDYN_ENOMEM, "ccd-census: out of memory for the times of %lu queries", total);
  }
  exp_csv cx;
  if ((rc = exp_csv_open(ctx, &cx, "ccd-counterexamples", CX_COLUMNS, NULL,
                         "\"note\": \"every query on which the library and the reference disagree: the points "
                         "(1: p, 2-4: a, b, c or q, r, s) at t = 0 and 1 as C99 hex floats\""))) {
    free(lt);
    free(scratch);
    gsl_rng_free(r);
    return rc;
  }
  double t_start = cdyn_clock();
  for (int fam = 0; fam < CCDQ_NFAM && !rc; fam++)
    for (int ee = 0; ee < 2 && !rc; ee++) {
      unsigned long n = fam == CCDQ_RANDOM ? (ee ? nrand / 2 : nrand - nrand / 2) : ndeg;
      tally *ta = &t[fam][ee];
      for (unsigned long i = 0; i < n && !rc; i++) {
        exp_progress(ctx, "ccd-census", (long)++done, (long)total);
        double x[4][2][3];
        int built = -1;
        if (fam == CCDQ_RANDOM) {
          if ((rc = ccdq_random(r, ee, i, x)))
            break;
        } else {
          ccdq_info info;
          if ((rc = ccdq_constructed(r, fam, ee, i, x, &info)))
            break;
          built = info.built;
        }
        int hit = 0, ref;
        double tl = 0, lo = 0, hi = 0;
        double t0 = cdyn_clock();
        if (ee)
          rc = cdyn_ccd_ee(x[0][0], x[0][1], x[1][0], x[1][1], x[2][0], x[2][1], x[3][0], x[3][1], tol, &hit, &tl);
        else
          rc = cdyn_ccd_vf(x[0][0], x[0][1], x[1][0], x[1][1], x[2][0], x[2][1], x[3][0], x[3][1], tol, &hit, &tl);
        double t1 = cdyn_clock();
        ref = ee ? ref_ccd_ee(x[0], x[1], x[2], x[3], &lo, &hi) : ref_ccd_vf(x[0], x[1], x[2], x[3], &lo, &hi);
        double t2 = cdyn_clock();
        if (rc)
          break;
        if (ref == REF_CCD_EINVAL) {
          rc = cdyn_error(CDYN_EINVAL, "ccd-census: the reference refused query %lu of %s %s", i, ccdq_family_names[fam],
                          kind_names[ee]);
          break;
        }
        lt[off[fam][ee] + ta->queries] = t1 - t0;
        ta->queries++;
        ta->lib_time += t1 - t0;
        ta->ref_time += t2 - t1;
        if (built >= 0) {
          ta->built++;
          ta->built_contacts += (unsigned long)built;
        }
        if (ref == REF_CCD_DEGENERATE) {
          ta->degenerate++;
          continue;
        }
        if (built >= 0 && built != ref)
          ta->built_wrong++;
        ta->contacts += (unsigned long)ref;
        int fn = ref == 1 && !hit, late = ref == 1 && hit && tl > hi, fp = ref == 0 && hit;
        ta->fn += (unsigned long)fn;
        ta->late += (unsigned long)late;
        ta->fp += (unsigned long)fp;
        if (fn || late || fp)
          rc = write_cx(&cx, ee, fam, i, ref, hit, late, (const double(*)[2][3])x);
      }
    }
  double elapsed = cdyn_clock() - t_start;
  gsl_rng_free(r);
  int crc = exp_csv_close(&cx, rc == CDYN_OK);
  if (rc || (rc = crc)) {
    free(lt);
    free(scratch);
    return rc;
  }

  tally all[2], grand;
  memset(all, 0, sizeof all);
  memset(&grand, 0, sizeof grand);
  for (int fam = 0; fam < CCDQ_NFAM; fam++)
    for (int ee = 0; ee < 2; ee++) {
      add_tally(&all[ee], &t[fam][ee]);
      add_tally(&grand, &t[fam][ee]);
    }
  /* Medians: per family and kind, per kind, and of the random and of the
     constructed queries (both kinds), with their means. */
  double group_median[2], group_mean[2];
  for (int ee = 0; ee < 3; ee++) {
    for (int g = 0; g < (ee < 2 ? 1 : 2); g++) {
      size_t m = 0;
      double sum = 0;
      for (int fam = 0; fam < CCDQ_NFAM; fam++)
        for (int e = 0; e < 2; e++) {
          if ((ee < 2 && e != ee) || (ee == 2 && (fam == CCDQ_RANDOM) != (g == 0)))
            continue;
          memcpy(scratch + m, lt + off[fam][e], t[fam][e].queries * sizeof *lt);
          m += t[fam][e].queries;
          sum += t[fam][e].lib_time;
        }
      if (ee < 2)
        all[ee].lib_median = median(scratch, m);
      else {
        group_mean[g] = m ? sum / (double)m : 0;
        group_median[g] = median(scratch, m);
      }
    }
  }
  for (int fam = 0; fam < CCDQ_NFAM; fam++)
    for (int ee = 0; ee < 2; ee++)
      t[fam][ee].lib_median = median(lt + off[fam][ee], t[fam][ee].queries);
  free(lt);
  free(scratch);

  /* The counts, then the times; a row per kind and family, then per kind. */
  exp_csv sum, tim;
  if ((rc = exp_csv_open(ctx, &sum, "ccd-census",
                         "kind,family,queries,built,built_contacts,built_wrong,contacts,degenerate,false_negatives,"
                         "late,false_positives",
                         NULL, NULL)))
    return rc;
  for (int ee = 0; ee < 2 && !rc; ee++)
    for (int fam = 0; fam <= CCDQ_NFAM && !rc; fam++) {
      const tally *ta = fam < CCDQ_NFAM ? &t[fam][ee] : &all[ee];
      const char *lab[2] = {kind_names[ee], fam < CCDQ_NFAM ? ccdq_family_names[fam] : "all"};
      double row[9] = {(double)ta->queries,     (double)ta->built,      (double)ta->built_contacts,
                       (double)ta->built_wrong, (double)ta->contacts,   (double)ta->degenerate,
                       (double)ta->fn,          (double)ta->late,       (double)ta->fp};
      rc = exp_csv_row_labels(&sum, lab, 2, row, 9);
    }
  crc = exp_csv_close(&sum, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;
  if ((rc = exp_csv_open(ctx, &tim, "ccd-census-time", "kind,family,queries,lib_time,ref_time,lib_median", NULL,
                         "\"note\": \"mean (and the library's median) wall-clock time per query (CLOCK_MONOTONIC "
                         "around each call): the one file of this experiment that changes from run to run\"")))
    return rc;
  for (int ee = 0; ee < 2 && !rc; ee++)
    for (int fam = 0; fam <= CCDQ_NFAM && !rc; fam++) {
      const tally *ta = fam < CCDQ_NFAM ? &t[fam][ee] : &all[ee];
      const char *lab[2] = {kind_names[ee], fam < CCDQ_NFAM ? ccdq_family_names[fam] : "all"};
      double q = ta->queries ? (double)ta->queries : 1;
      double row[4] = {(double)ta->queries, ta->lib_time / q, ta->ref_time / q, ta->lib_median};
      rc = exp_csv_row_labels(&tim, lab, 2, row, 4);
    }
  crc = exp_csv_close(&tim, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;

  double rq = (double)(t[CCDQ_RANDOM][0].queries + t[CCDQ_RANDOM][1].queries);
  unsigned long rc_contacts = t[CCDQ_RANDOM][0].contacts + t[CCDQ_RANDOM][1].contacts;
  printf("  %lu queries (%lu random, %lu constructed) in %.1f s: %lu false negatives, %lu late, %lu false positives, "
         "%lu degenerate, %lu built wrong\n",
         grand.queries, (unsigned long)rq, grand.queries - (unsigned long)rq, elapsed, grand.fn, grand.late, grand.fp,
         grand.degenerate, grand.built_wrong);
  exp_report(ctx,
             "The library's continuous collision detection (cdyn_ccd_vf, cdyn_ccd_ee, tol = %g) against the exact "
             "reference (reference/ccd_exact.c), query by query: %lu random queries (unit box, displacements in "
             "[-1/2, 1/2]^3, a third shifted to cross; %.1f %% of them collide) and %lu constructed ones per "
             "degenerate family and kind (exact dyadic coordinates, the answer known by construction; seed %.0f). "
             "A false negative is a contact the library does not report, late one it reports after the first "
             "contact's bracket; degenerate queries (a zero-area triangle or zero-length edge at the contact) are "
             "counted apart; built wrong counts constructed queries where the reference disagrees with the "
             "construction. The times are the wall-clock time per query, the mean and for the library also the "
             "median (they change from run to run; ccd-census-time.csv).\n\n"
             "| kind | family | queries | contacts | degenerate | false negatives | late | false positives | built "
             "wrong | library mean (us/query) | library median (us/query) | reference mean (us/query) |\n"
             "|---|---|---|---|---|---|---|---|---|---|---|---|\n",
             tol, (unsigned long)rq, rq > 0 ? 100.0 * (double)rc_contacts / rq : 0.0, ndeg, seed_d);
  for (int ee = 0; ee < 2; ee++)
    for (int fam = 0; fam <= CCDQ_NFAM; fam++) {
      const tally *ta = fam < CCDQ_NFAM ? &t[fam][ee] : &all[ee];
      double q = ta->queries ? (double)ta->queries : 1;
      exp_report(ctx, "| %s | %s | %lu | %lu (%.1f %%) | %lu | %lu | %lu | %lu | %lu | %.2f | %.2f | %.1f |\n",
                 kind_names[ee], fam < CCDQ_NFAM ? ccdq_family_names[fam] : "**all**", ta->queries, ta->contacts,
                 100.0 * (double)ta->contacts / q, ta->degenerate, ta->fn, ta->late, ta->fp, ta->built_wrong,
                 1e6 * ta->lib_time / q, 1e6 * ta->lib_median, 1e6 * ta->ref_time / q);
    }
  exp_report(ctx,
             "\nThe library per query: random queries %.2f us mean, %.2f us median; constructed queries (every "
             "degenerate family, both kinds) %.2f us mean, %.2f us median.\n\n"
             "%lu disagreements (false negatives, late and false positives) are in ccd-counterexamples.csv, "
             "the points as hex floats.\n\n",
             1e6 * group_mean[0], 1e6 * group_median[0], 1e6 * group_mean[1], 1e6 * group_median[1],
             grand.fn + grand.late + grand.fp);
  return CDYN_OK;
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  {NULL, "kind", "", "vf (node-triangle) or ee (edge-edge)"},
  {NULL, "family", "", "query family (experiments/problems/ccd_queries.h; all: the kind's total)"},
  {NULL, "queries", "1", "queries made"},
  {NULL, "built", "1", "queries whose answer is known by construction"},
  {NULL, "built_contacts", "1", "of those, contacts by construction"},
  {NULL, "built_wrong", "1", "constructed queries where the reference disagrees with the construction"},
  {NULL, "contacts", "1", "queries the reference answers with a contact"},
  {NULL, "degenerate", "1",
   "queries the reference reports as degenerate (zero-area triangle or zero-length edge at the contact)"},
  {NULL, "false_negatives", "1", "contacts the library does not report"},
  {NULL, "late", "1", "contacts the library reports after the reference's bracket of the first contact"},
  {NULL, "false_positives", "1", "contacts the library reports where the reference finds none"},
  {NULL, "lib_time", "s", "mean wall-clock time of the library per query"},
  {NULL, "ref_time", "s", "mean wall-clock time of the reference per query"},
  {NULL, "lib_median", "s", "median wall-clock time of the library per query"},
  {NULL, "query", "1", "number of the query within its kind and family, in generation order"},
  {NULL, "reference", "1", "the reference's answer (1 contact, 0 none)"},
  {NULL, "library", "1", "the library's answer (1 contact, 0 none)"},
  {"ccd-counterexamples", "late", "1", "1 if the library's contact time is after the reference's"},
  {NULL, "x#_#", "m",
   "x of point # (1: p; 2-4: a, b, c or q, r, s) at t = # (0 or 1), a C99 hex float (%a)"},
  {NULL, "y#_#", "m", "y of point # at t = #, a hex float"},
  {NULL, "z#_#", "m", "z of point # at t = #, a hex float"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_ccd_census = {
  .name = "ccd-census",
  .description = "continuous collision detection (node-triangle, edge-edge) against an exact reference on random "
                 "and constructed degenerate queries",
  .source = "beyond the papers (doc/cloth.md)",
  .params = params,
  .columns = columns,
  .check = check,
  .schemes = NULL,
  .h = 0,
  .steps = 0,
  .run = run,
};
