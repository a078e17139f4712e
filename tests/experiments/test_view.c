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
 * by side: two runs, in runs.csv's order.  An experiment's directory
 * (made here): frames from a run CSV's node columns, or from triangle
 * snapshots with balls and contact flags; a run with neither has none.
 *
 * cdyn view: the page is the template with the runs' data in place of its
 * marker (names, counts, the frames' float32 in base64 of the expected
 * length), --max-frames keeps the first and the last frame, --out writes
 * elsewhere; errors (no directory, no run directory, no runs, bad
 * options, an output that cannot be written) exit 1 or 2 with one line
 * and write nothing.  tests/viewer.test loads the page in a browser.
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

START_TEST(test_rundir_experiment)
{
  /* An experiment's run with node columns: its rows are the frames. */
  char dir[PATH_MAX], path[PATH_MAX];
  ck_assert_int_eq(mkdir(wp(dir, "cols"), 0777), 0);
  write_file(wp(path, "cols/runs.csv"), "run,scheme,role\nimplicit,implicit,paper\nnone,implicit,companion\n");
  write_file(wp(path, "cols/implicit.csv"), "step,t,e,x0,y0,z0,x1,y1,z1,E\n0,0,0,0,0,0,1,0,0,0\n1,0.5,0,0,0,0,0.5,-0.8,0,1\n");
  write_file(wp(path, "cols/none.csv"), "step,t,e\n0,0,0\n");
  exp_rundir_run *runs;
  size_t n;
  ck_assert_int_eq(exp_rundir_load(dir, &runs, &n), 0);
  ck_assert_uint_eq(n, 2);
  ck_assert_str_eq(runs[0].source, "columns");
  ck_assert(has_suffix(runs[0].csv, "cols/implicit.csv"));
  ck_assert_uint_eq(runs[0].nparticles, 2);
  ck_assert_uint_eq(runs[0].nframes, 2);
  ck_assert_double_eq(runs[0].t[1], 0.5);
  ck_assert_double_eq(runs[0].x[6 + 3], 0.5);
  ck_assert_double_eq(runs[0].x[6 + 4], -0.8);
  ck_assert_uint_eq(runs[0].ntris + runs[0].nlinks + runs[0].nballs, 0);
  /* A run without positions: no frames. */
  ck_assert_ptr_null(runs[1].x);
  ck_assert_uint_eq(runs[1].nframes, 0);
  exp_rundir_free(runs, n);

  /* An experiment's triangle snapshots and balls, the run's rows by scheme. */
  ck_assert_int_eq(mkdir(wp(dir, "snap"), 0777), 0);
  write_file(wp(path, "snap/runs.csv"), "run,scheme,role\nimplicit,implicit,paper\n");
  write_file(wp(path, "snap/exp-snapshots.csv"),
             "scheme,snap,tri,x1,y1,z1,x2,y2,z2,x3,y3,z3,t,flag\n"
             "other,0,0,9,9,9,9,9,9,9,9,9,0,0\n"
             "implicit,0,0,0,0,0,1,0,0,0,0,1,0.1,0\n"
             "implicit,0,1,1,0,0,1,0,1,0,0,1,0.1,1\n"
             "implicit,1,0,0,-1,0,1,-1,0,0,-1,1,0.3,1\n"
             "implicit,1,1,1,-1,0,1,-1,1,0,-1,1,0.3,0\n");
  write_file(wp(path, "snap/exp-balls.csv"), "scheme,snap,ball,x,y,z,radius,t\n"
                                             "implicit,0,0,0.5,1,0.5,0.2,0.1\n"
                                             "implicit,1,0,0.5,0,0.5,0.2,0.3\n");
  ck_assert_int_eq(exp_rundir_load(dir, &runs, &n), 0);
  ck_assert_uint_eq(n, 1);
  exp_rundir_run *r = &runs[0];
  ck_assert_str_eq(r->source, "snapshots");
  ck_assert_ptr_null(r->csv);
  ck_assert_uint_eq(r->nframes, 2);
  ck_assert_uint_eq(r->ntris, 2);
  /* 2 triangles of 3 particles each, then the ball. */
  ck_assert_uint_eq(r->nparticles, 7);
  ck_assert_uint_eq(r->nballs, 1);
  ck_assert_uint_eq(r->balls[0], 6);
  ck_assert_double_eq(r->ball_radius[0], 0.2);
  ck_assert_double_eq(r->t[1], 0.3);
  ck_assert_double_eq(r->x[(7 + 6) * 3 + 1], 0);  /* the ball at frame 1 */
  ck_assert_double_eq(r->x[(7 + 3) * 3 + 1], -1); /* triangle 1's first corner at frame 1 */
  ck_assert_ptr_nonnull(r->tri_flag);
  ck_assert(!r->tri_flag[0] && r->tri_flag[1] && r->tri_flag[2] && !r->tri_flag[3]);
  ck_assert_ptr_null(r->tri_strain);
  exp_rundir_free(runs, n);
}
END_TEST

/* The number after "key": in text (the first), or -1. */
static long json_count(const char *text, const char *key)
{
  char k[64];
  snprintf(k, sizeof k, "\"%s\":", key);
  const char *p = strstr(text, k);
  return p ? strtol(p + strlen(k), NULL, 10) : -1;
}

START_TEST(test_view_page)
{
  make_run("r", 1, "implicit,baumgarte");
  proc p = run_cdyn("view", "r");
  ck_assert_msg(p.status == 0, "cdyn view: %d: %s", p.status, p.err);
  ck_assert_msg(strstr(p.out, "2 runs (2 with frames) in r/view.html"), "%s", p.out);
  proc_free(&p);
  char path[PATH_MAX];
  char *page = must_slurp(wp(path, "r/view.html"));
  /* The template around the data, the data in place of its marker. */
  ck_assert(!strncmp(page, "<!DOCTYPE html>", 15));
  ck_assert_ptr_null(strstr(page, "CDYN_VIEW_DATA"));
  const char *data = strstr(page, "<script id=\"cdyn-data\" type=\"application/json\">{\"dir\":\"r\",\"runs\":[");
  ck_assert_ptr_nonnull(data);
  ck_assert_ptr_nonnull(strstr(data, "{\"name\":\"implicit\",\"scheme\":\"implicit\",\"source\":\"state\""));
  ck_assert_ptr_nonnull(strstr(data, "{\"name\":\"baumgarte\""));
  ck_assert_int_eq(json_count(data, "nparticles"), 15);
  ck_assert_int_eq(json_count(data, "nframes"), 5);
  /* 5 frames of 15 x 3 float32: 900 bytes, 1200 base64 characters. */
  const char *x = strstr(data, "\"x\":\"");
  ck_assert_ptr_nonnull(x);
  ck_assert_uint_eq(strcspn(x + 5, "\""), 1200);
  ck_assert(has_suffix(page, "</html>\n"));
  free(page);
  check_no_temporaries(wp(path, "r"));
  /* The page is cdyn output: cdyn run --force clears it with the rest. */
  run_ok("run", "scene", "small-1.json", "--out", "r", "--scheme", "implicit", "--force");
  ck_assert(!exists(wp(path, "r/view.html")));

  /* --max-frames 2 keeps the first and the last frame; --out elsewhere. */
  run_ok("view", "r", "--max-frames", "2", "--out", "two.html");
  page = must_slurp(wp(path, "two.html"));
  ck_assert_int_eq(json_count(page, "nframes"), 2);
  ck_assert_int_eq(json_count(page, "nframes_run"), 5);
  ck_assert_ptr_nonnull(strstr(page, "\"t\":[0,0.02]"));
  free(page);
}
END_TEST

START_TEST(test_view_errors)
{
  char path[PATH_MAX];
  struct {
    const char *args[6];
    int status;
    const char *says;
  } bad[] = {
    {{"view", NULL}, EXP_EXIT_USAGE, "which run directory?"},
    {{"view", "absent", NULL}, EXP_EXIT_FAIL, "cdyn: absent: No such file or directory"},
    {{"view", "empty", NULL}, EXP_EXIT_USAGE, "cdyn: empty: no run directory"},
    {{"view", "norun", NULL}, EXP_EXIT_USAGE, "cdyn: norun: runs.csv lists no run"},
    {{"view", "r", "--max-frames", "0", NULL}, EXP_EXIT_USAGE, "--max-frames 0"},
    {{"view", "r", "--max-frames", NULL}, EXP_EXIT_USAGE, "--max-frames needs a value"},
    {{"view", "r", "--colour", NULL}, EXP_EXIT_USAGE, "unknown option '--colour'"},
    {{"view", "r", "r", NULL}, EXP_EXIT_USAGE, "a second"},
    {{"view", "r", "--out", "r/", NULL}, EXP_EXIT_USAGE, "not a directory"},
    /* Unwritable: the output's directory is a file. */
    {{"view", "r", "--out", "afile/view.html", NULL}, EXP_EXIT_FAIL, "cdyn view: "},
  };
  ck_assert_int_eq(mkdir(wp(path, "empty"), 0777), 0);
  ck_assert_int_eq(mkdir(wp(path, "norun"), 0777), 0);
  write_file(wp(path, "norun/runs.csv"), "run,scheme,role\n");
  write_file(wp(path, "afile"), "not a directory\n");
  make_run("r", 1, "implicit");
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    proc p = run_argv(bad[k].args);
    ck_assert_msg(p.status == bad[k].status, "case %zu: status %d, not %d: %s", k, p.status, bad[k].status, p.err);
    ck_assert_msg(strstr(p.err, bad[k].says), "case %zu: stderr lacks '%s': %s", k, bad[k].says, p.err);
    /* One line (a usage error adds the try line). */
    const char *nl = strchr(p.err, '\n');
    ck_assert_msg(nl && (!nl[1] || bad[k].status == EXP_EXIT_USAGE), "case %zu: %s", k, p.err);
    proc_free(&p);
  }
  /* Nothing written anywhere. */
  ck_assert(!exists(wp(path, "r/view.html")));
  ck_assert(!exists(wp(path, "empty/view.html")));
  check_no_temporaries(wp(path, "r"));
}
END_TEST

int main(void)
{
  const exp_case cases[] = {{"rundir_scene", test_rundir_scene},
                            {"rundir_springs", test_rundir_springs},
                            {"rundir_errors", test_rundir_errors},
                            {"rundir_experiment", test_rundir_experiment},
                            {"view_page", test_view_page},
                            {"view_errors", test_view_errors}};
  return exp_run("view", cases, sizeof cases / sizeof cases[0]);
}
