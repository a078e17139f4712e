/*
 * tests/fuzz/fuzz_scene.c: a libFuzzer harness over the scene reader and
 * writer (cdyn/scene.h, lib/scene/load.c, lib/scene/scene.c).
 *
 * The input bytes are a scene file's text, read by cdyn_scene_parse as
 * "fuzz.json" with a limit of MAX_PARTICLES particles (a generator alone
 * may otherwise ask for 10^7).  The checks:
 *   - a refused file gives a negative status, no scene, and a message
 *     that names the file ("fuzz.json: ..." or "fuzz.json:LINE:COL: ...");
 *   - a read scene keeps what the reader checked: 1 .. MAX_PARTICLES
 *     particles with finite positions and velocities and positive finite
 *     masses, a finite time, springs and constraints (finite parameters) on
 *     particles that exist, a registered scheme whose options it has, and
 *     a run with h > 0, 1 .. 1e8 steps and record.every >= 1;
 *   - the writer and the reader agree: the scene saved (to a file of this
 *     process in $TMPDIR or /tmp) reads back, and saving that gives the
 *     same bytes (for scenes of up to ROUND_TRIP_MAX_ITEMS constraints
 *     and springs, as the rest);
 *   - a stepper for the scene (with a contact handler of at most
 *     STEP_MAX_CONTACTS) is made or refused with a message; when made, the
 *     scene saved with it (every option of the stepper) reads back, and
 *     so does a stepper for that;
 *   - a few steps of the scene's h (when the system is small enough that
 *     they are quick: see can_step; none begun after STEP_TIME) end in a
 *     status, and a successful step leaves a finite state;
 * and the sanitizers (address, undefined behaviour, leaks) check the rest.
 */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cdyn/cdyn.h>
#include <cdyn/scene.h>

#include "fuzz.h"
/* The sizes of the hooks (the springs, nodes and triangles they watch,
   Provot's sweeps), which the caps read and the public API does not
   give. */
#include "scene/internal.h"

/*
 * The reader's limit of particles.  It bounds more than the particles: a
 * wall or a ball on "all" particles is one constraint or node each, so
 * that an input of max_len bytes can make some 1200 x MAX_PARTICLES
 * constraints; 256 keeps that, and the time to read it, well within an
 * input's time (at 2048 a 54 kB input makes 2 million).
 */
#define MAX_PARTICLES 256
#define NAME "fuzz.json"

/* The writer and reader round trips are skipped for scenes of more items
   than this (see items; the time they take grows with the file, which
   they write and read three times). */
#define ROUND_TRIP_MAX_ITEMS 10000

/* What can_step allows: particles; rows, now and those the hooks may add
   in a step (a strain limiter one for each spring it watches, a ball one
   for each of its nodes); and the work of the Provot limiters' sweeps
   (sweeps x springs); and the steps taken. */
#define STEP_MAX_PARTICLES 200
#define STEP_MAX_CONTACTS 512
#define STEP_MAX_ROWS 300
#define STEP_MAX_PROVOT 200000.0
#define STEPS 3
/* No further step once the input has taken this long (s). */
#define STEP_TIME 0.5

/* The largest value of each option that sets a number of iterations
   (each a linear solve for max_iter, max_substeps and poststab's
   iterations, a sweep for the others); every default is within these. */
static const struct {
  const char *key;
  double max;
} iteration_caps[] = {{"max_iter", 50},           {"max_substeps", 64},    {"iterations", 100},
                      {"cholmod_reuse_maxit", 100}, {"pcg_maxiter", 10000}, {"cg_maxiter", 10000}};

/* The constraints (walls and balls on "all" included), contacts and
   broad-phase pairs: enough for every seed, small enough that no input
   asks for more than some megabytes. */
static const cdyn_scene_limits limits = {
  .max_particles = MAX_PARTICLES, .max_constraints = 2048, .max_contacts = 4096, .max_pairs = 262144};
static double q[3 * MAX_PARTICLES], v[3 * MAX_PARTICLES];

/* ---- files ------------------------------------------------------------------------------------ */

static char path[512];

static void remove_files(void)
{
  char tmp[600];
  remove(path);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  remove(tmp);
}

static void init_path(void)
{
  if (path[0])
    return;
  const char *dir = getenv("TMPDIR");
  if (!dir || !dir[0] || strlen(dir) > 400)
    dir = "/tmp";
  snprintf(path, sizeof path, "%s/fuzz_scene_%ld.json", dir, (long)getpid());
  atexit(remove_files);
}

/* The whole file at `path`, NUL-ended, in a buffer the caller frees. */
static char *slurp(size_t *len)
{
  FILE *f = fopen(path, "rb");
  FUZZ_REQUIRE(f, "cannot read back the saved scene");
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  FUZZ_REQUIRE(buf, "out of memory reading the saved scene");
  for (;;) {
    if (n + 1 >= cap) {
      char *nb = realloc(buf, cap *= 2);
      FUZZ_REQUIRE(nb, "out of memory reading the saved scene");
      buf = nb;
    }
    size_t got = fread(buf + n, 1, cap - 1 - n, f);
    n += got;
    if (!got)
      break;
  }
  FUZZ_REQUIRE(!ferror(f), "error reading the saved scene");
  fclose(f);
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* Save sc (with st, which may be NULL) and return the bytes written. */
static char *save(const cdyn_scene *sc, const cdyn_stepper *st, size_t *len)
{
  int rc = cdyn_scene_save(sc, st, NULL, path);
  if (rc != CDYN_OK)
    fprintf(stderr, "cdyn_scene_save: %d: %s\n", rc, cdyn_errmsg());
  FUZZ_REQUIRE(rc == CDYN_OK, "a scene that was read cannot be saved");
  return slurp(len);
}

/* Read back what was saved: it must read. */
static cdyn_scene *reread(const char *text, size_t len)
{
  cdyn_scene *sc = NULL;
  int rc = cdyn_scene_parse(&sc, text, len, NAME, &limits);
  if (rc != CDYN_OK)
    fprintf(stderr, "the saved scene does not read back: %s\n--- the saved scene:\n%s\n---\n", cdyn_errmsg(), text);
  FUZZ_REQUIRE(rc == CDYN_OK && sc, "a saved scene does not read back");
  return sc;
}

/* The items of a scene the file lists: constraints, springs, the springs,
   nodes and triangles of the hooks. */
static double items(const cdyn_scene *sc)
{
  const cdyn_system *sys = cdyn_scene_system(sc);
  double c = (double)cdyn_system_constraint_count(sys) + (double)cdyn_system_spring_count(sys) +
             3.0 * (double)sc->contacts.ntris;
  for (size_t k = 0; k < sc->nsl; k++)
    c += (double)sc->sl[k].count;
  for (size_t k = 0; k < sc->nprovot; k++)
    c += (double)(sc->provot[k].count + sc->provot[k].nfixed);
  for (size_t k = 0; k < sc->nballs; k++)
    c += (double)sc->balls[k].count;
  return c;
}

/* ---- checks ----------------------------------------------------------------------------------- */

static void check_scene(const cdyn_scene *sc)
{
  const cdyn_system *sys = cdyn_scene_system(sc);
  FUZZ_REQUIRE(sys, "a scene without a system");
  size_t n = cdyn_system_size(sys);
  FUZZ_REQUIRE(n >= 1 && n <= MAX_PARTICLES, "a scene's particles outside 1 .. the limit");
  FUZZ_REQUIRE(cdyn_system_get_state(sys, q, v) == CDYN_OK, "get_state failed");
  for (size_t k = 0; k < 3 * n; k++)
    FUZZ_REQUIRE(isfinite(q[k]) && isfinite(v[k]), "a scene read with a non-finite state");
  for (size_t i = 0; i < n; i++) {
    double m;
    FUZZ_REQUIRE(cdyn_system_get_particle(sys, i, &m, NULL, NULL) == CDYN_OK, "get_particle failed");
    FUZZ_REQUIRE(m > 0 && isfinite(m), "a scene read with a mass not positive and finite");
  }
  FUZZ_REQUIRE(isfinite(cdyn_system_time(sys)), "a scene read with a non-finite time");
  for (size_t k = 0; k < cdyn_system_spring_count(sys); k++) {
    size_t i, j;
    double ks, c, rest;
    FUZZ_REQUIRE(cdyn_system_get_spring(sys, k, &i, &j, &ks, &c, &rest) == CDYN_OK, "get_spring failed");
    FUZZ_REQUIRE(i < n && j < n && i != j, "a spring on particles that do not exist");
    FUZZ_REQUIRE(ks >= 0 && c >= 0 && rest > 0 && isfinite(ks) && isfinite(c) && isfinite(rest),
                 "a spring with a bad stiffness, damping or rest length");
  }
  for (size_t k = 0; k < cdyn_system_constraint_count(sys); k++) {
    const cdyn_constraint_type *type;
    size_t parts[CDYN_MAX_PARTICLES];
    double params[CDYN_MAX_PARAMS];
    if (cdyn_system_get_constraint(sys, k, &type, parts, params) != CDYN_OK)
      continue;
    for (unsigned a = 0; a < type->nparticles; a++)
      FUZZ_REQUIRE(parts[a] < n, "a constraint on a particle that does not exist");
    for (unsigned a = 0; a < type->nparams; a++)
      FUZZ_REQUIRE(isfinite(params[a]), "a constraint with a non-finite parameter");
  }
  const char *name = cdyn_scene_name(sc);
  FUZZ_REQUIRE(name && name[0], "a scene without a name");
  FUZZ_REQUIRE(cdyn_scene_description(sc), "a scene without a description");
  size_t idx;
  FUZZ_REQUIRE(cdyn_scheme_find(cdyn_scene_scheme(sc), &idx) == CDYN_OK, "a scene with an unknown scheme");
  for (size_t k = 0; k < cdyn_scene_option_count(sc); k++) {
    const char *key, *value;
    FUZZ_REQUIRE(cdyn_scene_option(sc, k, &key, &value) == CDYN_OK && key && value, "cdyn_scene_option failed");
    int found = 0;
    for (size_t o = 0; o < cdyn_scheme_option_count(idx) && !found; o++) {
      const char *oname;
      found = !cdyn_scheme_option(idx, o, &oname, NULL, NULL) && !strcmp(oname, key);
    }
    FUZZ_REQUIRE(found, "a scene with an option its scheme does not have");
  }
  cdyn_scene_run run;
  FUZZ_REQUIRE(cdyn_scene_get_run(sc, &run) == CDYN_OK, "cdyn_scene_get_run failed");
  FUZZ_REQUIRE(run.h > 0 && isfinite(run.h), "a run with h not positive and finite");
  FUZZ_REQUIRE(run.steps >= 1 && run.steps <= 100000000L, "a run with steps outside 1 .. 1e8");
  FUZZ_REQUIRE(run.record_every >= 1, "a run with record.every < 1");
  FUZZ_REQUIRE(run.max_error >= 0 && isfinite(run.max_error), "a run with a bad max_error");
}

/* The option's value, when it is a number. */
static int option_number(const char *value, double *x)
{
  char *end;
  *x = strtod(value, &end);
  return end != value && *end == '\0';
}

/*
 * Whether a few steps are quick enough to take: a small system (the dense
 * solvers cost rows^3), hooks of bounded work, and no option that asks for
 * more iterations than iteration_caps allows.
 */
static int can_step(const cdyn_scene *sc)
{
  const cdyn_system *sys = cdyn_scene_system(sc);
  size_t n = cdyn_system_size(sys);
  double rows = (double)cdyn_system_row_count(sys), work = 0;
  for (size_t k = 0; k < sc->nsl; k++)
    rows += (double)sc->sl[k].count;
  for (size_t k = 0; k < sc->nballs; k++)
    rows += (double)sc->balls[k].count;
  for (size_t k = 0; k < sc->nprovot; k++)
    work += (double)sc->provot[k].sweeps * (double)(sc->provot[k].count + 1);
  if (n > STEP_MAX_PARTICLES || rows > STEP_MAX_ROWS || work > STEP_MAX_PROVOT)
    return 0;
  for (size_t k = 0; k < cdyn_scene_option_count(sc); k++) {
    const char *key, *value;
    double x;
    cdyn_scene_option(sc, k, &key, &value);
    for (size_t c = 0; c < sizeof iteration_caps / sizeof iteration_caps[0]; c++)
      if (!strcmp(key, iteration_caps[c].key) && option_number(value, &x) && !(x <= iteration_caps[c].max))
        return 0;
  }
  return 1;
}

/* ---- the harness ------------------------------------------------------------------------------ */

static double start; /* of the input */

static void run_steps(cdyn_scene *sc, cdyn_stepper *st)
{
  cdyn_scene_run run;
  cdyn_scene_get_run(sc, &run);
  const cdyn_system *sys = cdyn_scene_system(sc);
  size_t n = cdyn_system_size(sys);
  for (int k = 0; k < STEPS && k < run.steps && cdyn_clock() - start < STEP_TIME; k++) {
    int rc = cdyn_scene_step(sc, st, run.h);
    if (rc < 0) {
      FUZZ_REQUIRE(cdyn_errmsg()[0], "a failed step without a message");
      break;
    }
    cdyn_system_get_state(sys, q, v);
    for (size_t i = 0; i < 3 * n; i++)
      FUZZ_REQUIRE(isfinite(q[i]) && isfinite(v[i]), "a successful step left a non-finite state");
  }
}

/* A stepper for sc: refused with a message, or made; then saved with it,
   the scene reads back and makes a stepper again; then a few steps. */
static void check_stepper(cdyn_scene *sc)
{
  cdyn_stepper *st = (cdyn_stepper *)&st; /* not NULL: a refusal must clear it */
  int rc = cdyn_scene_stepper(&st, sc, NULL);
  if (rc != CDYN_OK) {
    FUZZ_REQUIRE(rc < 0, "a refused stepper with a non-negative status");
    FUZZ_REQUIRE(st == NULL, "a refused stepper returned");
    FUZZ_REQUIRE(cdyn_errmsg()[0], "a refused stepper without a message");
    return;
  }
  size_t len;
  char *text = save(sc, st, &len);
  cdyn_scene *sc2 = reread(text, len);
  check_scene(sc2);
  cdyn_stepper *st2 = NULL;
  rc = cdyn_scene_stepper(&st2, sc2, NULL);
  if (rc != CDYN_OK)
    fprintf(stderr, "%s\n--- the scene saved with its stepper:\n%s\n---\n", cdyn_errmsg(), text);
  FUZZ_REQUIRE(rc == CDYN_OK, "the options of a stepper, saved, do not make a stepper again");
  cdyn_stepper_free(st2);
  cdyn_scene_free(sc2);
  free(text);
  if (can_step(sc))
    run_steps(sc, st);
  cdyn_stepper_free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  init_path();
  start = cdyn_clock();
  cdyn_scene *sc = (cdyn_scene *)&sc; /* not NULL: a refusal must clear it */
  int rc = cdyn_scene_parse(&sc, (const char *)data, size, NAME, &limits);
  if (rc != CDYN_OK) {
    const char *msg = cdyn_errmsg();
    int named = !strncmp(msg, NAME ":", strlen(NAME ":"));
    if (rc >= 0 || !named)
      fprintf(stderr, "status %d, message \"%s\"\n", rc, msg);
    FUZZ_REQUIRE(rc < 0, "a refused scene with a non-negative status");
    FUZZ_REQUIRE(sc == NULL, "a refused scene returned");
    FUZZ_REQUIRE(named, "a refused scene's message does not name the file");
    return 0;
  }
  FUZZ_REQUIRE(sc, "a scene read without a scene");
  check_scene(sc);

  if (items(sc) > ROUND_TRIP_MAX_ITEMS) {
    cdyn_scene_free(sc);
    return 0;
  }

  /* The writer and the reader: save, read back, save again: the same bytes. */
  size_t len1, len2;
  char *text1 = save(sc, NULL, &len1);
  cdyn_scene *sc2 = reread(text1, len1);
  check_scene(sc2);
  char *text2 = save(sc2, NULL, &len2);
  if (len1 != len2 || memcmp(text1, text2, len1))
    fprintf(stderr, "--- saved:\n%s\n--- read back and saved again:\n%s\n---\n", text1, text2);
  FUZZ_REQUIRE(len1 == len2 && !memcmp(text1, text2, len1), "saving a saved scene read back changes it");
  free(text1);
  free(text2);
  cdyn_scene_free(sc2);

  /* A contact handler's stepper reserves A's pattern for its capacity
     (64 entries a row): above STEP_MAX_CONTACTS, two of them take longer
     under the sanitizers than an input's time. */
  if (!cdyn_scene_contacts(sc) || sc->contacts.opts.capacity <= STEP_MAX_CONTACTS)
    check_stepper(sc);
  cdyn_scene_free(sc);
  remove_files();
  return 0;
}
