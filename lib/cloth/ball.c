/*
 * ball.c: a heavy ball the cloth's nodes are kept out of (000 fig 1,
 * 001 fig 6; cdyn/cloth.h).
 *
 * Per node, the separation constraint of the contact machinery,
 *   g = |x_node - x_ball| - d >= 0,   d = radius + thickness,
 *   J = [n^T, -n^T],  n = (x_node - x_ball) / |x_node - x_ball|,
 * enforced in one of three ways:
 *   SWITCH      as an equality while active (001's non-penetration
 *               constraints): on before a step when g <= 0 or
 *               g + h n.(v_node - v_ball) <= 0 (it would reach the ball
 *               within the step at its current approach speed); off after
 *               the step when lambda > release (it pulls the node towards
 *               the ball: in the library's convention M qdd + J^T lambda =
 *               F, lambda > 0 is tension);
 *   INEQUALITY  as inequality rows, for the scheme "contact";
 *   PROJECT     after a step: g < 0 -> x_node = x_ball + d n, and an
 *               approaching relative normal velocity u = n.(v_node - v_ball)
 *               < 0 is removed, v_node -= u n; a free ball (a particle
 *               with no enabled constraint but these) takes the opposite
 *               momentum, v_ball += sum m_node u n / m_ball, so momentum is
 *               conserved in the exchange.
 * Nodes are visited in the order given, so runs are bitwise reproducible;
 * no function allocates but cdyn_ball_new.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cdyn/cloth.h"
#include "core/internal.h"

struct cdyn_ball {
  cdyn_system *sys;
  cdyn_ball_opts o;
  size_t ball, n;
  size_t *node;      /* n */
  size_t *con;       /* n: the node's separation constraint */
  unsigned char *on; /* n: on (SWITCH) */
  cdyn_ball_counts counts;
};

void cdyn_ball_free(cdyn_ball *b)
{
  if (!b)
    return;
  free(b->node);
  free(b->con);
  free(b->on);
  free(b);
}

int cdyn_ball_new(cdyn_ball **out, cdyn_system *sys, size_t ball, const size_t *nodes, size_t count,
                  const cdyn_ball_opts *o)
{
  if (!out || !sys || !o || (count && !nodes))
    return cdyn_error(CDYN_EINVAL, "cdyn_ball_new: NULL argument");
  *out = NULL;
  if (!(o->radius > 0) || !isfinite(o->radius))
    return cdyn_error(CDYN_EINVAL, "cdyn_ball_new: radius = %g must be finite and > 0", o->radius);
  if (!(o->thickness >= 0) || !isfinite(o->thickness))
    return cdyn_error(CDYN_EINVAL, "cdyn_ball_new: thickness = %g must be finite and >= 0", o->thickness);
  if (!(o->release >= 0) || !isfinite(o->release))
    return cdyn_error(CDYN_EINVAL, "cdyn_ball_new: release = %g must be finite and >= 0", o->release);
  if (o->mode != CDYN_BALL_SWITCH && o->mode != CDYN_BALL_INEQUALITY && o->mode != CDYN_BALL_PROJECT)
    return cdyn_error(CDYN_EINVAL, "cdyn_ball_new: unknown mode %d", o->mode);
  if (ball >= sys->n)
    return cdyn_error(CDYN_EINVAL, "cdyn_ball_new: the ball is particle %zu, out of range (%zu particles)", ball,
                      sys->n);
  for (size_t a = 0; a < count; a++) {
    if (nodes[a] >= sys->n)
      return cdyn_error(CDYN_EINVAL, "cdyn_ball_new: node %zu is particle %zu, out of range (%zu particles)", a,
                        nodes[a], sys->n);
    if (nodes[a] == ball)
      return cdyn_error(CDYN_EINVAL, "cdyn_ball_new: node %zu is the ball itself (particle %zu)", a, ball);
  }
  cdyn_ball *b = calloc(1, sizeof *b);
  if (!b)
    return cdyn_error(CDYN_ENOMEM, "cdyn_ball_new: out of memory");
  b->sys = sys;
  b->o = *o;
  b->ball = ball;
  b->n = count;
  b->node = malloc((count + 1) * sizeof(size_t));
  b->con = malloc((count + 1) * sizeof(size_t));
  b->on = calloc(count + 1, 1);
  if (!b->node || !b->con || !b->on) {
    cdyn_ball_free(b);
    return cdyn_error(CDYN_ENOMEM, "cdyn_ball_new: out of memory");
  }
  if (count)
    memcpy(b->node, nodes, count * sizeof(size_t));
  if (o->mode != CDYN_BALL_PROJECT) {
    double d = o->radius + o->thickness;
    for (size_t a = 0; a < count; a++) {
      int rc = cdyn_system_add_separation(sys, nodes[a], ball, d, &b->con[a]);
      if (!rc && o->mode == CDYN_BALL_SWITCH)
        if (!(rc = cdyn_system_set_inequality(sys, b->con[a], 0)))
          rc = cdyn_system_enable_constraint(sys, b->con[a], 0);
      if (rc) {
        for (size_t k = 0; k < a; k++)
          cdyn_system_remove_constraint(sys, b->con[k]);
        cdyn_ball_free(b);
        return rc;
      }
    }
  }
  *out = b;
  return CDYN_OK;
}

/* g, n and the relative normal velocity of node a. */
static int gap(const cdyn_ball *b, size_t a, double *g, double n[3], double *u)
{
  const double *q = b->sys->q, *v = b->sys->v;
  size_t i = b->node[a], c = b->ball;
  double dx[3] = {q[3 * i] - q[3 * c], q[3 * i + 1] - q[3 * c + 1], q[3 * i + 2] - q[3 * c + 2]};
  double r = sqrt(dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2]);
  if (!(r > 0) || !isfinite(r))
    return cdyn_error(r == 0 ? CDYN_EDEGENERATE : CDYN_ENONFINITE,
                      "cdyn_ball: node %zu (particle %zu) is at the ball's centre or not finite", a, i);
  *u = 0;
  for (int k = 0; k < 3; k++) {
    n[k] = dx[k] / r;
    *u += n[k] * (v[3 * i + k] - v[3 * c + k]);
  }
  *g = r - (b->o.radius + b->o.thickness);
  return CDYN_OK;
}

int cdyn_ball_before(cdyn_ball *b, double h)
{
  if (!b || !(h > 0) || !isfinite(h))
    return cdyn_error(CDYN_EINVAL, "cdyn_ball_before: NULL ball or h = %g not > 0", b ? h : 0.0);
  size_t act = 0;
  if (b->o.mode == CDYN_BALL_SWITCH)
    for (size_t a = 0; a < b->n; a++) {
      if (b->on[a])
        continue;
      double g, n[3], u;
      int rc = gap(b, a, &g, n, &u);
      if (rc)
        return rc;
      if (g <= 0 || g + h * u <= 0) {
        if ((rc = cdyn_system_enable_constraint(b->sys, b->con[a], 1)))
          return rc;
        b->on[a] = 1;
        act++;
      }
    }
  b->counts.activated = act;
  b->counts.active += act;
  return CDYN_OK;
}

/* Has the ball an enabled constraint other than the separations? */
static int ball_held(const cdyn_ball *b)
{
  const cdyn_system *s = b->sys;
  for (size_t k = 0; k < s->ncons; k++) {
    const cdyn_constraint *c = &s->cons[k];
    if (!c->live || !c->enabled)
      continue;
    for (unsigned p = 0; p < c->type->nparticles; p++)
      if (c->p[p] == b->ball)
        return 1;
  }
  return 0;
}

int cdyn_ball_after(cdyn_ball *b, const cdyn_stepper *st, double h)
{
  if (!b || !(h > 0) || !isfinite(h))
    return cdyn_error(CDYN_EINVAL, "cdyn_ball_after: NULL ball or h = %g not > 0", b ? h : 0.0);
  int rc;
  if (b->o.mode == CDYN_BALL_SWITCH) {
    if (!st)
      return cdyn_error(CDYN_EINVAL, "cdyn_ball_after: NULL stepper (mode switch reads its multipliers)");
    size_t rel = 0;
    for (size_t a = 0; a < b->n; a++) {
      if (!b->on[a])
        continue;
      double lambda;
      size_t rows;
      if ((rc = cdyn_stepper_constraint_multipliers(st, b->con[a], &lambda, &rows)))
        return rc;
      if (lambda > b->o.release) {
        if ((rc = cdyn_system_enable_constraint(b->sys, b->con[a], 0)))
          return rc;
        b->on[a] = 0;
        rel++;
      }
    }
    b->counts.released = rel;
    b->counts.active -= rel;
  } else if (b->o.mode == CDYN_BALL_PROJECT) {
    cdyn_system *s = b->sys;
    double *q = s->q, *v = s->v, dp[3] = {0, 0, 0}, d = b->o.radius + b->o.thickness;
    size_t moved = 0, c = b->ball;
    for (size_t a = 0; a < b->n; a++) {
      double g, n[3], u;
      if ((rc = gap(b, a, &g, n, &u)))
        return rc;
      if (g >= 0)
        continue;
      size_t i = b->node[a];
      for (int k = 0; k < 3; k++)
        q[3 * i + k] = q[3 * c + k] + d * n[k];
      if (u < 0)
        for (int k = 0; k < 3; k++) {
          v[3 * i + k] -= u * n[k];
          dp[k] -= s->mass[i] * u * n[k];
        }
      moved++;
    }
    if (moved && !ball_held(b))
      for (int k = 0; k < 3; k++)
        v[3 * c + k] -= dp[k] * s->winv[c];
    b->counts.active = moved;
  }
  return CDYN_OK;
}

int cdyn_ball_counts_get(const cdyn_ball *b, cdyn_ball_counts *counts)
{
  if (!b || !counts)
    return cdyn_error(CDYN_EINVAL, "cdyn_ball_counts_get: NULL argument");
  *counts = b->counts;
  double depth = 0;
  for (size_t a = 0; a < b->n; a++) {
    double g, n[3], u;
    int rc = gap(b, a, &g, n, &u);
    if (rc)
      return rc;
    depth = fmax(depth, -g);
  }
  counts->depth = depth;
  return CDYN_OK;
}

int cdyn_ball_get(const cdyn_ball *b, size_t *ball, cdyn_ball_opts *opts)
{
  if (!b)
    return cdyn_error(CDYN_EINVAL, "cdyn_ball_get: NULL ball");
  if (ball)
    *ball = b->ball;
  if (opts)
    *opts = b->o;
  return CDYN_OK;
}
