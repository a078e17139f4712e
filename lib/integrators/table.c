/*
 * table.c: the integrators, from integrators.def (one line per
 * integrator: adding one is one new file plus one line there), and their
 * lookup by name, which an integrator-valued scheme option uses
 * (lib/stepper/options.c).
 */
#include <string.h>

#include "core/internal.h"

#define CDYN_INTEGRATOR(id, file) extern const cdyn_integrator_type cdyn_integrator_##id;
#include "integrators/integrators.def"
#undef CDYN_INTEGRATOR

const cdyn_integrator_type *const cdyn_integrator_types[] = {
#define CDYN_INTEGRATOR(id, file) &cdyn_integrator_##id,
#include "integrators/integrators.def"
#undef CDYN_INTEGRATOR
  NULL};

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

size_t cdyn_integrator_count(void) { return cdyn_table_count((const void *const *)cdyn_integrator_types); }

const char *cdyn_integrator_name(size_t i)
{
  return i < cdyn_integrator_count() ? cdyn_integrator_types[i]->name : NULL;
}

const char *cdyn_integrator_description(size_t i)
{
  return i < cdyn_integrator_count() ? cdyn_integrator_types[i]->description : NULL;
}
