/*
 * rundir.c: the reader of a run directory (rundir.h): runs.csv, each
 * run's CSV files and, for a scene run, its scene as run.
 *
 * CSV files are read a record at a time by the program's CSV reader
 * (runner/csv.h), empty lines skipped.  A state CSV is read twice: once to count its frames and
 * particles, once to fill the positions, so that nothing but the result
 * is held.
 *
 * Triangles recovered from springs (a scene as run keeps no cloth
 * patches, and a cloth without contact handling keeps no triangles):
 * every three particles joined pairwise by springs whose starting
 * triangle is not degenerate (area > 1e-6 of its longest edge squared,
 * which drops the straight rows of a bend spring), taken in order and
 * kept unless it shares an edge with a kept triangle whose third corner
 * lies on the same side of that edge (at the starting positions: the
 * two would overlap).  On Provot's layout, where both diagonals of a
 * quad are shear springs, this keeps two triangles a quad.
 */
#define _POSIX_C_SOURCE 200809L
#include "rundir.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cdyn/cdyn.h"
#include "cdyn/scene.h"
#include "runner/text.h"
#include "runner/files.h"
#include "runner/csv.h"
#include "runner/cli.h"

/* ---- strings, paths, arrays ------------------------------------------------------------------------------ */

static int fail(const char *dir, int rc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail(const char *dir, int rc, const char *fmt, ...)
{
  va_list ap;
  fputs("cdyn: ", stderr);
  va_start(ap, fmt);
  exp_vcomplain(dir, rc, fmt, ap);
  va_end(ap);
  return rc;
}


static int size_cmp(const void *a, const void *b)
{
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

/* Pairs (a, b), a < b, compared as such. */
static int pair_cmp(const void *a, const void *b)
{
  const size_t *x = a, *y = b;
  return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] < y[1] ? -1 : x[1] > y[1];
}

static char *join(const char *dir, const char *name)
{
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  if (p)
    snprintf(p, n, "%s/%s", dir, name);
  return p;
}

/* A growing array of size_t / double: one growth rule for both. */
typedef struct zvec {
  size_t *v, n, cap;
  int failed;
} zvec;
typedef struct dvec {
  double *v;
  size_t n, cap;
  int failed;
} dvec;
/* The array v (n used of *cap, elements of `size` bytes) with room for
   one more: v itself, or grown (*cap updated); NULL when out of memory
   (v is then left as it was). */
static void *room(void *v, size_t n, size_t *cap, size_t size)
{
  if (n < *cap)
    return v;
  size_t c = *cap ? 2 * *cap : 64;
  void *p = realloc(v, c * size);
  if (p)
    *cap = c;
  return p;
}
static void zpush(zvec *a, size_t x)
{
  size_t *p = room(a->v, a->n, &a->cap, sizeof *p);
  if (!p) {
    a->failed = 1;
    return;
  }
  a->v = p;
  a->v[a->n++] = x;
}
static void dpush(dvec *a, double x)
{
  double *p = room(a->v, a->n, &a->cap, sizeof *p);
  if (!p) {
    a->failed = 1;
    return;
  }
  a->v = p;
  a->v[a->n++] = x;
}

/* ---- CSV ---------------------------------------------------------------------------------- */

typedef struct csv {
  FILE *f;
  long lineno;         /* the line of the current record */
  exp_csv_record hdr;  /* the header */
  int nhdr;
  exp_csv_record rec;  /* the current record */
  int nf;
  char **fld;          /* its fields */
  int err;             /* the reader's failure (exp_csv_read: -1, -2), 0: none */
} csv;

/* What went wrong with the record csv_next or csv_open refused: the
   reader's failure, else `otherwise` (the record's own fault). */
static const char *csv_why(const csv *c, const char *otherwise)
{
  return c->err == -2 ? "a quoted field is not closed" : c->err ? "a read error, or out of memory" : otherwise;
}

static void csv_close(csv *c)
{
  if (c->f)
    fclose(c->f);
  exp_csv_record_free(&c->hdr);
  exp_csv_record_free(&c->rec);
  memset(c, 0, sizeof *c);
}

/* Open and read the header; 0, or -1 (errno) when unreadable, -2 when
   empty, -3 when the header cannot be read (csv_why says why; c is then
   closed, its err kept). */
static int csv_open(csv *c, const char *path)
{
  memset(c, 0, sizeof *c);
  if (!(c->f = fopen(path, "r")))
    return -1;
  int r = exp_csv_read(c->f, &c->hdr);
  if (r != 1) {
    csv_close(c);
    c->err = r;
    return r == 0 ? -2 : -3;
  }
  c->lineno = 1;
  c->rec.lines = c->hdr.lines;
  c->nhdr = c->hdr.nfields;
  return 0;
}

/* Read the file again from its first record (the header read again);
   0, or -1 for a read error. */
static int csv_rewind(csv *c)
{
  rewind(c->f);
  c->rec.lines = 0;
  if (exp_csv_read(c->f, &c->rec) != 1)
    return -1;
  c->lineno = 1;
  return 0;
}

static int csv_col(const csv *c, const char *name)
{
  for (int k = 0; k < c->nhdr; k++)
    if (!strcmp(c->hdr.field[k], name))
      return k;
  return -1;
}

/* The next record: 1, 0 at the end; -1 for a record whose field count
   differs from the header's, or that cannot be read (csv_why). */
static int csv_next(csv *c)
{
  for (;;) {
    int r = exp_csv_read(c->f, &c->rec);
    if (r == 0)
      return 0;
    c->lineno = c->rec.line;
    if (r < 0) {
      c->err = r;
      return -1;
    }
    if (!c->rec.text.len)
      continue;
    c->nf = c->rec.nfields;
    c->fld = c->rec.field;
    return c->nf == c->nhdr ? 1 : -1;
  }
}

static int num(const char *s, double *x)
{
  char *end;
  errno = 0;
  *x = strtod(s, &end);
  return end != s && !*end && errno != ERANGE;
}

static int index_of(const char *s, size_t *x)
{
  char *end;
  if (*s < '0' || *s > '9')
    return 0;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || errno)
    return 0;
  *x = (size_t)v;
  return 1;
}

/* ---- the runs ----------------------------------------------------------------------------- */

void exp_rundir_free(exp_rundir_run *runs, size_t nruns)
{
  if (!runs)
    return;
  for (size_t k = 0; k < nruns; k++) {
    exp_rundir_run *r = &runs[k];
    free(r->name);
    free(r->csv);
    free(r->state_csv);
    free(r->scene_json);
    free(r->t);
    free(r->x);
    free(r->tris);
    free(r->links);
    free(r->pins);
    free(r->balls);
    free(r->ball_radius);
    free(r->springs);
    free(r->spring_rest);
    free(r->scheme);
    free(r->source);
    free(r->tri_strain);
    free(r->tri_flag);
  }
  free(runs);
}

/* Find a file of dir whose name ends with `suffix`: its name (malloc'ed) or NULL. */
typedef struct find_ctx {
  const char *suffix;
  char *found;
  int count;
} find_ctx;
static int find_fn(void *ctx, const char *path, const char *name, const struct stat *sb)
{
  (void)path;
  find_ctx *c = ctx;
  if (sb && S_ISREG(sb->st_mode) && exp_ends_with(name, c->suffix) && strlen(name) > strlen(c->suffix)) {
    if (!c->found)
      c->found = strdup(name);
    else if (strcmp(name, c->found) < 0) {
      free(c->found);
      c->found = strdup(name);
    }
    c->count++;
  }
  return 0;
}
static char *find_suffix(const char *dir, const char *suffix)
{
  find_ctx c = {suffix, NULL, 0};
  if (exp_walk_dir("cdyn", dir, find_fn, &c)) {
    free(c.found);
    return NULL;
  }
  return c.found;
}

/* The state CSV: frames of step,t,particle,x,y,z. */
static int read_state(const char *dir, exp_rundir_run *r)
{
  csv c;
  int o = csv_open(&c, r->state_csv);
  if (o)
    return fail(dir, EXP_EXIT_FAIL, "%s: %s", r->state_csv,
                o == -1 ? strerror(errno) : o == -2 ? "empty file" : csv_why(&c, ""));
  int cs = csv_col(&c, "step"), ct = csv_col(&c, "t"), cp = csv_col(&c, "particle"), cx = csv_col(&c, "x"),
      cy = csv_col(&c, "y"), cz = csv_col(&c, "z");
  if (cs < 0 || ct < 0 || cp < 0 || cx < 0 || cy < 0 || cz < 0) {
    csv_close(&c);
    return fail(dir, EXP_EXIT_FAIL, "%s: expected the columns step,t,particle,x,y,z", r->state_csv);
  }
  /* Pass 1: frames and particles. */
  size_t nframes = 0, n = 0;
  char last[64] = "";
  int rc;
  while ((rc = csv_next(&c)) == 1) {
    size_t p;
    if (!index_of(c.fld[cp], &p) || p > ((size_t)1 << 28)) {
      rc = -1;
      break;
    }
    if (p + 1 > n)
      n = p + 1;
    if (strcmp(c.fld[cs], last)) {
      nframes++;
      snprintf(last, sizeof last, "%s", c.fld[cs]);
    }
  }
  if (rc < 0) {
    long l = c.lineno;
    const char *why = csv_why(&c, "not a record step,t,particle,x,y,z");
    csv_close(&c);
    return fail(dir, EXP_EXIT_FAIL, "%s:%ld: %s", r->state_csv, l, why);
  }
  if (!nframes) {
    csv_close(&c);
    return 0;
  }
  r->nparticles = n;
  r->nframes = nframes;
  r->t = malloc(nframes * sizeof *r->t);
  r->x = malloc(nframes * n * 3 * sizeof *r->x);
  unsigned char *seen = calloc(n, 1);
  if (!r->t || !r->x || !seen) {
    free(seen);
    csv_close(&c);
    return fail(dir, EXP_EXIT_FAIL, "%s: out of memory", r->state_csv);
  }
  /* Pass 2: fill. */
  if (csv_rewind(&c)) {
    free(seen);
    csv_close(&c);
    return fail(dir, EXP_EXIT_FAIL, "%s: read error", r->state_csv);
  }
  size_t f = (size_t)-1, have = 0;
  last[0] = 0;
  const char *why = NULL;
  while (!why && (rc = csv_next(&c)) == 1) {
    size_t p;
    double t, x[3];
    if (strcmp(c.fld[cs], last)) {
      if (f != (size_t)-1 && have != n)
        why = "a frame lacks particles";
      f++;
      have = 0;
      memset(seen, 0, n);
      snprintf(last, sizeof last, "%s", c.fld[cs]);
      if (f >= nframes)
        why = "the file changed while read";
    }
    if (why)
      break;
    if (!index_of(c.fld[cp], &p) || p >= n || !num(c.fld[ct], &t) || !num(c.fld[cx], &x[0]) || !num(c.fld[cy], &x[1]) ||
        !num(c.fld[cz], &x[2]) || !isfinite(x[0] + x[1] + x[2]))
      why = "not a record step,t,particle,x,y,z with finite numbers";
    else if (seen[p])
      why = "a particle twice in one frame";
    else {
      seen[p] = 1;
      have++;
      r->t[f] = t;
      memcpy(&r->x[(f * n + p) * 3], x, sizeof x);
    }
  }
  if (!why && rc < 0)
    why = csv_why(&c, "not a record step,t,particle,x,y,z");
  if (!why && (f + 1 != nframes || have != n))
    why = "a frame lacks particles";
  long l = c.lineno;
  free(seen);
  csv_close(&c);
  if (why)
    return fail(dir, EXP_EXIT_FAIL, "%s:%ld: %s", r->state_csv, l, why);
  r->source = strdup("state");
  return 0;
}

/* Triangles from the springs (see the top of the file). */
static int tris_from_springs(exp_rundir_run *r, const double *x0)
{
  size_t n = r->nparticles, m = r->nsprings;
  if (!m || !n)
    return 0;
  /* Adjacency (CSR) of the spring graph, neighbours sorted. */
  size_t *deg = calloc(n + 1, sizeof *deg), *adj = malloc(2 * m * sizeof *adj), *fill = calloc(n, sizeof *fill);
  zvec kept = {0}, longe = {0};
  /* Per particle, the kept triangles it is a corner of. */
  zvec *at = calloc(n, sizeof *at);
  int rc = 0;
  if (!deg || !adj || !fill || !at) {
    rc = -1;
    goto out;
  }
  for (size_t s = 0; s < m; s++) {
    deg[r->springs[2 * s] + 1]++;
    deg[r->springs[2 * s + 1] + 1]++;
  }
  for (size_t i = 0; i < n; i++)
    deg[i + 1] += deg[i];
  for (size_t s = 0; s < m; s++) {
    size_t a = r->springs[2 * s], b = r->springs[2 * s + 1];
    adj[deg[a] + fill[a]++] = b;
    adj[deg[b] + fill[b]++] = a;
  }
  for (size_t i = 0; i < n; i++)
    qsort(adj + deg[i], deg[i + 1] - deg[i], sizeof *adj, size_cmp);
  for (int pass = 0; pass < 2 && !rc; pass++) {
    if (pass == 1 && longe.n)
      qsort(longe.v, longe.n / 2, 2 * sizeof *longe.v, pair_cmp);
    for (size_t i = 0; i < n; i++)
      for (size_t a = deg[i]; a < deg[i + 1]; a++) {
        size_t j = adj[a];
        if (j <= i || (a > deg[i] && adj[a - 1] == j))
          continue;
        for (size_t b = a + 1; b < deg[i + 1]; b++) {
          size_t k = adj[b];
          if (k == adj[b - 1])
            continue;
          /* j < k both neighbours of i; is k a neighbour of j? */
          size_t *lo = adj + deg[j], *hi = adj + deg[j + 1];
          if (!bsearch(&k, lo, (size_t)(hi - lo), sizeof *lo, size_cmp))
            continue;
          const size_t v[3] = {i, j, k};
          const double *p = x0 + 3 * i, *q = x0 + 3 * j, *s = x0 + 3 * k;
          double e1[3], e2[3], cr[3];
          for (int d = 0; d < 3; d++) {
            e1[d] = q[d] - p[d];
            e2[d] = s[d] - p[d];
          }
          cr[0] = e1[1] * e2[2] - e1[2] * e2[1];
          cr[1] = e1[2] * e2[0] - e1[0] * e2[2];
          cr[2] = e1[0] * e2[1] - e1[1] * e2[0];
          double area2 = sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
          double l2 = 0;
          for (int e = 0; e < 3; e++) {
            const double *u = x0 + 3 * v[e], *w = x0 + 3 * v[(e + 1) % 3];
            double dd = (u[0] - w[0]) * (u[0] - w[0]) + (u[1] - w[1]) * (u[1] - w[1]) + (u[2] - w[2]) * (u[2] - w[2]);
            if (dd > l2)
              l2 = dd;
          }
          if (pass == 0) {
            /* A straight row: its longest edge spans the middle particle. */
            if (!(area2 > 2e-6 * l2)) {
              size_t e = 0;
              double best = -1;
              for (int q = 0; q < 3; q++) {
                const double *u = x0 + 3 * v[q], *w = x0 + 3 * v[(q + 1) % 3];
                double dd =
                    (u[0] - w[0]) * (u[0] - w[0]) + (u[1] - w[1]) * (u[1] - w[1]) + (u[2] - w[2]) * (u[2] - w[2]);
                if (dd > best) {
                  best = dd;
                  e = (size_t)q;
                }
              }
              size_t p0 = v[e], p1 = v[(e + 1) % 3];
              zpush(&longe, p0 < p1 ? p0 : p1);
              zpush(&longe, p0 < p1 ? p1 : p0);
            }
            continue;
          }
          if (!(area2 > 2e-6 * l2))
            continue;
          int spans = 0;
          for (int q = 0; q < 3 && longe.n && !spans; q++) {
            size_t p0 = v[q], p1 = v[(q + 1) % 3];
            size_t key[2] = {p0 < p1 ? p0 : p1, p0 < p1 ? p1 : p0};
            spans = bsearch(key, longe.v, longe.n / 2, 2 * sizeof *longe.v, pair_cmp) != NULL;
          }
          if (spans)
            continue;
          /* Overlap with a kept triangle across a shared edge? */
          int overlap = 0;
          for (int e = 0; e < 3 && !overlap; e++) {
            size_t ea = v[e], eb = v[(e + 1) % 3], ec = v[(e + 2) % 3];
            for (size_t t = 0; t < at[ea].n && !overlap; t++) {
              const size_t *T = kept.v + 3 * at[ea].v[t];
              int hasb = T[0] == eb || T[1] == eb || T[2] == eb;
              if (!hasb)
                continue;
              size_t other = T[0] != ea && T[0] != eb ? T[0] : T[1] != ea && T[1] != eb ? T[1] : T[2];
              const double *A = x0 + 3 * ea, *B = x0 + 3 * eb, *C = x0 + 3 * ec, *D = x0 + 3 * other;
              double ab[3], ac[3], ad[3], n1[3], n2[3];
              for (int d = 0; d < 3; d++) {
                ab[d] = B[d] - A[d];
                ac[d] = C[d] - A[d];
                ad[d] = D[d] - A[d];
              }
              n1[0] = ab[1] * ac[2] - ab[2] * ac[1];
              n1[1] = ab[2] * ac[0] - ab[0] * ac[2];
              n1[2] = ab[0] * ac[1] - ab[1] * ac[0];
              n2[0] = ab[1] * ad[2] - ab[2] * ad[1];
              n2[1] = ab[2] * ad[0] - ab[0] * ad[2];
              n2[2] = ab[0] * ad[1] - ab[1] * ad[0];
              if (n1[0] * n2[0] + n1[1] * n2[1] + n1[2] * n2[2] > 0)
                overlap = 1;
            }
          }
          if (overlap)
            continue;
          size_t id = kept.n / 3;
          for (int e = 0; e < 3; e++) {
            zpush(&kept, v[e]);
            zpush(&at[v[e]], id);
            if (at[v[e]].failed)
              rc = -1;
          }
          if (kept.failed)
            rc = -1;
        }
      }
    if (longe.failed)
      rc = -1;
  }
  if (!rc && kept.n) {
    r->tris = kept.v;
    r->ntris = kept.n / 3;
    kept.v = NULL;
  }
out:
  if (at)
    for (size_t i = 0; i < n; i++)
      free(at[i].v);
  free(at);
  free(kept.v);
  free(longe.v);
  free(deg);
  free(adj);
  free(fill);
  return rc;
}

/* Is distance constraint c an inequality (a separation), or a ball's
   separation constraint (one of its particles a ball, its length the
   ball's radius + thickness)? */
static int ball_separation(const cdyn_scene *sc, const cdyn_system *sys, size_t c, const size_t *parts)
{
  int ineq = 0;
  double d;
  if (!cdyn_system_is_inequality(sys, c, &ineq) && ineq)
    return 1;
  if (cdyn_system_get_constraint(sys, c, NULL, NULL, &d))
    return 0;
  for (size_t k = 0; k < cdyn_scene_ball_count(sc); k++) {
    size_t b;
    cdyn_ball_opts o;
    if (!cdyn_ball_get(cdyn_scene_ball(sc, k), &b, &o) && (parts[0] == b || parts[1] == b) &&
        d == o.radius + o.thickness)
      return 1;
  }
  return 0;
}

/* The topology of a scene run, from its scene as run. */
static int read_scene(const char *dir, exp_rundir_run *r)
{
  cdyn_scene *sc = NULL;
  if (cdyn_scene_load(&sc, r->scene_json, NULL))
    return fail(dir, EXP_EXIT_FAIL, "%s", cdyn_errmsg());
  const cdyn_system *sys = cdyn_scene_system(sc);
  size_t n = cdyn_system_size(sys);
  int rc = 0;
  if (r->x && r->nparticles != n) {
    if (r->nparticles > n) {
      cdyn_scene_free(sc);
      return fail(dir, EXP_EXIT_FAIL, "%s: %zu particles in the state, %zu in the scene %s", r->state_csv,
                  r->nparticles, n, r->scene_json);
    }
    /* The state records fewer (leading) particles: not expected, refuse. */
    cdyn_scene_free(sc);
    return fail(dir, EXP_EXIT_FAIL, "%s: %zu particles in the state, %zu in the scene %s", r->state_csv, r->nparticles,
                n, r->scene_json);
  }
  r->nparticles = n;
  zvec tris = {0}, links = {0}, pins = {0}, balls = {0}, springs = {0};
  dvec radius = {0}, rest = {0};
  /* Cloth patches, else the contact handler's mesh. */
  for (size_t k = 0; k < cdyn_scene_patch_count(sc); k++) {
    cdyn_scene_patch p;
    if (!cdyn_scene_get_patch(sc, k, &p))
      for (size_t q = 0; q < 3 * p.ntri; q++)
        zpush(&tris, p.tri[q]);
  }
  if (!tris.n && cdyn_scene_contacts(sc)) {
    const size_t *t;
    size_t nt = cdyn_contacts_triangles(cdyn_scene_contacts(sc), &t);
    for (size_t q = 0; q < 3 * nt; q++)
      zpush(&tris, t[q]);
  }
  /* Pins and links among the scene's own constraints. */
  for (size_t c = 0; c < cdyn_system_constraint_count(sys); c++) {
    const cdyn_constraint_type *type;
    size_t parts[CDYN_MAX_PARTICLES];
    if (cdyn_system_get_constraint(sys, c, &type, parts, NULL))
      continue;
    if (type == cdyn_constraint_pin || type == cdyn_constraint_anchor)
      zpush(&pins, parts[0]);
    else if (type == cdyn_constraint_distance && !ball_separation(sc, sys, c, parts)) {
      zpush(&links, parts[0]);
      zpush(&links, parts[1]);
    }
  }
  /* Constraints that a strain limiter added for its springs are cloth springs, not links. */
  for (size_t k = 0; k < cdyn_system_spring_count(sys); k++) {
    size_t i, j;
    double L;
    if (!cdyn_system_get_spring(sys, k, &i, &j, NULL, NULL, &L)) {
      zpush(&springs, i);
      zpush(&springs, j);
      dpush(&rest, L);
    }
  }
  if (links.n && springs.n) {
    /* Drop the links that join a spring's two particles (a strain limiter's). */
    size_t ns = springs.n / 2, w = 0;
    size_t *pairs = malloc(2 * ns * sizeof *pairs);
    if (!pairs)
      links.failed = 1;
    else {
      for (size_t s = 0; s < ns; s++) {
        size_t a = springs.v[2 * s], b = springs.v[2 * s + 1];
        pairs[2 * s] = a < b ? a : b;
        pairs[2 * s + 1] = a < b ? b : a;
      }
      qsort(pairs, ns, 2 * sizeof *pairs, pair_cmp);
      for (size_t l = 0; l < links.n / 2; l++) {
        size_t a = links.v[2 * l], b = links.v[2 * l + 1];
        size_t key[2] = {a < b ? a : b, a < b ? b : a};
        if (!bsearch(key, pairs, ns, 2 * sizeof *pairs, pair_cmp)) {
          links.v[2 * w] = a;
          links.v[2 * w + 1] = b;
          w++;
        }
      }
      links.n = 2 * w;
      free(pairs);
    }
  }
  for (size_t k = 0; k < cdyn_scene_ball_count(sc); k++) {
    size_t b;
    cdyn_ball_opts o;
    if (!cdyn_ball_get(cdyn_scene_ball(sc, k), &b, &o)) {
      zpush(&balls, b);
      dpush(&radius, o.radius);
    }
  }
  if (tris.failed || links.failed || pins.failed || balls.failed || springs.failed || radius.failed || rest.failed)
    rc = fail(dir, EXP_EXIT_FAIL, "%s: out of memory", r->scene_json);
  r->tris = tris.v;
  r->ntris = tris.n / 3;
  r->links = links.v;
  r->nlinks = links.n / 2;
  r->pins = pins.v;
  r->npins = pins.n;
  r->balls = balls.v;
  r->ball_radius = radius.v;
  r->nballs = balls.n;
  r->springs = springs.v;
  r->spring_rest = rest.v;
  r->nsprings = springs.n / 2;
  if (!rc && !r->ntris && r->nsprings && tris_from_springs(r, r->x ? r->x : cdyn_system_positions(sys)))
    rc = fail(dir, EXP_EXIT_FAIL, "%s: out of memory", r->scene_json);
  cdyn_scene_free(sc);
  return rc;
}

/* Node-position columns x0,y0,z0,x1,... of the run's CSV. */
static int read_columns(const char *dir, exp_rundir_run *r)
{
  csv c;
  if (csv_open(&c, r->csv))
    return 0; /* read again by the caller's checks */
  int ct = csv_col(&c, "t");
  size_t n = 0;
  int col[3 * 1024];
  for (; n < 1024; n++) {
    char nm[32];
    int ok = 1;
    for (int d = 0; d < 3; d++) {
      snprintf(nm, sizeof nm, "%c%zu", "xyz"[d], n);
      if ((col[3 * n + d] = csv_col(&c, nm)) < 0)
        ok = 0;
    }
    if (!ok)
      break;
  }
  if (ct < 0 || !n) {
    csv_close(&c);
    return 0;
  }
  dvec t = {0}, x = {0};
  int rc;
  const char *why = NULL;
  while (!why && (rc = csv_next(&c)) == 1) {
    double v;
    if (!num(c.fld[ct], &v)) {
      why = "t is not a number";
      break;
    }
    dpush(&t, v);
    for (size_t k = 0; k < 3 * n; k++) {
      if (!num(c.fld[col[k]], &v) || !isfinite(v))
        v = NAN;
      dpush(&x, v);
    }
  }
  if (!why && rc < 0)
    why = csv_why(&c, "a record whose field count differs from the header's");
  if (!why && (t.failed || x.failed))
    why = "out of memory";
  long l = c.lineno;
  csv_close(&c);
  if (why) {
    free(t.v);
    free(x.v);
    return fail(dir, EXP_EXIT_FAIL, "%s:%ld: %s", r->csv, l, why);
  }
  if (!t.n) {
    free(t.v);
    free(x.v);
    return 0;
  }
  r->nparticles = n;
  r->nframes = t.n;
  r->t = t.v;
  r->x = x.v;
  r->source = strdup("columns");
  return 0;
}

/* An experiment's triangle snapshots (and balls) of this run. */
static int read_snapshots(const char *dir, exp_rundir_run *r, const char *snapname)
{
  char *path = join(dir, snapname);
  csv c;
  if (!path || csv_open(&c, path)) {
    free(path);
    return 0;
  }
  int cs = csv_col(&c, "scheme"), cn = csv_col(&c, "snap"), ctri = csv_col(&c, "tri"), ct = csv_col(&c, "t"),
      cstrain = csv_col(&c, "strain"), cflag = csv_col(&c, "flag");
  /* A ball in every row (bx,by,bz,br: cloth-elongation's), taken from a snapshot's first row. */
  int cb[4] = {csv_col(&c, "bx"), csv_col(&c, "by"), csv_col(&c, "bz"), csv_col(&c, "br")};
  int cx[9];
  int ok = cs >= 0 && cn >= 0 && ctri >= 0 && ct >= 0;
  for (int k = 0; k < 9; k++) {
    char nm[16];
    snprintf(nm, sizeof nm, "%c%d", "xyz"[k % 3], k / 3 + 1);
    if ((cx[k] = csv_col(&c, nm)) < 0)
      ok = 0;
  }
  if (!ok) {
    csv_close(&c);
    free(path);
    return 0;
  }
  dvec t = {0}, x = {0}, strain = {0}, rowball = {0};
  zvec flag = {0};
  size_t ntri = 0, cur = 0, nframes = 0;
  char last[64] = "";
  const char *why = NULL;
  int rc;
  while (!why && (rc = csv_next(&c)) == 1) {
    if (strcmp(c.fld[cs], r->name))
      continue;
    double v;
    if (strcmp(c.fld[cn], last)) {
      if (nframes == 1)
        ntri = cur;
      else if (nframes > 1 && cur != ntri)
        why = "snapshots with different triangle counts";
      nframes++;
      cur = 0;
      snprintf(last, sizeof last, "%s", c.fld[cn]);
      if (!num(c.fld[ct], &v))
        why = "t is not a number";
      dpush(&t, v);
      for (int k = 0; k < 4 && cb[0] >= 0 && cb[1] >= 0 && cb[2] >= 0 && cb[3] >= 0; k++)
        dpush(&rowball, num(c.fld[cb[k]], &v) && isfinite(v) ? v : NAN);
    }
    cur++;
    for (int k = 0; k < 9; k++) {
      if (!num(c.fld[cx[k]], &v) || !isfinite(v))
        v = NAN;
      dpush(&x, v);
    }
    if (cstrain >= 0)
      dpush(&strain, num(c.fld[cstrain], &v) ? v : 0);
    if (cflag >= 0)
      zpush(&flag, num(c.fld[cflag], &v) && v != 0);
  }
  if (!why && rc < 0)
    why = csv_why(&c, "a record whose field count differs from the header's");
  if (!why && nframes == 1)
    ntri = cur;
  else if (!why && nframes > 1 && cur != ntri)
    why = "snapshots with different triangle counts";
  if (!why && (t.failed || x.failed || strain.failed || flag.failed))
    why = "out of memory";
  long l = c.lineno;
  csv_close(&c);
  if (why || !nframes || !ntri) {
    free(t.v);
    free(x.v);
    free(strain.v);
    free(flag.v);
    free(rowball.v);
    rc = why ? fail(dir, EXP_EXIT_FAIL, "%s:%ld: %s", path, l, why) : 0;
    free(path);
    return rc;
  }
  free(path);
  /* Balls: NAME-balls.csv beside NAME-snapshots.csv. */
  size_t nballs = 0;
  dvec bx = {0}, br = {0};
  {
    size_t ln = strlen(snapname) - strlen("snapshots.csv");
    char *bname = malloc(ln + 16);
    if (bname) {
      memcpy(bname, snapname, ln);
      strcpy(bname + ln, "balls.csv");
      char *bpath = join(dir, bname);
      csv b;
      if (bpath && !csv_open(&b, bpath)) {
        int s = csv_col(&b, "scheme"), sn = csv_col(&b, "snap"), bi = csv_col(&b, "ball"), x0 = csv_col(&b, "x"),
            y0 = csv_col(&b, "y"), z0 = csv_col(&b, "z"), rr = csv_col(&b, "radius");
        if (s >= 0 && sn >= 0 && bi >= 0 && x0 >= 0 && y0 >= 0 && z0 >= 0 && rr >= 0) {
          char blast[64] = "";
          size_t f = 0, cnt = 0;
          int ok2 = 1;
          while (ok2 && csv_next(&b) == 1) {
            if (strcmp(b.fld[s], r->name))
              continue;
            double v[4];
            if (strcmp(b.fld[sn], blast)) {
              if (f == 1)
                nballs = cnt;
              else if (f > 1 && cnt != nballs)
                ok2 = 0;
              f++;
              cnt = 0;
              snprintf(blast, sizeof blast, "%s", b.fld[sn]);
            }
            cnt++;
            ok2 =
                ok2 && num(b.fld[x0], &v[0]) && num(b.fld[y0], &v[1]) && num(b.fld[z0], &v[2]) && num(b.fld[rr], &v[3]);
            for (int d = 0; d < 3; d++)
              dpush(&bx, v[d]);
            if (f == 1)
              dpush(&br, v[3]);
          }
          if (f == 1)
            nballs = cnt;
          if (!ok2 || f != nframes || (f > 1 && cnt != nballs) || bx.failed || br.failed)
            nballs = 0;
        }
        csv_close(&b);
      }
      free(bpath);
      free(bname);
    }
  }
  if (!nballs && !rowball.failed && rowball.n == 4 * nframes) {
    int ok3 = 1;
    for (size_t f = 0; f < nframes; f++)
      ok3 = ok3 && rowball.v[4 * f + 3] > 0;
    if (ok3) {
      bx.n = br.n = 0;
      for (size_t f = 0; f < nframes; f++)
        for (int d = 0; d < 3; d++)
          dpush(&bx, rowball.v[4 * f + d]);
      dpush(&br, rowball.v[3]);
      nballs = bx.failed || br.failed ? 0 : 1;
    }
  }
  free(rowball.v);
  size_t n = 3 * ntri + nballs;
  double *xx = malloc(nframes * n * 3 * sizeof *xx);
  size_t *tris = malloc(3 * ntri * sizeof *tris), *balls = nballs ? malloc(nballs * sizeof *balls) : NULL;
  unsigned char *fl = flag.n ? malloc(flag.n) : NULL;
  if (!xx || !tris || (nballs && !balls) || (flag.n && !fl)) {
    free(xx);
    free(tris);
    free(balls);
    free(fl);
    free(t.v);
    free(x.v);
    free(strain.v);
    free(flag.v);
    free(bx.v);
    free(br.v);
    return fail(dir, EXP_EXIT_FAIL, "%s: out of memory", snapname);
  }
  for (size_t f = 0; f < nframes; f++) {
    memcpy(xx + f * n * 3, x.v + f * ntri * 9, ntri * 9 * sizeof *xx);
    if (nballs)
      memcpy(xx + f * n * 3 + ntri * 9, bx.v + f * nballs * 3, nballs * 3 * sizeof *xx);
  }
  for (size_t k = 0; k < 3 * ntri; k++)
    tris[k] = k;
  for (size_t k = 0; k < nballs; k++)
    balls[k] = 3 * ntri + k;
  for (size_t k = 0; k < flag.n; k++)
    fl[k] = (unsigned char)flag.v[k];
  free(x.v);
  free(bx.v);
  free(flag.v);
  r->nparticles = n;
  r->nframes = nframes;
  r->t = t.v;
  r->x = xx;
  r->ntris = ntri;
  r->tris = tris;
  r->nballs = nballs;
  r->balls = balls;
  r->ball_radius = nballs ? br.v : (free(br.v), NULL);
  r->tri_strain = strain.n == nframes * ntri ? strain.v : (free(strain.v), NULL);
  r->tri_flag = fl;
  r->source = strdup("snapshots");
  return 0;
}

static int file_exists(const char *path)
{
  struct stat sb;
  return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static int load_run(const char *dir, exp_rundir_run *r, const char *snapname, const char *prefix)
{
  /* A scene run: NAME-RUN.scene.json, NAME that of NAME-summary.csv when
     there is one (so that a run "a" does not take the files of a run
     "b-a"), else any. */
  size_t ln = strlen(r->name);
  char *suffix = malloc(ln + 16 + (prefix ? strlen(prefix) : 0));
  if (!suffix)
    return fail(dir, EXP_EXIT_FAIL, "out of memory");
  char *scene = NULL;
  if (prefix) {
    sprintf(suffix, "%s-%s.scene.json", prefix, r->name);
    char *p = join(dir, suffix);
    if (p && file_exists(p))
      scene = strdup(suffix);
    free(p);
  } else {
    sprintf(suffix, "-%s.scene.json", r->name);
    scene = find_suffix(dir, suffix);
  }
  free(suffix);
  int rc = 0;
  if (scene) {
    size_t pl = strlen(scene) - strlen(".scene.json");
    char *base = malloc(pl + 32);
    if (!base) {
      free(scene);
      return fail(dir, EXP_EXIT_FAIL, "out of memory");
    }
    memcpy(base, scene, pl);
    base[pl] = 0;
    r->scene_json = join(dir, scene);
    strcat(base, ".csv");
    r->csv = join(dir, base);
    base[pl] = 0;
    strcat(base, "-state.csv");
    char *st = join(dir, base);
    free(base);
    free(scene);
    if (st && file_exists(st))
      r->state_csv = st;
    else
      free(st);
    if (!r->scene_json || !r->csv)
      return fail(dir, EXP_EXIT_FAIL, "out of memory");
    if (r->state_csv && (rc = read_state(dir, r)))
      return rc;
    return read_scene(dir, r);
  }
  /* An experiment's run: RUN.csv, else NAME-RUN.csv. */
  char *name = malloc(ln + 8);
  if (!name)
    return fail(dir, EXP_EXIT_FAIL, "out of memory");
  snprintf(name, ln + 8, "%s.csv", r->name);
  r->csv = join(dir, name);
  if (r->csv && !file_exists(r->csv)) {
    snprintf(name, ln + 8, "-%s.csv", r->name);
    char *other = find_suffix(dir, name);
    if (other) {
      free(r->csv);
      r->csv = join(dir, other);
      free(other);
    }
  }
  free(name);
  if (!r->csv)
    return fail(dir, EXP_EXIT_FAIL, "out of memory");
  if (file_exists(r->csv) && (rc = read_columns(dir, r)))
    return rc;
  if (!r->x && snapname)
    rc = read_snapshots(dir, r, snapname);
  if (!file_exists(r->csv)) {
    /* No CSV of its own: the experiment's files hold it (the snapshots, if any). */
    free(r->csv);
    r->csv = NULL;
  }
  return rc;
}

int exp_rundir_load(const char *dir, exp_rundir_run **runs, size_t *nruns)
{
  *runs = NULL;
  *nruns = 0;
  struct stat sb;
  if (stat(dir, &sb))
    return fail(dir, EXP_EXIT_FAIL, "%s", strerror(errno));
  if (!S_ISDIR(sb.st_mode))
    return fail(dir, EXP_EXIT_USAGE, "not a directory");
  char *path = join(dir, "runs.csv");
  if (!path)
    return fail(dir, EXP_EXIT_FAIL, "out of memory");
  csv c;
  int o = csv_open(&c, path);
  free(path);
  if (o == -1 && errno == ENOENT)
    return fail(dir, EXP_EXIT_USAGE, "no run directory (it has no runs.csv; cdyn run writes one)");
  if (o)
    return fail(dir, EXP_EXIT_FAIL, "runs.csv: %s", o == -1 ? strerror(errno) : o == -2 ? "empty file" : csv_why(&c, ""));
  int cr = csv_col(&c, "run"), cs = csv_col(&c, "scheme");
  if (cr < 0) {
    csv_close(&c);
    return fail(dir, EXP_EXIT_FAIL, "runs.csv: no column run");
  }
  exp_rundir_run *v = NULL;
  size_t n = 0;
  int rc, err = 0;
  while ((rc = csv_next(&c)) == 1) {
    exp_rundir_run *p = realloc(v, (n + 1) * sizeof *p);
    if (!p) {
      err = 1;
      break;
    }
    v = p;
    memset(&v[n], 0, sizeof v[n]);
    v[n].name = strdup(c.fld[cr]);
    v[n].scheme = cs >= 0 ? strdup(c.fld[cs]) : NULL;
    n++;
    if (!v[n - 1].name || (cs >= 0 && !v[n - 1].scheme)) {
      err = 1;
      break;
    }
    if (!v[n - 1].name[0] || strchr(v[n - 1].name, '/')) {
      long l = c.lineno;
      csv_close(&c);
      exp_rundir_free(v, n);
      return fail(dir, EXP_EXIT_FAIL, "runs.csv:%ld: not a run name", l);
    }
  }
  long l = c.lineno;
  const char *why_rc = csv_why(&c, "a record whose field count differs from the header's");
  csv_close(&c);
  if (err) {
    exp_rundir_free(v, n);
    return fail(dir, EXP_EXIT_FAIL, "out of memory");
  }
  if (rc < 0) {
    exp_rundir_free(v, n);
    return fail(dir, EXP_EXIT_FAIL, "runs.csv:%ld: %s", l, why_rc);
  }
  if (!n)
    return fail(dir, EXP_EXIT_USAGE, "runs.csv lists no run");
  char *snap = find_suffix(dir, "snapshots.csv");
  char *prefix = find_suffix(dir, "-summary.csv");
  if (prefix)
    prefix[strlen(prefix) - strlen("-summary.csv")] = 0;
  for (size_t k = 0; k < n; k++)
    if ((rc = load_run(dir, &v[k], snap, prefix))) {
      free(snap);
      free(prefix);
      exp_rundir_free(v, n);
      return rc;
    }
  free(snap);
  free(prefix);
  *runs = v;
  *nruns = n;
  return 0;
}
