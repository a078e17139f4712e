/*
 * load.c: the reader of the scene format (doc/scene-format.md, version
 * 1), with Jansson as the JSON parser: the document, its explicit lists,
 * the hooks, the scheme and the run.  The field readers are in fields.c,
 * the generators in generate.c.
 *
 * Jansson (Debian libjansson-dev) is chosen over json-c because it
 * reports a syntax error's line and column, rejects duplicate keys on
 * request (JSON_REJECT_DUPLICATES), refuses NUL characters in strings by
 * default, and reads every number as a double on request
 * (JSON_DECODE_INT_AS_REAL) with strtod, which rounds correctly, so that
 * a double written with 17 digits, -0.0 included, reads back to the same
 * bits (scene.c writes them so).
 *
 * The reader walks the document with a JSON path ($.pins[2].i) and checks
 * every value it takes: its type, its range, and that every field of an
 * object is one the format knows (or starts with "_", a comment).  The
 * system is built in the order the format fixes (doc/scene-format.md, "The
 * order in which a scene is built"); a check the library makes while
 * building (a constraint type's parameters, a cloth's geometry) is
 * reported with the path of the value it concerns.  On any error the
 * partial scene is freed and nothing is returned.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/load.h"

#define MAX_FILE ((size_t)1 << 30)

/* ---- the explicit lists ------------------------------------------------------------------------- */

static int array_field(const ld *L, const json_t *root, const char *key, json_t **out)
{
  jpath root_p = {"$"};
  *out = json_object_get(root, key);
  if (*out && !json_is_array(*out)) {
    jpath q = jp_key(&root_p, key);
    return fail(L, &q, "expected an array, not %s", type_name(*out));
  }
  return CDYN_OK;
}

static int do_particles(ld *L, const json_t *arr)
{
  jpath base = {"$.particles"};
  return particle_list(L, arr, &base, 0);
}

static int two_particles(const ld *L, const json_t *e, const jpath *p, size_t *i, size_t *j)
{
  int rc;
  if ((rc = f_particle(L, e, p, "i", i)) || (rc = f_particle(L, e, p, "j", j)))
    return rc;
  if (*i == *j)
    return fail(L, p, "i and j are the same particle (%zu)", *i);
  return CDYN_OK;
}

static int do_springs(ld *L, const json_t *arr)
{
  jpath base = {"$.springs"};
  static const char *const keys[] = {"i", "j", "k", "c", "rest", "enabled", NULL};
  for (size_t s = 0; s < json_array_size(arr); s++) {
    jpath p = jp_idx(&base, s);
    json_t *e = json_array_get(arr, s);
    size_t i, j, id;
    double k, c, rest;
    int on;
    int rc = check_object(L, e, &p, keys);
    if (rc || (rc = two_particles(L, e, &p, &i, &j)) || (rc = f_num(L, e, &p, "k", REQ | NONNEG, 0, &k)) ||
        (rc = f_num(L, e, &p, "c", NONNEG, 0, &c)))
      return rc;
    const double *q = cdyn_system_positions(L->sys);
    if ((rc = f_num(L, e, &p, "rest", POS, dist(q + 3 * i, q + 3 * j), &rest)) ||
        (rc = f_bool(L, e, &p, "enabled", 1, &on)))
      return rc;
    if (!(rest > 0))
      return fail(L, &p, "the particles start at the same point: give the spring a rest length > 0");
    if ((rc = cdyn_system_add_spring(L->sys, i, j, k, c, rest, &id)) || (!on && (rc = cdyn_system_enable_spring(L->sys, id, 0))))
      return wrap(L, &p, rc);
  }
  return CDYN_OK;
}

static int do_constraints(ld *L, const json_t *arr)
{
  jpath base = {"$.constraints"};
  static const char *const keys[] = {"type", "particles", "params", "inequality", "enabled", NULL};
  for (size_t k = 0; k < json_array_size(arr); k++) {
    jpath p = jp_idx(&base, k);
    json_t *e = json_array_get(arr, k);
    int rc = check_object(L, e, &p, keys);
    if (rc)
      return rc;
    json_t *t = json_object_get(e, "type");
    jpath tp = jp_key(&p, "type");
    if (!t)
      return fail(L, &p, "the field 'type' is required");
    if (!json_is_string(t))
      return fail(L, &tp, "expected a constraint type's name, not %s", type_name(t));
    const cdyn_constraint_type *type;
    if (cdyn_constraint_type_find(json_string_value(t), &type)) {
      char list[512] = "";
      for (const cdyn_constraint_type *const *ty = cdyn_constraint_types; *ty; ty++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", ty == cdyn_constraint_types ? "" : ", ",
                 (*ty)->name);
      near_word nw;
      char hint[100];
      near_init(&nw, json_string_value(t));
      for (const cdyn_constraint_type *const *ty = cdyn_constraint_types; *ty; ty++)
        near_try(&nw, (*ty)->name);
      return fail(L, &tp, "unknown constraint type \"%.64s\"%s (one of %s)", json_string_value(t),
                  near_hint(&nw, hint, sizeof hint), list);
    }
    /* Particles: exactly the type's number, all different. */
    json_t *pa = json_object_get(e, "particles");
    jpath pp = jp_key(&p, "particles");
    if (!pa)
      return fail(L, &p, "the field 'particles' is required");
    if (!json_is_array(pa) || json_array_size(pa) != type->nparticles)
      return fail(L, &pp, "a %s constraint takes an array of %u particle indices", type->name, type->nparticles);
    size_t parts[CDYN_MAX_PARTICLES];
    for (unsigned a = 0; a < type->nparticles; a++) {
      jpath r = jp_idx(&pp, a);
      if ((rc = particle(L, json_array_get(pa, a), &r, &parts[a])))
        return rc;
      for (unsigned b = 0; b < a; b++)
        if (parts[b] == parts[a])
          return fail(L, &r, "particle %zu is listed twice", parts[a]);
    }
    /* Parameters: every one by name, or all in order. */
    double params[CDYN_MAX_PARAMS];
    json_t *pr = json_object_get(e, "params");
    jpath prp = jp_key(&p, "params");
    if (!pr && type->nparams)
      return fail(L, &p, "the field 'params' is required (%s takes %u)", type->name, type->nparams);
    if (pr && json_is_array(pr)) {
      if (json_array_size(pr) != type->nparams)
        return fail(L, &prp, "%s takes %u parameters, not %zu", type->name, type->nparams, json_array_size(pr));
      for (unsigned a = 0; a < type->nparams; a++) {
        jpath r = jp_idx(&prp, a);
        if ((rc = num_value(L, json_array_get(pr, a), &r, &params[a])))
          return rc;
      }
    } else if (pr) {
      if (!json_is_object(pr))
        return fail(L, &prp, "expected the parameters as an object (by name) or an array, not %s", type_name(pr));
      const char *key;
      json_t *val;
      json_object_foreach(pr, key, val) {
        int found = key[0] == '_';
        for (unsigned a = 0; a < type->nparams && !found; a++)
          found = !strcmp(type->param_names[a], key);
        if (!found) {
          char list[512] = "";
          for (unsigned a = 0; a < type->nparams; a++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", a ? ", " : "", type->param_names[a]);
          jpath r = jp_key(&prp, key);
          near_word nw;
          char hint[100];
          near_init(&nw, key);
          for (unsigned a = 0; a < type->nparams; a++)
            near_try(&nw, type->param_names[a]);
          return fail(L, &r, "unknown parameter of %s%s (its parameters: %s)", type->name,
                      near_hint(&nw, hint, sizeof hint), list);
        }
      }
      for (unsigned a = 0; a < type->nparams; a++)
        if ((rc = f_num(L, pr, &prp, type->param_names[a], REQ, 0, &params[a])))
          return rc;
    }
    int ineq, on;
    if ((rc = f_bool(L, e, &p, "inequality", 0, &ineq)) || (rc = f_bool(L, e, &p, "enabled", 1, &on)))
      return rc;
    if (type == cdyn_constraint_pin && (rc = mark_pinned(L, &p, parts[0])))
      return rc;
    size_t id;
    if ((rc = cdyn_system_add_constraint(L->sys, type, parts, params, &id)) ||
        (ineq && (rc = cdyn_system_set_inequality(L->sys, id, 1))) || (!on && (rc = cdyn_system_enable_constraint(L->sys, id, 0))))
      return wrap(L, &p, rc);
  }
  return CDYN_OK;
}

static int do_links(ld *L, const json_t *arr)
{
  jpath base = {"$.links"};
  static const char *const keys[] = {"i", "j", "length", NULL};
  for (size_t k = 0; k < json_array_size(arr); k++) {
    jpath p = jp_idx(&base, k);
    json_t *e = json_array_get(arr, k);
    size_t i, j;
    double len;
    int rc = check_object(L, e, &p, keys);
    if (rc || (rc = two_particles(L, e, &p, &i, &j)))
      return rc;
    const double *q = cdyn_system_positions(L->sys);
    if ((rc = f_num(L, e, &p, "length", POS, dist(q + 3 * i, q + 3 * j), &len)))
      return rc;
    if (!(len > 0))
      return fail(L, &p, "the particles start at the same point: give the link a length > 0");
    if ((rc = cdyn_system_add_distance(L->sys, i, j, len, NULL)))
      return wrap(L, &p, rc);
  }
  return CDYN_OK;
}

static int do_pins(ld *L, const json_t *arr)
{
  jpath base = {"$.pins"};
  static const char *const keys[] = {"i", "at", "u", "a", "omega", "phase", NULL};
  for (size_t k = 0; k < json_array_size(arr); k++) {
    jpath p = jp_idx(&base, k);
    json_t *e = json_array_get(arr, k);
    size_t i;
    double at[3], u[3], a[3], w, phi;
    int rc = check_object(L, e, &p, keys);
    if (rc || (rc = f_particle(L, e, &p, "i", &i)))
      return rc;
    const double *q = cdyn_system_positions(L->sys);
    if ((rc = f_vec(L, e, &p, "at", q + 3 * i, at)) || (rc = f_vec(L, e, &p, "u", zero3, u)) ||
        (rc = f_vec(L, e, &p, "a", zero3, a)) || (rc = f_num(L, e, &p, "omega", 0, 0, &w)) ||
        (rc = f_num(L, e, &p, "phase", 0, 0, &phi)) || (rc = mark_pinned(L, &p, i)))
      return rc;
    int moving = json_object_get(e, "u") || json_object_get(e, "a") || json_object_get(e, "omega") || json_object_get(e, "phase");
    if ((rc = moving ? cdyn_system_add_moving_pin(L->sys, i, at, u, a, w, phi, NULL) : cdyn_system_add_pin(L->sys, i, at, NULL)))
      return wrap(L, &p, rc);
  }
  return CDYN_OK;
}

static int do_walls(ld *L, const json_t *arr)
{
  jpath base = {"$.walls"};
  static const char *const keys[] = {"particles", "point", "normal", NULL};
  for (size_t k = 0; k < json_array_size(arr); k++) {
    jpath p = jp_idx(&base, k);
    json_t *e = json_array_get(arr, k);
    double pt[3], nrm[3];
    size_t *list = NULL, count;
    int rc = check_object(L, e, &p, keys);
    if (rc || (rc = f_vec(L, e, &p, "point", NULL, pt)) || (rc = f_vec(L, e, &p, "normal", NULL, nrm)))
      return rc;
    if (nrm[0] == 0 && nrm[1] == 0 && nrm[2] == 0) {
      jpath q = jp_key(&p, "normal");
      return fail(L, &q, "the normal must not be zero");
    }
    if ((rc = index_set(L, e, &p, "particles", "particle", L->n, 1, SIZE_MAX, &list, &count)))
      return rc;
    if ((rc = room(L, &p, count))) {
      free(list);
      return rc;
    }
    for (size_t a = 0; a < count && !rc; a++)
      if ((rc = cdyn_system_add_wall(L->sys, list[a], pt, nrm, NULL)))
        rc = wrap(L, &p, rc);
    free(list);
    if (rc)
      return rc;
  }
  return CDYN_OK;
}

static int do_separations(ld *L, const json_t *arr)
{
  jpath base = {"$.separations"};
  static const char *const keys[] = {"i", "j", "distance", NULL};
  for (size_t k = 0; k < json_array_size(arr); k++) {
    jpath p = jp_idx(&base, k);
    json_t *e = json_array_get(arr, k);
    size_t i, j;
    double d;
    int rc = check_object(L, e, &p, keys);
    if (rc || (rc = two_particles(L, e, &p, &i, &j)) || (rc = f_num(L, e, &p, "distance", REQ | POS, 0, &d)))
      return rc;
    if ((rc = cdyn_system_add_separation(L->sys, i, j, d, NULL)))
      return wrap(L, &p, rc);
  }
  return CDYN_OK;
}

/* ---- hooks ---------------------------------------------------------------------------------- */

static int gather_hooks(ld *L, const json_t *root)
{
  json_t *arr;
  size_t ns = cdyn_system_spring_count(L->sys);
  int rc = array_field(L, root, "strain_limits", &arr);
  for (size_t k = 0; !rc && arr && k < json_array_size(arr); k++) {
    jpath base = {"$.strain_limits"}, p = jp_idx(&base, k);
    json_t *e = json_array_get(arr, k);
    if (L->nsl[0] + L->nsl[1] >= 64)
      return fail(L, &p, "more than 64 strain limiters (a scene has at most 64, a cloth generator's included)");
    hook_sl *h = &L->sl[1][L->nsl[1]];
    memset(h, 0, sizeof *h);
    if ((rc = sl_opts(L, e, &p, 1, &h->o)) ||
        (rc = index_set(L, e, &p, "springs", "spring", ns, 0, SIZE_MAX, &h->springs, &h->count)))
      return rc;
    h->path = p;
    L->nsl[1]++;
  }
  if (rc || (rc = array_field(L, root, "provot", &arr)))
    return rc;
  for (size_t k = 0; arr && k < json_array_size(arr); k++) {
    jpath base = {"$.provot"}, p = jp_idx(&base, k);
    json_t *e = json_array_get(arr, k);
    if (L->npv[0] + L->npv[1] >= 64)
      return fail(L, &p, "more than 64 Provot limiters (a scene has at most 64, a cloth generator's included)");
    hook_pv *h = &L->pv[1][L->npv[1]];
    memset(h, 0, sizeof *h);
    if ((rc = pv_opts(L, e, &p, 1, h)) ||
        (rc = index_set(L, e, &p, "springs", "spring", ns, 0, SIZE_MAX, &h->springs, &h->count)))
      return rc;
    if ((rc = index_list(L, e, &p, "fixed", 0, "particle", L->n, 0, SIZE_MAX, &h->fixed, &h->nfixed))) {
      free(h->springs);
      h->springs = NULL;
      return rc;
    }
    L->npv[1]++;
  }
  return CDYN_OK;
}

static int add_hooks(ld *L, cdyn_scene *sc, const json_t *root)
{
  int rc;
  for (int g = 0; g < 2; g++)
    for (size_t k = 0; k < L->nsl[g]; k++) {
      hook_sl *h = &L->sl[g][k];
      if ((rc = room(L, &h->path, h->count)))
        return rc;
      if ((rc = cdyn_scene_add_strainlimit(sc, h->springs, h->count, &h->o)))
        return wrap(L, &h->path, rc);
    }
  for (int g = 0; g < 2; g++)
    for (size_t k = 0; k < L->npv[g]; k++) {
      hook_pv *h = &L->pv[g][k];
      if ((rc = cdyn_scene_add_provot(sc, h->springs, h->count, h->eps_max, h->sweeps, h->fixed, h->nfixed)))
        return wrap(L, &h->path, rc);
    }
  json_t *arr;
  if ((rc = array_field(L, root, "balls", &arr)))
    return rc;
  static const char *const bkeys[] = {"ball", "nodes", "radius", "thickness", "mode", "release", NULL};
  static const char *const bmodes[] = {"switch", "inequality", "project", NULL};
  for (size_t k = 0; arr && k < json_array_size(arr); k++) {
    jpath base = {"$.balls"}, p = jp_idx(&base, k);
    json_t *e = json_array_get(arr, k);
    size_t ball, *nodes = NULL, count;
    cdyn_ball_opts bo;
    int mode;
    memset(&bo, 0, sizeof bo);
    if ((rc = check_object(L, e, &p, bkeys)) || (rc = f_particle(L, e, &p, "ball", &ball)) ||
        (rc = f_num(L, e, &p, "radius", REQ | POS, 0, &bo.radius)) ||
        (rc = f_num(L, e, &p, "thickness", NONNEG, 0, &bo.thickness)) || (rc = f_enum(L, e, &p, "mode", bmodes, 0, &mode)) ||
        (rc = f_num(L, e, &p, "release", NONNEG, 0, &bo.release)) ||
        (rc = index_set(L, e, &p, "nodes", "particle", L->n, 1, ball, &nodes, &count)))
      return rc;
    bo.mode = mode == 1 ? CDYN_BALL_INEQUALITY : mode == 2 ? CDYN_BALL_PROJECT : CDYN_BALL_SWITCH;
    rc = bo.mode == CDYN_BALL_PROJECT ? CDYN_OK : room(L, &p, count);
    if (!rc)
      rc = cdyn_scene_add_ball(sc, ball, nodes, count, &bo);
    else {
      free(nodes);
      return rc;
    }
    free(nodes);
    if (rc)
      return wrap(L, &p, rc);
  }
  json_t *c = json_object_get(root, "contacts");
  jpath cp = {"$.contacts"};
  cdyn_contacts_opts co;
  if (c && L->gen_contacts)
    return fail(L, &cp, "a second contact handler (%s has one; a scene has at most one)", L->gen_contacts_path.s);
  if (c) {
    if ((rc = contacts_opts(L, c, &cp, 1, &co)))
      return rc;
    json_t *t = json_object_get(c, "triangles");
    jpath tp = jp_key(&cp, "triangles");
    if (!t)
      return fail(L, &cp, "the field 'triangles' is required");
    if (!json_is_array(t) || json_array_size(t) == 0)
      return fail(L, &tp, "expected a non-empty array of triangles [a, b, c]");
    size_t nt = json_array_size(t), *tris = malloc(3 * nt * sizeof(size_t));
    if (!tris)
      return cdyn_error(CDYN_ENOMEM, "%s: out of memory", L->file);
    for (size_t k = 0; k < nt && !rc; k++) {
      jpath r = jp_idx(&tp, k);
      json_t *tri = json_array_get(t, k);
      if (!json_is_array(tri) || json_array_size(tri) != 3) {
        rc = fail(L, &r, "expected a triangle: three particle indices");
        break;
      }
      for (size_t d = 0; d < 3 && !rc; d++) {
        jpath s = jp_idx(&r, d);
        rc = particle(L, json_array_get(tri, d), &s, &tris[3 * k + d]);
        for (size_t e = 0; e < d && !rc; e++)
          if (tris[3 * k + e] == tris[3 * k + d])
            rc = fail(L, &s, "particle %zu is a corner twice", tris[3 * k + d]);
      }
    }
    if (!rc && (rc = cdyn_scene_add_contacts(sc, tris, nt, &co)))
      rc = wrap(L, &cp, rc);
    free(tris);
    if (rc)
      return rc;
  } else if (L->gen_contacts) {
    if ((rc = contacts_opts(L, L->gen_contacts, &L->gen_contacts_path, 0, &co)))
      return rc;
    if ((rc = cdyn_scene_add_contacts(sc, L->gen_tris, L->gen_ntris, &co)))
      return wrap(L, &L->gen_contacts_path, rc);
  }
  return CDYN_OK;
}

/* ---- scheme, run, record ------------------------------------------------------------------------ */

static int do_scheme(ld *L, cdyn_scene *sc, const json_t *root)
{
  json_t *s = json_object_get(root, "scheme");
  jpath p = {"$.scheme"};
  if (!s)
    return CDYN_OK;
  json_t *name = s, *opts = NULL;
  jpath np = p;
  if (json_is_object(s)) {
    static const char *const keys[] = {"name", "options", NULL};
    int rc = check_object(L, s, &p, keys);
    if (rc)
      return rc;
    name = json_object_get(s, "name");
    opts = json_object_get(s, "options");
    np = jp_key(&p, "name");
  }
  size_t idx;
  if (name) {
    if (!json_is_string(name))
      return fail(L, &np, "expected a scheme's name, not %s", type_name(name));
    if (cdyn_scheme_find(json_string_value(name), &idx)) {
      char list[1024] = "";
      for (size_t k = 0; k < cdyn_scheme_count(); k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", cdyn_scheme_name(k));
      near_word nw;
      char hint[100];
      near_init(&nw, json_string_value(name));
      for (size_t k = 0; k < cdyn_scheme_count(); k++)
        near_try(&nw, cdyn_scheme_name(k));
      return fail(L, &np, "unknown scheme \"%.64s\"%s (one of %s)", json_string_value(name),
                  near_hint(&nw, hint, sizeof hint), list);
    }
    int rc = cdyn_scene_set_scheme(sc, json_string_value(name));
    if (rc)
      return wrap(L, &np, rc);
  }
  cdyn_scheme_find(sc->scheme, &idx);
  if (!opts)
    return CDYN_OK;
  jpath op = jp_key(&p, "options");
  if (!json_is_object(opts))
    return fail(L, &op, "expected an object of option names and values, not %s", type_name(opts));
  const char *key;
  json_t *val;
  json_object_foreach(opts, key, val) {
    if (key[0] == '_')
      continue;
    jpath q = jp_key(&op, key);
    int found = 0;
    char list[2048] = "";
    near_word nw;
    char hint[100];
    near_init(&nw, key);
    for (size_t k = 0; k < cdyn_scheme_option_count(idx) && !found; k++) {
      const char *o;
      cdyn_scheme_option(idx, k, &o, NULL, NULL);
      found = !strcmp(o, key);
      near_try(&nw, o);
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", o);
    }
    if (!found)
      return fail(L, &q, "unknown option of scheme %s%s (its options: %s)", sc->scheme,
                  near_hint(&nw, hint, sizeof hint), list);
    char text[64];
    const char *v;
    if (json_is_string(val)) {
      v = json_string_value(val);
    } else if (json_is_boolean(val)) {
      v = json_is_true(val) ? "on" : "off";
    } else if (json_is_number(val)) {
      double x;
      int rc = num_value(L, val, &q, &x);
      if (rc)
        return rc;
      snprintf(text, sizeof text, "%.17g", x);
      v = text;
    } else {
      return fail(L, &q, "expected the option's value as a string, number or boolean, not %s", type_name(val));
    }
    int rc = cdyn_scene_add_option(sc, key, v);
    if (rc)
      return wrap(L, &q, rc);
  }
  return CDYN_OK;
}

static int do_run(ld *L, cdyn_scene *sc, const json_t *root)
{
  cdyn_scene_run r = sc->run;
  json_t *run = json_object_get(root, "run");
  jpath p = {"$.run"};
  int rc;
  if (run) {
    static const char *const keys[] = {"h", "steps", "t_end", "stop", NULL};
    long long steps;
    if ((rc = check_object(L, run, &p, keys)) || (rc = f_num(L, run, &p, "h", POS, r.h, &r.h)) ||
        (rc = f_int(L, run, &p, "steps", 0, r.steps, 1, 1e8, &steps)))
      return rc;
    r.steps = (long)steps;
    json_t *te = json_object_get(run, "t_end");
    if (te) {
      jpath q = jp_key(&p, "t_end");
      if (json_object_get(run, "steps"))
        return fail(L, &q, "give steps or t_end, not both");
      if ((rc = num_value(L, te, &q, &r.t_end)))
        return rc;
      r.has_t_end = 1;
      if ((rc = cdyn_scene_steps_to(cdyn_system_time(L->sys), r.t_end, r.h, &r.steps)))
        return wrap(L, &q, rc);
    }
    json_t *stop = json_object_get(run, "stop");
    if (stop) {
      static const char *const skeys[] = {"max_error", "max_energy_gain", "divergence", NULL};
      jpath q = jp_key(&p, "stop");
      int divergence;
      if ((rc = check_object(L, stop, &q, skeys)) || (rc = f_num(L, stop, &q, "max_error", POS, 0, &r.max_error)) ||
          (rc = f_num(L, stop, &q, "max_energy_gain", 0, 0, &r.max_energy_gain)) ||
          (rc = f_bool(L, stop, &q, "divergence", 1, &divergence)))
        return rc;
      r.has_max_energy_gain = json_object_get(stop, "max_energy_gain") != NULL;
      r.no_divergence = !divergence;
    }
  }
  json_t *rec = json_object_get(root, "record");
  jpath rp = {"$.record"};
  if (rec) {
    static const char *const keys[] = {"every", "positions", "velocities", NULL};
    long long every;
    if ((rc = check_object(L, rec, &rp, keys)) || (rc = f_int(L, rec, &rp, "every", 0, 1, 1, 1e8, &every)) ||
        (rc = f_bool(L, rec, &rp, "positions", 0, &r.record_positions)) ||
        (rc = f_bool(L, rec, &rp, "velocities", 0, &r.record_velocities)))
      return rc;
    r.record_every = (long)every;
  }
  if ((rc = cdyn_scene_set_run(sc, &r)))
    return wrap(L, &p, rc);
  return CDYN_OK;
}

/* ---- the document ------------------------------------------------------------------------------- */

static const char *const top_keys[] = {"cdyn_scene", "name", "description", "time", "gravity", "particles",
                                       "generators", "springs", "constraints", "links", "pins", "walls",
                                       "separations", "strain_limits", "provot", "balls", "contacts", "scheme",
                                       "run", "record", NULL};

/* The scene's name from its file: the base name without ".json". */
static void name_from_file(const char *file, char *buf, size_t len)
{
  const char *b = strrchr(file, '/');
  b = b ? b + 1 : file;
  snprintf(buf, len, "%s", b);
  size_t l = strlen(buf);
  if (l > 5 && !strcmp(buf + l - 5, ".json"))
    buf[l - 5] = '\0';
}

static int text_field(const ld *L, const json_t *root, const char *key, const char **out)
{
  json_t *v = json_object_get(root, key);
  *out = NULL;
  if (!v)
    return CDYN_OK;
  if (!json_is_string(v)) {
    jpath root_p = {"$"}, q = jp_key(&root_p, key);
    return fail(L, &q, "expected a string, not %s", type_name(v));
  }
  *out = json_string_value(v);
  return CDYN_OK;
}

static void free_hooks(ld *L)
{
  for (int g = 0; g < 2; g++) {
    for (size_t k = 0; k < L->nsl[g]; k++)
      free(L->sl[g][k].springs);
    for (size_t k = 0; k < L->npv[g]; k++) {
      free(L->pv[g][k].springs);
      free(L->pv[g][k].fixed);
    }
  }
  free(L->gen_tris);
  for (size_t k = 0; k < L->npatches; k++)
    free((size_t *)L->patches[k].tri);
  free(L->patches);
  L->patches = NULL;
  L->npatches = 0;
}

static int build(ld *L, const json_t *root, cdyn_scene **out)
{
  jpath rootp = {"$"};
  int rc = check_object(L, root, &rootp, top_keys);
  if (rc)
    return rc;
  json_t *ver = json_object_get(root, "cdyn_scene");
  if (!ver)
    return fail(L, &rootp, "the field 'cdyn_scene' (the format version, %d) is required: is this a cdyn scene?",
                CDYN_SCENE_VERSION);
  jpath vp = jp_key(&rootp, "cdyn_scene");
  long long version;
  if ((rc = int_value(L, ver, &vp, 1, 1e9, &version)))
    return rc;
  if (version > CDYN_SCENE_VERSION)
    return fail(L, &vp, "format version %lld is newer than this cdyn reads (%d): use a newer cdyn", version,
                CDYN_SCENE_VERSION);
  const char *name, *desc;
  if ((rc = text_field(L, root, "name", &name)) || (rc = text_field(L, root, "description", &desc)))
    return rc;
  if (name) {
    /* It names output files. */
    jpath np = jp_key(&rootp, "name");
    if (!cdyn_scene_name_ok(name))
      return fail(L, &np, "%s", SCENE_NAME_RULE);
  }
  /* Count the particles. */
  json_t *parts, *gens;
  if ((rc = array_field(L, root, "particles", &parts)) || (rc = array_field(L, root, "generators", &gens)))
    return rc;
  double total = parts ? (double)json_array_size(parts) : 0;
  jpath gbase = jp_key(&rootp, "generators");
  if (total > (double)L->maxp) {
    jpath q = jp_key(&rootp, "particles");
    return fail(L, &q, "%.0f particles, more than this reader allows (%zu)", total, L->maxp);
  }
  for (size_t g = 0; gens && g < json_array_size(gens); g++) {
    jpath p = jp_idx(&gbase, g);
    double c;
    if ((rc = gen_count(L, json_array_get(gens, g), &p, &c)))
      return rc;
    total += c;
    if (total > (double)L->maxp)
      return fail(L, &p, "the scene would have %.0f particles, more than this reader allows (%zu)", total, L->maxp);
  }
  if (total < 1)
    return fail(L, &rootp, "the scene has no particles (give particles or generators)");
  L->n = (size_t)total;
  double t0, g[3];
  if ((rc = f_num(L, root, &rootp, "time", 0, 0, &t0)) || (rc = f_vec(L, root, &rootp, "gravity", zero3, g)))
    return rc;
  if ((rc = cdyn_system_new(&L->sys, L->n)))
    return wrap(L, &rootp, rc);
  if (!(L->pinned = calloc(L->n, 1)))
    return cdyn_error(CDYN_ENOMEM, "%s: out of memory", L->file);
  if ((rc = cdyn_system_set_time(L->sys, t0)) || (rc = cdyn_system_set_gravity(L->sys, g)))
    return wrap(L, &rootp, rc);
  if (parts && (rc = do_particles(L, parts)))
    return rc;
  size_t first = parts ? json_array_size(parts) : 0;
  for (size_t k = 0; gens && k < json_array_size(gens); k++) {
    jpath p = jp_idx(&gbase, k);
    json_t *gen = json_array_get(gens, k);
    double c;
    int type;
    gen_count(L, gen, &p, &c);
    f_enum(L, gen, &p, "type", gen_types, 0, &type);
    rc = type == 0   ? gen_chain(L, gen, &p, first, (size_t)c)
         : type == 1 ? gen_cloth(L, gen, &p, first)
         : type == 2 ? gen_grid(L, gen, &p, first)
                     : gen_particles(L, gen, &p, first);
    if (rc)
      return rc;
    first += (size_t)c;
  }
  json_t *arr;
  if ((rc = array_field(L, root, "springs", &arr)) || (arr && (rc = do_springs(L, arr))) ||
      (rc = array_field(L, root, "constraints", &arr)) || (arr && (rc = do_constraints(L, arr))) ||
      (rc = array_field(L, root, "links", &arr)) || (arr && (rc = do_links(L, arr))) ||
      (rc = array_field(L, root, "pins", &arr)) || (arr && (rc = do_pins(L, arr))) ||
      (rc = array_field(L, root, "walls", &arr)) || (arr && (rc = do_walls(L, arr))) ||
      (rc = array_field(L, root, "separations", &arr)) || (arr && (rc = do_separations(L, arr))))
    return rc;
  if ((rc = gather_hooks(L, root)))
    return rc;
  cdyn_scene *sc;
  if ((rc = cdyn_scene_new(&sc, L->sys))) {
    L->sys = NULL; /* freed by cdyn_scene_new */
    return rc;
  }
  L->sys = NULL;
  char fname[256];
  name_from_file(L->file, fname, sizeof fname);
  if (!cdyn_scene_name_ok(fname))
    snprintf(fname, sizeof fname, "scene");
  if ((rc = cdyn_scene_set_name(sc, name ? name : fname, desc ? desc : "")) || !(sc->file = strdup(L->file))) {
    cdyn_scene_free(sc);
    return rc ? rc : cdyn_error(CDYN_ENOMEM, "%s: out of memory", L->file);
  }
  L->sys = sc->sys; /* for the hooks' checks (owned by sc) */
  if ((rc = add_hooks(L, sc, root)) || (rc = do_scheme(L, sc, root)) || (rc = do_run(L, sc, root))) {
    L->sys = NULL;
    cdyn_scene_free(sc);
    return rc;
  }
  L->sys = NULL;
  /* The cloth generators' patches are the scene's now. */
  sc->patches = L->patches;
  sc->npatches = L->npatches;
  L->patches = NULL;
  L->npatches = 0;
  *out = sc;
  return CDYN_OK;
}

int cdyn_scene_parse(cdyn_scene **out, const char *text, size_t len, const char *name, const cdyn_scene_limits *limits)
{
  if (!out)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_parse: NULL output");
  *out = NULL;
  if (!text || !name)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_parse: NULL argument");
  json_error_t err;
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, &err);
  if (!root)
    return cdyn_error(CDYN_EINVAL, "%s:%d:%d: %s", name, err.line, err.column, err.text);
  /* The reader's state (its hook lists are some 100 kB) on the heap. */
  ld *L = calloc(1, sizeof *L);
  if (!L) {
    json_decref(root);
    return cdyn_error(CDYN_ENOMEM, "%s: out of memory", name);
  }
  L->file = name;
  L->maxp = limits && limits->max_particles ? limits->max_particles : (size_t)1 << 24;
  L->maxc = limits && limits->max_constraints ? limits->max_constraints : (size_t)1 << 26;
  L->max_contacts = limits && limits->max_contacts ? limits->max_contacts : (size_t)1 << 24;
  L->max_pairs = limits && limits->max_pairs ? limits->max_pairs : (size_t)1 << 28;
  int rc = build(L, root, out);
  free_hooks(L);
  free(L->pinned);
  cdyn_system_free(L->sys);
  free(L);
  json_decref(root);
  return rc;
}

int cdyn_scene_load(cdyn_scene **out, const char *path, const cdyn_scene_limits *limits)
{
  if (!out)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_load: NULL output");
  *out = NULL;
  if (!path)
    return cdyn_error(CDYN_EINVAL, "cdyn_scene_load: NULL path");
  FILE *f = fopen(path, "rb");
  if (!f)
    return cdyn_error(CDYN_EIO, "cannot read %s: %s", path, strerror(errno));
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  int rc = buf ? CDYN_OK : cdyn_error(CDYN_ENOMEM, "%s: out of memory", path);
  while (!rc) {
    if (len == cap) {
      if (cap >= MAX_FILE) {
        rc = cdyn_error(CDYN_EINVAL, "%s: larger than %zu bytes", path, MAX_FILE);
        break;
      }
      char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        rc = cdyn_error(CDYN_ENOMEM, "%s: out of memory", path);
        break;
      }
      buf = nb;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) {
      if (ferror(f))
        rc = cdyn_error(CDYN_EIO, "cannot read %s: %s", path, strerror(errno));
      break;
    }
  }
  fclose(f);
  if (!rc)
    rc = cdyn_scene_parse(out, buf, len, path, limits);
  free(buf);
  return rc;
}
