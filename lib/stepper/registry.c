/*
 * registry.c: the schemes a program can choose by name: the built-in ones
 * (lib/schemes/table.c) followed, in the indices, by those registered at
 * run time (cdyn_scheme_register); and the registration of schemes and
 * linear solvers (cdyn_solver_register; the list of solver types and
 * their lookup by name are lib/solvers/lookup.c's), which checks a type
 * first: a valid name not taken, the operations a type needs, and an
 * option table whose defaults parse and whose names do not clash with the
 * options every stepper has (nor, for a solver, with a scheme's).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stepper/internal.h"

/* Schemes registered at run time. */
#define MAX_REGISTERED 64
static const cdyn_scheme_type *registered[MAX_REGISTERED];
static size_t nregistered;

static size_t builtin_schemes(void) { return cdyn_table_count((const void *const *)cdyn_builtin_schemes); }

size_t cdyn_scheme_count(void) { return builtin_schemes() + nregistered; }

const cdyn_scheme_type *cdyn_scheme_at(size_t i)
{
  size_t nb = builtin_schemes();
  if (i < nb)
    return cdyn_builtin_schemes[i];
  return i - nb < nregistered ? registered[i - nb] : NULL;
}

const char *cdyn_scheme_name(size_t i) { return cdyn_scheme_at(i) ? cdyn_scheme_at(i)->name : NULL; }
const char *cdyn_scheme_description(size_t i)
{
  return cdyn_scheme_at(i) ? cdyn_scheme_at(i)->description : NULL;
}
const char *cdyn_scheme_source(size_t i) { return cdyn_scheme_at(i) ? cdyn_scheme_at(i)->source : NULL; }

int cdyn_scheme_inequalities(size_t i) { return cdyn_scheme_at(i) ? cdyn_scheme_at(i)->inequalities != 0 : 0; }
int cdyn_scheme_implicit_springs(size_t i)
{
  return cdyn_scheme_at(i) ? cdyn_scheme_at(i)->implicit_springs != 0 : 0;
}

int cdyn_scheme_pins_only(size_t i) { return cdyn_scheme_at(i) ? cdyn_scheme_at(i)->pins_only != 0 : 0; }
int cdyn_scheme_solver_fits(size_t i, size_t j)
{
  const cdyn_scheme_type *t = cdyn_scheme_at(i);
  const cdyn_solver_type *s = cdyn_solver_type_at(j);
  return t && s && (!t->indefinite || s->indefinite);
}

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

int cdyn_solver_option_name(const char *name, size_t nsolvers)
{
  for (size_t k = 0; k < nsolvers && k < cdyn_solver_count(); k++) {
    const cdyn_solver_type *t = cdyn_solver_type_at(k);
    for (size_t i = 0; i < cdyn_option_count(t->options); i++)
      if (!strcmp(t->options[i].name, name))
        return 1;
  }
  return 0;
}

int cdyn_scheme_option_name(const char *name)
{
  for (size_t k = 0; k < cdyn_scheme_count(); k++) {
    const cdyn_scheme_type *t = cdyn_scheme_at(k);
    for (size_t i = 0; i < cdyn_option_count(t->options); i++)
      if (!strcmp(t->options[i].name, name))
        return 1;
  }
  return 0;
}

/* The names every stepper has besides its scheme's options. */
static int stepper_option_name(const char *name)
{
  return !strcmp(name, "solver") || !strcmp(name, "rank_tol") || !strcmp(name, "max_error") ||
         cdyn_solver_option_name(name, cdyn_solver_count());
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

/*
 * Check a type's option table (`who` registers type `name`): every kind
 * known, every field within options_size, no name twice or clashing
 * (clash), every default given and parsing into a scratch struct.
 */
static int check_options(const char *who, const char *name, const cdyn_option *options, size_t options_size,
                         int (*clash)(const char *))
{
  size_t no = cdyn_option_count(options);
  if (no && !options_size)
    return cdyn_error(CDYN_EINVAL, "%s: '%s' has options but options_size = 0", who, name);
  if (options_size > 65536)
    return cdyn_error(CDYN_EINVAL, "%s: '%s': options_size = %zu is implausibly large", who, name, options_size);
  void *scratch = calloc(1, options_size ? options_size : 1);
  if (!scratch)
    return cdyn_error(CDYN_ENOMEM, "%s: out of memory", who);
  int rc = CDYN_OK;
  for (size_t i = 0; i < no && rc == CDYN_OK; i++) {
    const cdyn_option *o = &options[i];
    size_t fs = option_field_size(o->kind);
    if (!fs)
      rc = cdyn_error(CDYN_EINVAL, "%s: '%s': option %s has an unknown kind", who, name, o->name);
    else if (o->offset > options_size || fs > options_size - o->offset)
      rc = cdyn_error(CDYN_EINVAL, "%s: '%s': option %s lies outside options_size = %zu", who, name, o->name,
                      options_size);
    else if (clash(o->name))
      rc = cdyn_error(CDYN_EINVAL, "%s: '%s': option %s clashes with a stepper option", who, name, o->name);
    else if (o->kind == CDYN_OPT_CHOICE && !o->choices)
      rc = cdyn_error(CDYN_EINVAL, "%s: '%s': choice option %s has no choices", who, name, o->name);
    else if (!o->def)
      rc = cdyn_error(CDYN_EINVAL, "%s: '%s': option %s has no default", who, name, o->name);
    for (size_t j = 0; j < i && rc == CDYN_OK; j++)
      if (!strcmp(options[j].name, o->name))
        rc = cdyn_error(CDYN_EINVAL, "%s: '%s': option %s appears twice", who, name, o->name);
    if (rc == CDYN_OK && (rc = cdyn_option_parse(o, scratch, o->def)) != CDYN_OK)
      rc = cdyn_error(CDYN_EINVAL, "%s: '%s': the default of option %s does not parse: %s", who, name, o->name,
                      cdyn_errmsg());
  }
  free(scratch);
  return rc;
}

/* A type's name: letters, digits, '-', '_' and '.' (it appears in file
   names and on command lines). */
static int check_name(const char *who, const char *what, const char *name)
{
  if (!name || !*name)
    return cdyn_error(CDYN_EINVAL, "%s: the %s has no name", who, what);
  for (const char *c = name; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
          *c == '_' || *c == '.'))
      return cdyn_error(CDYN_EINVAL, "%s: name '%s': use letters, digits, '-', '_' and '.' only", who, name);
  return CDYN_OK;
}

int cdyn_scheme_register(const cdyn_scheme_type *t)
{
  if (!t)
    return cdyn_error(CDYN_EINVAL, "cdyn_scheme_register: type is NULL");
  int rc = check_name("cdyn_scheme_register", "scheme", t->name);
  if (rc)
    return rc;
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
  if ((rc = check_options("cdyn_scheme_register", t->name, t->options, t->options_size, stepper_option_name)))
    return rc;
  if (nregistered == MAX_REGISTERED)
    return cdyn_error(CDYN_ENOMEM, "cdyn_scheme_register: the table of %d registered schemes is full",
                      MAX_REGISTERED);
  registered[nregistered++] = t;
  return CDYN_OK;
}

/* What a solver's option may not be called: a stepper's own option, a
   solver's (built-in or registered) or a scheme's. */
static int solver_clash(const char *name)
{
  return stepper_option_name(name) || cdyn_scheme_option_name(name);
}

int cdyn_solver_register(const cdyn_solver_type *t)
{
  if (!t)
    return cdyn_error(CDYN_EINVAL, "cdyn_solver_register: type is NULL");
  int rc = check_name("cdyn_solver_register", "solver", t->name);
  if (rc)
    return rc;
  const cdyn_solver_type *other;
  if (!strcmp(t->name, "auto") || cdyn_solver_type_find(t->name, &other) == CDYN_OK)
    return cdyn_error(CDYN_EINVAL, "cdyn_solver_register: the name '%s' is taken", t->name);
  cdyn_error_clear();
  if (!t->alloc || !t->free || !t->setup || !t->solve)
    return cdyn_error(CDYN_EINVAL, "cdyn_solver_register: '%s' needs alloc, free, setup and solve", t->name);
  if (!t->description)
    return cdyn_error(CDYN_EINVAL, "cdyn_solver_register: '%s' needs a description", t->name);
  if ((rc = check_options("cdyn_solver_register", t->name, t->options, t->options_size, solver_clash)))
    return rc;
  return cdyn_solver_add(t);
}
