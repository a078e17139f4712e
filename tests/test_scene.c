/*
 * test_scene.c: scenes (cdyn/scene.h, lib/scene/scene.c, lib/scene/load.c):
 *
 * - every kind of bad file is refused with a message that names the file
 *   and the line and column (syntax) or the JSON path of the value, and
 *   says what is wrong; nothing is returned;
 * - a scene built in C with every kind of element and hook, saved and
 *   read back, is the same system to the bit (masses, state, springs,
 *   constraints and their flags, the hooks' settings), and saving it
 *   again gives the same bytes (negative zero and a subnormal included);
 * - the generators make what their definitions say (positions, joints,
 *   pins), and a cloth generator the patch of cdyn_cloth_new;
 * - a loaded scene steps to the same bits as the same system built and
 *   stepped in C, with and without hooks (a strain limiter, a ball);
 * - t_end gives ceil((t_end - t0) / h) steps;
 * - a step with every hook at work (strain limiting, a ball, contacts made
 *   and released) allocates nothing;
 * - the public functions refuse bad arguments with a status.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "alloc_count.h"
#include "testutil.h"

static cdyn_scene *parse_ok(const char *text)
{
  cdyn_scene *sc = NULL;
  int rc = cdyn_scene_parse(&sc, text, strlen(text), "t.json", NULL);
  ck_assert_msg(rc == CDYN_OK, "scene refused: %s\n%s", cdyn_errmsg(), text);
  ck_assert_ptr_nonnull(sc);
  return sc;
}

/* The scene must be refused with a message holding every one of `want`
   (NULL-ended), and nothing returned. */
static void parse_bad(const char *text, const char *const *want)
{
  cdyn_scene *sc = (cdyn_scene *)&sc; /* not NULL: the call must clear it */
  int rc = cdyn_scene_parse(&sc, text, strlen(text), "t.json", NULL);
  ck_assert_msg(rc < 0, "scene accepted:\n%s", text);
  ck_assert_ptr_null(sc);
  const char *msg = cdyn_errmsg();
  ck_assert_msg(!strncmp(msg, "t.json:", 7), "the message does not start with the file name: %s", msg);
  for (const char *const *w = want; *w; w++)
    ck_assert_msg(strstr(msg, *w) != NULL, "message '%s' lacks '%s' (scene:\n%s)", msg, *w, text);
}

#define BAD(text, ...) parse_bad(text, (const char *const[]){__VA_ARGS__, NULL})

/* A valid base: two particles, the second linked to the first. */
#define HEAD "{\"cdyn_scene\": 1, \"particles\": [{\"x\": [0, 0, 0]}, {\"x\": [1, 0, 0]}]"

START_TEST(test_errors)
{
  /* Syntax: line and column. */
  BAD("{\"cdyn_scene\": 1,\n \"particles\": [}", "t.json:2:");
  BAD(HEAD ", \"time\": 1e400}", "t.json:1:", "overflow");
  BAD(HEAD ", \"time\": 1, \"time\": 2}", "t.json:1:", "duplicate");
  BAD("{\"cdyn_scene\": 1, \"name\": \"a\\u0000b\", \"particles\": [{\"x\": [0, 0, 0]}]}", "t.json:1:");
  BAD("[1, 2]", "t.json: $:", "expected an object");
  /* The version. */
  BAD("{\"particles\": [{\"x\": [0, 0, 0]}]}", "$:", "'cdyn_scene'");
  BAD("{\"cdyn_scene\": 2, \"particles\": [{\"x\": [0, 0, 0]}]}", "$.cdyn_scene", "newer");
  BAD("{\"cdyn_scene\": 1.5, \"particles\": [{\"x\": [0, 0, 0]}]}", "$.cdyn_scene", "not an integer");
  /* Unknown fields, at any depth. */
  BAD(HEAD ", \"partcles\": []}", "$.partcles", "unknown field");
  /* A misspelt name: the nearest known one, when it is near. */
  BAD(HEAD ", \"gravty\": [0, 0, 0]}", "$.gravty", "unknown field 'gravty'; did you mean 'gravity'?");
  BAD(HEAD ", \"scheme\": \"ratle\"}", "$.scheme", "did you mean 'rattle'?");
  BAD(HEAD ", \"constraints\": [{\"type\": \"distnace\", \"particles\": [0, 1], \"params\": {\"length\": 1}}]}",
      "did you mean 'distance'?");
  BAD(HEAD ", \"scheme\": {\"name\": \"shake\", \"options\": {\"max_itre\": 5}}}", "did you mean 'max_iter'?");
  BAD(HEAD ", \"zzzzzzzz\": 1}", "unknown field 'zzzzzzzz' (known here");
  BAD(HEAD ", \"links\": [{\"i\": 0, \"j\": 1, \"lenght\": 1}]}", "$.links[0].lenght", "unknown field");
  BAD(HEAD ", \"scheme\": {\"name\": \"implicit\", \"option\": {}}}", "$.scheme.option", "unknown field");
  /* Types and ranges. */
  BAD(HEAD ", \"gravity\": [0, -9.81]}", "$.gravity", "three numbers");
  BAD(HEAD ", \"gravity\": [0, \"x\", 0]}", "$.gravity[1]", "expected a number");
  BAD("{\"cdyn_scene\": 1, \"particles\": [{\"x\": [0, 0, 0]}, {\"x\": [1, 0, 0], \"m\": 0}]}", "$.particles[1].m",
      "must be > 0");
  BAD("{\"cdyn_scene\": 1, \"particles\": [{\"x\": [0, 0, 0], \"m\": -2}]}", "$.particles[0].m", "must be > 0");
  BAD("{\"cdyn_scene\": 1, \"particles\": [{\"v\": [0, 0, 0]}]}", "$.particles[0]", "'x' is required");
  BAD("{\"cdyn_scene\": 1, \"particles\": []}", "no particles");
  BAD(HEAD ", \"springs\": [{\"i\": 0, \"j\": 1, \"k\": -1}]}", "$.springs[0].k", ">= 0");
  BAD(HEAD ", \"run\": {\"steps\": 2.5}}", "$.run.steps", "not an integer");
  BAD(HEAD ", \"run\": {\"steps\": 0}}", "$.run.steps", "outside");
  BAD(HEAD ", \"run\": {\"steps\": 10, \"t_end\": 1}}", "$.run.t_end", "not both");
  BAD(HEAD ", \"run\": {\"t_end\": -1}}", "$.run.t_end", "later than the start");
  BAD(HEAD ", \"run\": {\"h\": 0}}", "$.run.h", "must be > 0");
  BAD(HEAD ", \"record\": {\"every\": 0}}", "$.record.every", "outside");
  BAD(HEAD ", \"record\": {\"positions\": 1}}", "$.record.positions", "true or false");
  BAD(HEAD ", \"run\": {\"stop\": {\"divergence\": 0}}}", "$.run.stop.divergence", "true or false");
  /* Particle indices. */
  BAD(HEAD ", \"links\": [{\"i\": 0, \"j\": 2}]}", "$.links[0].j", "particle 2 is out of range", "2 particles");
  BAD(HEAD ", \"links\": [{\"i\": 0, \"j\": -1}]}", "$.links[0].j", "out of range");
  BAD(HEAD ", \"links\": [{\"i\": 0, \"j\": 0.5}]}", "$.links[0].j", "integer");
  BAD(HEAD ", \"links\": [{\"i\": 1, \"j\": 1}]}", "$.links[0]", "same particle");
  BAD(HEAD ", \"walls\": [{\"particles\": [0, 7], \"point\": [0, 0, 0], \"normal\": [0, 1, 0]}]}",
      "$.walls[0].particles[1]", "out of range");
  BAD(HEAD ", \"constraints\": [{\"type\": \"distance\", \"particles\": [0, 5], \"params\": {\"length\": 1}}]}",
      "$.constraints[0].particles[1]", "out of range");
  BAD(HEAD ", \"constraints\": [{\"type\": \"distance\", \"particles\": [1, 1], \"params\": {\"length\": 1}}]}",
      "$.constraints[0].particles[1]", "listed twice");
  /* Constraint types and parameters. */
  BAD(HEAD ", \"constraints\": [{\"type\": \"rope\", \"particles\": [0, 1], \"params\": []}]}", "$.constraints[0].type",
      "unknown constraint type", "distance");
  BAD(HEAD ", \"constraints\": [{\"type\": \"distance\", \"particles\": [0, 1], \"params\": {\"lenght\": 1}}]}",
      "$.constraints[0].params.lenght", "unknown parameter", "length");
  BAD(HEAD ", \"constraints\": [{\"type\": \"distance\", \"particles\": [0, 1], \"params\": {}}]}",
      "$.constraints[0].params", "'length' is required");
  BAD(HEAD ", \"constraints\": [{\"type\": \"distance\", \"particles\": [0, 1], \"params\": [1, 2]}]}",
      "$.constraints[0].params", "takes 1 parameters");
  BAD(HEAD ", \"constraints\": [{\"type\": \"distance\", \"particles\": [0, 1], \"params\": [-1]}]}", "$.constraints[0]");
  BAD(HEAD ", \"constraints\": [{\"type\": \"distance\", \"particles\": [0], \"params\": [1]}]}",
      "$.constraints[0].particles", "2 particle indices");
  /* Pins: one per particle, whichever way it is given. */
  BAD(HEAD ", \"pins\": [{\"i\": 0}, {\"i\": 1}, {\"i\": 0}]}", "$.pins[2]", "pinned twice");
  BAD(HEAD ", \"pins\": [{\"i\": 1}], \"constraints\": [{\"type\": \"pin\", \"particles\": [1], \"params\": "
           "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}]}",
      "$.pins[0]", "pinned twice");
  BAD("{\"cdyn_scene\": 1, \"generators\": [{\"type\": \"chain\", \"count\": 3, \"step\": [1, 0, 0]}], "
      "\"pins\": [{\"i\": 0}]}",
      "$.pins[0]", "pinned twice");
  /* Schemes and options. */
  BAD(HEAD ", \"scheme\": \"implicitt\"}", "$.scheme", "unknown scheme", "implicit");
  BAD(HEAD ", \"scheme\": {\"name\": \"implicit\", \"options\": {\"alpah\": 1}}}", "$.scheme.options.alpah",
      "unknown option");
  BAD(HEAD ", \"scheme\": {\"name\": \"implicit\", \"options\": {\"solver\": [1]}}}", "$.scheme.options.solver");
  /* Generators. */
  BAD("{\"cdyn_scene\": 1, \"generators\": [{\"type\": \"rope\"}]}", "$.generators[0].type", "unknown value");
  BAD("{\"cdyn_scene\": 1, \"generators\": [{\"type\": \"particles\"}]}", "$.generators[0]",
      "'particles' is required");
  BAD("{\"cdyn_scene\": 1, \"generators\": [{\"type\": \"particles\", \"particles\": []}]}",
      "$.generators[0].particles", "non-empty array");
  BAD("{\"cdyn_scene\": 1, \"generators\": [{\"type\": \"particles\", \"particles\": [{\"x\": [0, 0, 0]}, "
      "{\"x\": [1, 0, 0], \"m\": -1}]}]}",
      "$.generators[0].particles[1].m", "must be > 0");
  BAD("{\"cdyn_scene\": 1, \"generators\": [{\"type\": \"particles\", \"particles\": [{\"x\": [0, 0, 0]}], "
      "\"count\": 2}]}",
      "$.generators[0].count", "unknown field");
  BAD("{\"cdyn_scene\": 1, \"generators\": [{\"type\": \"chain\", \"count\": 3, \"step\": [0, 0, 0]}]}",
      "$.generators[0].step", "not be zero");
  BAD("{\"cdyn_scene\": 1, \"generators\": [{\"type\": \"chain\", \"count\": 3, \"step\": [1, 0, 0], \"joints\": "
      "\"springs\"}]}",
      "$.generators[0]", "'k' is required");
  BAD("{\"cdyn_scene\": 1, \"generators\": [{\"type\": \"cloth\", \"nx\": 3, \"ny\": 3, \"u\": [1, 0, 0], \"v\": [2, 0, 0], "
      "\"mass\": 1, \"k_struct\": 1, \"k_shear\": 1, \"k_bend\": 1}]}",
      "$.generators[0]", "parallel");
  BAD("{\"cdyn_scene\": 1, \"generators\": [{\"type\": \"cloth\", \"nx\": 3, \"ny\": 3, \"u\": [1, 0, 0], \"v\": [0, 0, 1], "
      "\"mass\": 1, \"k_struct\": 1, \"k_shear\": 1, \"k_bend\": 1, \"pins\": [9]}]}",
      "$.generators[0].pins[0]", "out of range");
  BAD("{\"cdyn_scene\": 1, \"generators\": [{\"type\": \"grid\", \"n\": [3, 3], \"spacing\": [1, 1, 1], \"k\": 1}]}",
      "$.generators[0].n", "three");
  BAD("{\"cdyn_scene\": 1, \"generators\": [{\"type\": \"grid\", \"n\": [1, 1, 1], \"spacing\": [1, 1, 1], \"k\": 1}]}",
      "$.generators[0].n", "at least 2");
  /* Hooks. */
  BAD(HEAD ", \"springs\": [{\"i\": 0, \"j\": 1, \"k\": 1}], \"strain_limits\": [{\"springs\": [1], \"eps_max\": 0.1}]}",
      "$.strain_limits[0].springs[0]", "spring 1 is out of range");
  BAD(HEAD ", \"springs\": [{\"i\": 0, \"j\": 1, \"k\": 1}], \"strain_limits\": [{\"springs\": [0], \"eps_max\": 0}]}",
      "$.strain_limits[0].eps_max", "> 0");
  BAD(HEAD ", \"springs\": [{\"i\": 0, \"j\": 1, \"k\": 1}], \"strain_limits\": [{\"springs\": [0, 0], \"eps_max\": 0.1}]}",
      "$.strain_limits[0]", "twice");
  BAD(HEAD ", \"balls\": [{\"ball\": 0, \"nodes\": [0, 1], \"radius\": 0.1}]}", "$.balls[0]");
  BAD(HEAD ", \"balls\": [{\"ball\": 0, \"nodes\": \"all\", \"radius\": 0.1, \"mode\": \"bounce\"}]}", "$.balls[0].mode",
      "unknown value");
  BAD(HEAD ", \"contacts\": {\"triangles\": [[0, 1, 2]]}}", "$.contacts.triangles[0][2]", "out of range");
  BAD("{\"cdyn_scene\": 1, \"generators\": [{\"type\": \"cloth\", \"nx\": 3, \"ny\": 3, \"u\": [1, 0, 0], \"v\": [0, 0, 1], "
      "\"mass\": 1, \"k_struct\": 1, \"k_shear\": 1, \"k_bend\": 1, \"contacts\": {}}], \"contacts\": {\"triangles\": "
      "[[0, 1, 2]]}}",
      "$.contacts", "at most one");
  /* Lists of particles: non-empty, each once. */
  BAD(HEAD ", \"walls\": [{\"particles\": [], \"point\": [0, 0, 0], \"normal\": [0, 1, 0]}]}", "$.walls[0].particles",
      "empty");
  BAD(HEAD ", \"walls\": [{\"particles\": [1, 1], \"point\": [0, 0, 0], \"normal\": [0, 1, 0]}]}",
      "$.walls[0].particles[1]", "listed twice");
  BAD(HEAD ", \"contacts\": {\"triangles\": [[0, 1, 1]]}}", "$.contacts.triangles[0][2]", "corner twice");
  BAD("{\"cdyn_scene\": 1, \"generators\": [{\"type\": \"chain\", \"count\": 3, \"step\": [1, 0, 0], \"k\": 5}]}",
      "$.generators[0]", "joints \"springs\"");
  BAD(HEAD ", \"name\": \"a/b\"}", "$.name", "names files");
  BAD(HEAD ", \"pins\": [{\"i\": 0, \"w\": 1}]}", "$.pins[0].w", "unknown field");
  /* The reader's limit on particles. */
  {
    const char *big = "{\"cdyn_scene\": 1, \"generators\": [{\"type\": \"grid\", \"n\": [100, 100, 10], \"spacing\": [1, 1, "
                      "1], \"k\": 1}]}";
    cdyn_scene *sc = NULL;
    cdyn_scene_limits lim = {1000, 0, 0, 0};
    ck_assert_int_eq(cdyn_scene_parse(&sc, big, strlen(big), "big.json", &lim), CDYN_EINVAL);
    ck_assert_ptr_null(sc);
    ck_assert_msg(strstr(cdyn_errmsg(), "more than this reader allows") != NULL, "%s", cdyn_errmsg());
  }
  /* The reader's limits on constraints (a wall on "all" makes one per
     particle) and on a contact handler's capacity and pairs. */
  {
    const char *walls = "{\"cdyn_scene\": 1, \"generators\": [{\"type\": \"grid\", \"n\": [10, 10, 1], \"spacing\": [1, 1, 1], "
                        "\"k\": 1}], \"walls\": [{\"particles\": \"all\", \"point\": [0, 0, 0], \"normal\": [0, 1, 0]}]}";
    const char *cont = "{\"cdyn_scene\": 1, \"particles\": [{\"x\": [0, 0, 0]}, {\"x\": [1, 0, 0]}, {\"x\": [0, 0, 1]}], "
                       "\"contacts\": {\"triangles\": [[0, 1, 2]], \"capacity\": 100}}";
    cdyn_scene *sc = NULL;
    cdyn_scene_limits lim = {0, 50, 64, 0};
    ck_assert_int_eq(cdyn_scene_parse(&sc, walls, strlen(walls), "w.json", &lim), CDYN_EINVAL);
    ck_assert_ptr_null(sc);
    ck_assert_msg(strstr(cdyn_errmsg(), "$.walls[0]") && strstr(cdyn_errmsg(), "50 this reader allows"), "%s",
                  cdyn_errmsg());
    ck_assert_int_eq(cdyn_scene_parse(&sc, cont, strlen(cont), "c.json", &lim), CDYN_EINVAL);
    ck_assert_msg(strstr(cdyn_errmsg(), "$.contacts.capacity") != NULL, "%s", cdyn_errmsg());
    lim.max_constraints = 100;
    lim.max_contacts = 100;
    ck_assert_int_eq(cdyn_scene_parse(&sc, walls, strlen(walls), "w.json", &lim), CDYN_OK);
    cdyn_scene_free(sc);
    ck_assert_int_eq(cdyn_scene_parse(&sc, cont, strlen(cont), "c.json", &lim), CDYN_OK);
    cdyn_scene_free(sc);
    lim.max_pairs = 1000; /* below the default pairs, 2^18 */
    ck_assert_int_eq(cdyn_scene_parse(&sc, cont, strlen(cont), "c.json", &lim), CDYN_EINVAL);
    ck_assert_msg(strstr(cdyn_errmsg(), "$.contacts") && strstr(cdyn_errmsg(), "pairs"), "%s", cdyn_errmsg());
  }
  /* A file that is not there. */
  {
    cdyn_scene *sc = NULL;
    ck_assert_int_eq(cdyn_scene_load(&sc, "/nonexistent/scene.json", NULL), CDYN_EIO);
    ck_assert_ptr_null(sc);
    ck_assert_msg(strstr(cdyn_errmsg(), "/nonexistent/scene.json") != NULL, "%s", cdyn_errmsg());
  }
  /* A bad option value is the stepper's to refuse: cdyn_scene_stepper
     names the option's path. */
  {
    cdyn_scene *sc = parse_ok(HEAD ", \"links\": [{\"i\": 0, \"j\": 1}], \"scheme\": {\"name\": \"baumgarte\", "
                                   "\"options\": {\"alpha\": \"abc\"}}}");
    cdyn_stepper *st = (cdyn_stepper *)&st;
    ck_assert_int_lt(cdyn_scene_stepper(&st, sc, NULL), 0);
    ck_assert_ptr_null(st);
    ck_assert_msg(strstr(cdyn_errmsg(), "$.scheme.options.alpha") != NULL, "%s", cdyn_errmsg());
    cdyn_scene_free(sc);
  }
  /* Contacts as inequality rows need the scheme contact: refused when the
     stepper is made, not at the first contact. */
  {
    cdyn_scene *sc = parse_ok("{\"cdyn_scene\": 1, \"generators\": [{\"type\": \"cloth\", \"nx\": 3, \"ny\": 3, "
                              "\"u\": [1, 0, 0], \"v\": [0, 0, 1], \"mass\": 1, \"k_struct\": 1, \"k_shear\": 1, "
                              "\"k_bend\": 1, \"contacts\": {}}]}");
    cdyn_stepper *st = NULL;
    TU_EXPECT_EINVAL(cdyn_scene_stepper(&st, sc, "implicit"));
    ck_assert_ptr_null(st);
    ck_assert_msg(strstr(cdyn_errmsg(), "$.contacts") && strstr(cdyn_errmsg(), "switch"), "%s", cdyn_errmsg());
    ck_assert_int_eq(cdyn_scene_stepper(&st, sc, "contact"), CDYN_OK);
    cdyn_stepper_free(st);
    cdyn_scene_free(sc);
  }
}
END_TEST

START_TEST(test_comments_and_defaults)
{
  cdyn_scene *sc = parse_ok("{\"cdyn_scene\": 1, \"_note\": {\"anything\": [1, 2]}, "
                            "\"particles\": [{\"x\": [0, 0, 0], \"_c\": 1}, {\"x\": [3, 4, 0], \"m\": 2}], "
                            "\"links\": [{\"i\": 0, \"j\": 1}], \"springs\": [{\"i\": 0, \"j\": 1, \"k\": 5}]}");
  cdyn_system *sys = cdyn_scene_system(sc);
  ck_assert_str_eq(cdyn_scene_name(sc), "t");
  ck_assert_str_eq(cdyn_scene_scheme(sc), "implicit");
  cdyn_scene_run r;
  ck_assert_int_eq(cdyn_scene_get_run(sc, &r), CDYN_OK);
  ck_assert(r.h == 0.01 && r.steps == 100 && r.record_every == 1 && !r.record_positions && r.max_error == 0);
  double m, x[3], v[3], g[3] = {1, 1, 1};
  ck_assert_int_eq(cdyn_system_get_particle(sys, 1, &m, x, v), CDYN_OK);
  ck_assert(m == 2 && x[0] == 3 && v[0] == 0 && v[1] == 0);
  /* The link's and the spring's lengths default to the starting distance, 5. */
  const cdyn_constraint_type *t;
  double p[CDYN_MAX_PARAMS];
  ck_assert_int_eq(cdyn_system_get_constraint(sys, 0, &t, NULL, p), CDYN_OK);
  ck_assert(t == cdyn_constraint_distance && p[0] == 5);
  double rest, k, c;
  ck_assert_int_eq(cdyn_system_get_spring(sys, 0, NULL, NULL, &k, &c, &rest), CDYN_OK);
  ck_assert(rest == 5 && k == 5 && c == 0);
  (void)g;
  cdyn_scene_free(sc);
  /* t_end: ceil((t_end - t0) / h), a ratio within 1e-9 of an integer
     being that integer. */
  sc = parse_ok(HEAD ", \"run\": {\"h\": 0.001, \"t_end\": 1}}");
  cdyn_scene_get_run(sc, &r);
  ck_assert_int_eq(r.steps, 1000);
  cdyn_scene_free(sc);
  sc = parse_ok(HEAD ", \"time\": 0.5, \"run\": {\"h\": 0.3, \"t_end\": 1.5}}");
  cdyn_scene_get_run(sc, &r);
  ck_assert_int_eq(r.steps, 4);
  ck_assert(cdyn_system_time(cdyn_scene_system(sc)) == 0.5);
  cdyn_scene_free(sc);
}
END_TEST

/* ---- round trip ---------------------------------------------------------------------------- */

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  ck_assert_ptr_nonnull(b);
  ck_assert_int_eq(fread(b, 1, (size_t)n, f), (size_t)n);
  b[n] = '\0';
  fclose(f);
  return b;
}

/* Are the two systems the same, to the bit? */
static void same_system(const cdyn_system *a, const cdyn_system *b)
{
  size_t n = cdyn_system_size(a);
  ck_assert_int_eq(cdyn_system_size(b), n);
  ck_assert(!memcmp(cdyn_system_positions(a), cdyn_system_positions(b), 3 * n * sizeof(double)));
  ck_assert(!memcmp(cdyn_system_velocities(a), cdyn_system_velocities(b), 3 * n * sizeof(double)));
  ck_assert(!memcmp(&(double){cdyn_system_time(a)}, &(double){cdyn_system_time(b)}, sizeof(double)));
  for (size_t i = 0; i < n; i++) {
    double ma, mb;
    cdyn_system_get_particle(a, i, &ma, NULL, NULL);
    cdyn_system_get_particle(b, i, &mb, NULL, NULL);
    ck_assert(!memcmp(&ma, &mb, sizeof ma));
  }
  ck_assert_int_eq(cdyn_system_spring_count(b), cdyn_system_spring_count(a));
  for (size_t k = 0; k < cdyn_system_spring_count(a); k++) {
    size_t ia, ja, ib, jb;
    double sa[3], sb[3];
    int ona, onb;
    cdyn_system_get_spring(a, k, &ia, &ja, &sa[0], &sa[1], &sa[2]);
    cdyn_system_get_spring(b, k, &ib, &jb, &sb[0], &sb[1], &sb[2]);
    cdyn_system_spring_enabled(a, k, &ona);
    cdyn_system_spring_enabled(b, k, &onb);
    ck_assert(ia == ib && ja == jb && !memcmp(sa, sb, sizeof sa) && ona == onb);
  }
  ck_assert_int_eq(cdyn_system_live_constraints(b), cdyn_system_live_constraints(a));
  ck_assert_int_eq(cdyn_system_row_count(b), cdyn_system_row_count(a));
  size_t cb = 0;
  for (size_t c = 0; c < cdyn_system_constraint_count(a); c++) {
    const cdyn_constraint_type *ta, *tb;
    size_t pa[CDYN_MAX_PARTICLES], pb[CDYN_MAX_PARTICLES];
    double qa[CDYN_MAX_PARAMS], qb[CDYN_MAX_PARAMS];
    if (cdyn_system_get_constraint(a, c, &ta, pa, qa))
      continue;
    while (cdyn_system_get_constraint(b, cb, &tb, pb, qb))
      cb++;
    ck_assert_ptr_eq(ta, tb);
    ck_assert(!memcmp(pa, pb, ta->nparticles * sizeof(size_t)));
    ck_assert(!memcmp(qa, qb, ta->nparams * sizeof(double)));
    int ia, ib, ea, eb;
    cdyn_system_is_inequality(a, c, &ia);
    cdyn_system_is_inequality(b, cb, &ib);
    cdyn_system_constraint_enabled(a, c, &ea);
    cdyn_system_constraint_enabled(b, cb, &eb);
    ck_assert(ia == ib && ea == eb);
    cb++;
  }
}

/* A scene with every element and hook: a 3 x 3 cloth, a ball, odd numbers. */
static cdyn_scene *every_kind(void)
{
  cdyn_cloth *cl;
  cdyn_system *sys;
  const size_t pins[2] = {0, 2};
  cdyn_cloth_spec cs = {3, 3, {0, 0, 0}, {1, 0, 0}, {0, 0, 1}, 0.3, 10, 2, 1, 0.01, pins, 2, 3};
  ck_assert_int_eq(cdyn_cloth_new(&cl, &sys, &cs), CDYN_OK);
  const double g[3] = {0, -9.81, -0.0}, xb[3] = {0.5, 0.2, 0.5}, vb[3] = {-0.0, -1, 0.1};
  const double xs[3] = {3, 1e-310, 0.1}, xt[3] = {0.1 + 0.2, -2, 1.0 / 3.0};
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_time(sys, 0.25), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(sys, 9, xb), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_velocity(sys, 9, vb), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_mass(sys, 9, 2.5), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(sys, 10, xs), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(sys, 11, xt), CDYN_OK);
  size_t id, sp;
  ck_assert_int_eq(cdyn_system_add_spring(sys, 10, 11, 7, 0.5, 1.25, &sp), CDYN_OK);
  ck_assert_int_eq(cdyn_system_enable_spring(sys, sp, 0), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_distance(sys, 10, 11, 2.0, &id), CDYN_OK);
  ck_assert_int_eq(cdyn_system_enable_constraint(sys, id, 0), CDYN_OK);
  const double p0[3] = {3, 0, 0}, u[3] = {0.1, 0, 0}, a[3] = {0, 0.2, 0};
  ck_assert_int_eq(cdyn_system_add_moving_pin(sys, 10, p0, u, a, 3.0, 0.5, NULL), CDYN_OK);
  const double wp[3] = {0, -1, 0}, wn[3] = {0, 1, 0};
  ck_assert_int_eq(cdyn_system_add_wall(sys, 11, wp, wn, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_separation(sys, 9, 11, 0.3, NULL), CDYN_OK);
  cdyn_scene *sc;
  ck_assert_int_eq(cdyn_scene_new(&sc, sys), CDYN_OK);
  ck_assert_int_eq(cdyn_scene_set_name(sc, "every-kind.1", "a \"quoted\" \\ description\n"), CDYN_OK);
  size_t first, count;
  ck_assert_int_eq(cdyn_cloth_springs(cl, CDYN_SPRING_STRUCT, &first, &count), CDYN_OK);
  size_t s[64];
  for (size_t k = 0; k < count; k++)
    s[k] = first + k;
  cdyn_strainlimit_opts so = {0.1, 1.05, 0.5, 0, 0.01, CDYN_LIMIT_SWITCH};
  ck_assert_int_eq(cdyn_scene_add_strainlimit(sc, s, count, &so), CDYN_OK);
  ck_assert_int_eq(cdyn_scene_add_provot(sc, s, count, 0.2, 3, pins, 2), CDYN_OK);
  size_t nodes[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  cdyn_ball_opts bo = {0.1, 0.01, CDYN_BALL_SWITCH, 0.25};
  ck_assert_int_eq(cdyn_scene_add_ball(sc, 9, nodes, 9, &bo), CDYN_OK);
  const size_t *tri;
  size_t nt;
  ck_assert_int_eq(cdyn_cloth_triangles(cl, &tri, &nt), CDYN_OK);
  cdyn_contacts_opts co;
  cdyn_contacts_opts_default(&co);
  co.mode = CDYN_CONTACTS_SWITCH;
  co.capacity = 77;
  co.max_redo = 2;
  co.margin = 1.0 / 3.0;
  ck_assert_int_eq(cdyn_scene_add_contacts(sc, tri, nt, &co), CDYN_OK);
  cdyn_cloth_free(cl);
  /* It has inequality rows (the wall, the separation): the scheme contact. */
  ck_assert_int_eq(cdyn_scene_set_scheme(sc, "contact"), CDYN_OK);
  ck_assert_int_eq(cdyn_scene_add_option(sc, "tau", "0.05"), CDYN_OK);
  cdyn_scene_run r = {0.002, 0, 1, 0.5, 0.1, 1, -0.0, 7, 1, 1, 1};
  ck_assert_int_eq(cdyn_scene_set_run(sc, &r), CDYN_OK);
  return sc;
}

START_TEST(test_round_trip)
{
  char dir[] = "/tmp/test_scene_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char p1[256], p2[256];
  snprintf(p1, sizeof p1, "%s/a.json", dir);
  snprintf(p2, sizeof p2, "%s/b.json", dir);
  cdyn_scene *a = every_kind();
  ck_assert_int_eq(cdyn_scene_save(a, NULL, NULL, p1), CDYN_OK);
  cdyn_scene *b = NULL;
  ck_assert_msg(cdyn_scene_load(&b, p1, NULL) == CDYN_OK, "%s", cdyn_errmsg());
  same_system(cdyn_scene_system(a), cdyn_scene_system(b));
  ck_assert_str_eq(cdyn_scene_name(b), "every-kind.1");
  ck_assert_str_eq(cdyn_scene_description(b), "a \"quoted\" \\ description\n");
  TU_EXPECT_EINVAL(cdyn_scene_set_name(b, "a/b", NULL));
  ck_assert_str_eq(cdyn_scene_scheme(b), "contact");
  ck_assert_int_eq(cdyn_scene_option_count(b), 1);
  ck_assert_int_eq(cdyn_scene_strainlimit_count(b), 1);
  ck_assert_int_eq(cdyn_scene_ball_count(b), 1);
  ck_assert_ptr_nonnull(cdyn_scene_contacts(b));
  cdyn_scene_run ra, rb;
  cdyn_scene_get_run(a, &ra);
  cdyn_scene_get_run(b, &rb);
  ck_assert(ra.h == rb.h && ra.steps == rb.steps && rb.has_t_end && ra.t_end == rb.t_end && rb.max_error == 0.1 &&
            rb.has_max_energy_gain && rb.max_energy_gain == 0 && signbit(rb.max_energy_gain) && rb.record_every == 7 &&
            rb.record_positions && rb.record_velocities && rb.no_divergence == 1);
  /* Saved again: the same bytes. */
  ck_assert_int_eq(cdyn_scene_save(b, NULL, NULL, p2), CDYN_OK);
  char *ta = slurp(p1), *tb = slurp(p2);
  ck_assert_str_eq(ta, tb);
  ck_assert_msg(strstr(ta, "-0.0") != NULL, "negative zero is not written as -0.0");
  /* With a stepper: every option of the stepper, auto(x) written as x. */
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_scene_stepper(&st, b, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_scene_save(b, st, NULL, p2), CDYN_OK);
  cdyn_scene *c = NULL;
  ck_assert_msg(cdyn_scene_load(&c, p2, NULL) == CDYN_OK, "%s", cdyn_errmsg());
  ck_assert_int_eq(cdyn_scene_option_count(c), cdyn_stepper_option_count(st));
  for (size_t k = 0; k < cdyn_scene_option_count(c); k++) {
    const char *key, *val;
    char now[128];
    cdyn_scene_option(c, k, &key, &val);
    ck_assert_int_eq(cdyn_stepper_get(st, key, now, sizeof now), CDYN_OK);
    if (strncmp(now, "auto(", 5))
      ck_assert_str_eq(val, now);
    else
      ck_assert(!strncmp(now + 5, val, strlen(val)));
  }
  cdyn_stepper_free(st);
  /* The file's mode is what the umask leaves of 0666, as fopen's, and no
     temporary file is left beside it. */
  static const mode_t masks[] = {022, 077};
  for (size_t m = 0; m < 2; m++) {
    mode_t old = umask(masks[m]);
    int rc = cdyn_scene_save(b, NULL, NULL, p2);
    umask(old);
    ck_assert_int_eq(rc, CDYN_OK);
    struct stat sb;
    ck_assert_int_eq(stat(p2, &sb), 0);
    ck_assert_msg((sb.st_mode & 0777) == (0666 & ~masks[m]), "umask %03o: mode %03o", (unsigned)masks[m],
                  (unsigned)(sb.st_mode & 0777));
  }
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  size_t entries = 0;
  for (struct dirent *e; (e = readdir(d));)
    entries += e->d_name[0] != '.';
  closedir(d);
  ck_assert_uint_eq(entries, 2);
  free(ta);
  free(tb);
  cdyn_scene_free(a);
  cdyn_scene_free(b);
  cdyn_scene_free(c);
  unlink(p1);
  unlink(p2);
  rmdir(dir);
}
END_TEST

/* ---- generators ----------------------------------------------------------------------------- */

START_TEST(test_generators)
{
  cdyn_scene *sc = parse_ok("{\"cdyn_scene\": 1, \"particles\": [{\"x\": [9, 9, 9]}], \"generators\": ["
                            "{\"type\": \"chain\", \"count\": 4, \"start\": [1, 2, 3], \"step\": [0.5, -0.25, 0], "
                            "\"mass\": 0.5, \"velocity\": [0, 0, 1]},"
                            "{\"type\": \"grid\", \"n\": [3, 2, 2], \"spacing\": [1, 2, 3], \"k\": 4, \"c\": 0.5},"
                            "{\"type\": \"cloth\", \"nx\": 4, \"ny\": 3, \"origin\": [0, 1, 0], \"u\": [2, 0, 0], "
                            "\"v\": [0, 0, 1], \"mass\": 1.2, \"k_struct\": 100, \"k_shear\": 20, \"k_bend\": 2, "
                            "\"damping\": 0.02, \"pins\": [0, 3], \"strain_limit\": {\"eps_max\": 0.1}, "
                            "\"contacts\": {\"thickness\": 0.01}},"
                            "{\"type\": \"particles\", \"particles\": [{\"x\": [0.25, -0.5, 7], \"v\": [0, 3, 0], "
                            "\"m\": 2.5}, {\"x\": [1, 1, 1]}]}]}");
  cdyn_system *sys = cdyn_scene_system(sc);
  ck_assert_int_eq(cdyn_system_size(sys), 1 + 4 + 12 + 12 + 2);
  /* The particles generator's: after the cloth, as given (m = 1 by default). */
  {
    double m, x[3], v[3];
    cdyn_system_get_particle(sys, 29, &m, x, v);
    ck_assert(m == 2.5 && x[0] == 0.25 && x[1] == -0.5 && x[2] == 7 && v[0] == 0 && v[1] == 3 && v[2] == 0);
    cdyn_system_get_particle(sys, 30, &m, x, v);
    ck_assert(m == 1 && x[0] == 1 && v[1] == 0);
  }
  /* The chain: particles 1 .. 4, links, a pin at its start. */
  for (size_t k = 0; k < 4; k++) {
    double m, x[3], v[3];
    cdyn_system_get_particle(sys, 1 + k, &m, x, v);
    ck_assert(m == 0.5 && x[0] == 1 + 0.5 * (double)k && x[1] == 2 - 0.25 * (double)k && x[2] == 3 && v[2] == 1);
  }
  /* Constraints in build order: 3 links, the chain's pin, then the grid
     (springs only), then the cloth's 2 pins. */
  const cdyn_constraint_type *t;
  size_t parts[4];
  double p[CDYN_MAX_PARAMS];
  for (size_t c = 0; c < 3; c++) {
    ck_assert_int_eq(cdyn_system_get_constraint(sys, c, &t, parts, p), CDYN_OK);
    ck_assert(t == cdyn_constraint_distance && parts[0] == 1 + c && parts[1] == 2 + c);
    ck_assert(fabs(p[0] - sqrt(0.3125)) < 1e-15);
  }
  ck_assert_int_eq(cdyn_system_get_constraint(sys, 3, &t, parts, p), CDYN_OK);
  ck_assert(t == cdyn_constraint_pin && parts[0] == 1 && p[0] == 1 && p[1] == 2 && p[2] == 3);
  /* The grid: 12 particles from 5, (3-1)*2*2 + 3*(2-1)*2 + 3*2*(2-1) = 20 springs. */
  double m, x[3];
  cdyn_system_get_particle(sys, 5 + (1 * 2 + 1) * 3 + 2, &m, x, NULL);
  ck_assert(x[0] == 2 && x[1] == 2 && x[2] == 3 && m == 1);
  /* The cloth: the same as cdyn_cloth_new's, shifted by 17. */
  cdyn_cloth *cl;
  cdyn_system *ref;
  const size_t pins[2] = {0, 3};
  cdyn_cloth_spec cs = {4, 3, {0, 1, 0}, {2, 0, 0}, {0, 0, 1}, 1.2, 100, 20, 2, 0.02, pins, 2, 0};
  ck_assert_int_eq(cdyn_cloth_new(&cl, &ref, &cs), CDYN_OK);
  for (size_t i = 0; i < 12; i++) {
    double ma, mb, xa[3], xb[3];
    cdyn_system_get_particle(sys, 17 + i, &ma, xa, NULL);
    cdyn_system_get_particle(ref, i, &mb, xb, NULL);
    ck_assert(ma == mb && !memcmp(xa, xb, sizeof xa));
  }
  ck_assert_int_eq(cdyn_system_spring_count(sys), 20 + cdyn_system_spring_count(ref));
  for (size_t k = 0; k < cdyn_system_spring_count(ref); k++) {
    size_t ia, ja, ib, jb;
    double sa[3], sb[3];
    cdyn_system_get_spring(sys, 20 + k, &ia, &ja, &sa[0], &sa[1], &sa[2]);
    cdyn_system_get_spring(ref, k, &ib, &jb, &sb[0], &sb[1], &sb[2]);
    ck_assert(ia == ib + 17 && ja == jb + 17 && !memcmp(sa, sb, sizeof sa));
  }
  ck_assert_int_eq(cdyn_system_get_constraint(sys, 5, &t, parts, p), CDYN_OK);
  ck_assert(t == cdyn_constraint_pin && parts[0] == 17 + 3 && p[0] == 2);
  ck_assert_int_eq(cdyn_scene_strainlimit_count(sc), 1);
  ck_assert_ptr_nonnull(cdyn_scene_contacts(sc));
  /* The patch's topology in the scene's numbering: cdyn_cloth_new's,
     nodes shifted by 17 and springs by the grid's 20. */
  ck_assert_uint_eq(cdyn_scene_patch_count(sc), 1);
  cdyn_scene_patch pt;
  ck_assert_int_eq(cdyn_scene_get_patch(sc, 0, &pt), CDYN_OK);
  ck_assert(pt.first == 17 && pt.nx == 4 && pt.ny == 3);
  for (int k = 0; k < CDYN_SPRING_KINDS; k++) {
    size_t f, n;
    ck_assert_int_eq(cdyn_cloth_springs(cl, (enum cdyn_spring_kind)k, &f, &n), CDYN_OK);
    ck_assert(pt.spring_first[k] == 20 + f && pt.spring_count[k] == n);
  }
  const size_t *tri;
  size_t ntri;
  ck_assert_int_eq(cdyn_cloth_triangles(cl, &tri, &ntri), CDYN_OK);
  ck_assert_uint_eq(pt.ntri, ntri);
  for (size_t k = 0; k < 3 * ntri; k++)
    ck_assert_uint_eq(pt.tri[k], 17 + tri[k]);
  TU_EXPECT_EINVAL(cdyn_scene_get_patch(sc, 1, &pt));
  TU_EXPECT_EINVAL(cdyn_scene_get_patch(NULL, 0, &pt));
  TU_EXPECT_EINVAL(cdyn_scene_get_patch(sc, 0, NULL));
  ck_assert_uint_eq(cdyn_scene_patch_count(NULL), 0);
  cdyn_cloth_free(cl);
  cdyn_system_free(ref);
  cdyn_scene_free(sc);
  /* A scene made in C has no patches. */
  cdyn_system *s2;
  ck_assert_int_eq(cdyn_system_new(&s2, 2), CDYN_OK);
  ck_assert_int_eq(cdyn_scene_new(&sc, s2), CDYN_OK);
  ck_assert_uint_eq(cdyn_scene_patch_count(sc), 0);
  cdyn_scene_free(sc);
}
END_TEST

/* ---- stepping --------------------------------------------------------------------------------- */

START_TEST(test_step_same_bits)
{
  /* A pendulum with a spring, from a file and in C: the same trajectory. */
  const char *text = "{\"cdyn_scene\": 1, \"gravity\": [0, -9.81, 0], \"particles\": [{\"x\": [0, 0, 0]}, "
                     "{\"x\": [0.6, -0.8, 0], \"m\": 0.7, \"v\": [0.1, 0.2, 0.3]}, {\"x\": [1.6, -0.8, 0]}], "
                     "\"pins\": [{\"i\": 0}], \"links\": [{\"i\": 0, \"j\": 1, \"length\": 1}], "
                     "\"springs\": [{\"i\": 1, \"j\": 2, \"k\": 50, \"c\": 0.1, \"rest\": 0.9}], "
                     "\"strain_limits\": [{\"springs\": [0], \"eps_max\": 0.05}], "
                     "\"scheme\": {\"name\": \"implicit\", \"options\": {\"solver\": \"cholesky\"}}}";
  cdyn_scene *sc = parse_ok(text);
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, 3), CDYN_OK);
  const double g[3] = {0, -9.81, 0}, x0[3] = {0, 0, 0}, x1[3] = {0.6, -0.8, 0}, v1[3] = {0.1, 0.2, 0.3},
               x2[3] = {1.6, -0.8, 0};
  cdyn_system_set_gravity(sys, g);
  cdyn_system_set_position(sys, 0, x0);
  cdyn_system_set_position(sys, 1, x1);
  cdyn_system_set_velocity(sys, 1, v1);
  cdyn_system_set_mass(sys, 1, 0.7);
  cdyn_system_set_position(sys, 2, x2);
  /* Links come before pins in a scene's build order. */
  cdyn_system_add_distance(sys, 0, 1, 1.0, NULL);
  cdyn_system_add_pin(sys, 0, x0, NULL);
  cdyn_system_add_spring(sys, 1, 2, 50, 0.1, 0.9, NULL);
  size_t spring = 0;
  cdyn_strainlimit *sl;
  cdyn_strainlimit_opts so = {0.05, 0, 0, 0, 0, CDYN_LIMIT_SWITCH};
  ck_assert_int_eq(cdyn_strainlimit_new(&sl, sys, &spring, 1, &so), CDYN_OK);
  cdyn_stepper *sa, *sb;
  ck_assert_int_eq(cdyn_scene_stepper(&sa, sc, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&sb, sys, "implicit"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(sb, "solver", "cholesky"), CDYN_OK);
  int activated = 0;
  for (int k = 0; k < 300; k++) {
    ck_assert_int_ge(cdyn_scene_step(sc, sa, 0.005), 0);
    ck_assert_int_eq(cdyn_strainlimit_before(sl), CDYN_OK);
    ck_assert_int_ge(cdyn_stepper_step(sb, 0.005), 0);
    ck_assert_int_eq(cdyn_strainlimit_after(sl, sb), CDYN_OK);
    cdyn_strainlimit_counts cn;
    cdyn_strainlimit_counts_get(sl, &cn);
    activated += cn.active > 0;
    ck_assert(!memcmp(cdyn_system_positions(cdyn_scene_system(sc)), cdyn_system_positions(sys), 9 * sizeof(double)));
    ck_assert(!memcmp(cdyn_system_velocities(cdyn_scene_system(sc)), cdyn_system_velocities(sys), 9 * sizeof(double)));
  }
  /* The limiter did act (else the hook would be untested). */
  ck_assert_int_gt(activated, 0);
  cdyn_scene_stats ss;
  ck_assert_int_eq(cdyn_scene_stats_get(sc, &ss), CDYN_OK);
  ck_assert_int_eq(ss.steps, 300);
  ck_assert_int_eq(ss.stepper_steps, 300);
  cdyn_stepper_free(sa);
  cdyn_stepper_free(sb);
  cdyn_strainlimit_free(sl);
  cdyn_system_free(sys);
  cdyn_scene_free(sc);
}
END_TEST

#define STEPS 1000
START_TEST(test_no_allocation)
{
  /* A ball dropped on an 8 x 8 cloth held by two posts: the strain
     limiter, the ball's switched constraints and the contact handler all
     act within the run.  The dense solver: a sparse direct one analyses
     each new pattern of A, which allocates (cdyn/stepper.h). */
  cdyn_scene *sc = parse_ok(
    "{\"cdyn_scene\": 1, \"gravity\": [0, -9.81, 0], \"particles\": [{\"x\": [0, 0.15, 0], \"v\": [0, -3, 0]}],"
    " \"generators\": [{\"type\": \"cloth\", \"nx\": 8, \"ny\": 8, \"origin\": [-0.5, 0, -0.5], \"u\": [1, 0, 0],"
    " \"v\": [0, 0, 1], \"mass\": 0.5, \"k_struct\": 100, \"k_shear\": 20, \"k_bend\": 2, \"damping\": 0.02,"
    " \"pins\": [24, 32, 31, 39], \"strain_limit\": {\"eps_max\": 0.1},"
    " \"contacts\": {\"mode\": \"switch\", \"capacity\": 1024, \"pairs\": 65536}}],"
    " \"balls\": [{\"ball\": 0, \"nodes\": \"all\", \"radius\": 0.1, \"thickness\": 0.005}],"
    " \"scheme\": {\"name\": \"implicit\", \"options\": {\"solver\": \"cholesky\"}}}");
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_scene_stepper(&st, sc, NULL), CDYN_OK);
  long allocs = 0;
  size_t ball_max = 0, sl_max = 0;
  int status = CDYN_OK;
  for (int k = 0; k < STEPS && status >= 0; k++) {
    if (k >= 5)
      ta_arm(0);
    status = cdyn_scene_step(sc, st, 1e-3);
    if (k >= 5)
      allocs += ta_disarm();
    cdyn_ball_counts bc;
    cdyn_strainlimit_counts sc2;
    cdyn_ball_counts_get(cdyn_scene_ball(sc, 0), &bc);
    cdyn_strainlimit_counts_get(cdyn_scene_strainlimit(sc, 0), &sc2);
    ball_max = bc.active > ball_max ? bc.active : ball_max;
    sl_max = sc2.active > sl_max ? sc2.active : sl_max;
  }
  ck_assert_msg(status >= 0, "%s", cdyn_errmsg());
  cdyn_contacts_counts cc;
  ck_assert_int_eq(cdyn_contacts_counts_get(cdyn_scene_contacts(sc), &cc), CDYN_OK);
  ck_assert_msg(ball_max > 0 && sl_max > 0 && cc.vf + cc.ee + cc.total_released > 0,
                "the hooks did not all act: ball %zu, strain %zu, contacts %zu", ball_max, sl_max,
                cc.vf + cc.ee + cc.total_released);
  ck_assert_msg(allocs == 0 || !ta_works, "%ld allocations in %d steps", allocs, STEPS - 5);
  cdyn_stepper_free(st);
  cdyn_scene_free(sc);
}
END_TEST

/* ---- bad arguments ------------------------------------------------------------------------------ */

static int force(void *ctx, size_t n, double t, const double *q, const double *v, double *f)
{
  (void)ctx, (void)n, (void)t, (void)q, (void)v, (void)f;
  return 0;
}

START_TEST(test_bad_arguments)
{
  cdyn_scene *sc = NULL;
  cdyn_system *sys;
  TU_EXPECT_EINVAL(cdyn_scene_new(NULL, NULL));
  TU_EXPECT_EINVAL(cdyn_scene_new(&sc, NULL));
  TU_EXPECT_EINVAL(cdyn_scene_parse(NULL, "{}", 2, "x", NULL));
  TU_EXPECT_EINVAL(cdyn_scene_parse(&sc, NULL, 2, "x", NULL));
  TU_EXPECT_EINVAL(cdyn_scene_load(&sc, NULL, NULL));
  ck_assert_int_eq(cdyn_system_new(&sys, 3), CDYN_OK);
  ck_assert_int_eq(cdyn_scene_wrap(&sc, sys), CDYN_OK);
  TU_EXPECT_EINVAL(cdyn_scene_add_strainlimit(sc, NULL, 1, NULL));
  TU_EXPECT_EINVAL(cdyn_scene_add_provot(sc, NULL, 0, 0, 1, NULL, 0));
  size_t s0 = 5;
  TU_EXPECT_EINVAL(cdyn_scene_add_provot(sc, &s0, 1, 0.1, 1, NULL, 0));
  TU_EXPECT_EINVAL(cdyn_scene_add_provot(sc, NULL, 0, 0.1, 0, NULL, 0));
  TU_EXPECT_EINVAL(cdyn_scene_add_ball(sc, 0, NULL, 1, NULL));
  TU_EXPECT_EINVAL(cdyn_scene_add_contacts(sc, NULL, 1, NULL));
  TU_EXPECT_EINVAL(cdyn_scene_set_name(sc, NULL, NULL));
  TU_EXPECT_STATUS(cdyn_scene_set_scheme(sc, "nosuch"), CDYN_EUNKNOWN);
  TU_EXPECT_EINVAL(cdyn_scene_add_option(sc, "a", NULL));
  TU_EXPECT_EINVAL(cdyn_scene_option(sc, 0, NULL, NULL));
  cdyn_scene_run r;
  cdyn_scene_get_run(sc, &r);
  r.h = -1;
  TU_EXPECT_EINVAL(cdyn_scene_set_run(sc, &r));
  r.h = NAN;
  TU_EXPECT_EINVAL(cdyn_scene_set_run(sc, &r));
  r.h = 0.1;
  r.steps = 0;
  TU_EXPECT_EINVAL(cdyn_scene_set_run(sc, &r));
  r.steps = 10;
  r.record_every = 0;
  TU_EXPECT_EINVAL(cdyn_scene_set_run(sc, &r));
  r.record_every = 1;
  r.max_error = -1;
  TU_EXPECT_EINVAL(cdyn_scene_set_run(sc, &r));
  r.max_error = 0;
  r.no_divergence = 2;
  TU_EXPECT_EINVAL(cdyn_scene_set_run(sc, &r));
  r.no_divergence = 0;
  r.has_t_end = 1;
  r.t_end = -3;
  TU_EXPECT_EINVAL(cdyn_scene_set_run(sc, &r));
  cdyn_stepper *st = NULL;
  TU_EXPECT_STATUS(cdyn_scene_stepper(&st, sc, "nosuch"), CDYN_EUNKNOWN);
  ck_assert_int_eq(cdyn_scene_stepper(&st, sc, NULL), CDYN_OK);
  TU_EXPECT_EINVAL(cdyn_scene_step(sc, st, 0));
  TU_EXPECT_EINVAL(cdyn_scene_step(sc, st, INFINITY));
  TU_EXPECT_EINVAL(cdyn_scene_step(NULL, st, 0.1));
  /* A system with a force callback has no file form. */
  ck_assert_int_eq(cdyn_system_set_force_callback(sys, force, NULL), CDYN_OK);
  TU_EXPECT_EINVAL(cdyn_scene_save(sc, st, NULL, "/tmp/never-written.json"));
  ck_assert_int_ne(access("/tmp/never-written.json", F_OK), 0);
  ck_assert_int_eq(cdyn_system_set_force_callback(sys, NULL, NULL), CDYN_OK);
  /* A path that cannot be written: CDYN_EIO, nothing left. */
  TU_EXPECT_STATUS(cdyn_scene_save(sc, st, NULL, "/nonexistent/dir/s.json"), CDYN_EIO);
  cdyn_stepper_free(st);
  cdyn_scene_free(sc);
  /* The scene borrowed sys: it is still the caller's to free. */
  ck_assert_int_eq(cdyn_system_size(sys), 3);
  cdyn_system_free(sys);
  /* A scene that would own a system frees it even when refused (no leak). */
  ck_assert_int_eq(cdyn_system_new(&sys, 2), CDYN_OK);
  TU_EXPECT_EINVAL(cdyn_scene_new(NULL, sys));
}
END_TEST

/* A constraint type of the caller's own: not registered, so no file form. */
static int own_eval(const double *params, const double *const *x, const double *const *v, double t, cdyn_row *rows)
{
  (void)params, (void)v, (void)t;
  memset(rows, 0, sizeof *rows);
  rows->phi = x[0][1];
  rows->jac[0][1] = 1;
  return CDYN_OK;
}

START_TEST(test_what_a_file_cannot_hold)
{
  char dir[] = "/tmp/test_scene_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/s.json", dir);
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, 4), CDYN_OK);
  const double x[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1, 1, 1}};
  for (size_t i = 0; i < 4; i++)
    cdyn_system_set_position(sys, i, x[i]);
  size_t s0, s1;
  ck_assert_int_eq(cdyn_system_add_spring(sys, 0, 1, 10, 0, 1, &s0), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_spring(sys, 1, 2, 10, 0, 1.5, &s1), CDYN_OK);
  cdyn_scene *sc;
  ck_assert_int_eq(cdyn_scene_new(&sc, sys), CDYN_OK);
  /* Hooks' lists: non-empty, each index once; a spring has one limiter. */
  cdyn_strainlimit_opts so = {0.1, 0, 0, 0, 0, CDYN_LIMIT_SWITCH};
  size_t two[2] = {0, 0}, one = 0;
  TU_EXPECT_EINVAL(cdyn_scene_add_strainlimit(sc, &one, 0, &so));
  TU_EXPECT_EINVAL(cdyn_scene_add_strainlimit(sc, two, 2, &so));
  ck_assert_int_eq(cdyn_scene_add_strainlimit(sc, &one, 1, &so), CDYN_OK);
  TU_EXPECT_EINVAL(cdyn_scene_add_strainlimit(sc, two, 1, &so));
  ck_assert_msg(strstr(cdyn_errmsg(), "watched by strain limiter 0") != NULL, "%s", cdyn_errmsg());
  cdyn_ball_opts bo = {0.1, 0, CDYN_BALL_SWITCH, 0};
  size_t nodes[2] = {0, 0};
  TU_EXPECT_EINVAL(cdyn_scene_add_ball(sc, 3, nodes, 0, &bo));
  TU_EXPECT_EINVAL(cdyn_scene_add_ball(sc, 3, nodes, 2, &bo));
  size_t tri[3] = {0, 1, 1};
  cdyn_contacts_opts co;
  cdyn_contacts_opts_default(&co);
  TU_EXPECT_EINVAL(cdyn_scene_add_contacts(sc, tri, 0, &co));
  TU_EXPECT_EINVAL(cdyn_scene_add_contacts(sc, tri, 1, &co));
  TU_EXPECT_EINVAL(cdyn_scene_set_name(sc, "ok", "\xff\xfe not UTF-8"));
  ck_assert_int_eq(cdyn_scene_set_name(sc, "ok", "caf\xc3\xa9"), CDYN_OK);
  TU_EXPECT_EINVAL(cdyn_scene_add_provot(sc, &one, 1, 0.1, 2000000, NULL, 0));
  /* Saved as it is: fine. */
  ck_assert_msg(cdyn_scene_save(sc, NULL, NULL, path) == CDYN_OK, "%s", cdyn_errmsg());
  /* A constraint added to the system after the scene was made, not by a
     hook: refused, and the file stays as it was. */
  size_t id;
  ck_assert_int_eq(cdyn_system_add_distance(sys, 2, 3, 1.0, &id), CDYN_OK);
  TU_EXPECT_EINVAL(cdyn_scene_save(sc, NULL, NULL, path));
  ck_assert_msg(strstr(cdyn_errmsg(), "added after the scene was made") != NULL, "%s", cdyn_errmsg());
  ck_assert_int_eq(cdyn_system_remove_constraint(sys, id), CDYN_OK);
  /* A hook while a removed constraint's id is vacant: refused. */
  ck_assert_int_eq(cdyn_system_add_distance(sys, 2, 3, 1.0, &id), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_distance(sys, 0, 3, 1.5, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_remove_constraint(sys, id), CDYN_OK);
  size_t sp1 = 1;
  TU_EXPECT_EINVAL(cdyn_scene_add_strainlimit(sc, &sp1, 1, &so));
  ck_assert_msg(strstr(cdyn_errmsg(), "removed constraints") != NULL, "%s", cdyn_errmsg());
  cdyn_scene_free(sc);
  /* A type of the caller's own, and two pins on one particle. */
  static const cdyn_constraint_type mine = {
    .name = "floor", .description = "y = 0", .nparticles = 1, .nparams = 0, .rows = 1, .eval = own_eval};
  ck_assert_int_eq(cdyn_system_new(&sys, 2), CDYN_OK);
  size_t p0 = 0;
  ck_assert_int_eq(cdyn_system_add_constraint(sys, &mine, &p0, NULL, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_scene_new(&sc, sys), CDYN_OK);
  TU_EXPECT_EINVAL(cdyn_scene_save(sc, NULL, NULL, path));
  ck_assert_msg(strstr(cdyn_errmsg(), "not registered") != NULL, "%s", cdyn_errmsg());
  cdyn_scene_free(sc);
  ck_assert_int_eq(cdyn_system_new(&sys, 2), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_pin(sys, 1, x[1], NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_pin(sys, 1, x[2], &id), CDYN_OK);
  ck_assert_int_eq(cdyn_system_enable_constraint(sys, id, 0), CDYN_OK);
  ck_assert_int_eq(cdyn_scene_new(&sc, sys), CDYN_OK);
  TU_EXPECT_EINVAL(cdyn_scene_save(sc, NULL, NULL, path));
  ck_assert_msg(strstr(cdyn_errmsg(), "two pins") != NULL, "%s", cdyn_errmsg());
  /* A stepper of another system. */
  cdyn_system *other;
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_system_new(&other, 2), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&st, other, "implicit"), CDYN_OK);
  TU_EXPECT_EINVAL(cdyn_scene_step(sc, st, 0.01));
  cdyn_stepper_free(st);
  cdyn_system_free(other);
  cdyn_scene_free(sc);
  /* A scene with hooks that has taken a step: its hooks' switches are not
     in the format. */
  sc = parse_ok(HEAD ", \"springs\": [{\"i\": 0, \"j\": 1, \"k\": 1}], \"strain_limits\": [{\"springs\": [0], "
                     "\"eps_max\": 0.1}]}");
  ck_assert_int_eq(cdyn_scene_stepper(&st, sc, NULL), CDYN_OK);
  ck_assert_int_ge(cdyn_scene_step(sc, st, 0.01), 0);
  TU_EXPECT_EINVAL(cdyn_scene_save(sc, st, NULL, path));
  ck_assert_msg(strstr(cdyn_errmsg(), "before the first step") != NULL, "%s", cdyn_errmsg());
  cdyn_stepper_free(st);
  cdyn_scene_free(sc);
  unlink(path);
  rmdir(dir);
}
END_TEST

int main(void)
{
  ta_init();
  Suite *s = suite_create("scene");
  TCase *tc = tcase_create("reader");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_errors);
  tcase_add_test(tc, test_comments_and_defaults);
  tcase_add_test(tc, test_generators);
  suite_add_tcase(s, tc);
  tc = tcase_create("writer");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_round_trip);
  tcase_add_test(tc, test_step_same_bits);
  tcase_add_test(tc, test_no_allocation);
  tcase_add_test(tc, test_bad_arguments);
  tcase_add_test(tc, test_what_a_file_cannot_hold);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
