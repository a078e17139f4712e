/*
 * fields.c: the field readers of the scene reader (load.c): JSON paths and
 * messages, the values of every kind the format has (numbers with their
 * ranges, integers, booleans, vectors, names from a list, particle and
 * index lists), the pins' bookkeeping, and the options of the hooks.  Each
 * reader checks the value it takes and reports a fault with the path of
 * the value ($.pins[2].i) and what is wrong with it.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/load.h"

/* ---- paths and messages ------------------------------------------------------------------------- */

jpath jp_key(const jpath *p, const char *key)
{
  jpath q;
  int w = snprintf(q.s, sizeof q.s, "%s.%.64s", p->s, key);
  if (w < 0 || (size_t)w >= sizeof q.s)
    memcpy(q.s + sizeof q.s - 4, "...", 4); /* deeper than any scene goes */
  return q;
}

jpath jp_idx(const jpath *p, size_t i)
{
  jpath q;
  int w = snprintf(q.s, sizeof q.s, "%s[%zu]", p->s, i);
  if (w < 0 || (size_t)w >= sizeof q.s)
    memcpy(q.s + sizeof q.s - 4, "...", 4);
  return q;
}

/* ---- suggestions ------------------------------------------------------------------------------- */

void near_init(near_word *n, const char *word)
{
  n->word = word;
  n->best = NULL;
  n->dist = (size_t)-1;
}

void near_try(near_word *n, const char *name)
{
  if (!n->word || !name)
    return;
  size_t d = cdyn_word_distance(n->word, name);
  if (d < n->dist) {
    n->dist = d;
    n->best = name;
  }
}

const char *near_hint(const near_word *n, char *buf, size_t len)
{
  if (!n->best || !cdyn_word_near(n->word, n->dist))
    return "";
  snprintf(buf, len, "; did you mean '%.64s'?", n->best);
  return buf;
}

int fail(const ld *L, const jpath *p, const char *fmt, ...)
{
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return cdyn_error(CDYN_EINVAL, "%s: %s: %s", L->file, p->s, msg);
}

/* A library call's failure, reported at the path of what it was given. */
int wrap(const ld *L, const jpath *p, int rc)
{
  char msg[2048];
  snprintf(msg, sizeof msg, "%s", cdyn_errmsg());
  if (rc == CDYN_ENOMEM)
    return cdyn_error(rc, "%s: %s: out of memory (%s)", L->file, p->s, msg);
  return cdyn_error(rc == CDYN_OK ? CDYN_EINVAL : rc < 0 ? rc : CDYN_EINVAL, "%s: %s: %s", L->file, p->s, msg);
}

const char *type_name(const json_t *v)
{
  switch (json_typeof(v)) {
  case JSON_OBJECT: return "an object";
  case JSON_ARRAY: return "an array";
  case JSON_STRING: return "a string";
  case JSON_INTEGER:
  case JSON_REAL: return "a number";
  case JSON_TRUE:
  case JSON_FALSE: return "a boolean";
  default: return "null";
  }
}

/* `obj` must be an object whose fields are all in `allowed` (NULL-ended)
   or start with "_". */
int check_object(const ld *L, const json_t *obj, const jpath *p, const char *const *allowed)
{
  if (!json_is_object(obj))
    return fail(L, p, "expected an object, not %s", type_name(obj));
  const char *key;
  json_t *val;
  json_object_foreach((json_t *)obj, key, val) {
    if (key[0] == '_')
      continue;
    int ok = 0;
    for (const char *const *a = allowed; *a && !ok; a++)
      ok = !strcmp(*a, key);
    if (!ok) {
      near_word nw;
      char hint[100];
      near_init(&nw, key);
      for (const char *const *a = allowed; *a; a++)
        near_try(&nw, *a);
      char list[512] = "";
      for (const char *const *a = allowed; *a; a++) {
        if (strlen(list) + strlen(*a) + 3 >= sizeof list)
          break;
        if (*list)
          strcat(list, ", ");
        strcat(list, *a);
      }
      jpath q = jp_key(p, key);
      return fail(L, &q, "unknown field '%.64s'%s (known here: %s; a field starting with _ is a comment)", key,
                  near_hint(&nw, hint, sizeof hint), list);
    }
  }
  return CDYN_OK;
}

/* ---- values --------------------------------------------------------------------------------- */

int num_value(const ld *L, const json_t *v, const jpath *p, double *out)
{
  if (!json_is_number(v))
    return fail(L, p, "expected a number, not %s", type_name(v));
  double x = json_number_value(v);
  if (!isfinite(x))
    return fail(L, p, "the number is not finite (too large for a double)");
  *out = x;
  return CDYN_OK;
}

/* A number field: absent gives def (or an error with REQ); POS: > 0,
   NONNEG: >= 0. */
int f_num(const ld *L, const json_t *obj, const jpath *p, const char *key, int flags, double def, double *out)
{
  jpath q = jp_key(p, key);
  json_t *v = json_object_get(obj, key);
  if (!v) {
    if (flags & REQ)
      return fail(L, p, "the field '%s' is required", key);
    *out = def;
    return CDYN_OK;
  }
  int rc = num_value(L, v, &q, out);
  if (rc)
    return rc;
  if ((flags & POS) && !(*out > 0))
    return fail(L, &q, "%.17g must be > 0", *out);
  if ((flags & NONNEG) && !(*out >= 0))
    return fail(L, &q, "%.17g must be >= 0", *out);
  return CDYN_OK;
}

int int_value(const ld *L, const json_t *v, const jpath *p, double lo, double hi, long long *out)
{
  double x;
  int rc = num_value(L, v, p, &x);
  if (rc)
    return rc;
  if (x != floor(x))
    return fail(L, p, "%.17g is not an integer", x);
  if (!(x >= lo && x <= hi))
    return fail(L, p, "%.17g is outside [%.17g, %.17g]", x, lo, hi);
  *out = (long long)x;
  return CDYN_OK;
}

int f_int(const ld *L, const json_t *obj, const jpath *p, const char *key, int req, long long def, double lo,
                 double hi, long long *out)
{
  json_t *v = json_object_get(obj, key);
  if (!v) {
    if (req)
      return fail(L, p, "the field '%s' is required", key);
    *out = def;
    return CDYN_OK;
  }
  jpath q = jp_key(p, key);
  return int_value(L, v, &q, lo, hi, out);
}

int f_bool(const ld *L, const json_t *obj, const jpath *p, const char *key, int def, int *out)
{
  json_t *v = json_object_get(obj, key);
  if (!v) {
    *out = def;
    return CDYN_OK;
  }
  if (!json_is_boolean(v)) {
    jpath q = jp_key(p, key);
    return fail(L, &q, "expected true or false, not %s", type_name(v));
  }
  *out = json_is_true(v);
  return CDYN_OK;
}

/* A vector [x, y, z]; absent gives def (NULL: required). */
int f_vec(const ld *L, const json_t *obj, const jpath *p, const char *key, const double *def, double out[3])
{
  json_t *v = json_object_get(obj, key);
  if (!v) {
    if (!def)
      return fail(L, p, "the field '%s' is required", key);
    memcpy(out, def, 3 * sizeof(double));
    return CDYN_OK;
  }
  jpath q = jp_key(p, key);
  if (!json_is_array(v) || json_array_size(v) != 3)
    return fail(L, &q, "expected a vector [x, y, z] of three numbers, not %s%s", type_name(v),
                json_is_array(v) ? " of another length" : "");
  for (size_t d = 0; d < 3; d++) {
    jpath r = jp_idx(&q, d);
    int rc = num_value(L, json_array_get(v, d), &r, &out[d]);
    if (rc)
      return rc;
  }
  return CDYN_OK;
}

/* One of the strings in `names` (NULL-ended): its position. */
int f_enum(const ld *L, const json_t *obj, const jpath *p, const char *key, const char *const *names, int def,
                  int *out)
{
  json_t *v = json_object_get(obj, key);
  if (!v) {
    *out = def;
    return CDYN_OK;
  }
  jpath q = jp_key(p, key);
  char list[256] = "";
  for (int k = 0; names[k]; k++) {
    if (json_is_string(v) && !strcmp(json_string_value(v), names[k])) {
      *out = k;
      return CDYN_OK;
    }
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", k ? ", " : "", names[k]);
  }
  if (!json_is_string(v))
    return fail(L, &q, "expected one of %s, not %s", list, type_name(v));
  near_word nw;
  char hint[100];
  near_init(&nw, json_string_value(v));
  for (int k = 0; names[k]; k++)
    near_try(&nw, names[k]);
  return fail(L, &q, "unknown value \"%.64s\"%s (one of %s)", json_string_value(v), near_hint(&nw, hint, sizeof hint),
              list);
}

/* A particle index. */
int particle(const ld *L, const json_t *v, const jpath *p, size_t *out)
{
  if (!json_is_number(v))
    return fail(L, p, "expected a particle index, not %s", type_name(v));
  double x = json_number_value(v);
  if (x != floor(x) || !isfinite(x))
    return fail(L, p, "a particle index must be an integer, not %.17g", x);
  if (!(x >= 0 && x < (double)L->n))
    return fail(L, p, "particle %.17g is out of range (the scene has %zu particles, 0 .. %zu)", x, L->n, L->n - 1);
  *out = (size_t)x;
  return CDYN_OK;
}

int f_particle(const ld *L, const json_t *obj, const jpath *p, const char *key, size_t *out)
{
  json_t *v = json_object_get(obj, key);
  if (!v)
    return fail(L, p, "the field '%s' is required", key);
  jpath q = jp_key(p, key);
  return particle(L, v, &q, out);
}

/* The same, and the list must be non-empty and its indices distinct. */
int index_set(const ld *L, const json_t *obj, const jpath *p, const char *key, const char *what, size_t limit,
                     int all, size_t except, size_t **out, size_t *count)
{
  int rc = index_list(L, obj, p, key, 1, what, limit, all, except, out, count);
  if (rc)
    return rc;
  jpath q = jp_key(p, key);
  if (*count == 0)
    rc = fail(L, &q, "the list is empty");
  unsigned char *seen = rc ? NULL : calloc(limit ? limit : 1, 1);
  if (!rc && !seen)
    rc = cdyn_error(CDYN_ENOMEM, "%s: out of memory", L->file);
  for (size_t k = 0; !rc && k < *count; k++) {
    if (seen[(*out)[k]]) {
      jpath r = jp_idx(&q, k);
      rc = fail(L, &r, "%s %zu is listed twice", what, (*out)[k]);
    }
    seen[(*out)[k]] = 1;
  }
  free(seen);
  if (rc) {
    free(*out);
    *out = NULL;
  }
  return rc;
}

int index_list(const ld *L, const json_t *obj, const jpath *p, const char *key, int req, const char *what,
                      size_t limit, int all, size_t except, size_t **out, size_t *count)
{
  *out = NULL;
  *count = 0;
  json_t *v = json_object_get(obj, key);
  jpath q = jp_key(p, key);
  if (!v) {
    if (req)
      return fail(L, p, "the field '%s' is required", key);
    *out = malloc(sizeof(size_t));
    return *out ? CDYN_OK : cdyn_error(CDYN_ENOMEM, "%s: out of memory", L->file);
  }
  if (all && json_is_string(v) && !strcmp(json_string_value(v), "all")) {
    size_t n = limit - (except < limit);
    size_t *a = malloc((n ? n : 1) * sizeof *a);
    if (!a)
      return cdyn_error(CDYN_ENOMEM, "%s: out of memory", L->file);
    size_t c = 0;
    for (size_t i = 0; i < limit; i++)
      if (i != except)
        a[c++] = i;
    *out = a;
    *count = c;
    return CDYN_OK;
  }
  if (!json_is_array(v))
    return fail(L, &q, "expected an array of %s indices%s, not %s", what, all ? " or \"all\"" : "", type_name(v));
  size_t n = json_array_size(v);
  size_t *a = malloc((n ? n : 1) * sizeof *a);
  if (!a)
    return cdyn_error(CDYN_ENOMEM, "%s: out of memory", L->file);
  for (size_t k = 0; k < n; k++) {
    jpath r = jp_idx(&q, k);
    json_t *e = json_array_get(v, k);
    double x = json_is_number(e) ? json_number_value(e) : NAN;
    if (!json_is_number(e) || x != floor(x) || !(x >= 0 && x < (double)limit)) {
      free(a);
      if (!json_is_number(e))
        return fail(L, &r, "expected a %s index, not %s", what, type_name(e));
      if (x != floor(x))
        return fail(L, &r, "a %s index must be an integer, not %.17g", what, x);
      return fail(L, &r, "%s %.17g is out of range (there are %zu)", what, x, limit);
    }
    a[k] = (size_t)x;
  }
  *out = a;
  *count = n;
  return CDYN_OK;
}

/* ---- pins ----------------------------------------------------------------------------------- */

int mark_pinned(const ld *L, const jpath *p, size_t i)
{
  if (L->pinned[i])
    return fail(L, p, "particle %zu is pinned twice (a particle takes one pin)", i);
  L->pinned[i] = 1;
  return CDYN_OK;
}

/* Room for `more` constraints within the reader's limit. */
int room(const ld *L, const jpath *p, size_t more)
{
  size_t have = cdyn_system_constraint_count(L->sys);
  if (more > L->maxc || have > L->maxc - more)
    return fail(L, p, "%zu more constraints would pass the %zu this reader allows", more, L->maxc);
  return CDYN_OK;
}

/* ---- hooks' options ----------------------------------------------------------------------------- */

int sl_opts(const ld *L, const json_t *o, const jpath *p, int with_springs, cdyn_strainlimit_opts *so)
{
  static const char *const keys[] = {"springs", "eps_max", "length", "release", "at_current", "hysteresis", "mode", NULL};
  static const char *const modes[] = {"switch", "inequality", NULL};
  int rc = check_object(L, o, p, with_springs ? keys : keys + 1);
  if (rc)
    return rc;
  memset(so, 0, sizeof *so);
  int mode;
  if ((rc = f_enum(L, o, p, "mode", modes, 0, &mode)))
    return rc;
  so->mode = mode == 1 ? CDYN_LIMIT_INEQUALITY : CDYN_LIMIT_SWITCH;
  if ((rc = f_num(L, o, p, "eps_max", REQ | POS, 0, &so->eps_max)) ||
      (rc = f_num(L, o, p, "length", NONNEG, 0, &so->length)) ||
      (rc = f_num(L, o, p, "release", NONNEG, 0, &so->release)) ||
      (rc = f_bool(L, o, p, "at_current", 0, &so->at_current)) ||
      (rc = f_num(L, o, p, "hysteresis", NONNEG, 0, &so->hysteresis)))
    return rc;
  if (so->length != 0 && so->length < 1) {
    jpath q = jp_key(p, "length");
    return fail(L, &q, "%.17g must be 0 (the limit) or >= 1", so->length);
  }
  return CDYN_OK;
}

int pv_opts(const ld *L, const json_t *o, const jpath *p, int with_lists, hook_pv *h)
{
  static const char *const keys[] = {"eps_max", "sweeps", "springs", "fixed", NULL};
  static const char *const gen_keys[] = {"eps_max", "sweeps", NULL};
  int rc = check_object(L, o, p, with_lists ? keys : gen_keys);
  long long sweeps;
  if (rc || (rc = f_num(L, o, p, "eps_max", REQ | POS, 0, &h->eps_max)) ||
      (rc = f_int(L, o, p, "sweeps", 0, 1, 1, 1e6, &sweeps)))
    return rc;
  h->sweeps = (int)sweeps;
  h->path = *p;
  return CDYN_OK;
}

int contacts_opts(const ld *L, const json_t *o, const jpath *p, int with_tris, cdyn_contacts_opts *co)
{
  static const char *const keys[] = {"triangles", "thickness", "mode", "continuous", "capacity", "pairs", "margin",
                                     "sep_speed", "release", "ccd_tol", "max_redo", "stack", "failsafe", "failsafe_iter", "skin", "merge", NULL};
  static const char *const modes[] = {"inequality", "switch", NULL};
  int rc = check_object(L, o, p, with_tris ? keys : keys + 1);
  if (rc)
    return rc;
  cdyn_contacts_opts_default(co);
  int mode, cont, fsafe, stack;
  long long cap, pairs, redo, fs_iter;
  if ((rc = f_num(L, o, p, "thickness", POS, co->thickness, &co->thickness)) ||
      (rc = f_enum(L, o, p, "mode", modes, 0, &mode)) || (rc = f_bool(L, o, p, "continuous", co->continuous, &cont)) ||
      (rc = f_int(L, o, p, "capacity", 0, (long long)co->capacity, 1, (double)L->max_contacts, &cap)) ||
      (rc = f_int(L, o, p, "pairs", 0, (long long)co->pairs, 1, (double)L->max_pairs, &pairs)) ||
      (rc = f_num(L, o, p, "margin", NONNEG, co->margin, &co->margin)) ||
      (rc = f_num(L, o, p, "sep_speed", NONNEG, co->sep_speed, &co->sep_speed)) ||
      (rc = f_num(L, o, p, "release", NONNEG, co->release, &co->release)) ||
      (rc = f_num(L, o, p, "ccd_tol", POS, co->ccd_tol, &co->ccd_tol)) ||
      (rc = f_int(L, o, p, "max_redo", 0, co->max_redo, 0, 64, &redo)) ||
      (rc = f_bool(L, o, p, "stack", co->stack, &stack)) || (rc = f_bool(L, o, p, "failsafe", co->failsafe, &fsafe)) ||
      (rc = f_int(L, o, p, "failsafe_iter", 0, co->failsafe_iter, 1, 10000, &fs_iter)) ||
      (rc = f_num(L, o, p, "skin", NONNEG, co->skin, &co->skin)) ||
      (rc = f_num(L, o, p, "merge", NONNEG, co->merge, &co->merge)))
    return rc;
  if (co->merge > 180) {
    jpath q = jp_key(p, "merge");
    return fail(L, &q, "%.17g must be an angle in [0, 180] degrees", co->merge);
  }
  if (co->ccd_tol > 0.5) {
    jpath q = jp_key(p, "ccd_tol");
    return fail(L, &q, "%.17g must be in (0, 0.5]", co->ccd_tol);
  }
  if ((size_t)cap > L->max_contacts || (size_t)pairs > L->max_pairs)
    return fail(L, p, "the contacts' capacity %lld and pairs %lld pass this reader's limits (%zu, %zu): give smaller ones",
                cap, pairs, L->max_contacts, L->max_pairs);
  co->mode = mode == 1 ? CDYN_CONTACTS_SWITCH : CDYN_CONTACTS_INEQUALITY;
  co->continuous = cont;
  co->capacity = (size_t)cap;
  co->pairs = (size_t)pairs;
  co->max_redo = (unsigned)redo;
  co->stack = stack;
  if (co->merge > 0 && !(mode == 1 && stack)) {
    jpath q = jp_key(p, "merge");
    return fail(L, &q, "merges stacked contacts: it needs \"mode\": \"switch\" and \"stack\": true");
  }
  co->failsafe = fsafe;
  co->failsafe_iter = (unsigned)fs_iter;
  return CDYN_OK;
}

int particle_list(ld *L, const json_t *arr, const jpath *base, size_t first)
{
  static const char *const keys[] = {"x", "v", "m", NULL};
  for (size_t i = 0; i < json_array_size(arr); i++) {
    jpath p = jp_idx(base, i);
    json_t *e = json_array_get(arr, i);
    double x[3], v[3], m;
    int rc = check_object(L, e, &p, keys);
    if (rc || (rc = f_vec(L, e, &p, "x", NULL, x)) || (rc = f_vec(L, e, &p, "v", zero3, v)) ||
        (rc = f_num(L, e, &p, "m", POS, 1, &m)))
      return rc;
    if ((rc = cdyn_system_set_mass(L->sys, first + i, m)) || (rc = cdyn_system_set_position(L->sys, first + i, x)) ||
        (rc = cdyn_system_set_velocity(L->sys, first + i, v)))
      return wrap(L, &p, rc);
  }
  return CDYN_OK;
}
