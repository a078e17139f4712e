/*
 * table.c: the built-in schemes, from schemes.def (one line per scheme:
 * adding one is one new file plus one line there).  The registry
 * (lib/stepper/registry.c) lists them first, then the schemes registered
 * at run time (cdyn_scheme_register).
 */
#include <stddef.h>

#include "core/internal.h"

#define CDYN_SCHEME(id, file) extern const cdyn_scheme_type cdyn_scheme_##id;
#include "schemes/schemes.def"
#undef CDYN_SCHEME

const cdyn_scheme_type *const cdyn_builtin_schemes[] = {
#define CDYN_SCHEME(id, file) &cdyn_scheme_##id,
#include "schemes/schemes.def"
#undef CDYN_SCHEME
  NULL};
