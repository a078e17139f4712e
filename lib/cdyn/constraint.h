/*
 * cdyn/constraint.h: constraint types as type objects.
 *
 * A constraint type answers two questions, as an ODE joint does: how many
 * rows it has, and "fill your rows into this block that I own".  For each
 * row r it fills
 *   phi     Phi_r(q, t)
 *   phi_t   dPhi_r/dt                         (0 for fixed constraints)
 *   jac     dPhi_r/dx_p for each of its particles p (at most 4), so the
 *           row of J = Phi_q is sparse with at most 12 non-zeros
 *   jdotv   (J v)_q v, the velocity-product term of Phi-double-dot
 *   phi_tt  2 Phi_qt v + Phi_tt
 * so that along any motion Phi-double-dot = J qdd + jdotv + phi_tt
 * (001 eqs 5-8).  Optionally (`hess`) it also fills the geometric
 * stiffness sum_r lambda_r Hess Phi_r for given multipliers: the
 * derivative of the constraint force J^T lambda with respect to the
 * positions, which a step implicit in the constraint geometry needs
 * (doc/large-steps.md); without it the library takes that derivative by
 * central differences of eval's J (cdyn_constraint_fd_hess).  A type
 * never allocates and never keeps state.
 *
 * Adding a type is one file defining a `const cdyn_constraint_type` and one
 * line in lib/constraints/constraints.def.
 *
 * Writing a constraint type: doc/extending.md, "A constraint type".
 */
#ifndef CDYN_CONSTRAINT_H
#define CDYN_CONSTRAINT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CDYN_MAX_PARTICLES 4 /* particles one constraint may touch */
#define CDYN_MAX_PARAMS 16   /* parameters one constraint may hold */
#define CDYN_MAX_ROWS 3      /* rows one constraint may contribute */

typedef struct cdyn_row {
  double phi;
  double phi_t;
  double jdotv;
  double phi_tt;
  double jac[CDYN_MAX_PARTICLES][3];
} cdyn_row;

typedef struct cdyn_constraint_type {
  const char *name;
  const char *description; /* what it constrains, and its equations */
  unsigned nparticles;     /* 1 .. CDYN_MAX_PARTICLES */
  unsigned nparams;        /* 0 .. CDYN_MAX_PARAMS */
  unsigned rows;           /* 1 .. CDYN_MAX_ROWS */
  const char *const *param_names; /* nparams names, for messages and files */
  /*
   * Check the parameters; return CDYN_OK or cdyn_error(CDYN_EINVAL, ...).
   * NULL means every finite value is acceptable.
   */
  int (*check)(const double *params);
  /*
   * Fill `rows` (type->rows entries) at positions x[p], velocities v[p] of
   * the constraint's particles and time t.  Return CDYN_OK, or
   * CDYN_EDEGENERATE (with a message) where Phi is not differentiable.
   */
  int (*eval)(const double *params, const double *const *x,
              const double *const *v, double t, cdyn_row *rows);
  /*
   * Optional: the geometric stiffness of the constraint's rows for given
   * multipliers lambda (type->rows values),
   *   K = sum_r lambda[r] d^2 Phi_r / dx dx,
   * at positions x[p] and time t, into K: (3 np)^2 values, row-major,
   * np = nparticles, particle p's coordinates at 3p .. 3p + 2.  K is the
   * caller's and is overwritten.  Return CDYN_OK, or CDYN_EDEGENERATE
   * (with a message) where Phi is not twice differentiable.  NULL: the
   * library takes K by central differences of J^T lambda from the type's
   * eval (cdyn_constraint_fd_hess below), for the schemes that need it
   * (backward-euler, bdf2, projected-newton, implicit with
   * geometric_stiffness=diagonal): 6 np + 1 calls of eval per
   * constraint each time, and entries good to about eps^(2/3) of their
   * scale rather than to rounding.  Such a stepper says so
   * (cdyn_stepper_warning).
   */
  int (*hess)(const double *params, const double *const *x, double t,
              const double *lambda, double *K);
} cdyn_constraint_type;

/* Built-in types. */
extern const cdyn_constraint_type *const cdyn_constraint_distance;
extern const cdyn_constraint_type *const cdyn_constraint_pin;
extern const cdyn_constraint_type *const cdyn_constraint_circle;
extern const cdyn_constraint_type *const cdyn_constraint_sphere;
extern const cdyn_constraint_type *const cdyn_constraint_plane;
extern const cdyn_constraint_type *const cdyn_constraint_curve;
extern const cdyn_constraint_type *const cdyn_constraint_angle;
extern const cdyn_constraint_type *const cdyn_constraint_parallel;
extern const cdyn_constraint_type *const cdyn_constraint_anchor;
extern const cdyn_constraint_type *const cdyn_constraint_node_triangle;
extern const cdyn_constraint_type *const cdyn_constraint_edge_edge;
extern const cdyn_constraint_type *const cdyn_constraint_halfspace;
extern const cdyn_constraint_type *const cdyn_constraint_hoop;
extern const cdyn_constraint_type *const cdyn_constraint_tether;

/* NULL-terminated table of every registered type. */
extern const cdyn_constraint_type *const cdyn_constraint_types[];

/*
 * The geometric stiffness K = sum_r lambda[r] d^2 Phi_r / dx dx of `type`
 * at positions x[p] (np = type->nparticles of them) and time t, by central
 * differences of J^T lambda from type->eval, symmetrised, into K as
 * `hess` fills it ((3 np)^2 values, row-major): what the library uses for
 * a type whose hess is NULL, and a check of a hess one has written.  One
 * step delta for all coordinates, cdyn_constraint_fd_step(type, x);
 * lib/core/fdhess.c derives it and the error, about eps^(2/3) of
 * |lambda| |grad Phi| / s, s the extent of the constraint's particles.
 * 6 np + 1 calls of eval; no allocation.  Returns CDYN_OK; eval's own
 * status and message where it fails at x; its status with a message
 * naming the type and the perturbed coordinate where it fails at a
 * perturbed point (CDYN_EDEGENERATE: x is within delta of where Phi is
 * not differentiable); CDYN_ENONFINITE for a non-finite position or
 * entry; CDYN_EINVAL for a NULL argument or a malformed type.
 */
int cdyn_constraint_fd_hess(const cdyn_constraint_type *type, const double *params, const double *const *x,
                            double t, const double *lambda, double *K);
/* The step of cdyn_constraint_fd_hess at positions x:
   (3 eps s^2 (s + X))^(1/3), X the largest |coordinate|, s the largest
   distance between two of the particles (X for one particle, or for
   particles at one point; 1 when both are 0).  NaN for a NULL argument. */
double cdyn_constraint_fd_step(const cdyn_constraint_type *type, const double *const *x);

/* Find a type by name; CDYN_EUNKNOWN if there is none. */
int cdyn_constraint_type_find(const char *name,
                              const cdyn_constraint_type **type);

#ifdef __cplusplus
}
#endif
#endif
