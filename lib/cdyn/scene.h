/*
 * cdyn/scene.h: scenes: a system with the hooks that act around its steps,
 * the scheme that runs it and how long, read from and written to the
 * scene format (doc/scene-format.md, JSON).
 *
 * A scene owns (or borrows) a system and the step hooks that the cloth
 * papers put around a step: adaptive strain limiting (cdyn_strainlimit),
 * Provot's correction (cdyn_provot_limit), heavy balls (cdyn_ball) and
 * cloth contact handling (cdyn_contacts).  cdyn_scene_step runs one step
 * of a stepper with them, in a fixed order:
 *   before:  every strain limiter, every ball, then the contact handler
 *            (cdyn_contacts_before);
 *   step:    cdyn_stepper_step, repeated while the contact handler finds
 *            a new contact in the motion taken (cdyn_contacts_after);
 *   after:   every strain limiter, every Provot limiter, every ball,
 *            each in the order added.
 * A scene with no hooks steps exactly as cdyn_stepper_step does.
 *
 * The scene's own constraints and springs are those the system had when
 * the scene was made (cdyn_scene_new, cdyn_scene_wrap) or the file
 * listed; the hooks' constraints (added when a hook is added) are not
 * part of the scene's description, so cdyn_scene_save writes a scene that
 * cdyn_scene_load rebuilds constraint for constraint.  Save it before the
 * first step: it writes the system's current state as the start, and the
 * hooks' switches made by steps are not part of the format.
 *
 * Loading checks everything before it builds anything: an error is
 * CDYN_EINVAL (or CDYN_EIO for a file that cannot be read, CDYN_ENOMEM)
 * with a message naming the file and the line and column of a JSON syntax
 * error, or the JSON path of the offending value ($.pins[2].i) and what is
 * wrong with it.
 */
#ifndef CDYN_SCENE_H
#define CDYN_SCENE_H

#include <stddef.h>

#include "cdyn/cloth.h"
#include "cdyn/collision.h"
#include "cdyn/stepper.h"
#include "cdyn/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The newest scene format version this library reads and the one it writes. */
#define CDYN_SCENE_VERSION 1

typedef struct cdyn_scene cdyn_scene;

/* How a scene is run and what it records (doc/scene-format.md, "run" and
   "record"). */
typedef struct cdyn_scene_run {
  double h;               /* s, > 0 */
  long steps;             /* >= 1 */
  int has_t_end;          /* the duration was given as an end time */
  double t_end;           /* s (has_t_end): steps = ceil((t_end - t0) / h) */
  double max_error;       /* m: end the run when e_n exceeds it; 0: no limit */
  int has_max_energy_gain;
  double max_energy_gain; /* J: end the run when E - E(0) exceeds it */
  long record_every;      /* >= 1 */
  int record_positions, record_velocities;
  int no_divergence;      /* 1: the cdyn program's default divergence rule is
                             off ("divergence": false; doc/scene-format.md) */
} cdyn_scene_run;

/* Time spent in the hooks and the stepper, cumulative. */
typedef struct cdyn_scene_stats {
  double detect; /* s in the contact handler (before and after) */
  double solve;  /* s in cdyn_stepper_step */
  unsigned long stepper_steps; /* calls of cdyn_stepper_step, repeats included */
  unsigned long steps;         /* cdyn_scene_step calls that succeeded */
} cdyn_scene_stats;

/* Limits of a load, so that a small file cannot ask for more memory than
   its reader allows (0 in a field: its default, the library's own limit):
   the particles (default 2^24), the constraints the scene and its hooks
   add as it is built (walls and balls on "all" included; default 2^26),
   and a contact handler's capacity and broad-phase pairs (defaults 2^24
   and 2^28, as cdyn/collision.h allows).  A scene beyond one is refused
   with CDYN_EINVAL, naming the limit. */
typedef struct cdyn_scene_limits {
  size_t max_particles;
  size_t max_constraints;
  size_t max_contacts;
  size_t max_pairs;
} cdyn_scene_limits;

/*
 * Read and build a scene from a file, or from `len` bytes of text named
 * `name` in messages (it need not end in a NUL).  `limits` may be NULL.
 * Nothing is returned for a scene with an error.
 */
int cdyn_scene_load(cdyn_scene **out, const char *path, const cdyn_scene_limits *limits);
int cdyn_scene_parse(cdyn_scene **out, const char *text, size_t len, const char *name,
                     const cdyn_scene_limits *limits);

/* A scene around `sys`, which it owns from now on (freed with it; also on
   failure).  The constraints and springs sys has now are the scene's. */
int cdyn_scene_new(cdyn_scene **out, cdyn_system *sys);
/* The same, borrowing sys (the caller frees it after the scene). */
int cdyn_scene_wrap(cdyn_scene **out, cdyn_system *sys);
void cdyn_scene_free(cdyn_scene *sc);

/* Hooks, added before the stepper is made (each adds its constraints to
   the system then; see cdyn/cloth.h and cdyn/collision.h).  A hook's list
   (springs, nodes, triangles) is non-empty and names each index once, as
   the format asks; a spring has at most one strain limiter; and a hook is
   refused while the system has removed constraints, whose ids its own
   would take. */
int cdyn_scene_add_strainlimit(cdyn_scene *sc, const size_t *springs, size_t count,
                               const cdyn_strainlimit_opts *opts);
/* Provot's correction after each step; `fixed` (may be NULL) lists nfixed
   particles it must not move. */
int cdyn_scene_add_provot(cdyn_scene *sc, const size_t *springs, size_t count, double eps_max, int sweeps,
                          const size_t *fixed, size_t nfixed);
int cdyn_scene_add_ball(cdyn_scene *sc, size_t ball, const size_t *nodes, size_t count, const cdyn_ball_opts *opts);
/* The contact handler over `ntris` triangles (3 particle indices each); at
   most one per scene. */
int cdyn_scene_add_contacts(cdyn_scene *sc, const size_t *tris, size_t ntris, const cdyn_contacts_opts *opts);

/* The hooks, for their counts (NULL for k out of range). */
size_t cdyn_scene_strainlimit_count(const cdyn_scene *sc);
cdyn_strainlimit *cdyn_scene_strainlimit(const cdyn_scene *sc, size_t k);
size_t cdyn_scene_ball_count(const cdyn_scene *sc);
cdyn_ball *cdyn_scene_ball(const cdyn_scene *sc, size_t k);
cdyn_contacts *cdyn_scene_contacts(const cdyn_scene *sc);

/*
 * The cloth patches a scene file's "cloth" generators made (in the order
 * of its generators; a scene made in C has none): the patch's nodes are
 * particles first .. first + nx ny - 1 of the scene's system (node (i, j)
 * is first + j nx + i), its springs of kind k are springs spring_first[k]
 * .. spring_first[k] + spring_count[k] - 1, and its triangles are ntri
 * triples of particle indices (counterclockwise about u x v; the scene
 * keeps them).  CDYN_EINVAL for k out of range.
 */
typedef struct cdyn_scene_patch {
  size_t first, nx, ny;
  size_t spring_first[CDYN_SPRING_KINDS], spring_count[CDYN_SPRING_KINDS];
  const size_t *tri;
  size_t ntri;
} cdyn_scene_patch;
size_t cdyn_scene_patch_count(const cdyn_scene *sc);
int cdyn_scene_get_patch(const cdyn_scene *sc, size_t k, cdyn_scene_patch *patch);

cdyn_system *cdyn_scene_system(const cdyn_scene *sc);
/* Name and description ("" when none). */
const char *cdyn_scene_name(const cdyn_scene *sc);
const char *cdyn_scene_description(const cdyn_scene *sc);
int cdyn_scene_set_name(cdyn_scene *sc, const char *name, const char *description);

/* The scheme and its options, in the order they are set. */
const char *cdyn_scene_scheme(const cdyn_scene *sc);
size_t cdyn_scene_option_count(const cdyn_scene *sc);
int cdyn_scene_option(const cdyn_scene *sc, size_t k, const char **key, const char **value);
/* Set the scheme and forget its options; add an option (key, value). */
int cdyn_scene_set_scheme(cdyn_scene *sc, const char *scheme);
int cdyn_scene_add_option(cdyn_scene *sc, const char *key, const char *value);

/* The defaults of the format: h = 0.01 s, 100 steps, no stop rule, every
   step recorded, no positions. */
int cdyn_scene_run_default(cdyn_scene_run *run);
int cdyn_scene_get_run(const cdyn_scene *sc, cdyn_scene_run *run);
/* Checked: h > 0 and finite, steps in [1, 1e8] (recomputed from t_end when
   has_t_end: (t_end - t0) / h, the nearest whole number when within 1e-9
   of it, else rounded up), max_error >= 0, record_every in [1, 1e8]. */
int cdyn_scene_set_run(cdyn_scene *sc, const cdyn_scene_run *run);

/*
 * A stepper of `scheme` (NULL: the scene's) for the scene's system, with
 * the scene's options set in order when the scheme is the scene's own;
 * for another scheme only the options it has are set.  With a contact
 * handler it reserves room for A's pattern (cdyn_stepper_reserve).
 */
int cdyn_scene_stepper(cdyn_stepper **out, cdyn_scene *sc, const char *scheme);

/* One step of h with the hooks (above).  Returns what cdyn_stepper_step
   or a hook returned. */
int cdyn_scene_step(cdyn_scene *sc, cdyn_stepper *st, double h);
int cdyn_scene_stats_get(const cdyn_scene *sc, cdyn_scene_stats *stats);

/*
 * Write the scene (its system's current state as the start) to `path`,
 * with the scheme and every option of `st` (a stepper of the scene's
 * system; may be NULL: the scene's scheme and options) and `run` (may be
 * NULL: the scene's).  Written to a temporary file and renamed, so `path`
 * is whole or untouched; the file gets the mode fopen would give it (0666
 * less the umask).  Refused (CDYN_EINVAL, nothing written) for what
 * a scene file cannot hold: a force callback, a constraint of a type not
 * registered, two pins on a particle, springs or constraints added to the
 * system after the scene was made (other than its hooks'), and a scene
 * with hooks that has taken steps.
 */
int cdyn_scene_save(const cdyn_scene *sc, const cdyn_stepper *st, const cdyn_scene_run *run, const char *path);

#ifdef __cplusplus
}
#endif
#endif
