/*
 * cloth.c: the mass-spring cloth patch of cdyn/cloth.h (000 fig. 1 and
 * 001 fig. 6 hang such a patch by two corners; doc/cloth.md, "The cloth
 * model").
 *
 * Node (i, j) -> index j nx + i, at x0 + (i / (nx - 1)) u + (j / (ny - 1)) v.
 * Springs (Provot 1995), with rest length their starting length L0:
 *   structural  (i, j)-(i+1, j), (i, j)-(i, j+1)
 *   shear       (i, j)-(i+1, j+1), (i+1, j)-(i, j+1)
 *   bend        (i, j)-(i+2, j), (i, j)-(i, j+2)
 *   f_i = -(k (r - L0) + c (v_ij . n)) n,  n = x_ij / r   (system.c)
 * in that order, each kind contiguous.  Counts: structural
 * (nx - 1) ny + nx (ny - 1), shear 2 (nx - 1)(ny - 1), bend
 * (nx - 2) ny + nx (ny - 2).  Triangles: 2 (nx - 1)(ny - 1), the quad
 * (i, j) split along (i, j)-(i+1, j+1) when i + j is even and along
 * (i+1, j)-(i, j+1) when odd, each counterclockwise about u x v.  Edges:
 * the structural ones and one diagonal per quad,
 * (nx - 1) ny + nx (ny - 1) + (nx - 1)(ny - 1).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cdyn/cloth.h"
#include "core/internal.h"
#include "constraints/vec3.h"

struct cdyn_cloth {
  size_t nx, ny;
  size_t *tri, ntri;   /* 3 ntri */
  size_t *edge, nedge; /* 2 nedge */
  size_t first[CDYN_SPRING_KINDS], count[CDYN_SPRING_KINDS];
};

void cdyn_cloth_free(cdyn_cloth *c)
{
  if (!c)
    return;
  free(c->tri);
  free(c->edge);
  free(c);
}

static int finite3(const double *x) { return isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]); }

static int check_spec(const cdyn_cloth_spec *s)
{
  if (s->nx < 2 || s->ny < 2)
    return cdyn_error(CDYN_EINVAL, "cdyn_cloth_new: a cloth needs at least 2 x 2 nodes, not %zu x %zu", s->nx,
                      s->ny);
  if (s->nx > 100000 || s->ny > 100000 || s->nx * s->ny > 10000000 || s->extra > 10000000)
    return cdyn_error(CDYN_EINVAL, "cdyn_cloth_new: %zu x %zu nodes (+ %zu) is too large", s->nx, s->ny, s->extra);
  if (!finite3(s->origin) || !finite3(s->u) || !finite3(s->v))
    return cdyn_error(CDYN_EINVAL, "cdyn_cloth_new: origin, u and v must be finite");
  double n[3];
  cdyn_cross3(s->u, s->v, n);
  double un = sqrt(cdyn_dot3(s->u, s->u)), vn = sqrt(cdyn_dot3(s->v, s->v));
  if (!(sqrt(cdyn_dot3(n, n)) > 1e-12 * un * vn) || !(un > 0) || !(vn > 0))
    return cdyn_error(CDYN_EINVAL, "cdyn_cloth_new: u and v span no patch (zero or parallel)");
  if (!(s->mass > 0) || !isfinite(s->mass))
    return cdyn_error(CDYN_EINVAL, "cdyn_cloth_new: mass %g must be finite and > 0", s->mass);
  const double k[4] = {s->k_struct, s->k_shear, s->k_bend, s->damping};
  const char *names[4] = {"k_struct", "k_shear", "k_bend", "damping"};
  for (int i = 0; i < 4; i++)
    if (!(k[i] >= 0) || !isfinite(k[i]))
      return cdyn_error(CDYN_EINVAL, "cdyn_cloth_new: %s = %g must be finite and >= 0", names[i], k[i]);
  if (s->npins && !s->pins)
    return cdyn_error(CDYN_EINVAL, "cdyn_cloth_new: %zu pins but no list", s->npins);
  for (size_t a = 0; a < s->npins; a++) {
    if (s->pins[a] >= s->nx * s->ny)
      return cdyn_error(CDYN_EINVAL, "cdyn_cloth_new: pin %zu is node %zu, out of range (%zu nodes)", a, s->pins[a],
                        s->nx * s->ny);
    for (size_t b = 0; b < a; b++)
      if (s->pins[b] == s->pins[a])
        return cdyn_error(CDYN_EINVAL, "cdyn_cloth_new: node %zu is pinned twice", s->pins[a]);
  }
  return CDYN_OK;
}

static int add_spring(cdyn_system *sys, size_t a, size_t b, double k, double c)
{
  const double *q = cdyn_system_positions(sys);
  double d[3];
  cdyn_sub3(q + 3 * a, q + 3 * b, d);
  return cdyn_system_add_spring(sys, a, b, k, c, sqrt(cdyn_dot3(d, d)), NULL);
}

int cdyn_cloth_new(cdyn_cloth **cloth, cdyn_system **sys, const cdyn_cloth_spec *spec)
{
  if (!cloth || !sys || !spec)
    return cdyn_error(CDYN_EINVAL, "cdyn_cloth_new: NULL argument");
  *cloth = NULL;
  *sys = NULL;
  int rc = check_spec(spec);
  if (rc)
    return rc;
  size_t nx = spec->nx, ny = spec->ny, nodes = nx * ny;
  cdyn_cloth *c = calloc(1, sizeof *c);
  cdyn_system *s = NULL;
  if (!c)
    return cdyn_error(CDYN_ENOMEM, "cdyn_cloth_new: out of memory");
  c->nx = nx;
  c->ny = ny;
  c->ntri = 2 * (nx - 1) * (ny - 1);
  c->nedge = (nx - 1) * ny + nx * (ny - 1) + (nx - 1) * (ny - 1);
  c->tri = malloc(3 * c->ntri * sizeof *c->tri);
  c->edge = malloc(2 * c->nedge * sizeof *c->edge);
  if (!c->tri || !c->edge) {
    size_t ntri = c->ntri;
    cdyn_cloth_free(c);
    return cdyn_error(CDYN_ENOMEM, "cdyn_cloth_new: out of memory for %zu triangles", ntri);
  }
  if ((rc = cdyn_system_new(&s, nodes + spec->extra))) {
    cdyn_cloth_free(c);
    return rc;
  }
  double m = spec->mass / (double)nodes;
  for (size_t j = 0; j < ny && !rc; j++)
    for (size_t i = 0; i < nx && !rc; i++) {
      double a = (double)i / (double)(nx - 1), b = (double)j / (double)(ny - 1), x[3];
      for (int d = 0; d < 3; d++)
        x[d] = spec->origin[d] + a * spec->u[d] + b * spec->v[d];
      if (!(rc = cdyn_system_set_position(s, j * nx + i, x)))
        rc = cdyn_system_set_mass(s, j * nx + i, m);
    }
  /* Springs, kind by kind. */
  const double k[CDYN_SPRING_KINDS] = {spec->k_struct, spec->k_shear, spec->k_bend};
  for (int kind = 0; kind < CDYN_SPRING_KINDS && !rc; kind++) {
    c->first[kind] = cdyn_system_spring_count(s);
    if (k[kind] > 0)
      for (size_t j = 0; j < ny && !rc; j++)
        for (size_t i = 0; i < nx && !rc; i++) {
          size_t p = j * nx + i;
          if (kind == CDYN_SPRING_STRUCT) {
            if (i + 1 < nx)
              rc = add_spring(s, p, p + 1, k[kind], spec->damping);
            if (!rc && j + 1 < ny)
              rc = add_spring(s, p, p + nx, k[kind], spec->damping);
          } else if (kind == CDYN_SPRING_SHEAR) {
            if (i + 1 < nx && j + 1 < ny) {
              rc = add_spring(s, p, p + nx + 1, k[kind], spec->damping);
              if (!rc)
                rc = add_spring(s, p + 1, p + nx, k[kind], spec->damping);
            }
          } else {
            if (i + 2 < nx)
              rc = add_spring(s, p, p + 2, k[kind], spec->damping);
            if (!rc && j + 2 < ny)
              rc = add_spring(s, p, p + 2 * nx, k[kind], spec->damping);
          }
        }
    c->count[kind] = cdyn_system_spring_count(s) - c->first[kind];
  }
  for (size_t a = 0; a < spec->npins && !rc; a++)
    rc = cdyn_system_add_pin(s, spec->pins[a], cdyn_system_positions(s) + 3 * spec->pins[a], NULL);
  if (rc) {
    cdyn_system_free(s);
    cdyn_cloth_free(c);
    return rc;
  }
  /* Triangles and edges. */
  size_t t = 0, e = 0;
  for (size_t j = 0; j < ny; j++)
    for (size_t i = 0; i < nx; i++) {
      size_t p = j * nx + i;
      if (i + 1 < nx) {
        c->edge[2 * e] = p;
        c->edge[2 * e++ + 1] = p + 1;
      }
      if (j + 1 < ny) {
        c->edge[2 * e] = p;
        c->edge[2 * e++ + 1] = p + nx;
      }
      if (i + 1 < nx && j + 1 < ny) {
        size_t p00 = p, p10 = p + 1, p01 = p + nx, p11 = p + nx + 1;
        size_t *T = c->tri + 3 * t;
        if ((i + j) % 2 == 0) {
          const size_t tris[6] = {p00, p10, p11, p00, p11, p01};
          memcpy(T, tris, sizeof tris);
          c->edge[2 * e] = p00;
          c->edge[2 * e++ + 1] = p11;
        } else {
          const size_t tris[6] = {p00, p10, p01, p10, p11, p01};
          memcpy(T, tris, sizeof tris);
          c->edge[2 * e] = p10;
          c->edge[2 * e++ + 1] = p01;
        }
        t += 2;
      }
    }
  *cloth = c;
  *sys = s;
  return CDYN_OK;
}

int cdyn_cloth_node(const cdyn_cloth *c, size_t i, size_t j, size_t *node)
{
  if (!c || !node)
    return cdyn_error(CDYN_EINVAL, "cdyn_cloth_node: NULL argument");
  if (i >= c->nx || j >= c->ny)
    return cdyn_error(CDYN_EINVAL, "cdyn_cloth_node: (%zu, %zu) is outside the %zu x %zu nodes", i, j, c->nx, c->ny);
  *node = j * c->nx + i;
  return CDYN_OK;
}

int cdyn_cloth_triangles(const cdyn_cloth *c, const size_t **tri, size_t *count)
{
  if (!c || !tri || !count)
    return cdyn_error(CDYN_EINVAL, "cdyn_cloth_triangles: NULL argument");
  *tri = c->tri;
  *count = c->ntri;
  return CDYN_OK;
}

int cdyn_cloth_edges(const cdyn_cloth *c, const size_t **edge, size_t *count)
{
  if (!c || !edge || !count)
    return cdyn_error(CDYN_EINVAL, "cdyn_cloth_edges: NULL argument");
  *edge = c->edge;
  *count = c->nedge;
  return CDYN_OK;
}

int cdyn_cloth_springs(const cdyn_cloth *c, enum cdyn_spring_kind kind, size_t *first, size_t *count)
{
  if (!c || !first || !count)
    return cdyn_error(CDYN_EINVAL, "cdyn_cloth_springs: NULL argument");
  if ((int)kind < 0 || kind >= CDYN_SPRING_KINDS)
    return cdyn_error(CDYN_EINVAL, "cdyn_cloth_springs: no spring kind %d", (int)kind);
  *first = c->first[kind];
  *count = c->count[kind];
  return CDYN_OK;
}
