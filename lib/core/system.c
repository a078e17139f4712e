/*
 * system.c: particles, applied forces, constraints and measurements.
 *
 * Applied forces (added into F, 3n values):
 *   gravity   F_i += m_i g
 *   spring    d = x_i - x_j, r = |d|, n = d / r,
 *             f = -(k (r - L) + c n.(v_i - v_j)) n,  F_i += f, F_j -= f
 *   callback  the user's function adds its force last.
 * Energy: T = sum m_i |v_i|^2 / 2,
 *         V = -sum m_i g.x_i + sum k (r - L)^2 / 2.
 * Constraint error: e = sum over constraints c of |Phi_c|_2 (000/001 measure
 * | |x_i - x_j| - L | per link; a pin's |x - p(t)| is the norm of its rows).
 * An inequality row (003, g >= 0) contributes its violation min(g, 0) only.
 *
 * Constraint sets that change.  Constraints live in slots whose index is
 * their id.  A constraint can be switched off (its rows leave Phi, its
 * slot stays), removed (its slot becomes vacant and a later add may take
 * it), and a spring can be turned into a distance constraint and back.
 * The rows of Phi are those of the enabled constraints in id order.  The
 * system counts the rows of its live constraints (rows_live) and keeps a
 * row capacity (cap_rows) that never shrinks, for steppers to size their
 * workspaces once; cdyn_system_reserve raises it and the slot capacity
 * ahead of time.  Every change bumps `version`, which steppers follow.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

static int finite3(const double x[3])
{
  return isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]);
}

#define CHECK_SYS(sys)                                                        \
  do {                                                                        \
    if (!(sys))                                                               \
      return cdyn_error(CDYN_EINVAL, "%s: system is NULL", __func__);         \
  } while (0)

#define CHECK_INDEX(sys, i)                                                   \
  do {                                                                        \
    if ((i) >= (sys)->n)                                                      \
      return cdyn_error(CDYN_EINVAL,                                          \
                        "%s: particle %zu out of range (n = %zu)", __func__,  \
                        (size_t)(i), (sys)->n);                               \
  } while (0)

int cdyn_system_new(cdyn_system **out, size_t n)
{
  if (!out)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_new: out is NULL");
  *out = NULL;
  if (n == 0)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_new: n = 0 particles");
  if (n > ((size_t)-1) / (3 * sizeof(double)))
    return cdyn_error(CDYN_EINVAL, "cdyn_system_new: n = %zu is too large", n);
  cdyn_system *s = calloc(1, sizeof *s);
  if (!s)
    return cdyn_error(CDYN_ENOMEM, "cdyn_system_new: out of memory");
  s->n = n;
  s->mass = malloc(n * sizeof(double));
  s->winv = malloc(n * sizeof(double));
  s->q = calloc(3 * n, sizeof(double));
  s->v = calloc(3 * n, sizeof(double));
  if (!s->mass || !s->winv || !s->q || !s->v) {
    cdyn_system_free(s);
    return cdyn_error(CDYN_ENOMEM, "cdyn_system_new: out of memory for %zu particles", n);
  }
  for (size_t i = 0; i < n; i++)
    s->mass[i] = s->winv[i] = 1.0;
  *out = s;
  return CDYN_OK;
}

void cdyn_system_free(cdyn_system *s)
{
  if (!s)
    return;
  free(s->mass);
  free(s->winv);
  free(s->q);
  free(s->v);
  free(s->springs);
  free(s->cons);
  free(s->vacant);
  free(s);
}

size_t cdyn_system_size(const cdyn_system *s) { return s ? s->n : 0; }
double cdyn_system_time(const cdyn_system *s) { return s ? s->t : NAN; }

int cdyn_system_set_time(cdyn_system *s, double t)
{
  CHECK_SYS(s);
  if (!isfinite(t))
    return cdyn_error(CDYN_EINVAL, "cdyn_system_set_time: t = %g is not finite", t);
  s->t = t;
  return CDYN_OK;
}

int cdyn_system_set_mass(cdyn_system *s, size_t i, double mass)
{
  CHECK_SYS(s);
  CHECK_INDEX(s, i);
  if (!isfinite(mass) || !(mass > 0) || !isfinite(1.0 / mass))
    return cdyn_error(CDYN_EINVAL,
                      "cdyn_system_set_mass: mass of particle %zu is %g; it must be finite and > 0, with a finite "
                      "inverse",
                      i, mass);
  s->mass[i] = mass;
  s->winv[i] = 1.0 / mass;
  return CDYN_OK;
}

int cdyn_system_set_position(cdyn_system *s, size_t i, const double x[3])
{
  CHECK_SYS(s);
  CHECK_INDEX(s, i);
  if (!x || !finite3(x))
    return cdyn_error(CDYN_EINVAL, "cdyn_system_set_position: position of particle %zu is NULL or not finite", i);
  memcpy(s->q + 3 * i, x, 3 * sizeof(double));
  return CDYN_OK;
}

int cdyn_system_set_velocity(cdyn_system *s, size_t i, const double v[3])
{
  CHECK_SYS(s);
  CHECK_INDEX(s, i);
  if (!v || !finite3(v))
    return cdyn_error(CDYN_EINVAL, "cdyn_system_set_velocity: velocity of particle %zu is NULL or not finite", i);
  memcpy(s->v + 3 * i, v, 3 * sizeof(double));
  return CDYN_OK;
}

int cdyn_system_get_particle(const cdyn_system *s, size_t i, double *mass,
                             double x[3], double v[3])
{
  CHECK_SYS(s);
  CHECK_INDEX(s, i);
  if (mass)
    *mass = s->mass[i];
  if (x)
    memcpy(x, s->q + 3 * i, 3 * sizeof(double));
  if (v)
    memcpy(v, s->v + 3 * i, 3 * sizeof(double));
  return CDYN_OK;
}

int cdyn_system_get_state(const cdyn_system *s, double *q, double *v)
{
  CHECK_SYS(s);
  if (q)
    memcpy(q, s->q, 3 * s->n * sizeof(double));
  if (v)
    memcpy(v, s->v, 3 * s->n * sizeof(double));
  return CDYN_OK;
}

int cdyn_system_set_state(cdyn_system *s, const double *q, const double *v)
{
  CHECK_SYS(s);
  if ((q && !cdyn_all_finite(q, 3 * s->n)) || (v && !cdyn_all_finite(v, 3 * s->n)))
    return cdyn_error(CDYN_ENONFINITE, "cdyn_system_set_state: state holds a non-finite value");
  if (q)
    memcpy(s->q, q, 3 * s->n * sizeof(double));
  if (v)
    memcpy(s->v, v, 3 * s->n * sizeof(double));
  return CDYN_OK;
}

const double *cdyn_system_positions(const cdyn_system *s) { return s ? s->q : NULL; }
const double *cdyn_system_velocities(const cdyn_system *s) { return s ? s->v : NULL; }

int cdyn_system_set_gravity(cdyn_system *s, const double g[3])
{
  CHECK_SYS(s);
  if (!g || !finite3(g))
    return cdyn_error(CDYN_EINVAL, "cdyn_system_set_gravity: gravity is NULL or not finite");
  memcpy(s->gravity, g, sizeof s->gravity);
  return CDYN_OK;
}

/* Grow an array of `size`-byte elements to hold one more. */
static int grow(void **arr, size_t *cap, size_t count, size_t size)
{
  if (count < *cap)
    return CDYN_OK;
  size_t ncap = *cap ? 2 * *cap : 8;
  if (ncap < *cap || ncap > ((size_t)-1) / size)
    return cdyn_error(CDYN_ENOMEM, "out of memory growing beyond %zu entries", *cap);
  void *p = realloc(*arr, ncap * size);
  if (!p)
    return cdyn_error(CDYN_ENOMEM, "out of memory growing to %zu entries", ncap);
  *arr = p;
  *cap = ncap;
  return CDYN_OK;
}

/* Slots (and the vacant stack beside them) for at least `need` constraints. */
static int grow_slots(cdyn_system *s, size_t need)
{
  if (need <= s->cap_cons)
    return CDYN_OK;
  size_t ncap = s->cap_cons ? 2 * s->cap_cons : 8;
  if (ncap < need)
    ncap = need;
  if (ncap > ((size_t)-1) / sizeof *s->cons)
    return cdyn_error(CDYN_ENOMEM, "out of memory for %zu constraints", need);
  cdyn_constraint *c = realloc(s->cons, ncap * sizeof *c);
  if (!c)
    return cdyn_error(CDYN_ENOMEM, "out of memory growing to %zu constraints", ncap);
  s->cons = c;
  size_t *v = realloc(s->vacant, ncap * sizeof *v);
  if (!v)
    return cdyn_error(CDYN_ENOMEM, "out of memory growing to %zu constraints", ncap);
  s->vacant = v;
  s->cap_cons = ncap;
  return CDYN_OK;
}

int cdyn_system_add_spring(cdyn_system *s, size_t i, size_t j, double k,
                           double c, double rest, size_t *id)
{
  CHECK_SYS(s);
  CHECK_INDEX(s, i);
  CHECK_INDEX(s, j);
  if (i == j)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_add_spring: spring from particle %zu to itself", i);
  if (!isfinite(k) || k < 0 || !isfinite(c) || c < 0)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_add_spring: stiffness %g and damping %g must be finite and >= 0", k, c);
  if (!isfinite(rest) || !(rest > 0))
    return cdyn_error(CDYN_EINVAL, "cdyn_system_add_spring: rest length %g must be finite and > 0", rest);
  int rc = grow((void **)&s->springs, &s->cap_springs, s->nsprings, sizeof *s->springs);
  if (rc)
    return rc;
  s->springs[s->nsprings] = (cdyn_spring){i, j, k, c, rest, 1, CDYN_NONE};
  if (id)
    *id = s->nsprings;
  s->nsprings++;
  s->version++;
  s->force_version++;
  return CDYN_OK;
}

size_t cdyn_system_spring_count(const cdyn_system *s) { return s ? s->nsprings : 0; }

int cdyn_system_set_force_callback(cdyn_system *s, cdyn_force_fn fn, void *ctx)
{
  CHECK_SYS(s);
  s->force_fn = fn;
  s->force_ctx = ctx;
  s->version++;
  s->force_version++;
  return CDYN_OK;
}

/*
 * F(q, v, t) into F: gravity, springs, then the user callback.  The one
 * place applied forces are computed, for the stepper (cdyn_forces) and
 * for cdyn_system_forces alike, so that the two cannot disagree.
 */
int cdyn_system_eval_forces(const cdyn_system *sys, const double *q, const double *v,
                            double t, double *F)
{
  for (size_t i = 0; i < sys->n; i++)
    for (int d = 0; d < 3; d++)
      F[3 * i + d] = sys->mass[i] * sys->gravity[d];
  for (size_t k = 0; k < sys->nsprings; k++) {
    const cdyn_spring *sp = &sys->springs[k];
    if (!sp->enabled)
      continue;
    const double *xi = q + 3 * sp->i, *xj = q + 3 * sp->j;
    const double *vi = v + 3 * sp->i, *vj = v + 3 * sp->j;
    double d[3] = {xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]};
    double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(r > 0))
      return cdyn_error(CDYN_EDEGENERATE, "spring %zu: its particles coincide at t = %g", k, t);
    double nrm[3] = {d[0] / r, d[1] / r, d[2] / r};
    double rate = nrm[0] * (vi[0] - vj[0]) + nrm[1] * (vi[1] - vj[1]) + nrm[2] * (vi[2] - vj[2]);
    double f = -(sp->k * (r - sp->rest) + sp->c * rate);
    for (int c = 0; c < 3; c++) {
      F[3 * sp->i + c] += f * nrm[c];
      F[3 * sp->j + c] -= f * nrm[c];
    }
  }
  if (sys->force_fn) {
    int rc = sys->force_fn(sys->force_ctx, sys->n, t, q, v, F);
    if (rc)
      return cdyn_error(CDYN_ECALLBACK, "the user force callback returned %d at t = %g", rc, t);
  }
  if (!cdyn_all_finite(F, 3 * sys->n))
    return cdyn_error(CDYN_ENONFINITE, "the applied force is not finite at t = %g", t);
  return CDYN_OK;
}

/*
 * The force Jacobians of a spring (Baraff and Witkin 1998, sec. 4.5;
 * doc/cloth.md, "Baraff–Witkin"), n = x_ij / r, x_ij = x_i - x_j:
 *   df_i/dx_i = -k [ n n^T + (1 - L0 / r)(I - n n^T) ]  ( = -df_i/dx_j = df_j/dx_j )
 *   df_i/dv_i = -c n n^T
 * The damping force's own dependence on x (through n) is left out, as
 * Baraff and Witkin leave it out: it is not symmetric.  With
 * `compression_fix`, the second term of df/dx is dropped while the spring
 * is compressed (r < L0), where it makes the matrix indefinite (Choi and
 * Ko 2002).  Kx and Kv are 3 x 3, row-major.
 */
int cdyn_spring_jacobians(const cdyn_spring *sp, const double *xi, const double *xj, int compression_fix,
                          double Kx[9], double Kv[9])
{
  double d[3] = {xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]};
  double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!(r > 0) || !isfinite(r))
    return cdyn_error(CDYN_EDEGENERATE, "spring (%zu, %zu): its particles coincide", sp->i, sp->j);
  double n[3] = {d[0] / r, d[1] / r, d[2] / r};
  double t = compression_fix && r < sp->rest ? 0.0 : 1 - sp->rest / r;
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      double nn = n[a] * n[b];
      Kx[3 * a + b] = -sp->k * (nn + t * ((a == b) - nn));
      Kv[3 * a + b] = -sp->c * nn;
    }
  return CDYN_OK;
}

int cdyn_system_forces(const cdyn_system *s, double *F)
{
  CHECK_SYS(s);
  if (!F)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_forces: F is NULL");
  return cdyn_system_eval_forces(s, s->q, s->v, s->t, F);
}

int cdyn_system_add_constraint(cdyn_system *s, const cdyn_constraint_type *type,
                               const size_t *particles, const double *params,
                               size_t *id)
{
  CHECK_SYS(s);
  if (!type || !type->eval || !type->name)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_add_constraint: type is NULL or incomplete");
  if (type->nparticles < 1 || type->nparticles > CDYN_MAX_PARTICLES ||
      type->rows < 1 || type->rows > CDYN_MAX_ROWS || type->nparams > CDYN_MAX_PARAMS)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_add_constraint: type '%s' declares invalid sizes", type->name);
  if (!particles)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_add_constraint: '%s' needs %u particle indices, got NULL",
                      type->name, type->nparticles);
  if (type->nparams && !params)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_add_constraint: '%s' needs %u parameters, got NULL",
                      type->name, type->nparams);
  for (unsigned a = 0; a < type->nparticles; a++) {
    if (particles[a] >= s->n)
      return cdyn_error(CDYN_EINVAL, "cdyn_system_add_constraint: '%s': particle %zu out of range (n = %zu)",
                        type->name, particles[a], s->n);
    for (unsigned b = 0; b < a; b++)
      if (particles[a] == particles[b])
        return cdyn_error(CDYN_EINVAL,
                          "cdyn_system_add_constraint: '%s' joins particle %zu to itself",
                          type->name, particles[a]);
  }
  for (unsigned a = 0; a < type->nparams; a++)
    if (!isfinite(params[a]))
      return cdyn_error(CDYN_EINVAL, "cdyn_system_add_constraint: '%s' parameter %s = %g is not finite",
                        type->name, type->param_names ? type->param_names[a] : "?", params[a]);
  if (type->check) {
    int rc = type->check(params);
    if (rc)
      return rc;
  }
  size_t slot;
  if (s->nvacant) {
    slot = s->vacant[--s->nvacant];
  } else {
    int rc = grow_slots(s, s->ncons + 1);
    if (rc)
      return rc;
    slot = s->ncons++;
  }
  cdyn_constraint *c = &s->cons[slot];
  memset(c, 0, sizeof *c);
  c->type = type;
  for (unsigned a = 0; a < type->nparticles; a++)
    c->p[a] = particles[a];
  if (type->nparams)
    memcpy(c->params, params, type->nparams * sizeof(double));
  c->live = 1;
  c->enabled = 1;
  c->gen = ++s->gen_next;
  c->spring = CDYN_NONE;
  if (id)
    *id = slot;
  s->m += type->rows;
  s->rows_live += type->rows;
  if (s->rows_live > s->cap_rows)
    s->cap_rows = s->rows_live;
  s->version++;
  return CDYN_OK;
}

int cdyn_system_add_constraint_named(cdyn_system *s, const char *name,
                                     const size_t *particles,
                                     const double *params, size_t *id)
{
  const cdyn_constraint_type *type;
  int rc = cdyn_constraint_type_find(name, &type);
  if (rc)
    return rc;
  return cdyn_system_add_constraint(s, type, particles, params, id);
}

int cdyn_system_add_distance(cdyn_system *s, size_t i, size_t j, double L, size_t *id)
{
  size_t p[2] = {i, j};
  return cdyn_system_add_constraint(s, cdyn_constraint_distance, p, &L, id);
}

int cdyn_system_add_pin(cdyn_system *s, size_t i, const double p[3], size_t *id)
{
  static const double zero[3] = {0, 0, 0};
  return cdyn_system_add_moving_pin(s, i, p, zero, zero, 0.0, 0.0, id);
}

int cdyn_system_add_moving_pin(cdyn_system *s, size_t i, const double p0[3],
                               const double u[3], const double a[3], double w,
                               double phi, size_t *id)
{
  if (!p0 || !u || !a)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_add_moving_pin: a point or vector is NULL");
  double params[11] = {p0[0], p0[1], p0[2], u[0], u[1], u[2],
                       a[0],  a[1],  a[2],  w,    phi};
  return cdyn_system_add_constraint(s, cdyn_constraint_pin, &i, params, id);
}

size_t cdyn_system_constraint_count(const cdyn_system *s) { return s ? s->ncons : 0; }
size_t cdyn_system_row_count(const cdyn_system *s) { return s ? s->m : 0; }

int cdyn_system_get_constraint(const cdyn_system *s, size_t c, const cdyn_constraint_type **type,
                               size_t *particles, double *params)
{
  if (!s)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_get_constraint: system is NULL");
  if (c >= s->ncons)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_get_constraint: constraint %zu out of range (%zu constraints)",
                      c, s->ncons);
  const cdyn_constraint *con = &s->cons[c];
  if (!con->live)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_get_constraint: constraint %zu was removed", c);
  if (type)
    *type = con->type;
  if (particles)
    for (unsigned a = 0; a < con->type->nparticles; a++)
      particles[a] = con->p[a];
  if (params)
    for (unsigned k = 0; k < con->type->nparams; k++)
      params[k] = con->params[k];
  return CDYN_OK;
}

int cdyn_constraint_eval(const cdyn_constraint *c, const double *q,
                         const double *v, double t, cdyn_row *rows)
{
  static const double zero[3] = {0, 0, 0};
  const double *x[CDYN_MAX_PARTICLES], *vv[CDYN_MAX_PARTICLES];
  for (unsigned a = 0; a < c->type->nparticles; a++) {
    x[a] = q + 3 * c->p[a];
    vv[a] = v ? v + 3 * c->p[a] : zero;
  }
  /* Every field a type leaves alone reads 0.  The first row (most types
     have one) by an inline store of its fixed size, not a call to memset,
     in this hottest of loops. */
  rows[0].phi = rows[0].phi_t = rows[0].jdotv = rows[0].phi_tt = 0;
  for (unsigned a = 0; a < CDYN_MAX_PARTICLES; a++)
    rows[0].jac[a][0] = rows[0].jac[a][1] = rows[0].jac[a][2] = 0;
  if (c->type->rows > 1)
    memset(rows + 1, 0, (c->type->rows - 1) * sizeof *rows);
  return c->type->eval(c->params, x, vv, t, rows);
}

int cdyn_constraint_hess(const cdyn_constraint *c, const double *q, double t, const double *lambda, double *K)
{
  const double *x[CDYN_MAX_PARTICLES];
  for (unsigned a = 0; a < c->type->nparticles; a++)
    x[a] = q + 3 * c->p[a];
  if (!c->type->hess)
    return cdyn_constraint_fd_hess(c->type, c->params, x, t, lambda, K);
  return c->type->hess(c->params, x, t, lambda, K);
}

int cdyn_system_constraint_values(const cdyn_system *s, double *phi)
{
  CHECK_SYS(s);
  if (!phi && s->m)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_constraint_values: phi is NULL");
  cdyn_row rows[CDYN_MAX_ROWS];
  size_t row = 0;
  for (size_t k = 0; k < s->ncons; k++) {
    const cdyn_constraint *c = &s->cons[k];
    if (!c->live || !c->enabled)
      continue;
    int rc = cdyn_constraint_eval(c, s->q, s->v, s->t, rows);
    if (rc)
      return rc;
    for (unsigned r = 0; r < c->type->rows; r++)
      phi[row++] = rows[r].phi;
  }
  if (!cdyn_all_finite(phi, row))
    return cdyn_error(CDYN_ENONFINITE, "cdyn_system_constraint_values: a value overflowed at t = %g", s->t);
  return CDYN_OK;
}

int cdyn_system_constraint_error(const cdyn_system *s, double *e)
{
  CHECK_SYS(s);
  if (!e)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_constraint_error: e is NULL");
  cdyn_row rows[CDYN_MAX_ROWS];
  double sum = 0;
  for (size_t k = 0; k < s->ncons; k++) {
    const cdyn_constraint *c = &s->cons[k];
    if (!c->live || !c->enabled)
      continue;
    int rc = cdyn_constraint_eval(c, s->q, s->v, s->t, rows);
    if (rc)
      return rc;
    double ss = 0;
    for (unsigned r = 0; r < c->type->rows; r++) {
      /* An inequality row is in error only when violated. */
      double e_r = c->inequality ? fmin(rows[r].phi, 0.0) : rows[r].phi;
      ss += e_r * e_r;
    }
    sum += sqrt(ss);
  }
  if (!isfinite(sum))
    return cdyn_error(CDYN_ENONFINITE, "cdyn_system_constraint_error: the error overflowed at t = %g", s->t);
  *e = sum;
  return CDYN_OK;
}

int cdyn_system_energy(const cdyn_system *s, double *kinetic, double *potential)
{
  CHECK_SYS(s);
  double T = 0, V = 0;
  for (size_t i = 0; i < s->n; i++) {
    const double *x = s->q + 3 * i, *v = s->v + 3 * i;
    T += 0.5 * s->mass[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    V -= s->mass[i] * (s->gravity[0] * x[0] + s->gravity[1] * x[1] + s->gravity[2] * x[2]);
  }
  for (size_t k = 0; k < s->nsprings; k++) {
    const cdyn_spring *sp = &s->springs[k];
    if (!sp->enabled)
      continue;
    const double *xi = s->q + 3 * sp->i, *xj = s->q + 3 * sp->j;
    double d[3] = {xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]};
    double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    V += 0.5 * sp->k * (r - sp->rest) * (r - sp->rest);
  }
  if (!isfinite(T) || !isfinite(V))
    return cdyn_error(CDYN_ENONFINITE, "cdyn_system_energy: the energy overflowed at t = %g (T = %g, V = %g)", s->t,
                      T, V);
  if (kinetic)
    *kinetic = T;
  if (potential)
    *potential = V;
  return CDYN_OK;
}

int cdyn_system_momentum(const cdyn_system *s, double p[3])
{
  CHECK_SYS(s);
  if (!p)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_momentum: p is NULL");
  double P[3] = {0, 0, 0};
  for (size_t i = 0; i < s->n; i++)
    for (int d = 0; d < 3; d++)
      P[d] += s->mass[i] * s->v[3 * i + d];
  if (!cdyn_all_finite(P, 3))
    return cdyn_error(CDYN_ENONFINITE, "cdyn_system_momentum: the momentum overflowed at t = %g", s->t);
  memcpy(p, P, sizeof P);
  return CDYN_OK;
}

/* ---- inequality constraints (cdyn/contact.h) ---------------------------------- */

int cdyn_system_set_inequality(cdyn_system *s, size_t c, int on)
{
  CHECK_SYS(s);
  if (c >= s->ncons)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_set_inequality: constraint %zu out of range (%zu constraints)",
                      c, s->ncons);
  cdyn_constraint *con = &s->cons[c];
  if (!con->live)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_set_inequality: constraint %zu was removed", c);
  int flag = on != 0;
  if (con->inequality == flag)
    return CDYN_OK;
  con->inequality = flag;
  if (con->enabled) {
    if (flag)
      s->m_ineq += con->type->rows;
    else
      s->m_ineq -= con->type->rows;
  }
  s->version++;
  return CDYN_OK;
}

int cdyn_system_is_inequality(const cdyn_system *s, size_t c, int *on)
{
  CHECK_SYS(s);
  if (!on)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_is_inequality: on is NULL");
  if (c >= s->ncons || !s->cons[c].live)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_is_inequality: constraint %zu out of range or removed (%zu ids)",
                      c, s->ncons);
  *on = s->cons[c].inequality;
  return CDYN_OK;
}

size_t cdyn_system_inequality_rows(const cdyn_system *s) { return s ? s->m_ineq : 0; }

/* Add a constraint and flag it, or add nothing. */
static int add_flagged(cdyn_system *s, const cdyn_constraint_type *type, const size_t *p,
                       const double *params, size_t *id)
{
  size_t c;
  int rc = cdyn_system_add_constraint(s, type, p, params, &c);
  if (rc)
    return rc;
  s->cons[c].inequality = 1;
  s->m_ineq += type->rows;
  s->version++;
  if (id)
    *id = c;
  return CDYN_OK;
}

int cdyn_system_add_wall(cdyn_system *s, size_t i, const double p[3], const double n[3], size_t *id)
{
  CHECK_SYS(s);
  if (!p || !n)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_add_wall: point or normal is NULL");
  double params[6] = {p[0], p[1], p[2], n[0], n[1], n[2]};
  return add_flagged(s, cdyn_constraint_halfspace, &i, params, id);
}

int cdyn_system_add_separation(cdyn_system *s, size_t i, size_t j, double d, size_t *id)
{
  CHECK_SYS(s);
  if (!isfinite(d) || !(d > 0))
    return cdyn_error(CDYN_EINVAL, "cdyn_system_add_separation: distance d = %g must be finite and > 0", d);
  size_t p[2] = {i, j};
  return add_flagged(s, cdyn_constraint_distance, p, &d, id);
}

int cdyn_system_penetration(const cdyn_system *s, double *pen)
{
  CHECK_SYS(s);
  if (!pen)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_penetration: pen is NULL");
  cdyn_row rows[CDYN_MAX_ROWS];
  double sum = 0;
  for (size_t k = 0; k < s->ncons; k++) {
    const cdyn_constraint *c = &s->cons[k];
    if (!c->live || !c->enabled || !c->inequality)
      continue;
    int rc = cdyn_constraint_eval(c, s->q, s->v, s->t, rows);
    if (rc)
      return rc;
    for (unsigned r = 0; r < c->type->rows; r++)
      if (rows[r].phi < 0)
        sum -= rows[r].phi;
  }
  if (!isfinite(sum))
    return cdyn_error(CDYN_ENONFINITE, "cdyn_system_penetration: the penetration overflowed at t = %g", s->t);
  *pen = sum;
  return CDYN_OK;
}

/* ---- constraint sets that change ------------------------------------------------ */

int cdyn_system_reserve(cdyn_system *s, size_t constraints, size_t rows, size_t springs)
{
  CHECK_SYS(s);
  if (constraints > (size_t)1 << 40 || rows > (size_t)1 << 40 || springs > (size_t)1 << 40)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_reserve: %zu constraints, %zu rows, %zu springs is too many",
                      constraints, rows, springs);
  int rc = grow_slots(s, constraints);
  if (rc)
    return rc;
  if (springs > s->cap_springs) {
    cdyn_spring *p = realloc(s->springs, springs * sizeof *p);
    if (!p)
      return cdyn_error(CDYN_ENOMEM, "cdyn_system_reserve: out of memory for %zu springs", springs);
    s->springs = p;
    s->cap_springs = springs;
  }
  if (rows > s->cap_rows) {
    s->cap_rows = rows;
    s->version++;
  }
  return CDYN_OK;
}

/* The constraint c, or an error naming `fn` when it is out of range or removed. */
static int live_constraint(const cdyn_system *s, size_t c, const char *fn)
{
  if (c >= s->ncons)
    return cdyn_error(CDYN_EINVAL, "%s: constraint %zu out of range (%zu ids)", fn, c, s->ncons);
  if (!s->cons[c].live)
    return cdyn_error(CDYN_EINVAL, "%s: constraint %zu was removed", fn, c);
  return CDYN_OK;
}

int cdyn_system_enable_constraint(cdyn_system *s, size_t c, int on)
{
  CHECK_SYS(s);
  int rc = live_constraint(s, c, __func__);
  if (rc)
    return rc;
  cdyn_constraint *con = &s->cons[c];
  int flag = on != 0;
  if (con->enabled == flag)
    return CDYN_OK;
  con->enabled = flag;
  size_t rows = con->type->rows;
  if (flag) {
    s->m += rows;
    if (con->inequality)
      s->m_ineq += rows;
  } else {
    s->m -= rows;
    if (con->inequality)
      s->m_ineq -= rows;
  }
  s->version++;
  return CDYN_OK;
}

int cdyn_system_constraint_enabled(const cdyn_system *s, size_t c, int *on)
{
  CHECK_SYS(s);
  if (!on)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_constraint_enabled: on is NULL");
  int rc = live_constraint(s, c, __func__);
  if (rc)
    return rc;
  *on = s->cons[c].enabled;
  return CDYN_OK;
}

int cdyn_system_remove_constraint(cdyn_system *s, size_t c)
{
  CHECK_SYS(s);
  int rc = live_constraint(s, c, __func__);
  if (rc)
    return rc;
  cdyn_constraint *con = &s->cons[c];
  if ((rc = cdyn_system_enable_constraint(s, c, 0)))
    return rc;
  if (con->spring != CDYN_NONE)
    s->springs[con->spring].constraint = CDYN_NONE;
  s->rows_live -= con->type->rows;
  con->live = 0;
  con->inequality = 0;
  s->vacant[s->nvacant++] = c;
  s->version++;
  return CDYN_OK;
}

int cdyn_system_constraint_row(const cdyn_system *s, size_t c, size_t *row)
{
  CHECK_SYS(s);
  if (!row)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_constraint_row: row is NULL");
  int rc = live_constraint(s, c, __func__);
  if (rc)
    return rc;
  if (!s->cons[c].enabled)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_constraint_row: constraint %zu is switched off", c);
  size_t r = 0;
  for (size_t k = 0; k < c; k++)
    if (s->cons[k].live && s->cons[k].enabled)
      r += s->cons[k].type->rows;
  *row = r;
  return CDYN_OK;
}

size_t cdyn_system_live_constraints(const cdyn_system *s)
{
  return s ? s->ncons - s->nvacant : 0;
}

static int spring_index(const cdyn_system *s, size_t k, const char *fn)
{
  if (k >= s->nsprings)
    return cdyn_error(CDYN_EINVAL, "%s: spring %zu out of range (%zu springs)", fn, k, s->nsprings);
  return CDYN_OK;
}

int cdyn_system_enable_spring(cdyn_system *s, size_t k, int on)
{
  CHECK_SYS(s);
  int rc = spring_index(s, k, __func__);
  if (rc)
    return rc;
  int flag = on != 0;
  if (s->springs[k].enabled == flag)
    return CDYN_OK;
  s->springs[k].enabled = flag;
  s->version++;
  s->force_version++;
  return CDYN_OK;
}

int cdyn_system_spring_enabled(const cdyn_system *s, size_t k, int *on)
{
  CHECK_SYS(s);
  if (!on)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_spring_enabled: on is NULL");
  int rc = spring_index(s, k, __func__);
  if (rc)
    return rc;
  *on = s->springs[k].enabled;
  return CDYN_OK;
}

int cdyn_system_set_constraint_params(cdyn_system *s, size_t c, const double *params)
{
  CHECK_SYS(s);
  int rc = live_constraint(s, c, __func__);
  if (rc)
    return rc;
  const cdyn_constraint_type *type = s->cons[c].type;
  if (type->nparams && !params)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_set_constraint_params: params is NULL");
  for (unsigned k = 0; k < type->nparams; k++)
    if (!isfinite(params[k]))
      return cdyn_error(CDYN_EINVAL, "cdyn_system_set_constraint_params: parameter %u is not finite", k);
  if (type->check && (rc = type->check(params)))
    return rc;
  memcpy(s->cons[c].params, params, type->nparams * sizeof *params);
  return CDYN_OK;
}

int cdyn_system_get_spring(const cdyn_system *s, size_t k, size_t *i, size_t *j, double *stiffness, double *damping,
                           double *rest)
{
  CHECK_SYS(s);
  int rc = spring_index(s, k, __func__);
  if (rc)
    return rc;
  const cdyn_spring *sp = &s->springs[k];
  if (i)
    *i = sp->i;
  if (j)
    *j = sp->j;
  if (stiffness)
    *stiffness = sp->k;
  if (damping)
    *damping = sp->c;
  if (rest)
    *rest = sp->rest;
  return CDYN_OK;
}

int cdyn_system_spring_to_constraint(cdyn_system *s, size_t k, double L, size_t *id)
{
  CHECK_SYS(s);
  int rc = spring_index(s, k, __func__);
  if (rc)
    return rc;
  cdyn_spring *sp = &s->springs[k];
  if (!sp->enabled || sp->constraint != CDYN_NONE)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_spring_to_constraint: spring %zu is %s", k,
                      sp->constraint != CDYN_NONE ? "a constraint already" : "switched off");
  size_t c;
  if ((rc = cdyn_system_add_distance(s, sp->i, sp->j, L, &c)))
    return rc;
  s->cons[c].spring = k;
  sp->constraint = c;
  sp->enabled = 0;
  s->force_version++;
  if (id)
    *id = c;
  return CDYN_OK;
}

int cdyn_system_constraint_to_spring(cdyn_system *s, size_t c, size_t *spring)
{
  CHECK_SYS(s);
  int rc = live_constraint(s, c, __func__);
  if (rc)
    return rc;
  size_t k = s->cons[c].spring;
  if (k == CDYN_NONE)
    return cdyn_error(CDYN_EINVAL, "cdyn_system_constraint_to_spring: constraint %zu did not come from a spring",
                      c);
  if ((rc = cdyn_system_remove_constraint(s, c)))
    return rc;
  s->springs[k].enabled = 1;
  s->force_version++;
  if (spring)
    *spring = k;
  return CDYN_OK;
}
