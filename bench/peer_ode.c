/*
 * bench/peer_ode.c: the benchmark problems (problem.h) run in the Open
 * Dynamics Engine, ODE 0.16 in double precision, as a peer of cdyn.
 *
 * Model.  Particle i is an ODE body at x0_i with linear velocity v0_i, no
 * angular velocity and mass m_i (a sphere of radius 0.01 m; its inertia
 * never matters, since every joint acts at body centres and so exerts no
 * torque), under the world's gravity g.  Link k is a double-ball (DBall)
 * joint between the centres of bodies a and b, or between the centre of a
 * and the fixed point p_k, with target distance len_k: one unbounded row
 *     Phi_k = |x_a - x_b| - len_k,   J_k = n^T [I  -I],
 *     n = (x_a - x_b) / |x_a - x_b|.
 *
 * dWorldStep (the variants ode-step-*) is the velocity-level step
 *     v+ = v + h W (F - J^T lambda),     W = M^-1, F = M g,
 *     J v+ = -(ERP/h) Phi                (CFM = 0),
 *     x+ = x + h v+,
 * for which it forms A = J W J^T densely and factors it by LDL^T (all the
 * rows are unbounded, so ODE's LCP solver takes its plain factorisation
 * path).  With ERP = 1 the rows ask Phi + h J v+ = 0, the linearisation of
 * Phi(x+) = 0: the first-order implicit constraint scheme.  ERP = 0.2
 * removes a fifth of the constraint error per step instead.
 *
 * dWorldQuickStep (the variants ode-quick*) solves the same system for
 * lambda by projected successive over-relaxation (Gauss-Seidel sweeps with
 * ODE's default relaxation w = 1.3), starting from lambda = 0 and stopping
 * after a fixed number of sweeps, 20 or 100; ODE's build shuffles the rows'
 * order between sweeps, so each run reseeds ODE's generator to repeat.  Its
 * ERP is ODE's default 0.2: the ODE manual (section "Joint error and the
 * error reduction parameter") advises against ERP = 1 and recommends 0.1
 * to 0.8.
 *
 * Sources: the ODE 0.16 user guide (world stepping, ERP and CFM, the DBall
 * joint) and the ODE 0.16 sources (ode/src/step.cpp, quickstep.cpp, lcp.cpp,
 * joints/dball.cpp, util.cpp).
 *
 * ODE's behaviours that the code works around:
 *   - A DBall joint copies the world's ERP and CFM when it is created, and
 *     setting an anchor recomputes its distance from the bodies' current
 *     positions.  So each joint gets ERP and CFM explicitly, and its
 *     distance is set after its anchors.
 *   - The Debian build keeps ODE's internal assertions, and dDebug aborts
 *     the process once its handler returns; a NaN reaching dNormalize3/4
 *     (a joint's direction, a body's quaternion) is enough.  The state is
 *     checked for finite values after every step, and during a run ODE's
 *     debug and error handlers jump back out of the run, which then ends
 *     with ok = 0 (a singular A, from redundant links, ends so in
 *     dWorldStep).  Each world has its own threading implementation and a
 *     step memory manager that lists its blocks, so that what a jump
 *     strands can be freed; only the implementation itself, about 1 kB, is
 *     kept.  ODE's messages (warnings) are collected into the note.
 *   - dWorldStep reserves per island an m x m matrix A and as much again
 *     for its LCP solver's factor (m rows); an island of more than
 *     PEER_ODE_STEP_MAX_ROWS links is refused up front.
 */
#define _POSIX_C_SOURCE 200809L

#include "peer_ode.h"

#include "cdyn/stepper.h"

#include <ode/ode.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PEER_ODE_RADIUS 0.01          /* m, the bodies' inertia sphere */
#define PEER_ODE_STEP_MAX_ROWS 15000  /* dWorldStep's largest island */

static const struct {
  const char *name;
  int quick;      /* dWorldQuickStep, else dWorldStep */
  int iterations; /* QuickStep sweeps */
  double erp;
} variants[PEER_ODE_VARIANTS] = {
  [PEER_ODE_STEP_ERP1] = {"ode-step-erp1", 0, 0, 1.0},
  [PEER_ODE_STEP_ERP02] = {"ode-step-erp0.2", 0, 0, 0.2},
  [PEER_ODE_QUICK20] = {"ode-quick20", 1, 20, 0.2},
  [PEER_ODE_QUICK100] = {"ode-quick100", 1, 100, 0.2},
};

const char *peer_ode_name(int variant)
{
  if (variant < 0 || variant >= PEER_ODE_VARIANTS)
    return NULL;
  return variants[variant].name;
}

const char *peer_ode_version(void)
{
#ifdef dODE_VERSION
  return dODE_VERSION;
#else
  return "0.16";
#endif
}

static int ode_open;

static void open_ode(void)
{
  if (!ode_open) {
    dInitODE2(0);
    ode_open = 1;
  }
}

void peer_ode_close(void)
{
  if (ode_open) {
    dCloseODE();
    ode_open = 0;
  }
}

/* One run's state.  It lives on the heap because a jump back from ODE's
   handlers (longjmp) leaves the running function's own locals unreliable. */
typedef struct run_state {
  dWorldID world;
  dThreadingImplementationID threads; /* the world's own, self-threaded */
  dBodyID *body;    /* n */
  double *x;        /* 3n, positions for bench_stretch */
  double *v;        /* 3n, linear velocities for an observer */
  long taken;       /* steps done */
  int building;     /* 1 while the world is being built */
  int closing;      /* 1 while the world is being destroyed */
  void **blocks;    /* ODE's step memory now allocated */
  size_t nblocks, capblocks;
  char fatal[120];  /* ODE's error or internal error, if one came */
  char message[96]; /* ODE's first message */
  long messages;
} run_state;

static run_state *active;
static jmp_buf escape;

/* ODE's step memory manager, keeping a list of its blocks: a step left by a
   jump never returns its memory arena to the world, so dWorldDestroy does
   not free it, and the run frees what is left on the list instead. */
static void *step_alloc(dsizeint size)
{
  run_state *s = active;
  if (!s)
    return NULL;
  if (s->nblocks == s->capblocks) {
    size_t cap = s->capblocks ? 2 * s->capblocks : 8;
    void **more = realloc(s->blocks, cap * sizeof *more);
    if (!more)
      return NULL;
    s->blocks = more;
    s->capblocks = cap;
  }
  void *ptr = malloc(size);
  if (ptr)
    s->blocks[s->nblocks++] = ptr;
  return ptr;
}

static void **find_block(run_state *s, void *ptr)
{
  for (size_t i = 0; s && i < s->nblocks; i++)
    if (s->blocks[i] == ptr)
      return &s->blocks[i];
  return NULL;
}

static void *step_shrink(void *ptr, dsizeint size, dsizeint smaller)
{
  void **b = find_block(active, ptr);
  void *moved = realloc(ptr, smaller);
  (void)size;
  if (!moved)
    return ptr; /* still valid, and large enough */
  if (b)
    *b = moved;
  return moved;
}

static void step_free(void *ptr, dsizeint size)
{
  void **b = find_block(active, ptr);
  (void)size;
  if (b)
    *b = active->blocks[--active->nblocks];
  free(ptr);
}

static void on_message(int num, const char *msg, va_list ap)
{
  if (active) {
    if (active->messages++ == 0) {
      int k = snprintf(active->message, sizeof active->message, "%d: ", num);
      if (k > 0 && (size_t)k < sizeof active->message)
        vsnprintf(active->message + k, sizeof active->message - (size_t)k,
                  msg, ap);
    }
  }
}

static void on_fatal(int num, const char *msg, va_list ap)
{
  if (active && !active->closing) {
    int k = snprintf(active->fatal, sizeof active->fatal, "%d: ", num);
    if (k > 0 && (size_t)k < sizeof active->fatal)
      vsnprintf(active->fatal + k, sizeof active->fatal - (size_t)k, msg, ap);
    longjmp(escape, 1);
  }
  /* Not ours: ODE aborts on return, as it would have without us. */
  vfprintf(stderr, msg, ap);
  fputc('\n', stderr);
}

static int finite3(const dReal *v)
{
  return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

/* Copies the bodies' positions into s->x and linear velocities into
   s->v; 0 if a position or velocity is not finite. */
static int gather(run_state *s, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    const dReal *pos = dBodyGetPosition(s->body[i]);
    const dReal *vel = dBodyGetLinearVel(s->body[i]);
    if (!finite3(pos) || !finite3(vel) ||
        !finite3(dBodyGetAngularVel(s->body[i])))
      return 0;
    for (size_t c = 0; c < 3; c++) {
      s->x[3 * i + c] = (double)pos[c];
      s->v[3 * i + c] = (double)vel[c];
    }
  }
  return 1;
}

static int all_finite(const double *v, size_t len)
{
  for (size_t i = 0; i < len; i++)
    if (!isfinite(v[i]))
      return 0;
  return 1;
}

/* 0 if the problem is one this peer can build; else a note. */
static int check_problem(const bench_problem *p, char *note, size_t size)
{
  if (p->n > 0 && (!p->x0 || !p->v0 || !p->mass)) {
    snprintf(note, size, "problem without x0, v0 or mass");
    return -1;
  }
  if (p->links > 0 && (!p->a || !p->b || !p->len)) {
    snprintf(note, size, "problem without a, b or len");
    return -1;
  }
  if (!all_finite(p->g, 3) || !all_finite(p->x0, 3 * p->n) ||
      !all_finite(p->v0, 3 * p->n)) {
    snprintf(note, size, "non-finite g, x0 or v0 in the problem");
    return -1;
  }
  for (size_t i = 0; i < p->n; i++)
    if (!(p->mass[i] > 0) || !isfinite(p->mass[i])) {
      snprintf(note, size, "particle %zu: mass %g is not positive and finite",
               i, p->mass[i]);
      return -1;
    }
  for (size_t k = 0; k < p->links; k++) {
    int a = p->a[k], b = p->b[k];
    if (a < 0 || (size_t)a >= p->n || (b >= 0 && (size_t)b >= p->n) ||
        a == b) {
      snprintf(note, size, "link %zu: bad particles %d, %d", k, a, b);
      return -1;
    }
    /* Zero length: the DBall row's direction is undefined (ODE falls back
       on the relative velocity, then on the x axis). */
    if (!(p->len[k] > 0) || !isfinite(p->len[k])) {
      snprintf(note, size,
               "link %zu: length %g; a DBall joint needs a positive distance",
               k, p->len[k]);
      return -1;
    }
    if (b < 0 && (!p->pin || !all_finite(p->pin + 3 * k, 3))) {
      snprintf(note, size, "link %zu: no finite pin point", k);
      return -1;
    }
  }
  return 0;
}

static size_t find_root(size_t *parent, size_t i)
{
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/* The rows of the largest island dWorldStep meets: links joined through
   shared particles (fixed points join nothing), or (size_t)-1 without
   memory for the count. */
static size_t largest_island(const bench_problem *p)
{
  if (p->n == 0)
    return 0;
  size_t *parent = malloc(p->n * sizeof *parent);
  size_t *rows = calloc(p->n, sizeof *rows);
  size_t most = 0;
  if (!parent || !rows) {
    free(parent);
    free(rows);
    return (size_t)-1;
  }
  for (size_t i = 0; i < p->n; i++)
    parent[i] = i;
  for (size_t k = 0; k < p->links; k++)
    if (p->b[k] >= 0) {
      size_t ra = find_root(parent, (size_t)p->a[k]);
      size_t rb = find_root(parent, (size_t)p->b[k]);
      if (ra != rb)
        parent[ra] = rb;
    }
  for (size_t k = 0; k < p->links; k++) {
    size_t r = find_root(parent, (size_t)p->a[k]);
    if (++rows[r] > most)
      most = rows[r];
  }
  free(parent);
  free(rows);
  return most;
}

/* Builds the world of variant v for p into s->world and s->body; -1
   without memory. */
static int build(const bench_problem *p, int v, run_state *s)
{
  s->threads = dThreadingAllocateSelfThreadedImplementation();
  if (!s->threads)
    return -1;
  dWorldID w = dWorldCreate();
  s->world = w;
  dWorldSetStepThreadingImplementation(
      w, dThreadingImplementationGetFunctions(s->threads), s->threads);
  dWorldStepMemoryFunctionsInfo memory = {sizeof memory, step_alloc,
                                          step_shrink, step_free};
  dWorldSetStepMemoryManager(w, &memory);
  dWorldSetGravity(w, p->g[0], p->g[1], p->g[2]);
  dWorldSetERP(w, variants[v].erp);
  dWorldSetCFM(w, 0);
  dWorldSetAutoDisableFlag(w, 0);
  dWorldSetDamping(w, 0, 0);
  dWorldSetMaxAngularSpeed(w, dInfinity);
  if (variants[v].quick) {
    dWorldSetQuickStepNumIterations(w, variants[v].iterations);
  } else {
    /* Reserve what a step needs and no more (ODE's default adds 20%). */
    dWorldStepReserveInfo reserve = {sizeof reserve, 1.0f,
                                     dWORLDSTEP_RESERVESIZE_DEFAULT};
    dWorldSetStepMemoryReservationPolicy(w, &reserve);
  }

  for (size_t i = 0; i < p->n; i++) {
    const double *x = p->x0 + 3 * i, *u = p->v0 + 3 * i;
    dBodyID body = dBodyCreate(w);
    dMass m;
    s->body[i] = body;
    dBodySetPosition(body, x[0], x[1], x[2]);
    dBodySetLinearVel(body, u[0], u[1], u[2]);
    dBodySetAngularVel(body, 0, 0, 0);
    dMassSetSphereTotal(&m, p->mass[i], PEER_ODE_RADIUS);
    dBodySetMass(body, &m);
    dBodySetAutoDisableFlag(body, 0);
    dBodySetDamping(body, 0, 0);
    dBodySetGravityMode(body, 1);
  }

  for (size_t k = 0; k < p->links; k++) {
    const double *xa = p->x0 + 3 * (size_t)p->a[k];
    const double *xb = p->b[k] >= 0 ? p->x0 + 3 * (size_t)p->b[k]
                                    : p->pin + 3 * k;
    dJointID j = dJointCreateDBall(w, 0);
    dJointAttach(j, s->body[p->a[k]], p->b[k] >= 0 ? s->body[p->b[k]] : 0);
    dJointSetDBallAnchor1(j, xa[0], xa[1], xa[2]);
    dJointSetDBallAnchor2(j, xb[0], xb[1], xb[2]);
    dJointSetDBallDistance(j, p->len[k]);
    dJointSetDBallParam(j, dParamERP, variants[v].erp);
    dJointSetDBallParam(j, dParamCFM, 0);
  }
  return 0;
}

int peer_ode_run(const bench_problem *p, int variant, double h, long steps,
                 long min_steps, double max_seconds, bench_run *out)
{
  return peer_ode_run_observed(p, variant, h, steps, min_steps, max_seconds,
                               out, NULL, NULL);
}

int peer_ode_run_observed(const bench_problem *p, int variant, double h,
                          long steps, long min_steps, double max_seconds,
                          bench_run *out, peer_ode_observer observe, void *ctx)
{
  memset(out, 0, sizeof *out);
  if (!p || variant < 0 || variant >= PEER_ODE_VARIANTS) {
    snprintf(out->note, sizeof out->note, "no problem, or no variant %d",
             variant);
    return -1;
  }
  if (!(h > 0) || !isfinite(h)) {
    snprintf(out->note, sizeof out->note, "step h = %g", h);
    return -1;
  }
  if (check_problem(p, out->note, sizeof out->note))
    return -1;
  if (!variants[variant].quick) {
    size_t m = largest_island(p);
    if (m == (size_t)-1) {
      snprintf(out->note, sizeof out->note, "out of memory");
      return -1;
    }
    if (m > PEER_ODE_STEP_MAX_ROWS) {
      double pad = (double)(((m - 1) | 3) + 1); /* ODE's row stride */
      double gb = (double)m * pad * sizeof(dReal) / 1e9;
      snprintf(out->note, sizeof out->note,
               "dWorldStep factors a dense m x m matrix: m = %zu needs "
               "%.1f GB (and reserves as much again for its LCP factor)",
               m, gb);
      return -1;
    }
  }

  run_state *s = calloc(1, sizeof *s);
  if (s) {
    s->body = calloc(p->n ? p->n : 1, sizeof *s->body);
    s->x = calloc(p->n ? 3 * p->n : 1, sizeof *s->x);
    s->v = calloc(p->n ? 3 * p->n : 1, sizeof *s->v);
  }
  if (!s || !s->body || !s->x || !s->v) {
    if (s) {
      free(s->body);
      free(s->x);
      free(s->v);
      free(s);
    }
    snprintf(out->note, sizeof out->note, "out of memory");
    return -1;
  }

  open_ode();
  dMessageFunction *old_message = dGetMessageHandler();
  dMessageFunction *old_debug = dGetDebugHandler();
  dMessageFunction *old_error = dGetErrorHandler();
  dSetMessageHandler(on_message);
  dSetDebugHandler(on_fatal);
  dSetErrorHandler(on_fatal);
  active = s;
  out->ok = 1;

  if (setjmp(escape) == 0) {
    s->building = 1;
    if (build(p, variant, s)) {
      out->ok = 0;
      snprintf(out->note, sizeof out->note, "out of memory");
    }
    s->building = 0;
    dRandSetSeed(0);

    if (out->ok && steps <= 0) {
      gather(s, p->n);
      out->stretch_max = out->stretch_end = bench_stretch(p, s->x);
    }
    while (out->ok && s->taken < steps) {
      double t0 = cdyn_clock();
      int done = variants[variant].quick ? dWorldQuickStep(s->world, h)
                                         : dWorldStep(s->world, h);
      double t1 = cdyn_clock();
      s->taken++;
      out->steps = s->taken;
      out->seconds += t1 - t0;
      if (!done) {
        out->ok = 0;
        snprintf(out->note, sizeof out->note,
                 "step %ld: ODE could not allocate its working memory",
                 s->taken);
        break;
      }
      double stretch = gather(s, p->n) ? bench_stretch(p, s->x) : NAN;
      if (!isfinite(stretch)) {
        out->ok = 0;
        snprintf(out->note, sizeof out->note,
                 "step %ld: the state is no longer finite", s->taken);
        break;
      }
      if (stretch > out->stretch_max)
        out->stretch_max = stretch;
      out->stretch_end = stretch;
      if (observe && observe(ctx, s->taken, s->x, s->v))
        break;
      if (s->taken >= min_steps && out->seconds > max_seconds)
        break;
    }
  } else {
    /* Back from ODE's error or debug handler. */
    out->ok = 0;
    out->steps = s->taken;
    if (s->building)
      snprintf(out->note, sizeof out->note, "building: ODE error %s",
               s->fatal);
    else
      snprintf(out->note, sizeof out->note, "step %ld: ODE error %s",
               s->taken + 1, s->fatal);
  }

  s->closing = 1;
  if (s->world)
    dWorldDestroy(s->world);
  /* After a jump out of a step, the threading implementation still lists
     the abandoned step's job, and deleting it would fail ODE's assertion
     (and abort): it is left allocated instead, about 1 kB. */
  if (s->threads && !s->fatal[0])
    dThreadingFreeImplementation(s->threads);
  while (s->nblocks > 0)
    free(s->blocks[--s->nblocks]);
  free(s->blocks);
  active = NULL;
  dSetMessageHandler(old_message);
  dSetDebugHandler(old_debug);
  dSetErrorHandler(old_error);

  if (out->ok && s->messages)
    snprintf(out->note, sizeof out->note, "ODE said %ld message(s), first %s",
             s->messages, s->message);
  free(s->body);
  free(s->x);
  free(s->v);
  free(s);
  return out->ok ? 0 : -1;
}
