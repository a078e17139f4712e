/*
 * tests/experiments/test_view.c: the run-directory reader
 * (experiments/rundir.c) on scene runs made here by the built cdyn, and
 * `cdyn view`'s page and its errors.
 *
 * The reader: a scene of a ball, a two-particle pendulum and a 4 x 3
 * cloth with contact handling, pinned at two corners, run 20 steps
 * recording every 5th: its frames are the state CSV's (compared value for
 * value), its triangles the contact handler's (those of the cloth
 * generator), its pins, link, ball and springs the scene's.  The same
 * cloth without contact handling: its triangles recovered from the
 * springs, two a quad, each quad's area covered once.  Two schemes side
 * by side: two runs, in runs.csv's order.
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "commands.h"
#include "harness.h"
#include "rundir.h"

static const char *scene_text(int contacts)
{
  static char buf[4096];
  snprintf(buf, sizeof buf,
           "{\n"
           "  \"cdyn_scene\": 1,\n"
           "  \"name\": \"small\",\n"
           "  \"gravity\": [0, -9.81, 0],\n"
           "  \"particles\": [\n"
           "    {\"x\": [0, 0.3, 0], \"v\": [0, -1, 0], \"m\": 1},\n"
           "    {\"x\": [2, 0, 0], \"m\": 1},\n"
           "    {\"x\": [3, 0, 0], \"m\": 1}\n"
           "  ],\n"
           "  \"links\": [{\"i\": 1, \"j\": 2, \"length\": 1}],\n"
           "  \"pins\": [{\"i\": 1}],\n"
           "  \"generators\": [{\n"
           "    \"type\": \"cloth\", \"nx\": 4, \"ny\": 3,\n"
           "    \"origin\": [-0.5, 0, -0.5], \"u\": [1, 0, 0], \"v\": [0, 0, 1],\n"
           "    \"mass\": 0.1, \"k_struct\": 100, \"k_shear\": 20, \"k_bend\": 2, \"damping\": 0.02,\n"
           "    \"pins\": [0, 3]%s\n"
           "  }],\n"
           "  \"balls\": [{\"ball\": 0, \"nodes\": \"all\", \"radius\": 0.1, \"thickness\": 0.005, \"mode\": "
           "\"switch\"}],\n"
           "  \"scheme\": \"implicit\",\n"
           "  \"run\": {\"h\": 0.001, \"steps\": 20},\n"
           "  \"record\": {\"every\": 5, \"positions\": true}\n"
           "}\n",
           contacts ? ",\n    \"contacts\": {\"thickness\": 0.005, \"mode\": \"switch\"}" : "");
  return buf;
}

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
}

/* A scene run of the small scene into wd/DIR with `schemes`. */
static void make_run(const char *dir, int contacts, const char *schemes)
{
  char scene[PATH_MAX];
  write_file(wp(scene, "small-%d.json", contacts), scene_text(contacts));
  char name[64];
  snprintf(name, sizeof name, "small-%d.json", contacts);
  run_ok("run", "scene", name, "--out", dir, "--scheme", schemes);
}

/* The triangle's area at positions x. */
static double tri_area(const double *x, const size_t *t)
{
  const double *a = x + 3 * t[0], *b = x + 3 * t[1], *c = x + 3 * t[2];
  double u[3], v[3];
  for (int d = 0; d < 3; d++) {
    u[d] = b[d] - a[d];
    v[d] = c[d] - a[d];
  }
  double cx = u[1] * v[2] - u[2] * v[1], cy = u[2] * v[0] - u[0] * v[2], cz = u[0] * v[1] - u[1] * v[0];
  return 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
}

START_TEST(test_rundir_scene)
{
  make_run("r", 1, "implicit");
  char dir[PATH_MAX];
  wp(dir, "r");
  exp_rundir_run *runs;
  size_t n;
  ck_assert_int_eq(exp_rundir_load(dir, &runs, &n), 0);
  ck_assert_uint_eq(n, 1);
  exp_rundir_run *r = &runs[0];
  ck_assert_str_eq(r->name, "implicit");
  ck_assert(has_suffix(r->csv, "/small-implicit.csv"));
  ck_assert(has_suffix(r->state_csv, "/small-implicit-state.csv"));
  ck_assert(has_suffix(r->scene_json, "/small-implicit.scene.json"));
  /* 3 particles, then the 12 nodes. */
  ck_assert_uint_eq(r->nparticles, 15);
  /* Steps 0, 5, 10, 15, 20. */
  ck_assert_uint_eq(r->nframes, 5);
  ck_assert_double_eq_tol(r->t[0], 0, 1e-15);
  ck_assert_double_eq_tol(r->t[4], 0.02, 1e-12);
  /* The frames hold the state CSV's values. */
  table st = read_table(r->state_csv, "step,t,particle,x,y,z", 0);
  ck_assert_uint_eq(st.nrows, 5 * 15);
  for (size_t row = 0; row < st.nrows; row++) {
    size_t f = row / 15, p = (size_t)tv(&st, row, 2);
    for (int d = 0; d < 3; d++)
      ck_assert_double_eq(r->x[(f * 15 + p) * 3 + d], tv(&st, row, 3 + d));
  }
  table_free(&st);
  /* The starting frame: the ball at y = 0.3, node (i, j) at -0.5 + i/3, 0, -0.5 + j/2. */
  ck_assert_double_eq(r->x[1], 0.3);
  for (size_t j = 0; j < 3; j++)
    for (size_t i = 0; i < 4; i++) {
      const double *p = r->x + 3 * (3 + j * 4 + i);
      ck_assert_double_eq_tol(p[0], -0.5 + i / 3.0, 1e-12);
      ck_assert_double_eq_tol(p[2], -0.5 + j / 2.0, 1e-12);
    }
  /* The cloth's triangles, 2 a quad, of nodes 3 .. 14; the link; the pins; the ball. */
  ck_assert_uint_eq(r->ntris, 2 * 3 * 2);
  for (size_t k = 0; k < 3 * r->ntris; k++)
    ck_assert(r->tris[k] >= 3 && r->tris[k] < 15);
  ck_assert_uint_eq(r->nlinks, 1);
  ck_assert_uint_eq(r->links[0], 1);
  ck_assert_uint_eq(r->links[1], 2);
  ck_assert_uint_eq(r->npins, 3);
  int pinned[15] = {0};
  for (size_t k = 0; k < r->npins; k++)
    pinned[r->pins[k]] = 1;
  ck_assert(pinned[1] && pinned[3] && pinned[6]);
  ck_assert_uint_eq(r->nballs, 1);
  ck_assert_uint_eq(r->balls[0], 0);
  ck_assert_double_eq(r->ball_radius[0], 0.1);
  /* Springs: structural 3*3 + 4*2 = 17, shear 2 * 6 = 12, bend 2*3 + 4*1 = 10. */
  ck_assert_uint_eq(r->nsprings, 39);
  for (size_t s = 0; s < r->nsprings; s++) {
    const double *a = r->x + 3 * r->springs[2 * s], *b = r->x + 3 * r->springs[2 * s + 1];
    double L = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
    ck_assert_double_eq_tol(r->spring_rest[s], L, 1e-12);
  }
  exp_rundir_free(runs, n);
}
END_TEST

START_TEST(test_rundir_springs)
{
  /* No contact handler: the triangles come from the springs. */
  make_run("r", 0, "implicit,baumgarte");
  char dir[PATH_MAX];
  wp(dir, "r");
  exp_rundir_run *runs;
  size_t n;
  ck_assert_int_eq(exp_rundir_load(dir, &runs, &n), 0);
  ck_assert_uint_eq(n, 2);
  ck_assert_str_eq(runs[0].name, "implicit");
  ck_assert_str_eq(runs[1].name, "baumgarte");
  for (size_t k = 0; k < n; k++) {
    exp_rundir_run *r = &runs[k];
    ck_assert_uint_eq(r->nframes, 5);
    ck_assert_uint_eq(r->ntris, 12);
    /* They tile the 1 m x 1 m patch: areas add up to 1, each 1/12. */
    double area = 0;
    for (size_t t = 0; t < r->ntris; t++) {
      ck_assert_double_eq_tol(tri_area(r->x, r->tris + 3 * t), 1.0 / 12, 1e-12);
      area += tri_area(r->x, r->tris + 3 * t);
    }
    ck_assert_double_eq_tol(area, 1.0, 1e-12);
    ck_assert_uint_eq(r->nlinks, 1);
  }
  /* The two runs part: baumgarte's frames differ from implicit's. */
  ck_assert(memcmp(runs[0].x, runs[1].x, 15 * 3 * 5 * sizeof(double)) != 0);
  exp_rundir_free(runs, n);
}
END_TEST

START_TEST(test_rundir_errors)
{
  exp_rundir_run *runs = (exp_rundir_run *)1;
  size_t n = 7;
  char dir[PATH_MAX];
  /* No such directory: 1; a directory with no runs.csv: 2; runs.csv without runs: 2. */
  ck_assert_int_eq(exp_rundir_load(wp(dir, "absent"), &runs, &n), EXP_EXIT_FAIL);
  ck_assert_ptr_null(runs);
  ck_assert_uint_eq(n, 0);
  ck_assert_int_eq(mkdir(wp(dir, "empty"), 0777), 0);
  ck_assert_int_eq(exp_rundir_load(dir, &runs, &n), EXP_EXIT_USAGE);
  write_file(wp(dir, "empty/runs.csv"), "run,scheme,role\n");
  ck_assert_int_eq(exp_rundir_load(wp(dir, "empty"), &runs, &n), EXP_EXIT_USAGE);
  /* A state CSV with a frame short of a particle: 1. */
  make_run("r", 1, "implicit");
  char path[PATH_MAX];
  char *text = must_slurp(wp(path, "r/small-implicit-state.csv"));
  char *last = strrchr(text, '\n');
  *last = 0;
  last = strrchr(text, '\n');
  last[1] = 0;
  write_file(path, text);
  free(text);
  ck_assert_int_eq(exp_rundir_load(wp(dir, "r"), &runs, &n), EXP_EXIT_FAIL);
}
END_TEST

int main(void)
{
  const exp_case cases[] = {{"rundir_scene", test_rundir_scene},
                            {"rundir_springs", test_rundir_springs},
                            {"rundir_errors", test_rundir_errors}};
  return exp_run("view", cases, sizeof cases / sizeof cases[0]);
}
