/*
 * cdyn/cdyn.h: umbrella header of libcdyn, constraint-enforcement schemes
 * for constrained particle dynamics.
 *
 *   cdyn_system   particles, masses, forces and constraints
 *   cdyn_stepper  one scheme advancing a system step by step
 *   contact.h     inequality constraints and active-set algorithms
 *   scheme.h      writing a scheme of one's own and registering it
 *
 * Every function returns a status (cdyn/error.h); nothing prints or aborts.
 *
 * The manual (doc/README.md; installed in $(docdir)): doc/library.md for
 * using the library, doc/extending.md for schemes, constraint types and
 * solvers of one's own, doc/schemes.md for every scheme's equations.
 */
#ifndef CDYN_CDYN_H
#define CDYN_CDYN_H

#include "cdyn/error.h"
#include "cdyn/system.h"
#include "cdyn/constraint.h"
#include "cdyn/stepper.h"
#include "cdyn/contact.h"
#include "cdyn/scheme.h"
#include "cdyn/cloth.h"
#include "cdyn/collision.h"
#include "cdyn/scene.h"

#endif
