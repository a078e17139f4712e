/*
 * report.c: the claims report, `cdyn report DIR`.
 *
 * `cdyn report DIR` looks at every directory under DIR that holds a complete
 * run (its run.meta.json, written last by `cdyn run`, names the
 * experiment: "run_of"), whatever the directory is called, and writes,
 * in the order of the claims table (runner/claims.c),
 *   DIR/claims.csv  id,experiment,measured,threshold,verdict,note
 *   DIR/claims.md   the same as a table, each claim's wording, rule,
 *                   sub-measures and the reason for its thresholds, the
 *                   experiments' report fragments (report.part.md), and
 *                   what each run took (run.meta.json's resources)
 * A claim no run has judged is listed as not-run.  Two runs of the same
 * experiment under DIR are an error: the report could not say which one
 * it shows.
 *
 * claims.csv keeps the experiments' fields as they wrote them (the
 * measured value as printf's %g: "nan" for a measure that could not be
 * taken, "inf" for an unbounded one).  claims.md is for reading: its
 * measured column names the sub-measure the verdict compares, with its
 * unit, and says in words what a value that is not a finite number means
 * (exp_nonfinite_text); each paper is cited by its short title the first
 * time its number appears.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runner/cli.h"
#include "runner/text.h"
#include "runner/files.h"
#include "commands.h"
#include "runner/experiment.h"
#include "studies/table.h"
#include "runner/csv.h"

/* The readable report this program writes into DIR (generated output; the
   rules it lists are explained in the manual, doc/claims.md). */
#define CLAIMS_REPORT "claims.md"

#define NFIELDS 6
typedef struct {
  char *f[NFIELDS];
} row;

/* The fields of a record of NFIELDS fields into r, in one new block (the
   caller frees it); NULL out of memory. */
static char *copy_row(const exp_csv_record *rec, row *r)
{
  size_t len = 0;
  for (int k = 0; k < NFIELDS; k++)
    len += strlen(rec->field[k]) + 1;
  char *block = malloc(len), *p = block;
  if (!block)
    return NULL;
  for (int k = 0; k < NFIELDS; k++) {
    size_t l = strlen(rec->field[k]) + 1;
    memcpy(p, rec->field[k], l);
    r->f[k] = p;
    p += l;
  }
  return block;
}

/* The first line of dir's run.meta.json from `key` on, into buf (len
   bytes); 0 when there is none (no complete run, or a line too long). */
static int meta_line(const char *dir, const char *key, char *buf, size_t len)
{
  char path[8300];
  snprintf(path, sizeof path, "%s/run.meta.json", dir);
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  char line[512];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    const char *p = strstr(line, key);
    if (p && strlen(p) < len) {
      memcpy(buf, p, strlen(p) + 1);
      found = 1;
    }
  }
  fclose(f);
  return found;
}

/* The experiment a run directory holds, from its run.meta.json ("run_of"),
   into name; 0 when the directory holds no complete run. */
static int run_of(const char *dir, char *name, size_t len)
{
  char buf[512];
  if (!meta_line(dir, "\"run_of\": \"", buf, sizeof buf))
    return 0;
  const char *p = buf + strlen("\"run_of\": \"");
  size_t n = strcspn(p, "\"\\");
  if (p[n] != '"' || n >= len)
    return 0;
  memcpy(name, p, n);
  name[n] = '\0';
  return 1;
}

/* What the run in dir took (its run.meta.json's "resources", one line);
   0 when it holds none (a run of an earlier cdyn). */
static int run_resources(const char *dir, exp_resources *r)
{
  char buf[512];
  return meta_line(dir, "\"resources\": {", buf, sizeof buf) &&
         sscanf(buf, "\"resources\": {\"wall_s\": %lf, \"cpu_user_s\": %lf, \"cpu_sys_s\": %lf, \"max_rss_mib\": %lf}",
                &r->wall_s, &r->user_s, &r->sys_s, &r->max_rss_mib) == 4;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The run directories under dir, by experiment (indices of cdyn_experiments). */
static int find_runs(const char *dir, char **run_dir, size_t nexp)
{
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "cdyn report: cannot read %s: %s\n", dir, strerror(errno));
    return CDYN_EIO;
  }
  char *names[4096];
  size_t n = 0;
  struct dirent *ent;
  while ((ent = readdir(d)) && n < 4096)
    if (ent->d_name[0] != '.')
      names[n++] = strdup(ent->d_name);
  closedir(d);
  qsort(names, n, sizeof names[0], cmp_str);
  int rc = CDYN_OK;
  for (size_t k = 0; k < n; k++) {
    char sub[8192], exp[256];
    struct stat sb;
    if (!names[k]) {
      rc = CDYN_ENOMEM;
      continue;
    }
    snprintf(sub, sizeof sub, "%s/%s", dir, names[k]);
    if (stat(sub, &sb) || !S_ISDIR(sb.st_mode) || !run_of(sub, exp, sizeof exp))
      continue;
    /* A scene's run (cdyn run scene) judges no claims. */
    if (!strcmp(exp, "scene"))
      continue;
    size_t e = 0;
    while (e < nexp && strcmp(cdyn_experiments[e]->name, exp))
      e++;
    if (e == nexp) {
      fprintf(stderr, "cdyn report: %s is a run of '%s', which this cdyn does not know\n", sub, exp);
      rc = CDYN_EIO;
    } else if (run_dir[e]) {
      fprintf(stderr, "cdyn report: two runs of %s under %s: %s and %s\n", exp, dir, run_dir[e], sub);
      rc = CDYN_EIO;
    } else if (!(run_dir[e] = strdup(sub))) {
      rc = CDYN_ENOMEM;
    }
  }
  for (size_t k = 0; k < n; k++)
    free(names[k]);
  return rc;
}

/* The five works by number (REFERENCES.md cites them in full), as the
   report cites them the first time: authors and a short title. */
static const char *const paper_title[5] = {
  "Hong, Welch and Choi, *Improved Implicit Constraint Enforcement*",
  "Hong, Choi, Jung, Welch and Trapp, *Implicit Constraint Enforcement*",
  "Duthaler, *Constrained Dynamics*, slides on Witkin's course",
  "Jonquet, Nocent and Remion, *The art to keep in touch*",
  "*Constraints*, lecture slides",
};

/* A source ("001 fig 2", "000 sec 2, 001 sec III") with each paper number
   not cited before followed by its title; cited[] remembers them. */
static void md_source(FILE *md, const char *src, int cited[5])
{
  for (const char *p = src; *p; p++) {
    int num = p[0] == '0' && p[1] == '0' && p[2] >= '0' && p[2] <= '4' && (p == src || !strchr("0123456789", p[-1])) &&
              (!p[3] || !strchr("0123456789", p[3]));
    if (!num) {
      fputc(*p, md);
      continue;
    }
    int k = p[2] - '0';
    fprintf(md, "%.3s", p);
    if (!cited[k])
      fprintf(md, " (%s)", paper_title[k]);
    cited[k] = 1;
    p += 2;
  }
}

/* The sub-measure of c named `name`, or NULL. */
static const exp_submeasure *submeasure(const exp_claim_def *c, const char *name)
{
  for (size_t j = 0; name && j < exp_claim_nsub(c); j++)
    if (!strcmp(c->m[j].name, name))
      return &c->m[j];
  return NULL;
}

/* The measured value of claim c as read: "`name` = value [unit]", the
   value in words when it is not a finite number, "not run" without one. */
static void md_measured(FILE *md, const exp_claim_def *c, const char *raw)
{
  const exp_submeasure *s = submeasure(c, c->measured);
  if (!s) {
    fprintf(md, "%s", *raw ? raw : "-");
    return;
  }
  char *end;
  double x = strtod(raw, &end);
  if (!*raw)
    fprintf(md, "`%s` [%s]: not run", s->name, s->unit);
  else if (end == raw || *end)
    fprintf(md, "`%s` = %s [%s]", s->name, raw, s->unit); /* not a number: as the experiment wrote it */
  else if (isfinite(x))
    fprintf(md, "`%s` = %s [%s]", s->name, raw, s->unit);
  else
    fprintf(md, "`%s` [%s]: %s", s->name, s->unit, exp_nonfinite_text(c, s->name, x));
}

static void md_test(FILE *md, const exp_test *t, const exp_test *holds)
{
  if (t->cmp == EXP_SAME)
    t = holds;
  switch (t->cmp) {
  case EXP_LE:
    fprintf(md, "<= %g", t->a);
    break;
  case EXP_LT:
    fprintf(md, "< %g", t->a);
    break;
  case EXP_GE:
    fprintf(md, ">= %g", t->a);
    break;
  case EXP_GT:
    fprintf(md, "> %g", t->a);
    break;
  case EXP_IN:
    fprintf(md, "in [%g, %g]", t->a, t->b);
    break;
  default:
    fprintf(md, "-");
  }
}

int exp_write_report(const char *dir)
{
  size_t nexp = 0;
  while (cdyn_experiments[nexp])
    nexp++;
  char **run_dir = calloc(nexp, sizeof *run_dir);
  row *found = calloc(exp_nclaims, sizeof *found);
  char **lines = calloc(exp_nclaims, sizeof *lines);
  if (!run_dir || !found || !lines) {
    free(run_dir);
    free(found);
    free(lines);
    fprintf(stderr, "cdyn report: out of memory\n");
    return CDYN_ENOMEM;
  }
  int rc = find_runs(dir, run_dir, nexp);
  for (size_t e = 0; e < nexp; e++) {
    if (!run_dir[e])
      continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/claims.part.csv", run_dir[e]);
    FILE *f = fopen(path, "r");
    if (!f)
      continue;
    exp_csv_record rec = {0};
    int rr;
    while ((rr = exp_csv_read(f, &rec)) != 0) {
      row r;
      if (rr == -1) {
        fprintf(stderr, "cdyn report: %s: read error\n", path);
        rc = CDYN_EIO;
        break;
      }
      if (rr == -2 || rec.nfields != NFIELDS) {
        fprintf(stderr, "cdyn report: %s: malformed line: %s\n", path, rec.text.s);
        rc = CDYN_EIO;
        continue;
      }
      const exp_claim_def *c = exp_claim_find(rec.field[0]);
      if (!c) {
        fprintf(stderr, "cdyn report: %s: unknown claim id '%s'\n", path, rec.field[0]);
        rc = CDYN_EIO;
        continue;
      }
      char *copy = copy_row(&rec, &r);
      if (!copy) {
        fprintf(stderr, "cdyn report: out of memory\n");
        rc = CDYN_ENOMEM;
        break;
      }
      size_t k = (size_t)(c - exp_claim_defs);
      free(lines[k]);
      lines[k] = copy;
      found[k] = r;
    }
    exp_csv_record_free(&rec);
    fclose(f);
  }
  /* A report that would misstate the runs is not written at all. */
  if (rc)
    goto out;
  exp_afile acsv, amd;
  if (exp_afile_open(&acsv, dir, "claims.csv", 0)) {
    fprintf(stderr, "cdyn report: %s\n", cdyn_errmsg());
    rc = CDYN_EIO;
    goto out;
  }
  /* The readable report, DIR/claims.md. */
  if (exp_afile_open(&amd, dir, CLAIMS_REPORT, 0)) {
    fprintf(stderr, "cdyn report: %s\n", cdyn_errmsg());
    exp_afile_close(&acsv, 0);
    rc = CDYN_EIO;
    goto out;
  }
  FILE *csv = acsv.f, *md = amd.f;
  int counts[4] = {0, 0, 0, 0};
  fprintf(csv, "id,experiment,measured,threshold,verdict,note\n");
  fprintf(md, "# cdyn claims report\n\n"
              "Generated by `cdyn report` (cdyn %s) from the experiments' verdicts.\n"
              "Each verdict is computed in code from the measured sub-measures against a\n"
              "rule fixed before the measurement (experiments/runner/claims.c); the rules, the\n"
              "sub-measures and the reasons for the thresholds follow the table.\n\n"
              "Papers are cited by their number in REFERENCES.md, which cites them in full,\n"
              "with a short title the first time.  The measured column gives one sub-measure\n"
              "of the claim's rule, the one the table in claims.c names, with its unit in\n"
              "brackets ([1]: a ratio, fraction or count); the other sub-measures are in the\n"
              "claim's section and its note.\n\n"
              "| claim | paper | verdict | measured | threshold | note |\n"
              "|---|---|---|---|---|---|\n",
          cdyn_version());
  int cited[5] = {0, 0, 0, 0, 0};
  for (size_t k = 0; k < exp_nclaims; k++) {
    const exp_claim_def *c = &exp_claim_defs[k];
    const char *exp = "", *meas = "", *thr = "", *ver = "not-run",
               *note = c->experiment ? "its experiment was not run" : "no experiment measures this claim yet";
    char rule[1024] = "";
    if (c->experiment) {
      exp_rule_text(c, rule, sizeof rule);
      thr = rule;
      exp = c->experiment;
    }
    if (found[k].f[0]) {
      exp = found[k].f[1];
      meas = found[k].f[2];
      thr = found[k].f[3];
      ver = found[k].f[4];
      note = found[k].f[5];
    }
    for (int v = 0; v < 4; v++)
      counts[v] += !strcmp(ver, exp_verdict_name((enum exp_verdict)v));
    const char *fields[NFIELDS] = {c->id, exp, meas, thr, ver, note};
    for (int j = 0; j < NFIELDS; j++) {
      if (j)
        fputc(',', csv);
      exp_csv_field(csv, fields[j]);
    }
    fputc('\n', csv);
    fprintf(md, "| `%s` | ", c->id);
    md_source(md, c->source, cited);
    fprintf(md, " | **%s** | ", ver);
    md_measured(md, c, meas);
    fprintf(md, " | %s | %s |\n", thr, note);
  }
  fprintf(md, "\n%d hold, %d partly, %d do not hold, %d not run.\n\n## The claims and their rules\n\n", counts[0],
          counts[1], counts[2], counts[3]);
  for (size_t k = 0; k < exp_nclaims; k++) {
    const exp_claim_def *c = &exp_claim_defs[k];
    fprintf(md, "### `%s` (", c->id);
    md_source(md, c->source, cited);
    fprintf(md, ")\n\n%s\n\n", c->text);
    size_t ns = exp_claim_nsub(c);
    if (!ns) {
      fprintf(md, "No experiment measures it yet.\n\n");
      continue;
    }
    /* The same verdict and measured value as the claim's row above. */
    fprintf(md, "Verdict: **%s**; measured: ", found[k].f[0] ? found[k].f[4] : "not-run");
    md_measured(md, c, found[k].f[0] ? found[k].f[2] : "");
    fprintf(md, ".\n\n");
    fprintf(md, "Experiment `%s`, runs %s.  Holds when every holds test passes; partly when %s of the partly "
                "tests pass.\n\n| sub-measure | unit | meaning | holds | partly |\n|---|---|---|---|---|\n",
            c->experiment, *c->runs ? c->runs : "(none: it runs its own study)", c->partly_any ? "any" : "all");
    for (size_t j = 0; j < ns; j++) {
      const exp_submeasure *s = &c->m[j];
      fprintf(md, "| `%s`%s | %s | %s | ", s->name, strcmp(s->name, c->measured) ? "" : " (measured)", s->unit,
              s->meaning);
      md_test(md, &s->holds, &s->holds);
      fprintf(md, " | ");
      md_test(md, &s->partly, &s->holds);
      fprintf(md, " |\n");
    }
    fprintf(md, "\nWhy these thresholds: %s.\n\n", c->reason);
  }
  for (size_t e = 0; e < nexp; e++) {
    if (!run_dir[e])
      continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/report.part.md", run_dir[e]);
    FILE *f = fopen(path, "r");
    if (!f)
      continue;
    fprintf(md, "\n## Experiment `%s` (", cdyn_experiments[e]->name);
    md_source(md, cdyn_experiments[e]->source, cited);
    fprintf(md, ")\n\n");
    char buf[4096];
    size_t nread;
    while ((nread = fread(buf, 1, sizeof buf, f)) > 0)
      fwrite(buf, 1, nread, md);
    fclose(f);
  }
  /* What each run took, as cdyn run recorded it. */
  exp_resources sum = {0, 0, 0, 0};
  int nres = 0;
  for (size_t e = 0; e < nexp; e++) {
    exp_resources r;
    if (!run_dir[e] || !run_resources(run_dir[e], &r))
      continue;
    if (!nres++)
      fprintf(md, "\n## What the runs took\n\n"
                  "Each experiment's run as `cdyn run` recorded it (its `run.meta.json`, `resources`): the "
                  "wall-clock time, the CPU time (user and system) of its process and threads and of the "
                  "processes it waited for, and the largest resident set of one of them. They depend on the "
                  "machine and on what else it ran (`make figures` runs two experiments at once, and the "
                  "timed ones alone); the sum of the wall-clock times is not the span of `make figures`.\n\n"
                  "| experiment | wall-clock (s) | CPU (s) | largest resident set (MiB) |\n|---|---:|---:|---:|\n");
    fprintf(md, "| `%s` | %.1f | %.1f | %.0f |\n", cdyn_experiments[e]->name, r.wall_s, r.user_s + r.sys_s,
            r.max_rss_mib);
    sum.wall_s += r.wall_s, sum.user_s += r.user_s, sum.sys_s += r.sys_s;
    sum.max_rss_mib = r.max_rss_mib > sum.max_rss_mib ? r.max_rss_mib : sum.max_rss_mib;
  }
  if (nres)
    fprintf(md, "| all %d (sum; largest) | %.1f | %.1f | %.0f |\n", nres, sum.wall_s, sum.user_s + sum.sys_s,
            sum.max_rss_mib);
  /* Both complete, or neither in place: both checked first, then
     DIR/claims.csv renamed, and removed again if DIR/claims.md cannot
     follow it. */
  if (exp_afile_flush(&acsv) || exp_afile_flush(&amd) || exp_afile_close(&acsv, 1)) {
    fprintf(stderr, "cdyn report: %s\n", cdyn_errmsg());
    exp_afile_close(&acsv, 0);
    exp_afile_close(&amd, 0);
    rc = CDYN_EIO;
  } else if (exp_afile_close(&amd, 1)) {
    fprintf(stderr, "cdyn report: %s\n", cdyn_errmsg());
    remove(acsv.path);
    rc = CDYN_EIO;
  } else {
    printf("%d hold, %d partly, %d do not hold, %d not run\n", counts[0], counts[1], counts[2], counts[3]);
    printf("claims: %s/claims.csv and %s/" CLAIMS_REPORT "\n", dir, dir);
  }
out:
  for (size_t k = 0; k < exp_nclaims; k++)
    free(lines[k]);
  for (size_t e = 0; e < nexp; e++)
    free(run_dir[e]);
  free(run_dir);
  free(found);
  free(lines);
  return rc;
}

int exp_cmd_report(int argc, char **argv, const char *command)
{
  (void)command;
  static const char *const options[] = {"--help", NULL};
  for (int k = 0; k < argc; k++)
    if (!strncmp(argv[k], "--", 2))
      return exp_unknown_option("cdyn report", argv[k], options);
  if (argc != 1) {
    fprintf(stderr, "usage: cdyn report DIR\n");
    return 2;
  }
  if (strlen(argv[0]) > 3000) {
    fprintf(stderr, "cdyn report: a directory path of %zu bytes is too long (at most 3000)\n", strlen(argv[0]));
    return 2;
  }
  return exp_write_report(argv[0]) ? 1 : 0;
}
