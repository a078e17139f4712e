/*
 * cdyn/system.h: a particle system with applied forces and constraints.
 *
 * State: n particles with positions q (3n), velocities v (3n), masses m
 * (n, finite and > 0) and the time t.  Applied forces F(q, v, t):
 *   gravity          F_i += m_i g
 *   springs          F_i -= (k (r - L) + c n.(v_i - v_j)) n,  F_j = -F_i,
 *                    with d = x_i - x_j, r = |d|, n = d / r
 *   a user callback  adds into F.
 * Equations of motion (sign convention of 000 eq 1 and 001 eq 3):
 *   M qdd + J^T lambda = F,   Phi(q, t) = 0,
 * so the constraint force is -J^T lambda and a hanging link has lambda > 0
 * (tension).
 *
 * Constraints are added by type (see cdyn/constraint.h); each constraint
 * contributes one or more rows to Phi.
 *
 * Constraint sets that change.  Between steps a caller may switch
 * constraints off and on, remove them and add new ones, switch springs off
 * and on, and turn a spring into a distance constraint and back.  A
 * stepper built for the system follows every such change at its next step
 * (cdyn/stepper.h), without being rebuilt.  Constraint ids are slots: an
 * id stays valid until its constraint is removed, and a later add may
 * reuse it.  The rows of Phi are those of the enabled constraints, in id
 * order.  Reserve capacity ahead (cdyn_system_reserve) so that steppers
 * size their workspaces once and no step allocates.
 *
 * Building a system: doc/library.md.
 */
#ifndef CDYN_SYSTEM_H
#define CDYN_SYSTEM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cdyn_system cdyn_system;
typedef struct cdyn_constraint_type cdyn_constraint_type;

/*
 * A user force: add the force at (q, v, t) into f (3n values, already
 * holding gravity and springs).  Return 0, or a non-zero value to stop the
 * step (the stepper restores the state and returns CDYN_ECALLBACK).
 */
typedef int (*cdyn_force_fn)(void *ctx, size_t n, double t, const double *q,
                             const double *v, double *f);

/* A system of n >= 1 particles, all of mass 1 at rest at the origin. */
int cdyn_system_new(cdyn_system **out, size_t n);
void cdyn_system_free(cdyn_system *sys);

size_t cdyn_system_size(const cdyn_system *sys);
double cdyn_system_time(const cdyn_system *sys);
int cdyn_system_set_time(cdyn_system *sys, double t);

int cdyn_system_set_mass(cdyn_system *sys, size_t i, double mass);
int cdyn_system_set_position(cdyn_system *sys, size_t i, const double x[3]);
int cdyn_system_set_velocity(cdyn_system *sys, size_t i, const double v[3]);
/* Any output pointer may be NULL. */
int cdyn_system_get_particle(const cdyn_system *sys, size_t i, double *mass,
                             double x[3], double v[3]);
/* Whole state, 3n values each; either may be NULL.  Set rejects non-finite. */
int cdyn_system_get_state(const cdyn_system *sys, double *q, double *v);
int cdyn_system_set_state(cdyn_system *sys, const double *q, const double *v);
/* Read-only views of the 3n positions and velocities (valid until free). */
const double *cdyn_system_positions(const cdyn_system *sys);
const double *cdyn_system_velocities(const cdyn_system *sys);

/* Applied forces. */
int cdyn_system_set_gravity(cdyn_system *sys, const double g[3]);
/* k >= 0, c >= 0, rest > 0, i != j.  *id (may be NULL) gets the spring's index.
   A spring is on when added. */
int cdyn_system_add_spring(cdyn_system *sys, size_t i, size_t j, double k,
                           double c, double rest, size_t *id);
int cdyn_system_set_force_callback(cdyn_system *sys, cdyn_force_fn fn,
                                   void *ctx);
size_t cdyn_system_spring_count(const cdyn_system *sys);
/* Spring k as added: its particles, stiffness, damping and rest length
   (any output may be NULL); CDYN_EINVAL for k out of range. */
int cdyn_system_get_spring(const cdyn_system *sys, size_t k, size_t *i, size_t *j, double *stiffness,
                           double *damping, double *rest);

/*
 * The highest angular frequency of the springs that are on, for the step
 * limit of springs integrated explicitly (symplectic Euler is stable for
 * h omega < 2): *omega_spring = max over springs of sqrt(k (1/m_i +
 * 1/m_j)), one spring's own frequency, a lower bound of the network's
 * highest; *omega_bound, Gershgorin's upper bound of it, max over
 * particles of sqrt(sum over its springs of k (1/m_i + 1/sqrt(m_i m_j))).
 * Both 0 without springs.  Equations and their source: core/frequency.c.
 */
int cdyn_system_spring_frequency(const cdyn_system *sys, double *omega_spring, double *omega_bound);

/*
 * Constraints.  `particles` holds type->nparticles distinct indices and
 * `params` type->nparams values (checked by the type).  *id (may be NULL)
 * gets the constraint's index; its rows follow those of earlier ones.
 */
int cdyn_system_add_constraint(cdyn_system *sys,
                               const cdyn_constraint_type *type,
                               const size_t *particles, const double *params,
                               size_t *id);
/* The same, naming the type ("distance", "pin", ... see cdyn_constraint_type_find). */
int cdyn_system_add_constraint_named(cdyn_system *sys, const char *type,
                                     const size_t *particles,
                                     const double *params, size_t *id);
/* Rigid link |x_i - x_j| = L, L > 0. */
int cdyn_system_add_distance(cdyn_system *sys, size_t i, size_t j, double L,
                             size_t *id);
/* Pin x_i = p (three rows). */
int cdyn_system_add_pin(cdyn_system *sys, size_t i, const double p[3],
                        size_t *id);
/*
 * Pin to a moving point p(t) = p0 + u t + a (sin(w t + phi) - sin(phi)),
 * so that p(0) = p0.
 */
int cdyn_system_add_moving_pin(cdyn_system *sys, size_t i, const double p0[3],
                               const double u[3], const double a[3], double w,
                               double phi, size_t *id);

/* One past the largest constraint id in use: ids run 0 .. count - 1, and
   those of removed constraints stay vacant until an add reuses them. */
size_t cdyn_system_constraint_count(const cdyn_system *sys);
/* Constraints that exist (enabled or not), i.e. count less vacant ids. */
size_t cdyn_system_live_constraints(const cdyn_system *sys);
/*
 * Constraint c as it was added: its type, its type->nparticles particle
 * indices and its type->nparams parameters.  Any output may be NULL.
 * CDYN_EINVAL for an id out of range or removed.
 */
int cdyn_system_get_constraint(const cdyn_system *sys, size_t c,
                               const cdyn_constraint_type **type,
                               size_t *particles, double *params);
/* Change constraint c's parameters (type->nparams values, checked by its
   type) in place: its particles, rows, flags and id stay, so a stepper
   needs no new layout. */
int cdyn_system_set_constraint_params(cdyn_system *sys, size_t c, const double *params);
/* Total number of constraint rows m (of the enabled constraints). */
size_t cdyn_system_row_count(const cdyn_system *sys);

/*
 * Reserve room for `constraints` constraint ids, `rows` rows (of all
 * constraints that exist at once, enabled or not) and `springs` springs,
 * so that adding up to that many allocates nothing, and steppers built
 * afterwards size their workspaces for them.  Never shrinks.
 */
int cdyn_system_reserve(cdyn_system *sys, size_t constraints, size_t rows, size_t springs);
/* Switch constraint c on (on != 0) or off; an off constraint keeps its id
   and its flags but has no rows. */
int cdyn_system_enable_constraint(cdyn_system *sys, size_t c, int on);
int cdyn_system_constraint_enabled(const cdyn_system *sys, size_t c, int *on);
/* Remove constraint c; its id becomes vacant. */
int cdyn_system_remove_constraint(cdyn_system *sys, size_t c);
/* The first row of enabled constraint c in Phi (the system's current rows). */
int cdyn_system_constraint_row(const cdyn_system *sys, size_t c, size_t *row);
/* Switch spring k on or off (an off spring exerts no force and has no
   energy). */
int cdyn_system_enable_spring(cdyn_system *sys, size_t k, int on);
int cdyn_system_spring_enabled(const cdyn_system *sys, size_t k, int *on);
/*
 * Turn spring k (on) into a distance constraint |x_i - x_j| = L between its
 * particles: the spring is switched off and the constraint added, linked
 * to it; *id (may be NULL) gets the constraint's id.  And back: remove
 * constraint c, which came from a spring, and switch that spring on again
 * (*spring, may be NULL, gets its index).
 */
int cdyn_system_spring_to_constraint(cdyn_system *sys, size_t k, double L, size_t *id);
int cdyn_system_constraint_to_spring(cdyn_system *sys, size_t c, size_t *spring);

/*
 * Measurements at the current state and time.
 *
 * Constraint error e = sum over constraints of |Phi_c|_2, the Euclidean norm
 * of that constraint's rows: | |x_i - x_j| - L | for a link and |x_i - p(t)|
 * for a pin, as the papers measure it.  Rows flagged as inequalities
 * (cdyn/contact.h) count only their violation min(Phi_r, 0).
 */
int cdyn_system_constraint_error(const cdyn_system *sys, double *e);
/* The rows of Phi themselves (m values). */
int cdyn_system_constraint_values(const cdyn_system *sys, double *phi);
/*
 * Kinetic energy, and potential energy of gravity (-sum m_i g.x_i) and
 * springs (sum k (r - L)^2 / 2).  User forces have no known potential and
 * are not counted.  Either output may be NULL.
 */
int cdyn_system_energy(const cdyn_system *sys, double *kinetic,
                       double *potential);
/*
 * The applied forces F(q, v, t) at the current state and time (3n values):
 * gravity, springs and the user callback, exactly as a step computes them
 * (constraint forces are not included).  Returns CDYN_EDEGENERATE if a
 * spring's particles coincide, CDYN_ECALLBACK if the callback fails and
 * CDYN_ENONFINITE if the force is not finite; F is then unspecified.
 */
int cdyn_system_forces(const cdyn_system *sys, double *F);
/* Total linear momentum (3 values). */
int cdyn_system_momentum(const cdyn_system *sys, double p[3]);

#ifdef __cplusplus
}
#endif
#endif
