/*
 * run.c: `cdyn run EXPERIMENT|scene FILE [options]`.
 *
 * run checks everything it is given first (runargs.c), then makes the
 * output directory ready, runs the experiment, writes the verdicts of its
 * claims (claims.part.csv, each claim it did not judge as not-run with
 * the reason) and, last, the run's record run.meta.json, by which `cdyn
 * report`, `cdyn collect` and make know the run is complete.  A run that
 * fails removes what it wrote.  A scene file runs through the same
 * machinery (runner/scene.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "runargs.h"

static double seconds(const struct timeval *t) { return (double)t->tv_sec + 1e-6 * (double)t->tv_usec; }

/* Run what exp_run_parse accepted: the output directory made ready, the
   experiment run, its claims' verdicts and the run's record written; on
   failure, what the run wrote removed. */
static int execute(exp_ctx *c, exp_run_args *ra)
{
  int rc;
  /* What the run takes is counted from here: the clock and the CPU times
     so far (the arguments' checks and the program's start left out). */
  struct timespec t0, t1;
  struct rusage self0, kids0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  getrusage(RUSAGE_SELF, &self0);
  getrusage(RUSAGE_CHILDREN, &kids0);
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
  if (!rc) {
    /* What the run took: its own process and threads, and the processes
       it forked and waited for (an experiment's jobs); ru_maxrss in KiB. */
    struct rusage self, kids;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    exp_resources res = {
      .wall_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
      .user_s = seconds(&self.ru_utime) + seconds(&kids.ru_utime) - seconds(&self0.ru_utime) -
                seconds(&kids0.ru_utime),
      .sys_s = seconds(&self.ru_stime) + seconds(&kids.ru_stime) - seconds(&self0.ru_stime) -
               seconds(&kids0.ru_stime),
      .max_rss_mib = (double)(self.ru_maxrss > kids.ru_maxrss ? self.ru_maxrss : kids.ru_maxrss) / 1024.0};
    rc = exp_write_run_meta(c, &res);
  }
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
