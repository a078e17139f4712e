/*
 * stepper/internal.h: what the files of lib/stepper share: the row
 * layout (layout.c), the registry's lists (registry.c) and the option
 * parser's internals.  Private to lib/stepper.
 */
#ifndef CDYN_STEPPER_INTERNAL_H
#define CDYN_STEPPER_INTERNAL_H

#include "core/internal.h"

/* registry.c: the scheme with index i: built-in ones first, then
   registered ones (NULL beyond). */
const cdyn_scheme_type *cdyn_scheme_at(size_t i);
/* Is `name` an option of some solver type among the first nsolvers, or of
   some scheme (built-in or registered)?  What registration refuses. */
int cdyn_solver_option_name(const char *name, size_t nsolvers);
int cdyn_scheme_option_name(const char *name);

/* layout.c: CDYN_EINVAL (from `who`) when `type` enforces pins only and an
   enabled constraint of sys is not a pin. */
int cdyn_check_pins_only(const cdyn_system *sys, const cdyn_scheme_type *type, const char *who);

/*
 * layout.c: the row layout and the storage of A's pattern, built with
 * the stepper and brought up to date with the system at the start of each
 * step by the stepper, in two calls: cdyn_layout_grow sizes the arrays for the
 * system's capacity (the stepper then sizes the scheme's and the
 * solver's states for st->mcap), and cdyn_layout_follow lays the current
 * set out, moves the multipliers and tells the scheme what changed (not
 * when `fresh`: its state was just made).  The pattern of A for the rows
 * laid out is built at its first use (cdyn_pattern_build, core/pattern.c).
 */
int cdyn_layout_build(cdyn_stepper *st);
int cdyn_layout_grow(cdyn_stepper *st);
int cdyn_layout_follow(cdyn_stepper *st, int fresh);
/* Room for a pattern of up to nnz entries (cdyn_stepper_reserve). */
int cdyn_layout_reserve(cdyn_stepper *st, size_t nnz);
void cdyn_layout_free(cdyn_stepper *st);

#endif
