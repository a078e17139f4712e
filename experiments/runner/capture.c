/*
 * capture.c: `cdyn export`: every run an experiment starts is written as a
 * scene (doc/scene-format.md), with the digest of the trajectory it took.
 *
 * While a capture is on, the runner (exp_simulate_scene) and the
 * experiments with their own step loops (the cloth experiments, step-cost)
 * call exp_capture_begin as a run starts, with its system (or scene: the
 * system with its step hooks), its stepper and its run: the scene is
 * saved then, its state the run's start and its scheme options every
 * option of the stepper.  exp_capture_step hashes the state after every
 * measured step (k = 0: the start), exactly as exp_simulate_scene does for
 * any run, and exp_capture_end writes a line of DIR/index.csv (steps_done:
 * the states hashed after the start):
 *   scene, scheme, h, steps, steps_done, digest
 * so that `cdyn run scene DIR/SCENE --steps STEPS_DONE` reproduces the
 * run: its summary's digest equals the index's when the trajectory is the
 * same to the last bit (tests/test_scene.c checks every experiment).
 *
 * The digest is FNV-1a over 64-bit words (Fowler, Noll and Vo): each
 * double's bits are xor-ed in and the hash multiplied by the 64-bit FNV
 * prime; the words are t, then q (3n), then v (3n), after every step.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/experiment.h"

static void mix(uint64_t *h, double x)
{
  uint64_t w;
  memcpy(&w, &x, sizeof w);
  *h ^= w;
  *h *= UINT64_C(0x100000001b3);
}

void exp_digest_state(uint64_t *h, const cdyn_system *sys)
{
  size_t n = cdyn_system_size(sys);
  const double *q = cdyn_system_positions(sys), *v = cdyn_system_velocities(sys);
  mix(h, cdyn_system_time(sys));
  for (size_t i = 0; i < 3 * n; i++)
    mix(h, q[i]);
  for (size_t i = 0; i < 3 * n; i++)
    mix(h, v[i]);
}

static struct {
  int on;
  char dir[3100];
  char experiment[64];
  FILE *index;
  char index_tmp[3200];
  int count;
  int open; /* a run has begun and not ended */
  uint64_t digest;
  long hashed; /* states hashed: the start and each step */
  char file[128], scheme[64];
  double h;
  long steps;
  int failed;
} cap;

int exp_capture_start(const char *dir, const char *experiment)
{
  memset(&cap, 0, sizeof cap);
  if (strlen(dir) >= sizeof cap.dir - 64)
    return cdyn_error(CDYN_EINVAL, "export: directory path too long");
  snprintf(cap.dir, sizeof cap.dir, "%s", dir);
  snprintf(cap.experiment, sizeof cap.experiment, "%s", experiment);
  snprintf(cap.index_tmp, sizeof cap.index_tmp, "%s/.index.csv.tmp", dir);
  cap.index = fopen(cap.index_tmp, "w");
  if (!cap.index)
    return cdyn_error(CDYN_EIO, "cannot write %s: %s", cap.index_tmp, strerror(errno));
  fprintf(cap.index, "scene,scheme,h,steps,steps_done,digest\n");
  cap.on = 1;
  return CDYN_OK;
}

int exp_capture_count(void) { return cap.count; }

int exp_capture_on(void) { return cap.on; }

int exp_capture_finish(int ok)
{
  if (!cap.on)
    return CDYN_OK;
  cap.on = 0;
  errno = 0;
  int bad = ferror(cap.index);
  bad |= fclose(cap.index);
  int rc = CDYN_OK;
  if (cap.failed)
    rc = cdyn_error(CDYN_EIO, "export: a scene could not be written");
  else if (bad)
    rc = cdyn_error(CDYN_EIO, "error writing %s: %s", cap.index_tmp, errno ? strerror(errno) : "write error");
  if (ok && !rc) {
    char path[3200];
    snprintf(path, sizeof path, "%s/index.csv", cap.dir);
    if (rename(cap.index_tmp, path))
      rc = cdyn_error(CDYN_EIO, "cannot rename %s: %s", cap.index_tmp, strerror(errno));
  }
  if (!ok || rc)
    remove(cap.index_tmp);
  return rc;
}

int exp_capture_begin(cdyn_scene *sc, cdyn_system *sys, const cdyn_stepper *st, double h, long steps,
                      const exp_limits *lim)
{
  if (!cap.on || cap.open)
    return CDYN_OK;
  cdyn_scene *wrapped = NULL;
  int rc;
  if (!sc) {
    if ((rc = cdyn_scene_wrap(&wrapped, sys)))
      return rc;
    sc = wrapped;
  }
  cdyn_scene_run run;
  memset(&run, 0, sizeof run);
  run.h = h;
  run.steps = steps;
  run.record_every = 1;
  if (lim && lim->e_max > 0 && lim->e_max <= 1e300)
    run.max_error = lim->e_max;
  if (lim && isfinite(lim->gain_max)) {
    run.has_max_energy_gain = 1;
    run.max_energy_gain = lim->gain_max;
  }
  run.no_divergence = lim && lim->no_divergence;
  cap.count++;
  snprintf(cap.scheme, sizeof cap.scheme, "%s", cdyn_stepper_scheme(st));
  snprintf(cap.file, sizeof cap.file, "%04d-%s.json", cap.count, cap.scheme);
  char name[128], desc[512], path[3400];
  snprintf(name, sizeof name, "%s-%04d", cap.experiment, cap.count);
  snprintf(desc, sizeof desc, "run %d of experiment %s: %s, h = %.17g, %ld steps (cdyn export %s)", cap.count,
           cap.experiment, cap.scheme, h, steps, cap.experiment);
  snprintf(path, sizeof path, "%s/%s", cap.dir, cap.file);
  char *old_name = strdup(cdyn_scene_name(sc)), *old_desc = strdup(cdyn_scene_description(sc));
  rc = (!old_name || !old_desc) ? cdyn_error(CDYN_ENOMEM, "export: out of memory") : cdyn_scene_set_name(sc, name, desc);
  if (!rc)
    rc = cdyn_scene_save(sc, st, &run, path);
  if (old_name && old_desc && !wrapped) {
    int nrc = cdyn_scene_set_name(sc, old_name, old_desc);
    if (!rc)
      rc = nrc;
  }
  free(old_name);
  free(old_desc);
  cdyn_scene_free(wrapped);
  if (rc) {
    cap.failed = 1;
    return rc;
  }
  cap.h = h;
  cap.steps = steps;
  cap.digest = EXP_DIGEST_INIT;
  cap.hashed = 0;
  cap.open = 1;
  return CDYN_OK;
}

void exp_capture_step(const cdyn_system *sys)
{
  if (cap.on && cap.open) {
    exp_digest_state(&cap.digest, sys);
    cap.hashed++;
  }
}

void exp_capture_end(void)
{
  if (!cap.on || !cap.open)
    return;
  cap.open = 0;
  long steps_done = cap.hashed - 1; /* the states hashed after the start */
  fprintf(cap.index, "%s,%s,%.17g,%ld,%ld,%016" PRIx64 "\n", cap.file, cap.scheme, cap.h, cap.steps, steps_done,
          cap.digest);
}
