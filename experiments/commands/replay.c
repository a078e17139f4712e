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
                      run.has_max_energy_gain ? run.max_energy_gain : INFINITY};
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
  char line[1024];
  long n = 0, bad = 0, lineno = 0;
  int status = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    if (lineno == 1)
      continue; /* the header */
    char scene[512], scheme[128];
    double h;
    long steps, done;
    char want[32];
    if (sscanf(line, "%511[^,],%127[^,],%lf,%ld,%ld,%31[0-9a-f]", scene, scheme, &h, &steps, &done, want) != 6 ||
        strchr(scene, '/')) {
      fprintf(stderr, "cdyn replay: %s line %ld: expected scene,scheme,h,steps,steps_done,digest\n", path, lineno);
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
  if (status)
    return status;
  printf("cdyn replay: %ld scenes, %ld differ\n", n, bad);
  return n == 0 || bad ? 1 : 0;
}