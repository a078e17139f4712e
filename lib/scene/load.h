/*
 * scene/load.h: what the three files of the scene reader share (load.c,
 * the document; fields.c, the field readers; generate.c, the
 * generators): the reader's state, JSON paths, and the readers.  Private
 * to lib/scene.  The readers' short names are macros for prefixed
 * symbols, so that the library exports no name outside its own.
 */
#ifndef CDYN_SCENE_LOAD_H
#define CDYN_SCENE_LOAD_H

#include <math.h>
#include <stddef.h>

#include <jansson.h>

#include "cdyn/contact.h"
#include "cdyn/error.h"
#include "cdyn/scene.h"
#include "core/internal.h"
#include "scene/internal.h"

#define MAX_GENERATED 10000000.0 /* particles of one generator */

/* A JSON path of a value ($.pins[2].i), for messages. */
typedef struct {
  char s[320];
} jpath;

typedef struct hook_sl {
  jpath path;
  size_t *springs, count;
  cdyn_strainlimit_opts o;
} hook_sl;

typedef struct hook_pv {
  jpath path;
  size_t *springs, count, *fixed, nfixed;
  double eps_max;
  int sweeps;
} hook_pv;

typedef struct {
  const char *file;
  size_t maxp, maxc, max_contacts, max_pairs; /* cdyn_scene_limits, defaults filled */
  size_t n;            /* particles */
  cdyn_system *sys;
  unsigned char *pinned;
  /* The hooks, gathered while building, added in the format's order. */
  hook_sl sl[2][64];
  size_t nsl[2];
  hook_pv pv[2][64];
  size_t npv[2];
  /* A cloth generator's contacts: its triangles and the options' path. */
  size_t *gen_tris, gen_ntris;
  json_t *gen_contacts;
  jpath gen_contacts_path;
  /* The cloth generators' patches, for the scene (cdyn_scene_patch). */
  cdyn_scene_patch *patches;
  size_t npatches;
} ld;

#define jp_key cdyn_scene_rd_jp_key
#define near_init cdyn_scene_rd_near_init
#define near_try cdyn_scene_rd_near_try
#define near_hint cdyn_scene_rd_near_hint
#define jp_idx cdyn_scene_rd_jp_idx
#define fail cdyn_scene_rd_fail
#define wrap cdyn_scene_rd_wrap
#define type_name cdyn_scene_rd_type_name
#define check_object cdyn_scene_rd_check_object
#define num_value cdyn_scene_rd_num_value
#define f_num cdyn_scene_rd_f_num
#define int_value cdyn_scene_rd_int_value
#define f_int cdyn_scene_rd_f_int
#define f_bool cdyn_scene_rd_f_bool
#define f_vec cdyn_scene_rd_f_vec
#define f_enum cdyn_scene_rd_f_enum
#define particle cdyn_scene_rd_particle
#define f_particle cdyn_scene_rd_f_particle
#define index_list cdyn_scene_rd_index_list
#define index_set cdyn_scene_rd_index_set
#define mark_pinned cdyn_scene_rd_mark_pinned
#define room cdyn_scene_rd_room
#define sl_opts cdyn_scene_rd_sl_opts
#define pv_opts cdyn_scene_rd_pv_opts
#define contacts_opts cdyn_scene_rd_contacts_opts
#define gen_count cdyn_scene_rd_gen_count
#define gen_types cdyn_scene_rd_gen_types
#define gen_chain cdyn_scene_rd_gen_chain
#define gen_grid cdyn_scene_rd_gen_grid
#define gen_cloth cdyn_scene_rd_gen_cloth
#define gen_particles cdyn_scene_rd_gen_particles
#define particle_list cdyn_scene_rd_particle_list

jpath jp_key(const jpath *p, const char *key);
jpath jp_idx(const jpath *p, size_t i);
/* CDYN_EINVAL with "FILE: PATH: message". */
/* The known name nearest an unknown one, for "did you mean" in a
   message: near_init, near_try for each name, near_hint gives "; did you
   mean 'NAME'?" (into buf) when one is within 2 edits and fewer than half
   the word's length (the optimal string alignment distance: insertions,
   deletions, substitutions and adjacent transpositions), else "". */
typedef struct {
  const char *word, *best;
  size_t dist;
} near_word;
void near_init(near_word *n, const char *word);
void near_try(near_word *n, const char *name);
const char *near_hint(const near_word *n, char *buf, size_t len);

int fail(const ld *L, const jpath *p, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;
/* A library call's failure, reported at the path of what it was given. */
int wrap(const ld *L, const jpath *p, int rc);
const char *type_name(const json_t *v);
/* `obj` must be an object whose fields are all in `allowed` (NULL-ended)
   or start with "_". */
int check_object(const ld *L, const json_t *obj, const jpath *p, const char *const *allowed);

/* Flags of f_num: the field is required, > 0, >= 0. */
enum { REQ = 1, POS = 2, NONNEG = 4 };
int num_value(const ld *L, const json_t *v, const jpath *p, double *out);
/* A number field: absent gives def (or an error with REQ). */
int f_num(const ld *L, const json_t *obj, const jpath *p, const char *key, int flags, double def, double *out);
int int_value(const ld *L, const json_t *v, const jpath *p, double lo, double hi, long long *out);
int f_int(const ld *L, const json_t *obj, const jpath *p, const char *key, int req, long long def, double lo,
          double hi, long long *out);
int f_bool(const ld *L, const json_t *obj, const jpath *p, const char *key, int def, int *out);
/* A vector [x, y, z]; absent gives def (NULL: required). */
int f_vec(const ld *L, const json_t *obj, const jpath *p, const char *key, const double *def, double out[3]);
/* One of the strings in `names` (NULL-ended): its position. */
int f_enum(const ld *L, const json_t *obj, const jpath *p, const char *key, const char *const *names, int def,
           int *out);
/* A particle index (below L->n). */
int particle(const ld *L, const json_t *v, const jpath *p, size_t *out);
int f_particle(const ld *L, const json_t *obj, const jpath *p, const char *key, size_t *out);
/* An array of indices below `limit` (what: "particle", "spring", "node"),
   or with `all` the string "all": every index below limit except `except`
   (SIZE_MAX: none).  *out is allocated (never NULL on success). */
int index_list(const ld *L, const json_t *obj, const jpath *p, const char *key, int req, const char *what,
                      size_t limit, int all, size_t except, size_t **out, size_t *count);
int index_list(const ld *L, const json_t *obj, const jpath *p, const char *key, int req, const char *what,
               size_t limit, int all, size_t except, size_t **out, size_t *count);
/* The same, and the list must be non-empty and its indices distinct. */
int index_set(const ld *L, const json_t *obj, const jpath *p, const char *key, const char *what, size_t limit,
              int all, size_t except, size_t **out, size_t *count);

/* Mark particle i pinned (a particle takes one pin). */
int mark_pinned(const ld *L, const jpath *p, size_t i);
/* Room for `more` constraints within the reader's limit. */
int room(const ld *L, const jpath *p, size_t more);

/* The hooks' options (with_springs, with_lists, with_tris: the object
   may also name its lists, as the hooks' own entries do; a generator's
   do not). */
int sl_opts(const ld *L, const json_t *o, const jpath *p, int with_springs, cdyn_strainlimit_opts *so);
int pv_opts(const ld *L, const json_t *o, const jpath *p, int with_lists, hook_pv *h);
int contacts_opts(const ld *L, const json_t *o, const jpath *p, int with_tris, cdyn_contacts_opts *co);

/* The generators (generate.c): gen_count the particles generator g makes
   (checking the fields that decide it); the others build one from index
   `first` on.  gen_types are their names, in the order of the enum the
   document's builder dispatches on. */
extern const char *const gen_types[];
int gen_count(const ld *L, const json_t *g, const jpath *p, double *count);
int gen_chain(ld *L, const json_t *g, const jpath *p, size_t first, size_t count);
int gen_grid(ld *L, const json_t *g, const jpath *p, size_t first);
int gen_cloth(ld *L, const json_t *g, const jpath *p, size_t first);
int gen_particles(ld *L, const json_t *g, const jpath *p, size_t first);

/* Explicit particles (array arr, its path base) as particles first on. */
int particle_list(ld *L, const json_t *arr, const jpath *base, size_t first);

static inline double dist(const double *a, const double *b)
{
  double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
  return sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}

static const double zero3[3] = {0, 0, 0};

#endif
