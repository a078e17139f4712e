/*
 * scene.c: a scene: a system with its step hooks, its scheme and its run
 * (cdyn/scene.h), the step with the hooks, and the writer of the scene
 * format (doc/scene-format.md).  The reader is scene_load.c.
 *
 * The step (cdyn/scene.h) follows the order of the cloth papers' loops:
 * 000 sec. 4 and 001 sec. V-B switch springs to constraints before a step
 * and back after it (cdyn_strainlimit), 001 sec. V-A makes non-penetration
 * constraints before the step and, when the motion taken crosses a new
 * pair, repeats the step with it (cdyn_contacts), and Provot's correction
 * (Provot 1995) and the balls' projection act on the step's result.
 *
 * Writing.  Every double is printed with 17 significant digits ("%.17g"),
 * which a correctly rounding reader (strtod, as the reader uses) turns back
 * into the same bits; an integral value gets ".0" and a negative zero is
 * "-0.0", so that every number reads back as the double it was.  The
 * scene's own constraints (those the system had when the scene was made)
 * are written by type, particles and named parameters, with their flags;
 * the hooks' constraints are not written, since the hooks make them again.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cdyn/contact.h"
#include "cdyn/error.h"
#include "cdyn/scene.h"
#include "core/internal.h"
#include "scene/internal.h"

static int utf8_ok(const char *s);

/* ---- the object ----------------------------------------------------------------------------- */

static void scene_defaults(cdyn_scene *sc) { cdyn_scene_run_default(&sc->run); }

static int scene_make(cdyn_scene **out, cdyn_system *sys, int own)
{
  if (!out || !sys) {
    if (own)
      cdyn_system_free(sys);
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_new: NULL %s", out ? "system" : "output");
  }
  *out = NULL;
  cdyn_scene *sc = calloc(1, sizeof *sc);
  size_t nc = cdyn_system_constraint_count(sys);
  if (!sc || !(sc->scheme = strdup("implicit")) || !(sc->name = strdup("scene")) || !(sc->description = strdup("")) ||
      !(sc->own = calloc(nc ? nc : 1, 1))) {
    if (sc) {
      free(sc->scheme);
      free(sc->name);
      free(sc->description);
      free(sc);
    }
    if (own)
      cdyn_system_free(sys);
    return cdyn_error(CDYN_ENOMEM, "cdyn_scene_new: out of memory");
  }
  sc->sys = sys;
  sc->own_sys = own;
  sc->base_constraints = nc;
  sc->base_springs = cdyn_system_spring_count(sys);
  for (size_t c = 0; c < nc; c++)
    sc->own[c] = !cdyn_system_get_constraint(sys, c, NULL, NULL, NULL);
  cdyn_error_clear();
  scene_defaults(sc);
  *out = sc;
  return CDYN_OK;
}

int cdyn_scene_new(cdyn_scene **out, cdyn_system *sys) { return scene_make(out, sys, 1); }

int cdyn_scene_wrap(cdyn_scene **out, cdyn_system *sys) { return scene_make(out, sys, 0); }

void cdyn_scene_free(cdyn_scene *sc)
{
  if (!sc)
    return;
  cdyn_contacts_free(sc->contacts.cc);
  free(sc->contacts.tris);
  for (size_t k = 0; k < sc->nballs; k++) {
    cdyn_ball_free(sc->balls[k].b);
    free(sc->balls[k].nodes);
  }
  free(sc->balls);
  for (size_t k = 0; k < sc->nprovot; k++) {
    free(sc->provot[k].springs);
    free(sc->provot[k].fixed);
    free(sc->provot[k].flags);
  }
  free(sc->provot);
  for (size_t k = 0; k < sc->nsl; k++) {
    cdyn_strainlimit_free(sc->sl[k].sl);
    free(sc->sl[k].springs);
  }
  free(sc->sl);
  for (size_t k = 0; k < sc->nopts; k++) {
    free(sc->opt_keys[k]);
    free(sc->opt_vals[k]);
  }
  free(sc->opt_keys);
  free(sc->opt_vals);
  for (size_t k = 0; k < sc->npatches; k++)
    free((size_t *)sc->patches[k].tri);
  free(sc->patches);
  free(sc->scheme);
  free(sc->name);
  free(sc->description);
  free(sc->file);
  free(sc->own);
  if (sc->own_sys)
    cdyn_system_free(sc->sys);
  free(sc);
}

static size_t *copy_indices(const size_t *a, size_t n)
{
  size_t *c = malloc((n ? n : 1) * sizeof *c);
  if (c && n)
    memcpy(c, a, n * sizeof *c);
  return c;
}

/* A hook's list: non-empty, each index below limit and listed once (what
   the scene format asks of it). */
static int list_ok(const size_t *a, size_t n, size_t limit, const char *what, const char *who)
{
  if (n == 0)
    return cdyn_error(CDYN_EINVAL, "%s: an empty list of %ss", who, what);
  unsigned char *seen = calloc(limit ? limit : 1, 1);
  if (!seen)
    return cdyn_error(CDYN_ENOMEM, "%s: out of memory", who);
  int rc = CDYN_OK;
  for (size_t k = 0; k < n && !rc; k++) {
    if (a[k] >= limit)
      rc = cdyn_error(CDYN_EINVAL, "%s: %s %zu out of range (there are %zu)", who, what, a[k], limit);
    else if (seen[a[k]]++)
      rc = cdyn_error(CDYN_EINVAL, "%s: %s %zu listed twice", who, what, a[k]);
  }
  free(seen);
  return rc;
}

/* A hook's constraints must come after the scene's own: not in the slots
   of removed ones, which a scene file has no way to say. */
static int no_vacancy(const cdyn_scene *sc, const char *who)
{
  if (cdyn_system_live_constraints(sc->sys) != cdyn_system_constraint_count(sc->sys))
    return cdyn_error(CDYN_EINVAL, "%s: the system has removed constraints, whose ids the hook's would take "
                      "(a scene file cannot say so)", who);
  return CDYN_OK;
}

/* Grow an array of hooks by one (allocation at build time only). */
static void *grow(void *p, size_t n, size_t size)
{
  return realloc(p, (n + 1) * size);
}

int cdyn_scene_add_strainlimit(cdyn_scene *sc, const size_t *springs, size_t count, const cdyn_strainlimit_opts *opts)
{
  const char *w = "cdyn_scene_add_strainlimit";
  if (!sc || !opts || (count && !springs))
    return cdyn_error(CDYN_EINVAL, "%s: NULL argument", w);
  size_t ns = cdyn_system_spring_count(sc->sys);
  int rc = list_ok(springs, count, ns, "spring", w);
  if (rc || (rc = no_vacancy(sc, w)))
    return rc;
  /* A spring has one limiter: two would switch it against each other. */
  for (size_t k = 0; k < sc->nsl; k++)
    for (size_t a = 0; a < sc->sl[k].count; a++)
      for (size_t b = 0; b < count; b++)
        if (sc->sl[k].springs[a] == springs[b])
          return cdyn_error(CDYN_EINVAL, "%s: spring %zu is watched by strain limiter %zu already", w, springs[b], k);
  scene_sl *a = grow(sc->sl, sc->nsl, sizeof *a);
  if (!a)
    return cdyn_error(CDYN_ENOMEM, "cdyn_scene_add_strainlimit: out of memory");
  sc->sl = a;
  scene_sl *h = &sc->sl[sc->nsl];
  memset(h, 0, sizeof *h);
  if (!(h->springs = copy_indices(springs, count)))
    return cdyn_error(CDYN_ENOMEM, "cdyn_scene_add_strainlimit: out of memory");
  if ((rc = cdyn_strainlimit_new(&h->sl, sc->sys, springs, count, opts))) {
    free(h->springs);
    return rc;
  }
  h->count = count;
  h->opts = *opts;
  sc->nsl++;
  return CDYN_OK;
}

int cdyn_scene_add_provot(cdyn_scene *sc, const size_t *springs, size_t count, double eps_max, int sweeps,
                          const size_t *fixed, size_t nfixed)
{
  const char *w = "cdyn_scene_add_provot";
  if (!sc || (count && !springs) || (nfixed && !fixed))
    return cdyn_error(CDYN_EINVAL, "%s: NULL argument", w);
  size_t n = cdyn_system_size(sc->sys), ns = cdyn_system_spring_count(sc->sys);
  if (!(eps_max > 0) || !isfinite(eps_max))
    return cdyn_error(CDYN_EINVAL, "%s: eps_max = %g must be finite and > 0", w, eps_max);
  if (sweeps < 1 || sweeps > 1000000)
    return cdyn_error(CDYN_EINVAL, "%s: sweeps = %d outside [1, 1e6]", w, sweeps);
  int rc = list_ok(springs, count, ns, "spring", w);
  if (rc)
    return rc;
  for (size_t k = 0; k < nfixed; k++)
    if (fixed[k] >= n)
      return cdyn_error(CDYN_EINVAL, "%s: fixed particle %zu out of range (the system has %zu)", w, fixed[k], n);
  scene_provot *a = grow(sc->provot, sc->nprovot, sizeof *a);
  if (!a)
    return cdyn_error(CDYN_ENOMEM, "%s: out of memory", w);
  sc->provot = a;
  scene_provot *p = &sc->provot[sc->nprovot];
  memset(p, 0, sizeof *p);
  p->springs = copy_indices(springs, count);
  p->fixed = copy_indices(fixed, nfixed);
  p->flags = nfixed ? calloc(n, 1) : NULL;
  if (!p->springs || !p->fixed || (nfixed && !p->flags)) {
    free(p->springs);
    free(p->fixed);
    free(p->flags);
    return cdyn_error(CDYN_ENOMEM, "%s: out of memory", w);
  }
  for (size_t k = 0; k < nfixed; k++)
    p->flags[fixed[k]] = 1;
  p->count = count;
  p->nfixed = nfixed;
  p->eps_max = eps_max;
  p->sweeps = sweeps;
  sc->nprovot++;
  return CDYN_OK;
}

int cdyn_scene_add_ball(cdyn_scene *sc, size_t ball, const size_t *nodes, size_t count, const cdyn_ball_opts *opts)
{
  const char *w = "cdyn_scene_add_ball";
  if (!sc || !opts || (count && !nodes))
    return cdyn_error(CDYN_EINVAL, "%s: NULL argument", w);
  int rc = list_ok(nodes, count, cdyn_system_size(sc->sys), "node", w);
  if (rc || (rc = no_vacancy(sc, w)))
    return rc;
  scene_ball *a = grow(sc->balls, sc->nballs, sizeof *a);
  if (!a)
    return cdyn_error(CDYN_ENOMEM, "cdyn_scene_add_ball: out of memory");
  sc->balls = a;
  scene_ball *b = &sc->balls[sc->nballs];
  memset(b, 0, sizeof *b);
  if (!(b->nodes = copy_indices(nodes, count)))
    return cdyn_error(CDYN_ENOMEM, "cdyn_scene_add_ball: out of memory");
  if ((rc = cdyn_ball_new(&b->b, sc->sys, ball, nodes, count, opts))) {
    free(b->nodes);
    return rc;
  }
  b->ball = ball;
  b->count = count;
  b->opts = *opts;
  sc->nballs++;
  return CDYN_OK;
}

int cdyn_scene_add_contacts(cdyn_scene *sc, const size_t *tris, size_t ntris, const cdyn_contacts_opts *opts)
{
  if (!sc || !opts || (ntris && !tris))
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_add_contacts: NULL argument");
  if (sc->contacts.cc)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_add_contacts: the scene has a contact handler already (at most one)");
  if (ntris == 0 || ntris > SIZE_MAX / 3)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_add_contacts: %zu triangles (at least 1)", ntris);
  for (size_t t = 0; t < ntris; t++)
    if (tris[3 * t] == tris[3 * t + 1] || tris[3 * t] == tris[3 * t + 2] || tris[3 * t + 1] == tris[3 * t + 2])
      return cdyn_error(CDYN_EINVAL, "cdyn_scene_add_contacts: triangle %zu has a corner twice", t);
  int vrc = no_vacancy(sc, "cdyn_scene_add_contacts");
  if (vrc)
    return vrc;
  size_t *t = copy_indices(tris, 3 * ntris);
  if (!t)
    return cdyn_error(CDYN_ENOMEM, "cdyn_scene_add_contacts: out of memory");
  int rc = cdyn_contacts_new(&sc->contacts.cc, sc->sys, tris, ntris, opts);
  if (rc) {
    free(t);
    return rc;
  }
  sc->contacts.tris = t;
  sc->contacts.ntris = ntris;
  sc->contacts.opts = *opts;
  return CDYN_OK;
}

size_t cdyn_scene_strainlimit_count(const cdyn_scene *sc) { return sc ? sc->nsl : 0; }

cdyn_strainlimit *cdyn_scene_strainlimit(const cdyn_scene *sc, size_t k)
{
  return sc && k < sc->nsl ? sc->sl[k].sl : NULL;
}

size_t cdyn_scene_ball_count(const cdyn_scene *sc) { return sc ? sc->nballs : 0; }

cdyn_ball *cdyn_scene_ball(const cdyn_scene *sc, size_t k) { return sc && k < sc->nballs ? sc->balls[k].b : NULL; }

cdyn_contacts *cdyn_scene_contacts(const cdyn_scene *sc) { return sc ? sc->contacts.cc : NULL; }

size_t cdyn_scene_patch_count(const cdyn_scene *sc) { return sc ? sc->npatches : 0; }

int cdyn_scene_get_patch(const cdyn_scene *sc, size_t k, cdyn_scene_patch *patch)
{
  if (!sc || !patch)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_get_patch: NULL argument");
  if (k >= sc->npatches)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_get_patch: the scene has %zu cloth patches, not %zu", sc->npatches, k + 1);
  *patch = sc->patches[k];
  return CDYN_OK;
}

cdyn_system *cdyn_scene_system(const cdyn_scene *sc) { return sc ? sc->sys : NULL; }

const char *cdyn_scene_name(const cdyn_scene *sc) { return sc ? sc->name : ""; }

const char *cdyn_scene_description(const cdyn_scene *sc) { return sc ? sc->description : ""; }

int cdyn_scene_set_name(cdyn_scene *sc, const char *name, const char *description)
{
  if (!sc || !name)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_set_name: NULL argument");
  if (!cdyn_scene_name_ok(name))
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_set_name: '%.100s': %s", name, SCENE_NAME_RULE);
  if (description && !utf8_ok(description))
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_set_name: the description is not UTF-8 text (a scene file is)");
  char *n = strdup(name), *d = strdup(description ? description : "");
  if (!n || !d) {
    free(n);
    free(d);
    return cdyn_error(CDYN_ENOMEM, "cdyn_scene_set_name: out of memory");
  }
  free(sc->name);
  free(sc->description);
  sc->name = n;
  sc->description = d;
  return CDYN_OK;
}

const char *cdyn_scene_scheme(const cdyn_scene *sc) { return sc ? sc->scheme : NULL; }

size_t cdyn_scene_option_count(const cdyn_scene *sc) { return sc ? sc->nopts : 0; }

int cdyn_scene_option(const cdyn_scene *sc, size_t k, const char **key, const char **value)
{
  if (!sc || k >= sc->nopts)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_option: no option %zu", k);
  if (key)
    *key = sc->opt_keys[k];
  if (value)
    *value = sc->opt_vals[k];
  return CDYN_OK;
}

int cdyn_scene_set_scheme(cdyn_scene *sc, const char *scheme)
{
  size_t idx;
  if (!sc || !scheme)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_set_scheme: NULL argument");
  if (cdyn_scheme_find(scheme, &idx))
    return cdyn_error(CDYN_EUNKNOWN, "unknown scheme '%s' (cdyn list shows them)", scheme);
  char *s = strdup(scheme);
  if (!s)
    return cdyn_error(CDYN_ENOMEM, "cdyn_scene_set_scheme: out of memory");
  free(sc->scheme);
  sc->scheme = s;
  for (size_t k = 0; k < sc->nopts; k++) {
    free(sc->opt_keys[k]);
    free(sc->opt_vals[k]);
  }
  sc->nopts = 0;
  return CDYN_OK;
}

int cdyn_scene_add_option(cdyn_scene *sc, const char *key, const char *value)
{
  if (!sc || !key || !value)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_add_option: NULL argument");
  char **k = realloc(sc->opt_keys, (sc->nopts + 1) * sizeof *k);
  if (!k)
    return cdyn_error(CDYN_ENOMEM, "cdyn_scene_add_option: out of memory");
  sc->opt_keys = k;
  char **v = realloc(sc->opt_vals, (sc->nopts + 1) * sizeof *v);
  if (!v)
    return cdyn_error(CDYN_ENOMEM, "cdyn_scene_add_option: out of memory");
  sc->opt_vals = v;
  char *kk = strdup(key), *vv = strdup(value);
  if (!kk || !vv) {
    free(kk);
    free(vv);
    return cdyn_error(CDYN_ENOMEM, "cdyn_scene_add_option: out of memory");
  }
  sc->opt_keys[sc->nopts] = kk;
  sc->opt_vals[sc->nopts++] = vv;
  return CDYN_OK;
}

int cdyn_scene_run_default(cdyn_scene_run *run)
{
  if (!run)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_run_default: NULL argument");
  memset(run, 0, sizeof *run);
  run->h = 0.01;
  run->steps = 100;
  run->record_every = 1;
  return CDYN_OK;
}

int cdyn_scene_get_run(const cdyn_scene *sc, cdyn_scene_run *run)
{
  if (!sc || !run)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_get_run: NULL argument");
  *run = sc->run;
  return CDYN_OK;
}

/* Is s valid UTF-8 (no overlong forms, no surrogates, at most U+10FFFF)? */
static int utf8_ok(const char *s)
{
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned c = *p;
    int n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
    if (n < 0)
      return 0;
    unsigned long cp = n == 0 ? c : n == 1 ? (c & 0x1f) : n == 2 ? (c & 0x0f) : (c & 0x07);
    for (int k = 1; k <= n; k++) {
      if ((p[k] >> 6) != 2)
        return 0;
      cp = (cp << 6) | (p[k] & 0x3f);
    }
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff))
      return 0;
    p += n + 1;
  }
  return 1;
}

int cdyn_scene_name_ok(const char *name)
{
  size_t len = strlen(name);
  return len >= 1 && len <= 100 && name[0] != '.' &&
         strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == len;
}

int cdyn_scene_steps_to(double t0, double t_end, double h, long *steps)
{
  double r = (t_end - t0) / h;
  if (!(r > 0) || !isfinite(r))
    return cdyn_error(CDYN_EINVAL, "t_end = %.17g must be later than the start %.17g", t_end, t0);
  /* A ratio within 1e-9 of an integer is that integer (t_end = 1, h = 0.001
     is 1000 steps, whatever the rounding of the division). */
  double n = nearbyint(r);
  if (!(fabs(r - n) <= 1e-9 * n))
    n = ceil(r);
  if (n > 1e8)
    return cdyn_error(CDYN_EINVAL, "t_end = %.17g at h = %.17g is %.0f steps, more than 1e8", t_end, h, n);
  *steps = n < 1 ? 1 : (long)n;
  return CDYN_OK;
}

int cdyn_scene_set_run(cdyn_scene *sc, const cdyn_scene_run *run)
{
  if (!sc || !run)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_set_run: NULL argument");
  cdyn_scene_run r = *run;
  if (!(r.h > 0) || !isfinite(r.h))
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_set_run: h = %g must be finite and > 0", r.h);
  if (r.has_t_end) {
    int rc = cdyn_scene_steps_to(cdyn_system_time(sc->sys), r.t_end, r.h, &r.steps);
    if (rc)
      return rc;
  }
  if (r.steps < 1 || r.steps > 100000000L)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_set_run: steps = %ld outside [1, 1e8]", r.steps);
  if (!(r.max_error >= 0) || !isfinite(r.max_error))
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_set_run: max_error = %g must be finite and >= 0", r.max_error);
  if (r.has_max_energy_gain && !isfinite(r.max_energy_gain))
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_set_run: max_energy_gain must be finite");
  if (r.record_every < 1 || r.record_every > 100000000L)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_set_run: record_every = %ld outside [1, 1e8]", r.record_every);
  if (r.no_divergence != 0 && r.no_divergence != 1)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_set_run: no_divergence = %d must be 0 or 1", r.no_divergence);
  sc->run = r;
  return CDYN_OK;
}

/* ---- stepping ------------------------------------------------------------------------------- */

/* Does scheme `idx` have option `key`? */
static int scheme_has(size_t idx, const char *key)
{
  for (size_t k = 0; k < cdyn_scheme_option_count(idx); k++) {
    const char *name;
    if (!cdyn_scheme_option(idx, k, &name, NULL, NULL) && !strcmp(name, key))
      return 1;
  }
  return 0;
}

int cdyn_scene_stepper(cdyn_stepper **out, cdyn_scene *sc, const char *scheme)
{
  if (!sc || !out)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_stepper: NULL argument");
  *out = NULL;
  if (!scheme)
    scheme = sc->scheme;
  size_t idx;
  if (cdyn_scheme_find(scheme, &idx))
    return cdyn_error(CDYN_EUNKNOWN, "unknown scheme '%s' (cdyn list shows them)", scheme);
  int own = !strcmp(scheme, sc->scheme);
  /* Hooks that make inequality rows as they go need a scheme that
     enforces them: say so now, not at the first contact. */
  if (!cdyn_scheme_inequalities(idx)) {
    if (sc->contacts.cc && sc->contacts.opts.mode == CDYN_CONTACTS_INEQUALITY)
      return cdyn_error(CDYN_EINVAL, "%s%sthe contacts (mode inequality) need a scheme that enforces inequality rows "
                        "(contact), not %s; or give the contacts mode \"switch\"", sc->file ? sc->file : "",
                        sc->file ? ": $.contacts: " : "", scheme);
    for (size_t k = 0; k < sc->nballs; k++)
      if (sc->balls[k].opts.mode == CDYN_BALL_INEQUALITY)
        return cdyn_error(CDYN_EINVAL, "%s%s%zu]: a ball in mode inequality needs a scheme that enforces inequality "
                          "rows (contact), not %s", sc->file ? sc->file : "", sc->file ? ": $.balls[" : "ball [", k, scheme);
  }
  cdyn_stepper *st;
  int rc = cdyn_stepper_new(&st, sc->sys, scheme);
  if (rc)
    return rc;
  for (size_t k = 0; k < sc->nopts && !rc; k++) {
    if (!own && !scheme_has(idx, sc->opt_keys[k]))
      continue;
    if ((rc = cdyn_stepper_set(st, sc->opt_keys[k], sc->opt_vals[k]))) {
      char msg[1024];
      snprintf(msg, sizeof msg, "%s", cdyn_errmsg());
      rc = cdyn_error(rc, "%s%s$.scheme.options.%s: %s", sc->file ? sc->file : "", sc->file ? ": " : "",
                      sc->opt_keys[k], msg);
    }
  }
  /* The pattern of A grows as contacts are made: room for it now, so that
     making them does not allocate in a step.  A contact row couples with
     the rows of the (at most four) particles it touches: 64 entries per
     row of the capacity and of the system's rows, at most 2^20 (beyond it
     a step grows the pattern, which cdyn_stats.reallocations counts). */
  if (!rc && sc->contacts.cc) {
    size_t rows = sc->contacts.opts.capacity + cdyn_system_row_count(sc->sys);
    rc = cdyn_stepper_reserve(st, rows < ((size_t)1 << 14) ? 64 * rows : (size_t)1 << 20);
  }
  if (rc) {
    cdyn_stepper_free(st);
    return rc;
  }
  *out = st;
  return CDYN_OK;
}

int cdyn_scene_step(cdyn_scene *sc, cdyn_stepper *st, double h)
{
  if (!sc || !st)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_step: NULL argument");
  if (st->sys != sc->sys)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_step: the stepper is not one of the scene's system");
  if (!(h > 0) || !isfinite(h))
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_step: h = %g must be finite and > 0", h);
  int rc;
  for (size_t k = 0; k < sc->nsl; k++)
    if ((rc = cdyn_strainlimit_before(sc->sl[k].sl)))
      return rc;
  for (size_t k = 0; k < sc->nballs; k++)
    if ((rc = cdyn_ball_before(sc->balls[k].b, h)))
      return rc;
  if (sc->contacts.cc) {
    double t0 = cdyn_clock();
    rc = cdyn_contacts_before(sc->contacts.cc, h);
    sc->stats.detect += cdyn_clock() - t0;
    if (rc)
      return rc;
  }
  int status, redo = 0;
  do {
    double t0 = cdyn_clock();
    status = cdyn_stepper_step(st, h);
    double t1 = cdyn_clock();
    sc->stats.solve += t1 - t0;
    sc->stats.stepper_steps++;
    if (status < 0)
      return status;
    if (sc->contacts.cc) {
      rc = cdyn_contacts_after(sc->contacts.cc, st, h, &redo);
      sc->stats.detect += cdyn_clock() - t1;
      if (rc)
        return rc;
    }
  } while (redo);
  for (size_t k = 0; k < sc->nsl; k++)
    if ((rc = cdyn_strainlimit_after(sc->sl[k].sl, st)))
      return rc;
  for (size_t k = 0; k < sc->nprovot; k++) {
    const scene_provot *p = &sc->provot[k];
    if ((rc = cdyn_provot_limit(sc->sys, p->springs, p->count, p->eps_max, p->sweeps, h, p->flags, NULL)))
      return rc;
  }
  for (size_t k = 0; k < sc->nballs; k++)
    if ((rc = cdyn_ball_after(sc->balls[k].b, st, h)))
      return rc;
  sc->stats.steps++;
  return status;
}

int cdyn_scene_stats_get(const cdyn_scene *sc, cdyn_scene_stats *stats)
{
  if (!sc || !stats)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_stats_get: NULL argument");
  *stats = sc->stats;
  return CDYN_OK;
}

/* ---- writing -------------------------------------------------------------------------------- */

typedef struct {
  FILE *f;
} wr;

/* A double that reads back as the same bits (see the top of the file). */
static void w_num(FILE *f, double x)
{
  if (x == 0) {
    fputs(signbit(x) ? "-0.0" : "0.0", f);
    return;
  }
  char buf[40];
  snprintf(buf, sizeof buf, "%.17g", x);
  fputs(buf, f);
  if (!strpbrk(buf, ".eE"))
    fputs(".0", f);
}

static void w_vec(FILE *f, const double *x)
{
  fputc('[', f);
  for (int d = 0; d < 3; d++) {
    if (d)
      fputs(", ", f);
    w_num(f, x[d]);
  }
  fputc(']', f);
}

/* A JSON string: quotes, backslashes and control characters escaped; other
   bytes as they are (the names come from the program or a UTF-8 file). */
static void w_str(FILE *f, const char *s)
{
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

static void w_indices(FILE *f, const size_t *a, size_t n, size_t per_line)
{
  fputc('[', f);
  for (size_t k = 0; k < n; k++) {
    if (k)
      fputs(per_line && k % per_line == 0 ? ",\n      " : ", ", f);
    fprintf(f, "%zu", a[k]);
  }
  fputc(']', f);
}

static void w_bool(FILE *f, const char *key, int on) { fprintf(f, "\"%s\": %s", key, on ? "true" : "false"); }

static const char *ball_mode_name(int m)
{
  return m == CDYN_BALL_INEQUALITY ? "inequality" : m == CDYN_BALL_PROJECT ? "project" : "switch";
}

/* The option values of st, as text that sets them again ("auto(x)" is the
   solver auto chose: x). */
static int w_options(FILE *f, const cdyn_scene *sc, const cdyn_stepper *st)
{
  fputs("    \"options\": {", f);
  int first = 1;
  if (st) {
    for (size_t k = 0; k < cdyn_stepper_option_count(st); k++) {
      const char *key = cdyn_stepper_option_name(st, k);
      char val[256];
      int rc = cdyn_stepper_get(st, key, val, sizeof val);
      if (rc)
        return rc;
      if (!strncmp(val, "auto(", 5) && val[strlen(val) - 1] == ')') {
        memmove(val, val + 5, strlen(val + 5) + 1);
        val[strlen(val) - 1] = '\0';
      }
      fputs(first ? "\n      " : ",\n      ", f);
      first = 0;
      w_str(f, key);
      fputs(": ", f);
      w_str(f, val);
    }
  } else {
    for (size_t k = 0; k < sc->nopts; k++) {
      fputs(first ? "\n      " : ",\n      ", f);
      first = 0;
      w_str(f, sc->opt_keys[k]);
      fputs(": ", f);
      w_str(f, sc->opt_vals[k]);
    }
  }
  fputs(first ? "}\n" : "\n    }\n", f);
  return CDYN_OK;
}

static int write_scene(FILE *f, const cdyn_scene *sc, const cdyn_stepper *st, const cdyn_scene_run *run)
{
  const cdyn_system *sys = sc->sys;
  size_t n = cdyn_system_size(sys);
  fprintf(f, "{\n  \"cdyn_scene\": %d,\n  \"name\": ", CDYN_SCENE_VERSION);
  w_str(f, sc->name);
  fputs(",\n  \"description\": ", f);
  w_str(f, sc->description);
  fputs(",\n  \"time\": ", f);
  w_num(f, cdyn_system_time(sys));
  fputs(",\n  \"gravity\": ", f);
  w_vec(f, sys->gravity);
  fputs(",\n  \"particles\": [", f);
  for (size_t i = 0; i < n; i++) {
    fputs(i ? ",\n    {\"x\": " : "\n    {\"x\": ", f);
    w_vec(f, sys->q + 3 * i);
    fputs(", \"v\": ", f);
    w_vec(f, sys->v + 3 * i);
    fputs(", \"m\": ", f);
    w_num(f, sys->mass[i]);
    fputc('}', f);
  }
  fputs("\n  ]", f);
  size_t ns = sc->base_springs;
  if (ns) {
    fputs(",\n  \"springs\": [", f);
    for (size_t k = 0; k < ns; k++) {
      size_t i, j;
      double ks, c, rest;
      int on;
      cdyn_system_get_spring(sys, k, &i, &j, &ks, &c, &rest);
      cdyn_system_spring_enabled(sys, k, &on);
      fprintf(f, "%s{\"i\": %zu, \"j\": %zu, \"k\": ", k ? ",\n    " : "\n    ", i, j);
      w_num(f, ks);
      fputs(", \"c\": ", f);
      w_num(f, c);
      fputs(", \"rest\": ", f);
      w_num(f, rest);
      if (!on)
        fputs(", \"enabled\": false", f);
      fputc('}', f);
    }
    fputs("\n  ]", f);
  }
  int any = 0;
  for (size_t c = 0; c < sc->base_constraints; c++) {
    const cdyn_constraint_type *type;
    size_t parts[CDYN_MAX_PARTICLES];
    double params[CDYN_MAX_PARAMS];
    if (!sc->own[c] || cdyn_system_get_constraint(sys, c, &type, parts, params))
      continue; /* removed since */
    int on, ineq;
    cdyn_system_constraint_enabled(sys, c, &on);
    cdyn_system_is_inequality(sys, c, &ineq);
    fputs(any ? ",\n    {\"type\": " : ",\n  \"constraints\": [\n    {\"type\": ", f);
    any = 1;
    w_str(f, type->name);
    fputs(", \"particles\": ", f);
    w_indices(f, parts, type->nparticles, 0);
    fputs(", \"params\": {", f);
    for (unsigned p = 0; p < type->nparams; p++) {
      if (p)
        fputs(", ", f);
      w_str(f, type->param_names[p]);
      fputs(": ", f);
      w_num(f, params[p]);
    }
    fputc('}', f);
    if (ineq)
      fputs(", \"inequality\": true", f);
    if (!on)
      fputs(", \"enabled\": false", f);
    fputc('}', f);
  }
  if (any)
    fputs("\n  ]", f);
  if (sc->nsl) {
    fputs(",\n  \"strain_limits\": [", f);
    for (size_t k = 0; k < sc->nsl; k++) {
      const scene_sl *h = &sc->sl[k];
      fputs(k ? ",\n    {\"eps_max\": " : "\n    {\"eps_max\": ", f);
      w_num(f, h->opts.eps_max);
      fputs(", \"length\": ", f);
      w_num(f, h->opts.length);
      fputs(", \"release\": ", f);
      w_num(f, h->opts.release);
      fputs(", ", f);
      w_bool(f, "at_current", h->opts.at_current);
      fputs(", \"hysteresis\": ", f);
      w_num(f, h->opts.hysteresis);
      /* The mode when it is not the default (a file of a switching
         limiter reads as it always did). */
      if (h->opts.mode == CDYN_LIMIT_INEQUALITY)
        fputs(", \"mode\": \"inequality\"", f);
      fputs(",\n     \"springs\": ", f);
      w_indices(f, h->springs, h->count, 20);
      fputc('}', f);
    }
    fputs("\n  ]", f);
  }
  if (sc->nprovot) {
    fputs(",\n  \"provot\": [", f);
    for (size_t k = 0; k < sc->nprovot; k++) {
      const scene_provot *p = &sc->provot[k];
      fputs(k ? ",\n    {\"eps_max\": " : "\n    {\"eps_max\": ", f);
      w_num(f, p->eps_max);
      fprintf(f, ", \"sweeps\": %d, \"fixed\": ", p->sweeps);
      w_indices(f, p->fixed, p->nfixed, 20);
      fputs(",\n     \"springs\": ", f);
      w_indices(f, p->springs, p->count, 20);
      fputc('}', f);
    }
    fputs("\n  ]", f);
  }
  if (sc->nballs) {
    fputs(",\n  \"balls\": [", f);
    for (size_t k = 0; k < sc->nballs; k++) {
      const scene_ball *b = &sc->balls[k];
      fprintf(f, "%s{\"ball\": %zu, \"radius\": ", k ? ",\n    " : "\n    ", b->ball);
      w_num(f, b->opts.radius);
      fputs(", \"thickness\": ", f);
      w_num(f, b->opts.thickness);
      fprintf(f, ", \"mode\": \"%s\", \"release\": ", ball_mode_name(b->opts.mode));
      w_num(f, b->opts.release);
      fputs(",\n     \"nodes\": ", f);
      w_indices(f, b->nodes, b->count, 20);
      fputc('}', f);
    }
    fputs("\n  ]", f);
  }
  if (sc->contacts.cc) {
    const cdyn_contacts_opts *o = &sc->contacts.opts;
    fputs(",\n  \"contacts\": {\"thickness\": ", f);
    w_num(f, o->thickness);
    fprintf(f, ", \"mode\": \"%s\", ", o->mode == CDYN_CONTACTS_SWITCH ? "switch" : "inequality");
    w_bool(f, "continuous", o->continuous);
    fprintf(f, ", \"capacity\": %zu, \"pairs\": %zu,\n    \"margin\": ", o->capacity, o->pairs);
    w_num(f, o->margin);
    fputs(", \"sep_speed\": ", f);
    w_num(f, o->sep_speed);
    fputs(", \"release\": ", f);
    w_num(f, o->release);
    fputs(", \"ccd_tol\": ", f);
    w_num(f, o->ccd_tol);
    fprintf(f, ", \"max_redo\": %u, \"skin\": ", o->max_redo);
    w_num(f, o->skin);
    if (o->stack)
      fputs(", \"stack\": true", f);
    if (o->merge > 0) {
      fputs(", \"merge\": ", f);
      w_num(f, o->merge);
    }
    if (o->failsafe)
      fprintf(f, ", \"failsafe\": true, \"failsafe_iter\": %u", o->failsafe_iter);
    fputs(",\n    \"triangles\": [", f);
    for (size_t t = 0; t < sc->contacts.ntris; t++) {
      const size_t *v = sc->contacts.tris + 3 * t;
      fprintf(f, "%s[%zu, %zu, %zu]", t ? (t % 8 ? ", " : ",\n      ") : "\n      ", v[0], v[1], v[2]);
    }
    fputs("]}", f);
  }
  fputs(",\n  \"scheme\": {\n    \"name\": ", f);
  w_str(f, st ? cdyn_stepper_scheme(st) : sc->scheme);
  fputs(",\n", f);
  int rc = w_options(f, sc, st);
  if (rc)
    return rc;
  fputs("  },\n  \"run\": {\"h\": ", f);
  w_num(f, run->h);
  if (run->has_t_end) {
    fputs(", \"t_end\": ", f);
    w_num(f, run->t_end);
  } else {
    fprintf(f, ", \"steps\": %ld", run->steps);
  }
  fputs(", \"stop\": {", f);
  int sep = 0;
  if (run->max_error > 0) {
    fputs("\"max_error\": ", f);
    w_num(f, run->max_error);
    sep = 1;
  }
  if (run->has_max_energy_gain) {
    fputs(sep ? ", \"max_energy_gain\": " : "\"max_energy_gain\": ", f);
    w_num(f, run->max_energy_gain);
    sep = 1;
  }
  if (run->no_divergence)
    fputs(sep ? ", \"divergence\": false" : "\"divergence\": false", f);
  fprintf(f, "}},\n  \"record\": {\"every\": %ld, ", run->record_every);
  w_bool(f, "positions", run->record_positions);
  fputs(", ", f);
  w_bool(f, "velocities", run->record_velocities);
  fputs("}\n}\n", f);
  return CDYN_OK;
}

/* What a scene file cannot hold is refused before anything is written. */
static int save_check(const cdyn_scene *sc, const cdyn_stepper *st, const cdyn_scene_run *run)
{
  const char *w = "cdyn_scene_save";
  const cdyn_system *sys = sc->sys;
  if (st && st->sys != sys)
    return cdyn_error(CDYN_EINVAL, "%s: the stepper is not one of the scene's system", w);
  if (sys->force_fn)
    return cdyn_error(CDYN_EINVAL, "%s: the system has a force callback, which a scene file cannot hold", w);
  int hooks = sc->nsl || sc->nprovot || sc->nballs || sc->contacts.cc;
  if (hooks && sc->stats.steps > 0)
    return cdyn_error(CDYN_EINVAL, "%s: the scene has taken steps, and its hooks' switches since are not part of a "
                      "scene file: save it before the first step", w);
  if (cdyn_system_spring_count(sys) != sc->base_springs)
    return cdyn_error(CDYN_EINVAL, "%s: springs were added to the system after the scene was made (a scene file "
                      "holds those it had then)", w);
  /* The live constraints are the scene's own and the hooks'. */
  size_t own = 0, hooked = 0;
  unsigned char *pinned = calloc(cdyn_system_size(sys), 1);
  if (!pinned)
    return cdyn_error(CDYN_ENOMEM, "%s: out of memory", w);
  int rc = CDYN_OK;
  for (size_t c = 0; c < sc->base_constraints && !rc; c++) {
    const cdyn_constraint_type *type, *reg;
    size_t parts[CDYN_MAX_PARTICLES];
    if (!sc->own[c] || cdyn_system_get_constraint(sys, c, &type, parts, NULL))
      continue;
    own++;
    if (cdyn_constraint_type_find(type->name, &reg) || reg != type || (type->nparams && !type->param_names))
      rc = cdyn_error(CDYN_EINVAL, "%s: constraint %zu is of a type '%s' that is not registered (a scene file names "
                      "registered types)", w, c, type->name);
    else if (type == cdyn_constraint_pin && pinned[parts[0]]++)
      rc = cdyn_error(CDYN_EINVAL, "%s: particle %zu has two pins (a scene file allows one)", w, parts[0]);
  }
  free(pinned);
  if (rc)
    return rc;
  cdyn_error_clear(); /* the vacant ids' messages */
  for (size_t k = 0; k < sc->nsl; k++)
    hooked += sc->sl[k].count;
  for (size_t k = 0; k < sc->nballs; k++)
    hooked += sc->balls[k].opts.mode == CDYN_BALL_PROJECT ? 0 : sc->balls[k].count;
  if (sc->contacts.cc)
    hooked += cdyn_contacts_active(sc->contacts.cc);
  if (cdyn_system_live_constraints(sys) != own + hooked)
    return cdyn_error(CDYN_EINVAL, "%s: the system has %zu constraints, the scene's %zu and its hooks' %zu: constraints "
                      "added after the scene was made are not part of it", w, cdyn_system_live_constraints(sys), own,
                      hooked);
  if (!(run->h > 0) || !isfinite(run->h) || run->steps < 1 || run->steps > 100000000L || run->record_every < 1 ||
      run->record_every > 100000000L || !(run->max_error >= 0) || !isfinite(run->max_error) ||
      (run->has_t_end && !isfinite(run->t_end)) || (run->has_max_energy_gain && !isfinite(run->max_energy_gain)))
    return cdyn_error(CDYN_EINVAL, "%s: a run the format cannot hold (cdyn_scene_set_run checks it)", w);
  return CDYN_OK;
}

int cdyn_scene_save(const cdyn_scene *sc, const cdyn_stepper *st, const cdyn_scene_run *run, const char *path)
{
  if (!sc || !path || !*path)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_save: NULL argument");
  if (!run)
    run = &sc->run;
  int rc = save_check(sc, st, run);
  if (rc)
    return rc;
  /* A temporary file of its own in the same directory, renamed over
     path.  It is created with mode 0666, which the umask reduces, as
     fopen would create path itself (mkstemp's 0600 would make the scene
     private whatever the umask says); O_EXCL and a name of this process
     and a counter make it the file's own, another name tried when one
     exists. */
  size_t len = strlen(path) + 48;
  char *tmp = malloc(len);
  if (!tmp)
    return cdyn_error(CDYN_ENOMEM, "cdyn_scene_save: out of memory");
  static atomic_uint counter;
  int fd = -1;
  for (int tries = 0; fd < 0 && tries < 100; tries++) {
    snprintf(tmp, len, "%s.%ld-%u.tmp", path, (long)getpid(), atomic_fetch_add(&counter, 1u));
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
  if (!f) {
    rc = cdyn_error(CDYN_EIO, "cannot write %s: %s", path, strerror(errno));
    if (fd >= 0) {
      close(fd);
      remove(tmp);
    }
    free(tmp);
    return rc;
  }
  rc = write_scene(f, sc, st, run);
  errno = 0;
  int bad = ferror(f);
  bad |= fclose(f);
  if (!rc && bad)
    rc = cdyn_error(CDYN_EIO, "error writing %s: %s", tmp, errno ? strerror(errno) : "write error");
  if (!rc && rename(tmp, path))
    rc = cdyn_error(CDYN_EIO, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
  if (rc)
    remove(tmp);
  free(tmp);
  return rc;
}
