/*
 * view.c: `cdyn view DIR [--out FILE] [--max-frames N]`: one
 * self-contained HTML page showing the runs of a run directory in 3-D
 * (doc/viewer.md).
 *
 * The page is the template experiments/viewer.html (compiled into the
 * program as viewer-html.h) with the runs' data put in place of its
 * marker: one JSON object, the positions as base64 of little-endian
 * float32 (every frame's nparticles x 3), the topology as lists of
 * indices.  Frames are subsampled evenly (the first and the last kept)
 * to at most --max-frames, and without --max-frames also to a budget of
 * positions (VIEW_BUDGET bytes of float32 over all runs), so that a large
 * cloth over many frames stays a few megabytes.  The page is written
 * atomically (exp_afile).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cli.h"
#include "runner/text.h"
#include "runner/files.h"
#include "commands.h"
#include "rundir.h"
#include "viewer-html.h"

#define VIEW_DEFAULT_FRAMES 400
#define VIEW_BUDGET ((size_t)4 << 20)
#define VIEW_MARKER "/*CDYN_VIEW_DATA*/"

static const char prog[] = "cdyn view";

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Base64 of bytes, streamed three at a time. */
typedef struct enc {
  FILE *f;
  unsigned char in[3];
  int n;
} enc;
static void enc_byte(enc *e, unsigned char c)
{
  e->in[e->n++] = c;
  if (e->n == 3) {
    char o[4] = {b64[e->in[0] >> 2], b64[((e->in[0] & 3) << 4) | (e->in[1] >> 4)],
                 b64[((e->in[1] & 15) << 2) | (e->in[2] >> 6)], b64[e->in[2] & 63]};
    fwrite(o, 1, 4, e->f);
    e->n = 0;
  }
}
static void enc_end(enc *e)
{
  if (!e->n)
    return;
  unsigned char a = e->in[0], b = e->n > 1 ? e->in[1] : 0;
  char o[4] = {b64[a >> 2], b64[((a & 3) << 4) | (b >> 4)], e->n > 1 ? b64[(b & 15) << 2] : '=', '='};
  fwrite(o, 1, 4, e->f);
  e->n = 0;
}
static void enc_float(enc *e, double x)
{
  float v = (float)x;
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  for (int k = 0; k < 4; k++)
    enc_byte(e, (unsigned char)(u >> (8 * k)));
}

/* A JSON string safe inside a <script> element: <, > and & escaped too. */
static void put_str(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20 || c == '<' || c == '>' || c == '&')
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

static void put_sizes(FILE *f, const char *key, const size_t *v, size_t n)
{
  fprintf(f, ",\"%s\":[", key);
  for (size_t k = 0; k < n; k++)
    fprintf(f, "%s%zu", k ? "," : "", v[k]);
  fputc(']', f);
}

static void put_doubles(FILE *f, const char *key, const double *v, size_t n)
{
  fprintf(f, ",\"%s\":[", key);
  for (size_t k = 0; k < n; k++)
    fprintf(f, "%s%.9g", k ? "," : "", isfinite(v[k]) ? v[k] : 0.0);
  fputc(']', f);
}

/* The frames kept of n: m evenly spaced, the first and the last among them. */
static size_t pick(size_t k, size_t m, size_t n)
{
  if (m <= 1 || n <= 1)
    return 0;
  return (size_t)((double)k * (double)(n - 1) / (double)(m - 1) + 0.5);
}

static void put_run(FILE *f, const exp_rundir_run *r, size_t maxf)
{
  size_t m = r->x ? (r->nframes < maxf ? r->nframes : maxf) : 0;
  fputs("{\"name\":", f);
  put_str(f, r->name);
  fputs(",\"scheme\":", f);
  put_str(f, r->scheme ? r->scheme : "");
  fputs(",\"source\":", f);
  put_str(f, r->source ? r->source : "");
  fprintf(f, ",\"nparticles\":%zu,\"nframes\":%zu,\"nframes_run\":%zu", r->x ? r->nparticles : 0, m, r->nframes);
  fputs(",\"t\":[", f);
  for (size_t k = 0; k < m; k++)
    fprintf(f, "%s%.9g", k ? "," : "", r->t[pick(k, m, r->nframes)]);
  fputs("],\"x\":\"", f);
  enc e = {f, {0}, 0};
  for (size_t k = 0; k < m; k++) {
    const double *x = r->x + pick(k, m, r->nframes) * r->nparticles * 3;
    for (size_t q = 0; q < 3 * r->nparticles; q++)
      enc_float(&e, x[q]);
  }
  enc_end(&e);
  fputc('"', f);
  if (r->x) {
    put_sizes(f, "tris", r->tris, 3 * r->ntris);
    put_sizes(f, "links", r->links, 2 * r->nlinks);
    put_sizes(f, "pins", r->pins, r->npins);
    put_sizes(f, "balls", r->balls, r->nballs);
    put_doubles(f, "radius", r->ball_radius, r->nballs);
    put_sizes(f, "springs", r->springs, 2 * r->nsprings);
    put_doubles(f, "rest", r->spring_rest, r->nsprings);
    if (r->tri_strain) {
      fputs(",\"tri_strain\":\"", f);
      for (size_t k = 0; k < m; k++)
        for (size_t q = 0; q < r->ntris; q++)
          enc_float(&e, r->tri_strain[pick(k, m, r->nframes) * r->ntris + q]);
      enc_end(&e);
      fputc('"', f);
    }
    if (r->tri_flag) {
      fputs(",\"tri_flag\":\"", f);
      for (size_t k = 0; k < m; k++)
        for (size_t q = 0; q < r->ntris; q++)
          enc_byte(&e, r->tri_flag[pick(k, m, r->nframes) * r->ntris + q]);
      enc_end(&e);
      fputc('"', f);
    }
  }
  fputc('}', f);
}

static int usage(const char *fmt, const char *arg)
{
  fprintf(stderr, "%s: ", prog);
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  return EXP_EXIT_USAGE;
}

int exp_cmd_view(int argc, char **argv, const char *command)
{
  (void)command;
  const char *dir = NULL, *out = NULL;
  long maxf = 0;
  for (int k = 0; k < argc; k++) {
    if (!strcmp(argv[k], "--out") || !strcmp(argv[k], "--max-frames")) {
      if (k + 1 >= argc)
        return usage("%s needs a value", argv[k]);
      if (!strcmp(argv[k], "--out"))
        out = argv[++k];
      else {
        char *end;
        errno = 0;
        maxf = strtol(argv[++k], &end, 10);
        if (*end || end == argv[k] || errno || maxf < 1 || maxf > 1000000)
          return usage("--max-frames %s: expected a whole number in [1, 1000000]", argv[k]);
      }
    } else if (argv[k][0] == '-' && argv[k][1]) {
      static const char *const options[] = {"--out", "--max-frames", "--help", NULL};
      return exp_unknown_option(prog, argv[k], options);
    }
    else if (dir)
      return usage("one directory expected; %s is a second", argv[k]);
    else
      dir = argv[k];
  }
  if (!dir)
    return usage("%s", "which run directory? (cdyn view DIR [--out FILE] [--max-frames N])");
  if (out && !*out)
    return usage("%s", "--out needs a file name");

  exp_rundir_run *runs;
  size_t nruns;
  int rc = exp_rundir_load(dir, &runs, &nruns);
  if (rc)
    return rc;

  /* The frame cap. */
  size_t cap = maxf ? (size_t)maxf : VIEW_DEFAULT_FRAMES;
  if (!maxf) {
    size_t per_frame = 0;
    for (size_t k = 0; k < nruns; k++)
      if (runs[k].x)
        per_frame += runs[k].nparticles * 3 * sizeof(float);
    if (per_frame && cap > VIEW_BUDGET / per_frame)
      cap = VIEW_BUDGET / per_frame < 2 ? 2 : VIEW_BUDGET / per_frame;
  }

  /* Where: DIR/view.html, or FILE split into its directory and name. */
  char odir[4096], oname[1024];
  if (!out)
    snprintf(odir, sizeof odir, "%s", dir), snprintf(oname, sizeof oname, "view.html");
  else {
    const char *slash = strrchr(out, '/');
    if (slash && !slash[1]) {
      exp_rundir_free(runs, nruns);
      return usage("--out %s: expected a file name, not a directory", out);
    }
    if (slash) {
      snprintf(odir, sizeof odir, "%.*s", (int)(slash - out ? slash - out : 1), out);
      snprintf(oname, sizeof oname, "%s", slash + 1);
    } else {
      snprintf(odir, sizeof odir, ".");
      snprintf(oname, sizeof oname, "%s", out);
    }
  }

  const char *tpl = viewer_html, *mark = strstr(tpl, VIEW_MARKER);
  if (!mark) {
    exp_rundir_free(runs, nruns);
    return exp_complain(prog, EXP_EXIT_FAIL, "the page's template has no data marker");
  }
  exp_afile a;
  if (exp_afile_create(&a, prog, odir, oname, 0)) {
    exp_rundir_free(runs, nruns);
    return EXP_EXIT_FAIL;
  }
  fwrite(tpl, 1, (size_t)(mark - tpl), a.f);
  fputs("{\"dir\":", a.f);
  put_str(a.f, dir);
  fputs(",\"runs\":[", a.f);
  size_t shown = 0;
  for (size_t k = 0; k < nruns; k++) {
    if (k)
      fputc(',', a.f);
    put_run(a.f, &runs[k], cap);
    shown += runs[k].x ? 1 : 0;
  }
  fputs("]}", a.f);
  fputs(mark + strlen(VIEW_MARKER), a.f);
  rc = exp_afile_finish(&a, prog, 1);
  if (!rc)
    printf("%s: %zu run%s (%zu with frames) in %s/%s\n", prog, nruns, nruns == 1 ? "" : "s", shown, odir, oname);
  exp_rundir_free(runs, nruns);
  return rc ? EXP_EXIT_FAIL : EXP_EXIT_OK;
}
