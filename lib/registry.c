/*
 * registry.c: the tables of constraint types, linear solvers, integrators
 * and schemes.  Each table is generated from its .def file, so adding a
 * type is one new file plus one line there.  Schemes can also be
 * registered at run time (cdyn_scheme_register); they follow the built-in
 * ones in the scheme indices.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cdyn_internal.h"

/* Each constraint type is an object, with a public pointer to it. */
#define CDYN_CONSTRAINT(id, file)                                                   \
  extern const cdyn_constraint_type cdyn_ctype_##id;                          \
  const cdyn_constraint_type *const cdyn_constraint_##id = &cdyn_ctype_##id;
#include "constraints/constraints.def"
#undef CDYN_CONSTRAINT

const cdyn_constraint_type *const cdyn_constraint_types[] = {
#define CDYN_CONSTRAINT(id, file) &cdyn_ctype_##id,
#include "constraints/constraints.def"
#undef CDYN_CONSTRAINT
  NULL};

#define CDYN_SOLVER(id, file) extern const cdyn_solver_type cdyn_solver_##id;
#include "solvers/solvers.def"
#undef CDYN_SOLVER
#define CDYN_INTEGRATOR(id, file) extern const cdyn_integrator_type cdyn_integrator_##id;
#include "integrators/integrators.def"
#undef CDYN_INTEGRATOR
#define CDYN_SCHEME(id, file) extern const cdyn_scheme_type cdyn_scheme_##id;
#include "schemes/schemes.def"
#undef CDYN_SCHEME

const cdyn_solver_type *const cdyn_solver_types[] = {
#define CDYN_SOLVER(id, file) &cdyn_solver_##id,
#include "solvers/solvers.def"
#undef CDYN_SOLVER
  NULL};

const cdyn_integrator_type *const cdyn_integrator_types[] = {
#define CDYN_INTEGRATOR(id, file) &cdyn_integrator_##id,
#include "integrators/integrators.def"
#undef CDYN_INTEGRATOR
  NULL};

const cdyn_scheme_type *const cdyn_scheme_types[] = {
#define CDYN_SCHEME(id, file) &cdyn_scheme_##id,
#include "schemes/schemes.def"
#undef CDYN_SCHEME
  NULL};

int cdyn_constraint_type_find(const char *name, const cdyn_constraint_type **type)
{
  if (!name || !type)
    return cdyn_error(CDYN_EINVAL, "cdyn_constraint_type_find: NULL argument");
  for (size_t k = 0; cdyn_constraint_types[k]; k++)
    if (strcmp(cdyn_constraint_types[k]->name, name) == 0) {
      *type = cdyn_constraint_types[k];
      return CDYN_OK;
    }
  return cdyn_error(CDYN_EUNKNOWN, "unknown constraint type '%s'", name);
}

int cdyn_solver_type_find(const char *name, const cdyn_solver_type **type)
{
  if (!name || !type)
    return cdyn_error(CDYN_EINVAL, "cdyn_solver_type_find: NULL argument");
  for (size_t k = 0; cdyn_solver_types[k]; k++)
    if (strcmp(cdyn_solver_types[k]->name, name) == 0) {
      *type = cdyn_solver_types[k];
      return CDYN_OK;
    }
  return cdyn_error(CDYN_EUNKNOWN, "unknown linear solver '%s'", name);
}

int cdyn_integrator_type_find(const char *name, const cdyn_integrator_type **type)
{
  if (!name || !type)
    return cdyn_error(CDYN_EINVAL, "cdyn_integrator_type_find: NULL argument");
  for (size_t k = 0; cdyn_integrator_types[k]; k++)
    if (strcmp(cdyn_integrator_types[k]->name, name) == 0) {
      *type = cdyn_integrator_types[k];
      return CDYN_OK;
    }
  return cdyn_error(CDYN_EUNKNOWN, "unknown integrator '%s'", name);
}

static size_t count(const void *const *table)
{
  size_t k = 0;
  while (table[k])
    k++;
  return k;
}

/* Schemes registered at run time. */
#define MAX_REGISTERED 64
static const cdyn_scheme_type *registered[MAX_REGISTERED];
static size_t nregistered;

size_t cdyn_scheme_count(void) { return count((const void *const *)cdyn_scheme_types) + nregistered; }
size_t cdyn_integrator_count(void) { return count((const void *const *)cdyn_integrator_types); }
size_t cdyn_solver_count(void) { return count((const void *const *)cdyn_solver_types); }

const cdyn_scheme_type *cdyn_scheme_at(size_t i)
{
  size_t nb = count((const void *const *)cdyn_scheme_types);
  if (i < nb)
    return cdyn_scheme_types[i];
  return i - nb < nregistered ? registered[i - nb] : NULL;
}

const char *cdyn_scheme_name(size_t i) { return cdyn_scheme_at(i) ? cdyn_scheme_at(i)->name : NULL; }
const char *cdyn_scheme_description(size_t i)
{
  return cdyn_scheme_at(i) ? cdyn_scheme_at(i)->description : NULL;
}
const char *cdyn_scheme_source(size_t i) { return cdyn_scheme_at(i) ? cdyn_scheme_at(i)->source : NULL; }

#define ACCESSOR(fn, table, field)                                            \
  const char *fn(size_t i) { return i < count((const void *const *)table) ? table[i]->field : NULL; }
ACCESSOR(cdyn_integrator_name, cdyn_integrator_types, name)
ACCESSOR(cdyn_integrator_description, cdyn_integrator_types, description)
ACCESSOR(cdyn_solver_name, cdyn_solver_types, name)
ACCESSOR(cdyn_solver_description, cdyn_solver_types, description)

int cdyn_scheme_inequalities(size_t i) { return cdyn_scheme_at(i) ? cdyn_scheme_at(i)->inequalities != 0 : 0; }
int cdyn_scheme_pins_only(size_t i) { return cdyn_scheme_at(i) ? cdyn_scheme_at(i)->pins_only != 0 : 0; }

double cdyn_scheme_order(size_t i) { return cdyn_scheme_at(i) ? cdyn_scheme_at(i)->order : 0.0; }

double cdyn_scheme_order_constant_force(size_t i)
{
  const cdyn_scheme_type *t = cdyn_scheme_at(i);
  if (!t)
    return 0.0;
  return t->order_constant_force > 0 ? t->order_constant_force : t->order;
}

double cdyn_scheme_velocity_order(size_t i)
{
  const cdyn_scheme_type *t = cdyn_scheme_at(i);
  if (!t)
    return 0.0;
  return t->velocity_order != 0 ? t->velocity_order : t->order;
}

double cdyn_scheme_velocity_order_constant_force(size_t i)
{
  const cdyn_scheme_type *t = cdyn_scheme_at(i);
  if (!t)
    return 0.0;
  return t->velocity_order != 0 ? t->velocity_order : cdyn_scheme_order_constant_force(i);
}

double cdyn_scheme_lambda_order(size_t i) { return cdyn_scheme_at(i) ? cdyn_scheme_at(i)->lambda_order : 0.0; }
int cdyn_scheme_lambda_time(size_t i) { return cdyn_scheme_at(i) ? (int)cdyn_scheme_at(i)->lambda_time : -1; }
const char *cdyn_scheme_lambda_note(size_t i) { return cdyn_scheme_at(i) ? cdyn_scheme_at(i)->lambda_note : NULL; }

static int scheme_index(const char *name, size_t *index)
{
  for (size_t k = 0; k < cdyn_scheme_count(); k++)
    if (strcmp(cdyn_scheme_at(k)->name, name) == 0) {
      *index = k;
      return 1;
    }
  return 0;
}

int cdyn_scheme_find(const char *name, size_t *index)
{
  if (!name || !index)
    return cdyn_error(CDYN_EINVAL, "cdyn_scheme_find: NULL argument");
  if (scheme_index(name, index))
    return CDYN_OK;
  return cdyn_error(CDYN_EUNKNOWN, "unknown scheme '%s' (cdyn list shows the schemes)", name);
}

/* The names every stepper has besides its scheme's options. */
static int stepper_option_name(const char *name)
{
  if (!strcmp(name, "solver") || !strcmp(name, "rank_tol") || !strcmp(name, "max_error"))
    return 1;
  for (size_t k = 0; cdyn_solver_types[k]; k++)
    for (size_t i = 0; i < cdyn_option_count(cdyn_solver_types[k]->options); i++)
      if (!strcmp(cdyn_solver_types[k]->options[i].name, name))
        return 1;
  return 0;
}

/* Size of the field an option kind writes. */
static size_t option_field_size(enum cdyn_option_kind kind)
{
  switch (kind) {
  case CDYN_OPT_DOUBLE:
    return sizeof(double);
  case CDYN_OPT_INT:
    return sizeof(long);
  case CDYN_OPT_BOOL:
  case CDYN_OPT_CHOICE:
    return sizeof(int);
  case CDYN_OPT_INTEGRATOR:
    return sizeof(const cdyn_integrator_type *);
  }
  return 0;
}

/* Check a scheme's option table; parse every default into a scratch struct. */
static int check_options(const cdyn_scheme_type *t)
{
  size_t no = cdyn_option_count(t->options);
  if (no && !t->options_size)
    return cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: '%s' has options but options_size = 0", t->name);
  if (t->options_size > 65536)
    return cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: '%s': options_size = %zu is implausibly large",
                      t->name, t->options_size);
  void *scratch = calloc(1, t->options_size ? t->options_size : 1);
  if (!scratch)
    return cdyn_error(CDYN_ENOMEM, "cdyn_scheme_register: out of memory");
  int rc = CDYN_OK;
  for (size_t i = 0; i < no && rc == CDYN_OK; i++) {
    const cdyn_option *o = &t->options[i];
    size_t fs = option_field_size(o->kind);
    if (!fs)
      rc = cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: '%s': option %s has an unknown kind", t->name,
                      o->name);
    else if (o->offset > t->options_size || fs > t->options_size - o->offset)
      rc = cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: '%s': option %s lies outside options_size = %zu",
                      t->name, o->name, t->options_size);
    else if (stepper_option_name(o->name))
      rc = cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: '%s': option %s clashes with a stepper option",
                      t->name, o->name);
    else if (o->kind == CDYN_OPT_CHOICE && !o->choices)
      rc = cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: '%s': choice option %s has no choices", t->name,
                      o->name);
    else if (!o->def)
      rc = cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: '%s': option %s has no default", t->name, o->name);
    for (size_t j = 0; j < i && rc == CDYN_OK; j++)
      if (!strcmp(t->options[j].name, o->name))
        rc = cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: '%s': option %s appears twice", t->name, o->name);
    if (rc == CDYN_OK && (rc = cdyn_option_parse(o, scratch, o->def)) != CDYN_OK)
      rc = cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: '%s': the default of option %s does not parse: %s",
                      t->name, o->name, cdyn_errmsg());
  }
  free(scratch);
  return rc;
}

int cdyn_scheme_register(const cdyn_scheme_type *t)
{
  if (!t)
    return cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: type is NULL");
  if (!t->name || !*t->name)
    return cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: the scheme has no name");
  for (const char *c = t->name; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
          *c == '_' || *c == '.'))
      return cdyn_error(CDYN_EINVAL,
                        "cdyn_scheme_register: name '%s': use letters, digits, '-', '_' and '.' only", t->name);
  size_t idx;
  if (scheme_index(t->name, &idx))
    return cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: a scheme named '%s' exists already", t->name);
  if (!t->step)
    return cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: '%s' has no step", t->name);
  if (!t->alloc != !t->free)
    return cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: '%s' must have both alloc and free, or neither",
                      t->name);
  if (!t->description || !t->source)
    return cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: '%s' needs a description and a source", t->name);
  if (!isfinite(t->order) || t->order < 0 || !isfinite(t->order_constant_force) || t->order_constant_force < 0)
    return cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: '%s': orders must be finite and >= 0", t->name);
  if (!isfinite(t->velocity_order) || (t->velocity_order < 0 && t->velocity_order != CDYN_ORDER_NONE) ||
      !isfinite(t->lambda_order) || t->lambda_order < 0)
    return cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: '%s': velocity orders must be finite and >= 0 (or CDYN_ORDER_NONE), multiplier orders finite and >= 0",
                      t->name);
  if (t->lambda_time != CDYN_LAMBDA_START && t->lambda_time != CDYN_LAMBDA_MID && t->lambda_time != CDYN_LAMBDA_END)
    return cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: '%s': lambda_time %d is not a cdyn_lambda_time", t->name,
                      (int)t->lambda_time);
  if (t->lambda_note && t->lambda_order > 0)
    return cdyn_error(CDYN_EINVAL,
                      "cdyn_scheme_register: '%s': a multiplier with a lambda_note is not the constraint force, "
                      "so it cannot declare a lambda_order",
                      t->name);
  if (t->lambda_note && !t->lambda_note[0])
    return cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: '%s': lambda_note is empty", t->name);
  int rc = check_options(t);
  if (rc)
    return rc;
  if (nregistered == MAX_REGISTERED)
    return cdyn_error(CDYN_ENOMEM, "cdyn_scheme_register: the table of %d registered schemes is full",
                      MAX_REGISTERED);
  registered[nregistered++] = t;
  return CDYN_OK;
}
