/*
 * claims.h: the papers' claims as data, and the one function that judges
 * them.
 *
 * Each claim is one entry of the table in claims.c: its id, the
 * experiment that measures it, its source (paper, figure, section), the
 * paper's wording, the runs it needs, and its rule.  A rule is a list of
 * named sub-measures, each with a unit, a meaning, and two tests:
 *
 *   holds   the sub-measure's test for the verdict "holds"
 *           (EXP_NONE: the sub-measure does not take part);
 *   partly  its test for "partly": EXP_SAME repeats the holds test,
 *           EXP_NONE leaves the sub-measure out.
 *
 * The verdict (exp_verdict) is
 *   holds          every sub-measure with a holds test passes it;
 *   partly         otherwise, the sub-measures with a partly test pass
 *                  it: all of them (partly_any = 0) or at least one
 *                  (partly_any = 1);
 *   does-not-hold  otherwise.
 * A NaN fails every test, so a measure that could not be taken never
 * turns a verdict its way.  The threshold text of claims.csv is written
 * from the rule (exp_rule_text), and the tests judge their own
 * recomputation of the sub-measures with the same function, so each rule
 * exists once.
 *
 * Every threshold was fixed before the measurement it judges, and the
 * entry says why it was chosen.  A rule changes in a commit of its own,
 * never in the commit that records the measurement it turns.
 */
#ifndef CDYN_CLAIMS_H
#define CDYN_CLAIMS_H

#include <stddef.h>

enum exp_cmp {
  EXP_NONE = 0, /* no test */
  EXP_SAME,     /* partly only: the holds test */
  EXP_LE,       /* x <= a */
  EXP_LT,       /* x < a */
  EXP_GE,       /* x >= a */
  EXP_GT,       /* x > a */
  EXP_IN        /* a <= x <= b */
};

typedef struct exp_test {
  enum exp_cmp cmp;
  double a, b;
} exp_test;

typedef struct exp_submeasure {
  const char *name;    /* as in the rule text: ratio, settle_steps, ... */
  const char *unit;    /* m, s, steps, 1 (a ratio or count) */
  const char *meaning; /* one line */
  exp_test holds, partly;
} exp_submeasure;

#define EXP_MAX_SUBMEASURES 6

enum exp_verdict { EXP_HOLDS, EXP_PARTLY, EXP_DOES_NOT_HOLD, EXP_NOT_RUN };

typedef struct exp_claim_def {
  const char *id;
  const char *experiment; /* the experiment that judges it; NULL: none yet */
  const char *source;     /* paper and figure or section */
  const char *text;       /* what the paper says */
  const char *runs;       /* comma-separated runs (scheme or companion names) it needs; "": none (the
                             experiment runs its own study whatever runs are asked for) */
  const char *measured;   /* the sub-measure reported as claims.csv's "measured" */
  int partly_any;         /* partly: any (1) or all (0) of the partly tests */
  exp_submeasure m[EXP_MAX_SUBMEASURES];
  const char *reason;     /* why these thresholds */
} exp_claim_def;

/* One measured sub-measure, by name. */
typedef struct exp_value {
  const char *name;
  double x;
} exp_value;

extern const exp_claim_def exp_claim_defs[];
extern const size_t exp_nclaims;

/* The claim with this id, or NULL. */
const exp_claim_def *exp_claim_find(const char *id);
/* Its number of sub-measures. */
size_t exp_claim_nsub(const exp_claim_def *c);

/*
 * The verdict of claim c on values v (n of them, one per sub-measure of
 * the rule, in any order).  CDYN_EINVAL, with a message naming the
 * fault, when a sub-measure is missing, unknown or given twice; *measured
 * (may be NULL) gets the value of c->measured.
 */
int exp_verdict(const exp_claim_def *c, const exp_value *v, size_t n, enum exp_verdict *out, double *measured);

/* Does x pass the holds test of sub-measure `sub` of claim c?  (For a
   measure that counts the sub-measures that pass.) */
int exp_holds_test(const exp_claim_def *c, const char *sub, double x);

/*
 * What a value of sub-measure `sub` of claim c that is not a finite
 * number means, in words ("no run failed", "never leaves the band"): NaN
 * is a measure that could not be taken, an infinity one that has no
 * bound.  Never NULL.
 */
const char *exp_nonfinite_text(const exp_claim_def *c, const char *sub, double x);

/* "holds", "partly", "does-not-hold" or "not-run". */
const char *exp_verdict_name(enum exp_verdict v);

/* The rule as text ("holds: ratio <= 0.1 and ...; partly: ..."), into buf. */
void exp_rule_text(const exp_claim_def *c, char *buf, size_t len);

#endif
