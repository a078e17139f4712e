/*
 * scene.c: a scene file as an experiment: what `cdyn run scene FILE.json`
 * (runargs.c), `cdyn sweep` of a scene and `cdyn replay` read and run.
 *
 * A scene file (doc/scene-format.md) runs as an experiment of its own,
 * through the same machinery as the built-in ones (experiment.h): the
 * same options (--scheme LIST runs it through other schemes, --h, --steps,
 * --set KEY=VALUE for scheme options, --out, --force), the same checks
 * before anything is written, the same runner (exp_simulate_scene, with
 * the scene's step hooks and its stop rules), and the same CSV files with
 * their metadata records.  Per run RUN of a scene NAME:
 *   NAME-RUN.csv          step, t, e, T, V, E, px, py, pz, status, every
 *                         record.every steps and the last;
 *   NAME-RUN-state.csv    with record.positions (and .velocities): step,
 *                         t, particle, x, y, z (vx, vy, vz);
 *   NAME-RUN.scene.json   the scene as run (the scheme, every option of
 *                         its stepper, h and steps after the overrides);
 * and NAME-summary.csv, a row per run: how it ended, its extremes and the
 * digest of its trajectory (capture.c), which `cdyn export` records too.
 *
 * --h with a scene whose run gives t_end keeps t_end: the steps are
 * recomputed (ceil((t_end - t0) / h)); --steps overrides both.
 *
 * And scenes an experiment writes as text (exp_cloth_generator) and reads
 * with the library's reader (exp_scene_read_text), the way the cloth
 * experiments build their systems.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/text.h"
#include "runner/files.h"
#include "runner/experiment.h"

static int run_scene(exp_ctx *ctx);

static const exp_param no_params[] = {EXP_PARAMS_END};

static uint64_t text_digest(const char *text, size_t len)
{
  uint64_t h = EXP_DIGEST_INIT;
  for (size_t k = 0; k < len; k++) {
    h ^= (uint64_t)(unsigned char)text[k];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

void exp_scene_free(exp_scene_src *s)
{
  if (!s)
    return;
  free(s->text);
  free(s);
}

int exp_scene_read(exp_scene_src **out, const char *path)
{
  *out = NULL;
  if (strlen(path) >= sizeof((exp_scene_src *)0)->path)
    return cdyn_error(CDYN_EINVAL, "scene path too long");
  exp_scene_src *s = calloc(1, sizeof *s);
  if (!s)
    return cdyn_error(CDYN_ENOMEM, "scene: out of memory");
  snprintf(s->path, sizeof s->path, "%s", path);
  if (!(s->text = exp_read_file(path, &s->len))) {
    int rc = cdyn_error(CDYN_EIO, "%s: %s", path, strerror(errno ? errno : EIO));
    exp_scene_free(s);
    return rc;
  }
  cdyn_scene *sc;
  int rc = exp_scene_build(s, &sc);
  if (rc) {
    exp_scene_free(s);
    return rc;
  }
  cdyn_scene_get_run(sc, &s->run);
  snprintf(s->name, sizeof s->name, "%s", cdyn_scene_name(sc));
  snprintf(s->scheme, sizeof s->scheme, "%s", cdyn_scene_scheme(sc));
  s->digest = text_digest(s->text, s->len);
  /* The scene's experiment: its defaults are the file's. */
  s->exp = (cdyn_experiment){.name = "scene",
                             .description = "a scene file (doc/scene-format.md)",
                             .source = "the scene file",
                             .params = no_params,
                             .schemes = s->scheme,
                             .h = s->run.h,
                             .steps = s->run.steps,
                             .run = run_scene};
  /* A scene of pins alone runs under the schemes that enforce pins only;
     one of pins and inequality rows under those that enforce both. */
  cdyn_system *sys = cdyn_scene_system(sc);
  int pins_only = 1, pins_ineq = 1;
  for (size_t c = 0; c < cdyn_system_constraint_count(sys); c++) {
    const cdyn_constraint_type *t;
    int ineq = 0;
    if (!cdyn_system_get_constraint(sys, c, &t, NULL, NULL) && t != cdyn_constraint_pin) {
      pins_only = 0;
      if (cdyn_system_is_inequality(sys, c, &ineq) || !ineq)
        pins_ineq = 0;
    }
  }
  s->exp.pins_only_ok = pins_only;
  s->exp.pins_ineq_ok = pins_ineq;
  s->exp.inequalities = cdyn_system_inequality_rows(sys) > 0;
  cdyn_scene_free(sc);
  /* The scene's name makes file names: only characters safe in them. */
  for (char *p = s->name; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' ||
          *p == '.'))
      *p = '_';
  if (!*s->name)
    snprintf(s->name, sizeof s->name, "scene");
  *out = s;
  return CDYN_OK;
}

int exp_scene_build(const exp_scene_src *s, cdyn_scene **out)
{
  return cdyn_scene_parse(out, s->text, s->len, s->path, NULL);
}

int exp_scene_steps(const exp_scene_src *s, double h, long *steps)
{
  if (!s->run.has_t_end)
    return CDYN_OK;
  cdyn_scene *sc;
  int rc = exp_scene_build(s, &sc);
  if (rc)
    return rc;
  cdyn_scene_run r = s->run;
  r.h = h;
  rc = cdyn_scene_set_run(sc, &r);
  if (!rc)
    cdyn_scene_get_run(sc, &r);
  cdyn_scene_free(sc);
  if (!rc)
    *steps = r.steps;
  return rc;
}

/* ---- a run ---------------------------------------------------------------------------------- */

typedef struct {
  exp_csv *series, *state;
  long every, steps;
  int velocities;
  size_t n;
  /* The last measured step, written when the run ends between recorded
     steps (record.every: step 0, every so many, and the last). */
  double row[10];
  double *q, *v; /* 3n each, when the state is recorded */
  long last_k, written_k;
  double last_t; /* the time of the last measured step */
} scene_obs;

static int write_row(scene_obs *o, const double *row, const double *q, const double *v)
{
  int rc = exp_csv_row(o->series, row, 10);
  for (size_t i = 0; o->state && i < o->n && !rc; i++) {
    double r[9] = {row[0], row[1], (double)i, q[3 * i], q[3 * i + 1], q[3 * i + 2], 0, 0, 0};
    if (o->velocities)
      memcpy(r + 6, v + 3 * i, 3 * sizeof(double));
    rc = exp_csv_row(o->state, r, o->velocities ? 9 : 6);
  }
  o->written_k = (long)row[0];
  return rc;
}

static int observe(void *octx, const exp_state *s)
{
  scene_obs *o = octx;
  double p[3];
  int rc = cdyn_system_momentum(s->sys, p);
  if (rc)
    return rc;
  /* t is the system's time: the scene's start time plus k h. */
  double row[10] = {(double)s->k, cdyn_system_time(s->sys), s->e, s->T, s->V, s->E, p[0], p[1], p[2],
                    (double)s->status};
  o->last_k = s->k;
  o->last_t = row[1];
  if (s->k % o->every == 0 || s->k == o->steps)
    return write_row(o, row, cdyn_system_positions(s->sys), cdyn_system_velocities(s->sys));
  memcpy(o->row, row, sizeof row);
  if (o->state) {
    memcpy(o->q, cdyn_system_positions(s->sys), 3 * o->n * sizeof(double));
    memcpy(o->v, cdyn_system_velocities(s->sys), 3 * o->n * sizeof(double));
  }
  return CDYN_OK;
}

/* The end of a run: its last measured step, if not written yet. */
static int observe_end(scene_obs *o)
{
  return o->last_k > o->written_k ? write_row(o, o->row, o->q, o->v) : CDYN_OK;
}

/* The metadata fields of a scene's run (a JSON fragment, malloc'ed; NULL
   when out of memory): the scene file, its digest, name and description,
   the scene as run and record.every. */
static char *meta_fields(const exp_scene_src *src, const cdyn_scene *sc, const char *base, long every)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    return NULL;
  fputs("\"scene_file\": ", f);
  exp_json_str(f, src->path);
  fprintf(f, ", \"scene_file_digest\": \"%016" PRIx64 "\", \"scene_name\": ", src->digest);
  exp_json_str(f, cdyn_scene_name(sc));
  fputs(", \"scene_description\": ", f);
  exp_json_str(f, cdyn_scene_description(sc));
  if (base) {
    fputs(", \"scene_as_run\": ", f);
    char as_run[600];
    snprintf(as_run, sizeof as_run, "%s.scene.json", base);
    exp_json_str(f, as_run);
    fprintf(f, ", \"record_every\": %ld", every);
  }
  if (fclose(f)) {
    free(buf);
    return NULL;
  }
  return buf;
}

static const char *end_name(enum exp_end e)
{
  switch (e) {
  case EXP_END_COMPLETED: return "completed";
  case EXP_END_FAILED_STEP: return "failed-step";
  case EXP_END_NONFINITE: return "nonfinite";
  case EXP_END_ERROR_LIMIT: return "error-limit";
  case EXP_END_ENERGY_GAIN: return "energy-gain";
  case EXP_END_DIVERGED: return "diverged";
  default: return "stopped";
  }
}

static int run_one(exp_ctx *ctx, const exp_runspec *r, exp_csv *summary)
{
  cdyn_scene *sc = NULL;
  cdyn_stepper *st = NULL;
  int rc = exp_scene_build(ctx->scene, &sc);
  if (rc)
    return rc;
  cdyn_scene_run run;
  cdyn_scene_get_run(sc, &run);
  run.h = ctx->h;
  run.steps = ctx->steps;
  run.has_t_end = 0; /* the steps are decided: ctx->steps */
  if ((rc = cdyn_scene_set_run(sc, &run)) || (rc = cdyn_scene_stepper(&st, sc, r->scheme)) ||
      (rc = exp_stepper_options(ctx, st, r, NULL))) {
    cdyn_stepper_free(st);
    cdyn_scene_free(sc);
    return rc;
  }
  char base[512], path[8192];
  snprintf(base, sizeof base, "%s-%s", ctx->scene->name, r->name);
  snprintf(path, sizeof path, "%s/%s.scene.json", ctx->outdir, base);
  rc = cdyn_scene_save(sc, st, &run, path);
  char *extra = rc ? NULL : meta_fields(ctx->scene, sc, base, run.record_every);
  if (!rc && !extra)
    rc = cdyn_error(CDYN_ENOMEM, "scene: out of memory");
  exp_csv series, state;
  size_t n = cdyn_system_size(cdyn_scene_system(sc));
  scene_obs o;
  memset(&o, 0, sizeof o);
  o.series = &series;
  o.every = run.record_every;
  o.steps = run.steps;
  o.velocities = run.record_velocities;
  o.n = n;
  o.written_k = -1;
  if (!rc && (run.record_positions || run.record_velocities) &&
      (!(o.q = malloc(3 * n * sizeof(double))) || !(o.v = malloc(3 * n * sizeof(double)))))
    rc = cdyn_error(CDYN_ENOMEM, "scene: out of memory");
  int series_open = 0, state_open = 0;
  if (!rc && !(rc = exp_csv_open(ctx, &series, base, "step,t,e,T,V,E,px,py,pz,status", st, extra)))
    series_open = 1;
  if (!rc && (run.record_positions || run.record_velocities)) {
    char sname[600];
    snprintf(sname, sizeof sname, "%s-state", base);
    if (!(rc = exp_csv_open(ctx, &state, sname,
                            run.record_velocities ? "step,t,particle,x,y,z,vx,vy,vz" : "step,t,particle,x,y,z", st,
                            extra)))
      state_open = 1, o.state = &state;
  }
  exp_limits lim = {run.max_error > 0 ? run.max_error : INFINITY,
                    run.has_max_energy_gain ? run.max_energy_gain : INFINITY, run.no_divergence};
  exp_outcome out;
  char who[600];
  snprintf(who, sizeof who, "%s %s", ctx->scene->name, r->name);
  if (!rc) {
    exp_watch_before(stderr, who, st, cdyn_scene_system(sc), run.h);
    exp_progress_label(who);
    rc = exp_simulate_scene(sc, NULL, st, run.h, run.steps, &lim, observe, &o, &out);
    exp_progress_label(NULL);
  }
  if (!rc)
    rc = observe_end(&o);
  if (!rc) {
    char digest[32];
    snprintf(digest, sizeof digest, "%016" PRIx64, out.digest);
    cdyn_scene_stats ss;
    cdyn_scene_stats_get(sc, &ss);
    const char *labels[4] = {r->name, r->scheme, end_name(out.end), digest};
    double v[11] = {(double)out.status, run.h, (double)out.steps, o.last_t, out.e0, out.emax, out.eend,
                    out.E0, out.Eend, out.dEmax, (double)ss.stepper_steps};
    rc = exp_csv_row_labels(summary, labels, 4, v, 11);
    printf("%s: %s after %ld of %ld steps, e_max %.3g m, max |E - E0| %.3g J, digest %s\n", who, end_name(out.end),
           out.steps, run.steps, out.emax, out.dEmax, digest);
    fflush(stdout);
    ctx->runs_failed += exp_watch_run(stderr, who, st, cdyn_scene_system(sc), run.h, run.steps, &out, &lim);
  }
  if (state_open) {
    int crc = exp_csv_close(&state, !rc);
    if (!rc)
      rc = crc;
  }
  if (series_open) {
    int crc = exp_csv_close(&series, !rc);
    if (!rc)
      rc = crc;
  }
  free(o.q);
  free(o.v);
  free(extra);
  cdyn_stepper_free(st);
  cdyn_scene_free(sc);
  return rc;
}

static int run_scene(exp_ctx *ctx)
{
  exp_csv summary;
  char name[300];
  snprintf(name, sizeof name, "%s-summary", ctx->scene->name);
  cdyn_scene *sc;
  int rc = exp_scene_build(ctx->scene, &sc);
  if (rc)
    return rc;
  char *extra = meta_fields(ctx->scene, sc, NULL, 0);
  cdyn_scene_free(sc);
  if (!extra)
    return cdyn_error(CDYN_ENOMEM, "scene: out of memory");
  rc = exp_csv_open(ctx, &summary, name,
                    "run,scheme,end,digest,status,h,steps,t_end,e0,e_max,e_end,E0,E_end,dE_max,stepper_steps", NULL, extra);
  free(extra);
  if (rc)
    return rc;
  for (int k = 0; k < ctx->nruns && !rc; k++)
    rc = run_one(ctx, &ctx->runs[k], &summary);
  int crc = exp_csv_close(&summary, !rc);
  return rc ? rc : crc;
}

/* ---- scenes from text ---------------------------------------------------------------- */

void exp_cloth_generator(exp_text *b, const exp_cloth_material *m, long grid, const size_t *pins, size_t npins,
                         const char *hooks)
{
  exp_cloth_generator_rect(b, m, grid, grid, m->size, pins, npins, hooks);
}

void exp_cloth_generator_rect(exp_text *b, const exp_cloth_material *m, long nx, long ny, double depth,
                              const size_t *pins, size_t npins, const char *hooks)
{
  exp_text_printf(b,
                  "{\"type\": \"cloth\", \"nx\": %ld, \"ny\": %ld, \"origin\": [%.17g, 0, %.17g], "
                  "\"u\": [%.17g, 0, 0], \"v\": [0, 0, %.17g], \"mass\": %.17g, \"k_struct\": %.17g, "
                  "\"k_shear\": %.17g, \"k_bend\": %.17g, \"damping\": %.17g, \"pins\": [",
                  nx, ny, -m->size / 2, -depth / 2, m->size, depth, m->mass, m->k_struct, m->k_shear, m->k_bend,
                  m->damping);
  for (size_t k = 0; k < npins; k++)
    exp_text_printf(b, "%s%zu", k ? ", " : "", pins[k]);
  exp_text_puts(b, "]");
  if (hooks && *hooks)
    exp_text_printf(b, ", %s", hooks);
  exp_text_puts(b, "}");
}

int exp_scene_read_text(const exp_text *b, const char *name, cdyn_scene **out)
{
  if (b->failed || !b->s)
    return cdyn_error(CDYN_ENOMEM, "%s: out of memory for the scene's text", name);
  return cdyn_scene_parse(out, b->s, b->len, name, NULL);
}
