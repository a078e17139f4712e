/*
 * replay.c: `cdyn replay DIR`: every scene of a `cdyn export` directory
 * run again (runner/scene.c), each trajectory's digest against the
 * experiment's; a line per scene on stdout, nothing written.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cli.h"
#include "runner/csv.h"
#include "commands.h"
#include "runner/experiment.h"

/*
 * cdyn replay DIR: every scene of a `cdyn export` directory run for the
 * steps its experiment took (index.csv: scene, scheme, h, steps,
 * steps_done, digest), as `cdyn run scene DIR/SCENE --steps STEPS_DONE`
 * runs it (the scene's scheme and options, its h and stop rules, the
 * runner), writing nothing; each trajectory's digest against the one the
 * experiment recorded.  Exit status 0 when every scene reproduces its
 * trajectory to the last bit, 1 when one does not (or cannot run), 2 for
 * a usage error.
 */
static int replay_one(const char *path, long steps, uint64_t *digest, long *done)
{
  exp_scene_src *src = NULL;
  cdyn_scene *sc = NULL;
  cdyn_stepper *st = NULL;
  int rc = exp_scene_read(&src, path);
  if (!rc)
    rc = exp_scene_build(src, &sc);
  cdyn_scene_run run;
  if (!rc) {
    cdyn_scene_get_run(sc, &run);
    run.steps = steps;
    run.has_t_end = 0;
    rc = cdyn_scene_set_run(sc, &run);
  }
  if (!rc)
    rc = cdyn_scene_stepper(&st, sc, NULL);
  exp_outcome out;
  if (!rc) {
    exp_limits lim = {run.max_error > 0 ? run.max_error : INFINITY,
                      run.has_max_energy_gain ? run.max_energy_gain : INFINITY, run.no_divergence};
    rc = exp_simulate_scene(sc, NULL, st, run.h, run.steps, &lim, NULL, NULL, &out);
  }
  if (!rc) {
    *digest = out.digest;
    *done = out.steps;
  }
  cdyn_stepper_free(st);
  cdyn_scene_free(sc);
  exp_scene_free(src);
  return rc;
}

int exp_cmd_replay(int argc, char **argv, const char *command)
{
  (void)command;
  static const char *const options[] = {"--help", NULL};
  for (int k = 0; k < argc; k++)
    if (!strncmp(argv[k], "--", 2))
      return exp_unknown_option("cdyn replay", argv[k], options);
  if (argc != 1 || argv[0][0] == '-') {
    fprintf(stderr, "usage: cdyn replay DIR   (a directory cdyn export wrote)\n");
    return 2;
  }
  const char *dir = argv[0];
  if (strlen(dir) > 3000) {
    fprintf(stderr, "cdyn replay: a directory path of %zu bytes is too long (at most 3000)\n", strlen(dir));
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/index.csv", dir);
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "cdyn replay: cannot read %s: %s (cdyn export writes it)\n", path, strerror(errno));
    return 1;
  }
  exp_csv_record rec = {0};
  long n = 0, bad = 0;
  int status = 0, got_rec;
  while ((got_rec = exp_csv_read(f, &rec)) != 0) {
    if (got_rec < 0) {
      fprintf(stderr, "cdyn replay: %s line %ld: %s\n", path, rec.line,
              got_rec == -2 ? "a quote left open" : "cannot read it");
      status = 1;
      break;
    }
    if (rec.line == 1)
      continue; /* the header */
    /* scene,scheme,h,steps,steps_done,digest: a scene file of this
       directory, a 64-bit digest in hexadecimal. */
    const char *scene = rec.nfields == 6 ? rec.field[0] : "", *scheme = rec.nfields == 6 ? rec.field[1] : "";
    const char *want = rec.nfields == 6 ? rec.field[5] : "";
    char *e2 = NULL, *e3 = NULL, *e4 = NULL;
    double h = rec.nfields == 6 ? strtod(rec.field[2], &e2) : 0;
    long steps = rec.nfields == 6 ? strtol(rec.field[3], &e3, 10) : 0;
    long done = rec.nfields == 6 ? strtol(rec.field[4], &e4, 10) : 0;
    (void)steps;
    if (rec.nfields != 6 || !*scene || strchr(scene, '/') || !*scheme || e2 == rec.field[2] || *e2 ||
        e3 == rec.field[3] || *e3 || e4 == rec.field[4] || *e4 || !*want || strlen(want) > 16 ||
        strspn(want, "0123456789abcdef") != strlen(want)) {
      fprintf(stderr, "cdyn replay: %s line %ld: expected scene,scheme,h,steps,steps_done,digest\n", path, rec.line);
      status = 1;
      break;
    }
    n++;
    char file[4200];
    snprintf(file, sizeof file, "%s/%s", dir, scene);
    uint64_t got = 0;
    long did = 0;
    if (replay_one(file, done >= 1 ? done : 1, &got, &did)) {
      fprintf(stderr, "cdyn replay: %s: %s\n", scene, cdyn_errmsg());
      bad++;
      continue;
    }
    char gots[32];
    snprintf(gots, sizeof gots, "%016" PRIx64, got);
    int same = !strcmp(gots, want);
    bad += !same;
    printf("%s (%s, h = %g, %ld steps): digest %s%s%s\n", scene, scheme, h, did, gots,
           same ? ", as the experiment's" : ", the experiment's ", same ? "" : want);
  }
  fclose(f);
  exp_csv_record_free(&rec);
  if (status)
    return status;
  printf("cdyn replay: %ld scenes, %ld differ\n", n, bad);
  return n == 0 || bad ? 1 : 0;
}