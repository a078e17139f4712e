/*
 * lookup.c: the linear solver types a program can choose by name: the
 * built-in ones (table.c, from solvers.def) followed, in the indices, by
 * those registered at run time (cdyn_solver_register, whose checks are
 * lib/stepper/registry.c's: it appends a type here once it passed them),
 * and the lookup of a type by its name (cdyn_solver_type_find, which the
 * stepper and the schemes that name their own solver use).
 */
#include <stddef.h>
#include <string.h>

#include "core/internal.h"

/* Solvers registered at run time. */
#define MAX_REGISTERED_SOLVERS 16
static const cdyn_solver_type *registered_solvers[MAX_REGISTERED_SOLVERS];
static size_t nregistered_solvers;

static size_t builtin_solvers(void) { return cdyn_table_count((const void *const *)cdyn_builtin_solvers); }

size_t cdyn_solver_count(void) { return builtin_solvers() + nregistered_solvers; }

const cdyn_solver_type *cdyn_solver_type_at(size_t i)
{
  size_t nb = builtin_solvers();
  if (i < nb)
    return cdyn_builtin_solvers[i];
  return i - nb < nregistered_solvers ? registered_solvers[i - nb] : NULL;
}

int cdyn_solver_type_find(const char *name, const cdyn_solver_type **type)
{
  if (!name || !type)
    return cdyn_error(CDYN_EINVAL, "cdyn_solver_type_find: NULL argument");
  for (size_t k = 0; k < cdyn_solver_count(); k++)
    if (strcmp(cdyn_solver_type_at(k)->name, name) == 0) {
      *type = cdyn_solver_type_at(k);
      return CDYN_OK;
    }
  return cdyn_error(CDYN_EUNKNOWN, "unknown linear solver '%s'", name);
}

const char *cdyn_solver_name(size_t i) { return cdyn_solver_type_at(i) ? cdyn_solver_type_at(i)->name : NULL; }
const char *cdyn_solver_description(size_t i)
{
  return cdyn_solver_type_at(i) ? cdyn_solver_type_at(i)->description : NULL;
}

int cdyn_solver_add(const cdyn_solver_type *t)
{
  if (nregistered_solvers == MAX_REGISTERED_SOLVERS)
    return cdyn_error(CDYN_ENOMEM, "cdyn_solver_register: the table of %d registered solvers is full",
                      MAX_REGISTERED_SOLVERS);
  registered_solvers[nregistered_solvers++] = t;
  return CDYN_OK;
}
