/*
 * cmd_run.c: `cdyn run EXPERIMENT|scene FILE [options]` and `cdyn export
 * EXPERIMENT [options]`.
 *
 * run checks everything it is given first (runargs.c), then makes the
 * output directory ready, runs the experiment, writes the verdicts of its
 * claims (claims.part.csv, each claim it did not judge as not-run with
 * the reason) and, last, the run's record run.meta.json, by which `cdyn
 * report`, `cdyn collect` and make know the run is complete.  A run that
 * fails removes what it wrote.
 *
 * export runs the experiment into a scratch directory with the capture
 * on (capture.c), so that its directory gets every run the experiment
 * starts as a scene, with index.csv.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "runargs.h"

/* Run what exp_run_parse accepted: the output directory made ready, the
   experiment run, its claims' verdicts and the run's record written; on
   failure, what the run wrote removed. */
static int execute(exp_ctx *c, exp_run_args *ra)
{
  int rc;
  /* Everything is checked: now the directory. */
  int created;
  if (exp_prepare_outdir("cdyn run", c->outdir, ra->force, &created, exp_clear_dir))
    return 1;
  /* A scene judges no claims: it gets no claims.part.csv (cdyn report
     skips a scene's run, and reads nothing of it). */
  exp_afile claims;
  memset(&claims, 0, sizeof claims);
  if (!c->scene && exp_afile_open(&claims, c->outdir, "claims.part.csv", 0)) {
    fprintf(stderr, "cdyn: %s\n", cdyn_errmsg());
    if (created)
      rmdir(c->outdir);
    return 1;
  }
  c->claims = claims.f;
  rc = exp_write_runs(c);
  exp_watch_reset();
  if (!rc)
    rc = c->exp->run(c);
  /* The experiment's claims it did not judge: not-run, with the reason. */
  for (size_t k = 0; !rc && k < exp_nclaims; k++) {
    const exp_claim_def *d = &exp_claim_defs[k];
    if (!d->experiment || strcmp(d->experiment, c->exp->name) || c->judged[k])
      continue;
    char reason[512];
    if (!exp_claim_ready(c, d->id))
      snprintf(reason, sizeof reason, "needs the runs %s, which this run did not all include", d->runs);
    else
      snprintf(reason, sizeof reason, "the run did not judge it");
    rc = exp_claim_not_run(c, d->id, reason);
  }
  c->claims = NULL;
  int crc = c->scene ? CDYN_OK : exp_afile_close(&claims, !rc);
  if (!rc)
    rc = crc;
  if (!rc && c->failed_io)
    rc = cdyn_error(CDYN_EIO, "%s", c->io_error);
  if (!rc)
    rc = exp_write_run_meta(c);
  if (rc) {
    exp_fail(rc, c->exp->name);
    /* Leave nothing that looks finished: what this run wrote goes. */
    exp_clear_dir("cdyn run", c->outdir, 0, NULL);
    if (created)
      rmdir(c->outdir);
    return 1;
  }
  /* An experiment's runs that ended early are its results; a scene's
     failed runs (each reported on stderr by watch.c) make the status. */
  if (!c->scene)
    exp_watch_summary(stdout, c->exp->name);
  printf("%s: results in %s/\n", c->exp->name, c->outdir);
  if (c->runs_failed && !ra->failed_runs_ok) {
    fprintf(stderr, "cdyn: %d of the %d runs ended early (above); their results are written, up to where each ended\n",
            c->runs_failed, c->nruns);
    return EXP_EXIT_RUNFAIL;
  }
  return 0;
}

int exp_cmd_run(int argc, char **argv, const char *command) { return exp_run_with(argc, argv, command, 0, execute); }

/*
 * cdyn export EXPERIMENT [--out DIR] [--force] [run options]: run the
 * experiment (its output into a scratch directory, removed afterwards)
 * with the capture on (capture.c), so that DIR gets every run it starts
 * as a scene, and DIR/index.csv each scene's trajectory digest.
 */
int exp_cmd_export(int argc, char **argv, const char *command)
{
  if (argc < 1 || argv[0][0] == '-') {
    fprintf(stderr, "usage: cdyn export EXPERIMENT [--out DIR] [--force] [the options of cdyn run]\n");
    return 2;
  }
  const cdyn_experiment *e = exp_find(argv[0]);
  if (!e) {
    fprintf(stderr, "cdyn export: unknown experiment '%s'%s (cdyn list experiments shows them)\n", argv[0],
            exp_experiment_hint(argv[0]));
    return 2;
  }
  if (!e->schemes) {
    fprintf(stderr, "cdyn export: %s runs no schemes (it studies part of the library directly): it has no system "
            "to export\n", e->name);
    return 2;
  }
  char defdir[256];
  snprintf(defdir, sizeof defdir, "%s-scenes", e->name);
  const char *dir = defdir;
  int force = 0;
  char **rargv = calloc((size_t)argc + 4, sizeof *rargv);
  if (!rargv)
    return 1;
  int rargc = 0;
  rargv[rargc++] = argv[0];
  for (int k = 1; k < argc; k++) {
    if (!strcmp(argv[k], "--out") && k + 1 < argc && *argv[k + 1]) {
      dir = argv[++k];
    } else if (!strcmp(argv[k], "--out")) {
      fprintf(stderr, "cdyn export: --out needs a directory\n");
      free(rargv);
      return 2;
    } else if (!strcmp(argv[k], "--force")) {
      force = 1;
    } else {
      rargv[rargc++] = argv[k];
    }
  }
  if (strlen(dir) > 3000) {
    fprintf(stderr, "cdyn export: --out: a directory path of %zu bytes is too long (at most 3000)\n", strlen(dir));
    free(rargv);
    return 2;
  }
  char tmp[4096];
  const char *tdir = getenv("TMPDIR");
  snprintf(tmp, sizeof tmp, "%s/cdyn-export-XXXXXX", tdir && *tdir ? tdir : "/tmp");
  int created = 0;
  if (exp_prepare_outdir("cdyn export", dir, force, &created, exp_clear_dir)) {
    free(rargv);
    return 1;
  }
  if (!mkdtemp(tmp)) {
    fprintf(stderr, "cdyn export: cannot make a scratch directory %s: %s\n", tmp, strerror(errno));
    free(rargv);
    if (created)
      rmdir(dir);
    return 1;
  }
  rargv[rargc++] = "--out";
  rargv[rargc++] = tmp;
  int rc = exp_capture_start(dir, e->name);
  if (rc) {
    fprintf(stderr, "cdyn export: %s\n", cdyn_errmsg());
    rc = 1;
  } else {
    rc = exp_cmd_run(rargc, rargv, command);
    int crc = exp_capture_finish(rc == 0);
    if (!rc && crc) {
      fprintf(stderr, "cdyn export: %s\n", cdyn_errmsg());
      rc = 1;
    }
    if (!rc && exp_capture_count() == 0) {
      fprintf(stderr, "cdyn export: %s started no run with these options: nothing to export\n", e->name);
      rc = 1;
    }
  }
  exp_clear_dir("cdyn export", tmp, 0, NULL);
  rmdir(tmp);
  free(rargv);
  if (rc) {
    exp_clear_dir("cdyn export", dir, 0, NULL);
    if (created)
      rmdir(dir);
    return rc;
  }
  printf("%s: %d scenes in %s/ (index.csv: each scene's run and the digest of its trajectory;\n"
         "  cdyn run scene %s/SCENE --steps STEPS_DONE reproduces it)\n",
         e->name, exp_capture_count(), dir, dir);
  return 0;
}
