/*
 * registry.c: the tables of constraint types, linear solvers, integrators
 * and schemes.  Each table is generated from its .def file, so adding a
 * type is one new file plus one line there.
 */
#include <string.h>

#include "cdyn_internal.h"

/* Each constraint type is an object, with a public pointer to it. */
#define CDYN_CONSTRAINT(id)                                                   \
  extern const cdyn_constraint_type cdyn_ctype_##id;                          \
  const cdyn_constraint_type *const cdyn_constraint_##id = &cdyn_ctype_##id;
#include "constraints/constraints.def"
#undef CDYN_CONSTRAINT

const cdyn_constraint_type *const cdyn_constraint_types[] = {
#define CDYN_CONSTRAINT(id) &cdyn_ctype_##id,
#include "constraints/constraints.def"
#undef CDYN_CONSTRAINT
  NULL};

#define CDYN_SOLVER(id) extern const cdyn_solver_type cdyn_solver_##id;
#include "solvers/solvers.def"
#undef CDYN_SOLVER
#define CDYN_INTEGRATOR(id) extern const cdyn_integrator_type cdyn_integrator_##id;
#include "integrators/integrators.def"
#undef CDYN_INTEGRATOR
#define CDYN_SCHEME(id) extern const cdyn_scheme_type cdyn_scheme_##id;
#include "schemes/schemes.def"
#undef CDYN_SCHEME

const cdyn_solver_type *const cdyn_solver_types[] = {
#define CDYN_SOLVER(id) &cdyn_solver_##id,
#include "solvers/solvers.def"
#undef CDYN_SOLVER
  NULL};

const cdyn_integrator_type *const cdyn_integrator_types[] = {
#define CDYN_INTEGRATOR(id) &cdyn_integrator_##id,
#include "integrators/integrators.def"
#undef CDYN_INTEGRATOR
  NULL};

const cdyn_scheme_type *const cdyn_scheme_types[] = {
#define CDYN_SCHEME(id) &cdyn_scheme_##id,
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

size_t cdyn_scheme_count(void) { return count((const void *const *)cdyn_scheme_types); }
size_t cdyn_integrator_count(void) { return count((const void *const *)cdyn_integrator_types); }
size_t cdyn_solver_count(void) { return count((const void *const *)cdyn_solver_types); }

#define ACCESSOR(fn, table, field)                                            \
  const char *fn(size_t i) { return i < count((const void *const *)table) ? table[i]->field : NULL; }
ACCESSOR(cdyn_scheme_name, cdyn_scheme_types, name)
ACCESSOR(cdyn_scheme_description, cdyn_scheme_types, description)
ACCESSOR(cdyn_scheme_source, cdyn_scheme_types, source)
ACCESSOR(cdyn_integrator_name, cdyn_integrator_types, name)
ACCESSOR(cdyn_integrator_description, cdyn_integrator_types, description)
ACCESSOR(cdyn_solver_name, cdyn_solver_types, name)
ACCESSOR(cdyn_solver_description, cdyn_solver_types, description)

double cdyn_scheme_order(size_t i)
{
  return i < cdyn_scheme_count() ? cdyn_scheme_types[i]->order : 0.0;
}

double cdyn_scheme_order_constant_force(size_t i)
{
  if (i >= cdyn_scheme_count())
    return 0.0;
  const cdyn_scheme_type *t = cdyn_scheme_types[i];
  return t->order_constant_force > 0 ? t->order_constant_force : t->order;
}

int cdyn_scheme_find(const char *name, size_t *index)
{
  if (!name || !index)
    return cdyn_error(CDYN_EINVAL, "cdyn_scheme_find: NULL argument");
  for (size_t k = 0; cdyn_scheme_types[k]; k++)
    if (strcmp(cdyn_scheme_types[k]->name, name) == 0) {
      *index = k;
      return CDYN_OK;
    }
  return cdyn_error(CDYN_EUNKNOWN, "unknown scheme '%s' (cdyn list shows the schemes)", name);
}
