/*
 * scene/internal.h: the scene object (cdyn/scene.h), shared by its
 * builder and writer (scene.c) and its reader (load.c, fields.c,
 * generate.c).
 */
#ifndef CDYN_SCENE_INTERNAL_H
#define CDYN_SCENE_INTERNAL_H

#include "cdyn/scene.h"

typedef struct scene_sl {
  cdyn_strainlimit *sl;
  size_t *springs, count;
  cdyn_strainlimit_opts opts;
} scene_sl;

typedef struct scene_provot {
  size_t *springs, count;
  size_t *fixed, nfixed;
  unsigned char *flags; /* n flags from fixed, or NULL */
  double eps_max;
  int sweeps;
} scene_provot;

typedef struct scene_ball {
  cdyn_ball *b;
  size_t ball;
  size_t *nodes, count;
  cdyn_ball_opts opts;
} scene_ball;

struct cdyn_scene {
  cdyn_system *sys;
  int own_sys; /* the scene frees sys */
  size_t base_constraints, base_springs; /* ids below these were the system's when the scene was made */
  unsigned char *own;                     /* base_constraints flags: a live constraint of the scene's own */
  char *name, *description;
  char *file; /* the file it was read from (for messages), or NULL */
  scene_sl *sl;
  size_t nsl;
  scene_provot *provot;
  size_t nprovot;
  scene_ball *balls;
  size_t nballs;
  struct {
    cdyn_contacts *cc;
    size_t *tris, ntris;
    cdyn_contacts_opts opts;
  } contacts;
  char *scheme;
  char **opt_keys, **opt_vals;
  size_t nopts;
  cdyn_scene_run run;
  cdyn_scene_stats stats;
  cdyn_scene_patch *patches; /* the cloth generators' (each tri owned) */
  size_t npatches;
};

/* A scene's name names files: 1 to 100 letters, digits, '-', '_', '.' (not first). */
#define SCENE_NAME_RULE "a name is 1 to 100 letters, digits, '-', '_' or '.' (not first), as it names files"
int cdyn_scene_name_ok(const char *name);

/* steps = ceil((t_end - t0) / h), a ratio within 1e-9 of an integer taken
   as it; CDYN_EINVAL for t_end <= t0 or beyond 1e8 steps. */
int cdyn_scene_steps_to(double t0, double t_end, double h, long *steps);

#endif
