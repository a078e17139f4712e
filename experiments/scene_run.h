/*
 * scene_run.h: scene files as experiments (scene_run.c): `cdyn run scene
 * FILE` and `cdyn check FILE`.
 */
#ifndef CDYN_SCENE_RUN_H
#define CDYN_SCENE_RUN_H

#include <stddef.h>

#include "experiment.h"

/* The experiment of `cdyn run scene`: its defaults are the prepared file's. */
extern cdyn_experiment exp_scene_experiment;

/* Read and check the scene at path, make it the one run_scene runs, and
   set exp_scene_experiment's defaults from it (h, steps, its scheme, which
   goes into scheme, and the output directory: its name). */
int exp_scene_prepare(const char *path, char *scheme, size_t len);
/* The scene's name, safe in file names (after exp_scene_prepare). */
const char *exp_scene_name(void);
/* The steps at step size h when the scene's run gives t_end (else *steps
   is left as it is). */
int exp_scene_steps(double h, long *steps);

/* cdyn check FILE ...: exit status 0 when every file is a valid scene. */
int exp_cmd_check(int argc, char **argv);

#endif
