/*
 * claims.c: the papers' claims, the experiment registry, and the claims
 * report.
 *
 * `cdyn report DIR` reads DIR/<experiment>/claims.part.csv for every
 * registered experiment and writes, in the order of the list below,
 *   DIR/claims.csv  id,experiment,measured,threshold,verdict,note
 *   DIR/claims.md   the same as a table, each claim's wording, and the
 *                   experiments' report fragments (report.part.md)
 * A claim no experiment has judged yet is listed as not-run.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"

#define CDYN_EXPERIMENT(id) extern const cdyn_experiment cdyn_experiment_##id;
#include "experiments.def"
#undef CDYN_EXPERIMENT

const cdyn_experiment *const cdyn_experiments[] = {
#define CDYN_EXPERIMENT(id) &cdyn_experiment_##id,
#include "experiments.def"
#undef CDYN_EXPERIMENT
  NULL};

typedef struct {
  const char *id, *paper, *text;
} claim_def;

static const claim_def claims[] = {
  {"arm2.baumgarte_grows", "001 fig 2",
   "On the 2-link arm (h = 0.05, 1460 steps) Baumgarte's per-step constraint error grows as the run proceeds."},
  {"arm2.poststab_to_zero", "001 fig 2", "Post-stabilization's per-step error converges to about zero."},
  {"arm2.implicit_tight", "001 fig 2",
   "Implicit enforcement keeps a tight error bound: a little above post-stabilization, well below Baumgarte."},
  {"arm2.implicit_tracks_reference", "001 fig 3",
   "Implicit's y-trajectory of the second node overlaps the reduced-coordinate reference over the run."},
  {"arm2.poststab_deviates", "001 fig 3", "Post-stabilization's trajectory deviates from the reference early."},
  {"chain10.poststab_fails", "001 fig 4",
   "10-link saw-tooth chain, both ends fixed, h = 0.001: post-stabilization holds, then fails suddenly (around step 1300)."},
  {"chain10.implicit_stable", "001 fig 4",
   "Implicit stays stable with comparable error that decreases slowly over time."},
  {"implicit.large_steps", "001 sec III",
   "Implicit enforcement stays stable at step sizes where explicit Baumgarte does not."},
  {"implicit.bad_initial", "001 sec III",
   "Implicit enforcement converges quickly, without oscillation, from a state that violates Phi = 0 and Phi-dot = 0."},
  {"implicit.same_cost", "001 sec III", "Implicit costs the same per step as Baumgarte (same matrix)."},
  {"arm5.improved_2x", "000 fig 3",
   "The improved midpoint scheme is about 2x more accurate than first-order implicit, for h in {0.01, 0.1} and mass in {1, 50}."},
  {"arm5.error_grows_with_h_and_mass", "000 fig 3",
   "The accumulated error grows with the step size and with the mass."},
  {"arm5.implicit_beats_baumgarte", "000 fig 4",
   "Implicit's error is below Baumgarte's; Baumgarte's depends strongly on alpha and beta."},
  {"improved.small_extra_cost", "000 sec 5", "The improved scheme costs little more than first-order implicit."},
  {"corner.platt_crosses", "003 fig 2, 4, 5",
   "With f = (2, -1), Platt's algorithm lets the particle cross y = 0: error below 1e-5 at m = 2, larger at m = 3."},
  {"corner.tendency_fixes_case1", "003 sec 4.1", "The violation-tendency algorithm handles f = (2, -1)."},
  {"corner.tendency_fails_case2", "003 fig 3",
   "The violation-tendency algorithm fails for f = (-1, -2): the particle crosses g1."},
  {"corner.iterative_exact", "003 sec 5", "The iterative algorithm keeps the error below 1e-8 in every corner case."},
  {"billiard.iterative_handles", "003 fig 6",
   "With 11 balls and 77 inequality constraints the iterative algorithm handles all simultaneous contacts: no penetration."},
  {"iterative.terminates", "003 sec 4.2", "The iterative algorithm terminates after at most n solves."},
  {"bead.drift_without_feedback", "002", "On a circle without feedback, the bead drifts off."},
  {"bead.feedback_holds", "002", "With spring-and-damper feedback (ks, kd) the bead stays on the circle."},
  {"spring.stiff_needs_small_h", "004",
   "An explicit stiff-spring pendulum is stable only for h = O(sqrt(m/k)); the constrained pendulum is not limited so."},
  {"pbd.soft_with_few_iterations", "004", "Position-based dynamics with too few iterations makes constraints look soft."},
  {"cloth.elongation_bounded", "000 fig 1, 001 fig 6",
   "With constraints on over-stretched springs the cloth stays within 10 % elongation and stable; with springs alone it over-stretches."},
  {"cloth.contact_no_penetration", "001 fig 5",
   "Non-penetration constraints hold the cloth against heavy balls with no visible penetration, and release it on time."},
  {"cloth.constraints_cheaper", "001 sec V-B",
   "Constraining only over-stretched springs is substantially cheaper per step than a global implicit integrator on all springs."},
};
#define NCLAIMS (sizeof claims / sizeof claims[0])

#define NFIELDS 6
typedef struct {
  char *f[NFIELDS];
} row;

/* Split one CSV line (quoted fields allowed) into NFIELDS fields. */
static int parse_line(char *line, row *r)
{
  char *out = line;
  int k = 0;
  char *p = line;
  r->f[0] = out;
  while (*p && *p != '\n') {
    if (*p == '"') {
      p++;
      while (*p && !(*p == '"' && p[1] != '"')) {
        if (*p == '"')
          p++;
        *out++ = *p++;
      }
      if (*p == '"')
        p++;
    } else if (*p == ',') {
      *out++ = '\0';
      if (++k >= NFIELDS)
        return 0;
      r->f[k] = out;
      p++;
    } else {
      *out++ = *p++;
    }
  }
  *out = '\0';
  return k == NFIELDS - 1;
}

static FILE *open_tmp(const char *dir, const char *name, char *tmp, size_t len)
{
  snprintf(tmp, len, "%s/.%s.tmp", dir, name);
  FILE *f = fopen(tmp, "w");
  if (!f)
    fprintf(stderr, "cdyn report: cannot write %s: %s\n", tmp, strerror(errno));
  return f;
}

static int close_tmp(FILE *f, const char *dir, const char *name, const char *tmp)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (ferror(f) | fclose(f) || rename(tmp, path)) {
    remove(tmp);
    fprintf(stderr, "cdyn report: cannot write %s\n", path);
    return CDYN_EIO;
  }
  return CDYN_OK;
}

int exp_write_report(const char *dir)
{
  static row found[NCLAIMS];
  static char *lines[NCLAIMS];
  memset(found, 0, sizeof found);
  int rc = CDYN_OK;
  for (size_t e = 0; cdyn_experiments[e]; e++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/claims.part.csv", dir, cdyn_experiments[e]->name);
    FILE *f = fopen(path, "r");
    if (!f)
      continue;
    char buf[8192];
    while (fgets(buf, sizeof buf, f)) {
      row r;
      char *copy = strdup(buf);
      if (!copy || !parse_line(copy, &r)) {
        fprintf(stderr, "cdyn report: %s: malformed line: %s", path, buf);
        free(copy);
        rc = CDYN_EIO;
        continue;
      }
      size_t k;
      for (k = 0; k < NCLAIMS; k++)
        if (!strcmp(claims[k].id, r.f[0]))
          break;
      if (k == NCLAIMS) {
        fprintf(stderr, "cdyn report: %s: unknown claim id '%s'\n", path, r.f[0]);
        free(copy);
        rc = CDYN_EIO;
        continue;
      }
      free(lines[k]);
      lines[k] = copy;
      found[k] = r;
    }
    fclose(f);
  }
  char tmp_csv[4200], tmp_md[4200];
  FILE *csv = open_tmp(dir, "claims.csv", tmp_csv, sizeof tmp_csv);
  FILE *md = csv ? open_tmp(dir, "claims.md", tmp_md, sizeof tmp_md) : NULL;
  if (!csv || !md) {
    if (csv) {
      fclose(csv);
      remove(tmp_csv);
    }
    return CDYN_EIO;
  }
  int counts[4] = {0, 0, 0, 0};
  static const char *const verdicts[4] = {"holds", "partly", "does-not-hold", "not-run"};
  fprintf(csv, "id,experiment,measured,threshold,verdict,note\n");
  fprintf(md, "# cdyn claims report\n\n"
              "Generated by `cdyn report` (cdyn %s) from the experiments' verdicts.\n"
              "Each verdict is computed in code from the measured number against a\n"
              "threshold fixed before the measurement; see each experiment's notes.\n\n"
              "| claim | paper | verdict | measured | threshold | note |\n"
              "|---|---|---|---|---|---|\n",
          cdyn_version());
  for (size_t k = 0; k < NCLAIMS; k++) {
    const char *exp = "", *meas = "", *thr = "", *ver = "not-run", *note = "no experiment has measured this claim yet";
    if (found[k].f[0]) {
      exp = found[k].f[1];
      meas = found[k].f[2];
      thr = found[k].f[3];
      ver = found[k].f[4];
      note = found[k].f[5];
    }
    for (int v = 0; v < 4; v++)
      counts[v] += !strcmp(ver, verdicts[v]);
    exp_csv_field(csv, claims[k].id);
    fputc(',', csv);
    exp_csv_field(csv, exp);
    fputc(',', csv);
    exp_csv_field(csv, meas);
    fputc(',', csv);
    exp_csv_field(csv, thr);
    fputc(',', csv);
    exp_csv_field(csv, ver);
    fputc(',', csv);
    exp_csv_field(csv, note);
    fputc('\n', csv);
    fprintf(md, "| `%s` | %s | **%s** | %s | %s | %s |\n", claims[k].id, claims[k].paper, ver, meas, thr,
            note);
  }
  fprintf(md, "\n%d hold, %d partly, %d do not hold, %d not run.\n\n## The claims\n\n", counts[0],
          counts[1], counts[2], counts[3]);
  for (size_t k = 0; k < NCLAIMS; k++)
    fprintf(md, "- `%s` (%s): %s\n", claims[k].id, claims[k].paper, claims[k].text);
  for (size_t e = 0; cdyn_experiments[e]; e++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/report.part.md", dir, cdyn_experiments[e]->name);
    FILE *f = fopen(path, "r");
    if (!f)
      continue;
    fprintf(md, "\n## Experiment `%s` (%s)\n\n", cdyn_experiments[e]->name, cdyn_experiments[e]->source);
    char buf[4096];
    size_t nread;
    while ((nread = fread(buf, 1, sizeof buf, f)) > 0)
      fwrite(buf, 1, nread, md);
    fclose(f);
  }
  for (size_t k = 0; k < NCLAIMS; k++) {
    free(lines[k]);
    lines[k] = NULL;
  }
  int r1 = close_tmp(csv, dir, "claims.csv", tmp_csv);
  int r2 = close_tmp(md, dir, "claims.md", tmp_md);
  if (r1 || r2)
    return CDYN_EIO;
  printf("%d hold, %d partly, %d do not hold, %d not run\n", counts[0], counts[1], counts[2], counts[3]);
  printf("claims: %s/claims.csv and %s/claims.md\n", dir, dir);
  return rc;
}
