/*
 * generate.c: the generators of the scene format (doc/scene-format.md,
 * "generators"): a chain of particles joined by links or springs, a
 * rectangular grid of them, the cloth patch of cdyn_cloth_new with its
 * optional strain limiter, Provot's correction and contact handler (and
 * its topology, kept for the scene: cdyn_scene_patch), and explicit
 * particles at their place in the generators' order.
 * Each writes its particles from index `first` on, and its springs and
 * constraints in the order the format fixes; the hooks are gathered
 * (scene/load.h), to be added after the explicit lists.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scene/load.h"

const char *const gen_types[] = {"chain", "cloth", "grid", "particles", NULL};

/* ---- generators --------------------------------------------------------------------------------- */


/* The number of particles generator g makes (checking the fields that
   decide it). */
int gen_count(const ld *L, const json_t *g, const jpath *p, double *count)
{
  if (!json_is_object(g))
    return fail(L, p, "expected a generator object, not %s", type_name(g));
  json_t *t = json_object_get(g, "type");
  int type;
  if (!t)
    return fail(L, p, "the field 'type' is required (\"chain\", \"cloth\", \"grid\" or \"particles\")");
  int rc = f_enum(L, g, p, "type", gen_types, 0, &type);
  if (rc)
    return rc;
  long long a, b;
  if (type == 0) {
    if ((rc = f_int(L, g, p, "count", 1, 0, 2, MAX_GENERATED, &a)))
      return rc;
    *count = (double)a;
  } else if (type == 1) {
    if ((rc = f_int(L, g, p, "nx", 1, 0, 2, MAX_GENERATED, &a)) || (rc = f_int(L, g, p, "ny", 1, 0, 2, MAX_GENERATED, &b)))
      return rc;
    *count = (double)a * (double)b;
  } else if (type == 3) {
    json_t *list = json_object_get(g, "particles");
    jpath q = jp_key(p, "particles");
    if (!list)
      return fail(L, p, "the field 'particles' is required");
    if (!json_is_array(list) || json_array_size(list) == 0)
      return fail(L, &q, "expected a non-empty array of particles");
    *count = (double)json_array_size(list);
  } else {
    json_t *n = json_object_get(g, "n");
    jpath q = jp_key(p, "n");
    if (!n)
      return fail(L, p, "the field 'n' is required");
    if (!json_is_array(n) || json_array_size(n) != 3)
      return fail(L, &q, "expected three particle counts [nx, ny, nz]");
    double prod = 1;
    for (size_t d = 0; d < 3; d++) {
      jpath r = jp_idx(&q, d);
      long long c;
      if ((rc = int_value(L, json_array_get(n, d), &r, 1, MAX_GENERATED, &c)))
        return rc;
      prod *= (double)c;
    }
    if (prod < 2)
      return fail(L, &q, "a grid needs at least 2 particles");
    *count = prod;
  }
  if (*count > MAX_GENERATED)
    return fail(L, p, "%.0f particles: a generator makes at most %.0f", *count, MAX_GENERATED);
  return CDYN_OK;
}

/* Joints between particles a and b: a link at their distance, or a spring. */
static int joint(const ld *L, const jpath *p, int springs, double k, double c, size_t a, size_t b)
{
  const double *q = cdyn_system_positions(L->sys);
  double d = dist(q + 3 * a, q + 3 * b);
  int rc = springs ? cdyn_system_add_spring(L->sys, a, b, k, c, d, NULL) : cdyn_system_add_distance(L->sys, a, b, d, NULL);
  return rc ? wrap(L, p, rc) : CDYN_OK;
}

static const char *const joint_kinds[] = {"links", "springs", NULL};

static int gen_joint_opts(const ld *L, const json_t *g, const jpath *p, int def, int *springs, double *k, double *c)
{
  int rc = f_enum(L, g, p, "joints", joint_kinds, def, springs);
  if (rc || (rc = f_num(L, g, p, "k", (*springs ? REQ : 0) | NONNEG, 0, k)) ||
      (rc = f_num(L, g, p, "c", NONNEG, 0, c)))
    return rc;
  if (!*springs && (json_object_get(g, "k") || json_object_get(g, "c")))
    return fail(L, p, "k and c belong to joints \"springs\"; these joints are links");
  return CDYN_OK;
}

int gen_chain(ld *L, const json_t *g, const jpath *p, size_t first, size_t count)
{
  static const char *const keys[] = {"type", "count", "start", "step", "mass", "velocity", "pin_first", "joints", "k", "c", NULL};
  double start[3], step[3], vel[3], mass, k, c;
  int pin, springs;
  int rc = check_object(L, g, p, keys);
  if (rc || (rc = f_vec(L, g, p, "start", zero3, start)) || (rc = f_vec(L, g, p, "step", NULL, step)) ||
      (rc = f_num(L, g, p, "mass", POS, 1, &mass)) || (rc = f_vec(L, g, p, "velocity", zero3, vel)) ||
      (rc = f_bool(L, g, p, "pin_first", 1, &pin)) || (rc = gen_joint_opts(L, g, p, 0, &springs, &k, &c)))
    return rc;
  if (step[0] == 0 && step[1] == 0 && step[2] == 0) {
    jpath q = jp_key(p, "step");
    return fail(L, &q, "the step between particles must not be zero");
  }
  for (size_t i = 0; i < count; i++) {
    double x[3];
    for (int d = 0; d < 3; d++)
      x[d] = start[d] + (double)i * step[d];
    if ((rc = cdyn_system_set_mass(L->sys, first + i, mass)) || (rc = cdyn_system_set_position(L->sys, first + i, x)) ||
        (rc = cdyn_system_set_velocity(L->sys, first + i, vel)))
      return wrap(L, p, rc);
  }
  if (!springs && (rc = room(L, p, count)))
    return rc;
  for (size_t i = 0; i + 1 < count; i++)
    if ((rc = joint(L, p, springs, k, c, first + i, first + i + 1)))
      return rc;
  if (pin) {
    if ((rc = mark_pinned(L, p, first)))
      return rc;
    if ((rc = cdyn_system_add_pin(L->sys, first, start, NULL)))
      return wrap(L, p, rc);
  }
  return CDYN_OK;
}

int gen_grid(ld *L, const json_t *g, const jpath *p, size_t first)
{
  static const char *const keys[] = {"type", "n", "origin", "spacing", "mass", "joints", "k", "c", NULL};
  double origin[3], s[3], mass, k, c;
  int springs;
  int rc = check_object(L, g, p, keys);
  if (rc || (rc = f_vec(L, g, p, "origin", zero3, origin)) || (rc = f_vec(L, g, p, "spacing", NULL, s)) ||
      (rc = f_num(L, g, p, "mass", POS, 1, &mass)) || (rc = gen_joint_opts(L, g, p, 1, &springs, &k, &c)))
    return rc;
  for (int d = 0; d < 3; d++)
    if (!(s[d] > 0)) {
      jpath q = jp_key(p, "spacing");
      return fail(L, &q, "every spacing must be > 0");
    }
  json_t *nv = json_object_get(g, "n");
  size_t n[3];
  for (size_t d = 0; d < 3; d++)
    n[d] = (size_t)json_number_value(json_array_get(nv, d));
  for (size_t cc = 0; cc < n[2]; cc++)
    for (size_t b = 0; b < n[1]; b++)
      for (size_t a = 0; a < n[0]; a++) {
        size_t i = first + (cc * n[1] + b) * n[0] + a;
        double x[3] = {origin[0] + (double)a * s[0], origin[1] + (double)b * s[1], origin[2] + (double)cc * s[2]};
        if ((rc = cdyn_system_set_mass(L->sys, i, mass)) || (rc = cdyn_system_set_position(L->sys, i, x)))
          return wrap(L, p, rc);
      }
  if (!springs && (rc = room(L, p, 3 * n[0] * n[1] * n[2])))
    return rc;
  for (size_t cc = 0; cc < n[2]; cc++)
    for (size_t b = 0; b < n[1]; b++)
      for (size_t a = 0; a < n[0]; a++) {
        size_t i = first + (cc * n[1] + b) * n[0] + a;
        if ((a + 1 < n[0] && (rc = joint(L, p, springs, k, c, i, i + 1))) ||
            (b + 1 < n[1] && (rc = joint(L, p, springs, k, c, i, i + n[0]))) ||
            (cc + 1 < n[2] && (rc = joint(L, p, springs, k, c, i, i + n[0] * n[1]))))
          return rc;
      }
  return CDYN_OK;
}

/* Keep the patch's topology for the scene (cdyn_scene_patch), its
   indices those of the scene's system. */
static int add_patch(ld *L, const cdyn_cloth *cl, const cdyn_cloth_spec *cs, size_t first, size_t spring0)
{
  cdyn_scene_patch *v = realloc(L->patches, (L->npatches + 1) * sizeof *v);
  if (!v)
    return cdyn_error(CDYN_ENOMEM, "%s: out of memory", L->file);
  L->patches = v;
  cdyn_scene_patch *pt = &v[L->npatches];
  memset(pt, 0, sizeof *pt);
  pt->first = first, pt->nx = cs->nx, pt->ny = cs->ny;
  for (int k = 0; k < CDYN_SPRING_KINDS; k++) {
    cdyn_cloth_springs(cl, (enum cdyn_spring_kind)k, &pt->spring_first[k], &pt->spring_count[k]);
    pt->spring_first[k] += spring0;
  }
  const size_t *tri;
  size_t nt;
  cdyn_cloth_triangles(cl, &tri, &nt);
  size_t *copy = malloc((nt ? 3 * nt : 1) * sizeof *copy);
  if (!copy)
    return cdyn_error(CDYN_ENOMEM, "%s: out of memory", L->file);
  for (size_t k = 0; k < 3 * nt; k++)
    copy[k] = first + tri[k];
  pt->tri = copy;
  pt->ntri = nt;
  L->npatches++;
  return CDYN_OK;
}

int gen_cloth(ld *L, const json_t *g, const jpath *p, size_t first)
{
  static const char *const keys[] = {"type", "nx", "ny", "origin", "u", "v", "mass", "k_struct", "k_shear", "k_bend",
                                     "damping", "pins", "strain_limit", "provot", "contacts", NULL};
  cdyn_cloth_spec cs;
  memset(&cs, 0, sizeof cs);
  cs.nx = (size_t)json_number_value(json_object_get(g, "nx"));
  cs.ny = (size_t)json_number_value(json_object_get(g, "ny"));
  int rc = check_object(L, g, p, keys);
  if (rc || (rc = f_vec(L, g, p, "origin", zero3, cs.origin)) || (rc = f_vec(L, g, p, "u", NULL, cs.u)) ||
      (rc = f_vec(L, g, p, "v", NULL, cs.v)) || (rc = f_num(L, g, p, "mass", REQ | POS, 0, &cs.mass)) ||
      (rc = f_num(L, g, p, "k_struct", REQ | NONNEG, 0, &cs.k_struct)) ||
      (rc = f_num(L, g, p, "k_shear", REQ | NONNEG, 0, &cs.k_shear)) ||
      (rc = f_num(L, g, p, "k_bend", REQ | NONNEG, 0, &cs.k_bend)) ||
      (rc = f_num(L, g, p, "damping", NONNEG, 0, &cs.damping)))
    return rc;
  size_t nodes = cs.nx * cs.ny, *pins = NULL, npins = 0;
  if ((rc = index_list(L, g, p, "pins", 0, "node", nodes, 0, SIZE_MAX, &pins, &npins)))
    return rc;
  cs.pins = pins;
  cs.npins = npins;
  cdyn_cloth *cl = NULL;
  cdyn_system *tmp = NULL;
  if ((rc = cdyn_cloth_new(&cl, &tmp, &cs))) {
    free(pins);
    return wrap(L, p, rc);
  }
  /* Copy the patch into the scene's system, its indices shifted. */
  size_t spring0 = cdyn_system_spring_count(L->sys);
  for (size_t i = 0; i < nodes && !rc; i++) {
    double m, x[3], v[3];
    cdyn_system_get_particle(tmp, i, &m, x, v);
    if ((rc = cdyn_system_set_mass(L->sys, first + i, m)) || (rc = cdyn_system_set_position(L->sys, first + i, x)) ||
        (rc = cdyn_system_set_velocity(L->sys, first + i, v)))
      rc = wrap(L, p, rc);
  }
  for (size_t k = 0; k < cdyn_system_spring_count(tmp) && !rc; k++) {
    size_t i, j;
    double ks, c, rest;
    cdyn_system_get_spring(tmp, k, &i, &j, &ks, &c, &rest);
    if ((rc = cdyn_system_add_spring(L->sys, first + i, first + j, ks, c, rest, NULL)))
      rc = wrap(L, p, rc);
  }
  for (size_t c = 0; c < cdyn_system_constraint_count(tmp) && !rc; c++) {
    const cdyn_constraint_type *type;
    size_t parts[CDYN_MAX_PARTICLES];
    double params[CDYN_MAX_PARAMS];
    if (cdyn_system_get_constraint(tmp, c, &type, parts, params))
      continue;
    for (unsigned k = 0; k < type->nparticles; k++)
      parts[k] += first;
    if (type == cdyn_constraint_pin && (rc = mark_pinned(L, p, parts[0])))
      break;
    if ((rc = cdyn_system_add_constraint(L->sys, type, parts, params, NULL)))
      rc = wrap(L, p, rc);
  }
  size_t sfirst = 0, scount = 0;
  if (!rc)
    cdyn_cloth_springs(cl, CDYN_SPRING_STRUCT, &sfirst, &scount);
  if (!rc)
    rc = add_patch(L, cl, &cs, first, spring0);
  json_t *o;
  if (!rc && (o = json_object_get(g, "strain_limit"))) {
    jpath q = jp_key(p, "strain_limit");
    hook_sl *h = &L->sl[0][L->nsl[0] < 64 ? L->nsl[0] : 0];
    if (L->nsl[0] >= 64)
      rc = fail(L, &q, "more than 64 strain limiters (a scene has at most 64)");
    else if (!(rc = sl_opts(L, o, &q, 0, &h->o)) && !(h->springs = malloc((scount ? scount : 1) * sizeof(size_t))))
      rc = cdyn_error(CDYN_ENOMEM, "%s: out of memory", L->file);
    if (!rc) {
      for (size_t k = 0; k < scount; k++)
        h->springs[k] = spring0 + sfirst + k;
      h->count = scount;
      h->path = q;
      L->nsl[0]++;
    }
  }
  if (!rc && (o = json_object_get(g, "provot"))) {
    jpath q = jp_key(p, "provot");
    hook_pv *h = L->npv[0] < 64 ? &L->pv[0][L->npv[0]] : NULL;
    if (!h)
      rc = fail(L, &q, "more than 64 Provot limiters (a scene has at most 64)");
    else if (memset(h, 0, sizeof *h), !(rc = pv_opts(L, o, &q, 0, h)) &&
             (!(h->springs = malloc((scount ? scount : 1) * sizeof(size_t))) ||
              !(h->fixed = malloc((npins ? npins : 1) * sizeof(size_t)))))
      rc = cdyn_error(CDYN_ENOMEM, "%s: out of memory", L->file);
    if (!rc) {
      for (size_t k = 0; k < scount; k++)
        h->springs[k] = spring0 + sfirst + k;
      for (size_t k = 0; k < npins; k++)
        h->fixed[k] = first + pins[k];
      h->count = scount;
      h->nfixed = npins;
      L->npv[0]++;
    } else if (h) {
      free(h->springs);
      free(h->fixed);
    }
  }
  if (!rc && (o = json_object_get(g, "contacts"))) {
    jpath q = jp_key(p, "contacts");
    const size_t *tri;
    size_t nt;
    cdyn_contacts_opts co;
    if (L->gen_contacts)
      rc = fail(L, &q, "a second contact handler (a scene has at most one)");
    else if (!(rc = contacts_opts(L, o, &q, 0, &co))) {
      cdyn_cloth_triangles(cl, &tri, &nt);
      if (!(L->gen_tris = malloc(3 * nt * sizeof(size_t))))
        rc = cdyn_error(CDYN_ENOMEM, "%s: out of memory", L->file);
      else {
        for (size_t k = 0; k < 3 * nt; k++)
          L->gen_tris[k] = first + tri[k];
        L->gen_ntris = nt;
        L->gen_contacts = o;
        L->gen_contacts_path = q;
      }
    }
  }
  free(pins);
  cdyn_cloth_free(cl);
  cdyn_system_free(tmp);
  return rc;
}

/* Explicit particles where the generators' order puts them (after the
   particles of the generators before it): the top-level "particles" list
   comes before every generator, so a particle that must follow one (a
   ball after its cloth) is given here. */
int gen_particles(ld *L, const json_t *g, const jpath *p, size_t first)
{
  static const char *const keys[] = {"type", "particles", NULL};
  int rc = check_object(L, g, p, keys);
  if (rc)
    return rc;
  jpath q = jp_key(p, "particles");
  return particle_list(L, json_object_get(g, "particles"), &q, first);
}
