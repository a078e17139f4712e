/*
 * table.c: the built-in constraint types, from constraints.def (one line
 * per type: adding a type is one new file plus one line there), each
 * with a public pointer (cdyn_constraint_pin, ...), and their lookup by
 * name.
 */
#include <string.h>

#include "core/internal.h"

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
