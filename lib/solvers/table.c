/*
 * table.c: the built-in linear solver types, from solvers.def (one line
 * per type: adding a solver is one new file plus one line there).  The
 * list of solver types (lookup.c) holds them first, then the solvers
 * registered at run time (cdyn_solver_register).
 */
#include <stddef.h>

#include "core/internal.h"

#define CDYN_SOLVER(id, file) extern const cdyn_solver_type cdyn_solver_##id;
#include "solvers/solvers.def"
#undef CDYN_SOLVER

const cdyn_solver_type *const cdyn_builtin_solvers[] = {
#define CDYN_SOLVER(id, file) &cdyn_solver_##id,
#include "solvers/solvers.def"
#undef CDYN_SOLVER
  NULL};
