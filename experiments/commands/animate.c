/*
 * animate.c: `cdyn animate DIR [--run NAME] [--format gif|mp4] [--fps N]
 * [--max-frames N]`: an animation of one run of a run directory (what
 * `cdyn run scene` or `cdyn run EXPERIMENT` wrote), drawn by gnuplot
 * (gnuplot.c), into DIR: STEM-RUN.gif (gnuplot's gif terminal, animated)
 * or STEM-RUN.mp4 (PNG frames joined by ffmpeg): the 3-D view of the
 * run's frames, at most --max-frames of them, evenly spaced, the first
 * and last included.  STEM is the scene's name, or the directory's last
 * component.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runner/cli.h"
#include "runner/text.h"
#include "runner/files.h"
#include "commands.h"
#include "gnuplot.h"

/* ---- cdyn animate ------------------------------------------------------------------------- */

#define ANIM_USAGE "usage: cdyn animate DIR [--run NAME] [--format gif|mp4] [--fps N] [--max-frames N]\n"

static int parse_count(const char *who, const char *opt, const char *s, long lo, long hi, long *v)
{
  char *end;
  errno = 0;
  long x = strtol(s, &end, 10);
  if (errno || end == s || *end || x < lo || x > hi)
    return exp_complain(who, EXP_EXIT_USAGE, "%s takes a whole number from %ld to %ld, not '%s'", opt, lo, hi, s);
  *v = x;
  return 0;
}

int exp_cmd_animate(int argc, char **argv, const char *command)
{
  (void)command;
  const char *who = "cdyn animate";
  const char *dir = NULL, *run = NULL, *format = "gif";
  long fps = 15, maxf = 100;
  for (int k = 0; k < argc; k++) {
    const char *a = argv[k];
    int has = k + 1 < argc;
    if (!strcmp(a, "--run") && has) {
      run = argv[++k];
    } else if (!strcmp(a, "--format") && has) {
      format = argv[++k];
    } else if (!strcmp(a, "--fps") && has) {
      if (parse_count(who, a, argv[++k], 1, 100, &fps))
        return EXP_EXIT_USAGE;
    } else if (!strcmp(a, "--max-frames") && has) {
      if (parse_count(who, a, argv[++k], 2, 10000, &maxf))
        return EXP_EXIT_USAGE;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      printf(ANIM_USAGE);
      return EXP_EXIT_OK;
    } else if (a[0] == '-') {
      static const char *const options[] = {"--run", "--format", "--fps", "--max-frames", "--help", NULL};
      for (const char *const *o = options; *o; o++)
        if (!strcmp(*o, a))
          return exp_complain(who, EXP_EXIT_USAGE, "option '%s' needs a value", a);
      return exp_unknown_option(who, a, options);
    } else if (dir) {
      return exp_complain(who, EXP_EXIT_USAGE, "one directory only ('%s' and '%s')", dir, a);
    } else {
      dir = a;
    }
  }
  if (!dir)
    return exp_complain(who, EXP_EXIT_USAGE, "which run directory? (%.*s)", (int)strlen(ANIM_USAGE) - 8,
                        ANIM_USAGE + 7);
  int mp4 = !strcmp(format, "mp4");
  if (!mp4 && strcmp(format, "gif"))
    return exp_complain(who, EXP_EXIT_USAGE, "unknown format '%s' (gif, mp4)", format);
  exp_plotctx c;
  int rc = exp_gp_open(&c, who, dir);
  char *ffmpeg = NULL;
  const exp_rundir_run *r = NULL;
  if (!rc && mp4 && !(ffmpeg = exp_find_program("ffmpeg")))
    rc = exp_complain(who, EXP_EXIT_FAIL, "--format mp4 needs ffmpeg, which is not on PATH (--format gif does not)");
  for (size_t k = 0; !rc && k < c.nruns && !r; k++)
    if (run ? !strcmp(c.runs[k].name, run) : c.runs[k].x && c.runs[k].nframes > 0)
      r = &c.runs[k];
  if (!rc && !r)
    rc = run ? exp_complain(who, EXP_EXIT_USAGE, "%s: no run named '%s'", dir, run)
             : exp_complain(who, EXP_EXIT_FAIL, "%s: no run records positions (a scene records them with "
                                                "\"record\": {\"positions\": true})", dir);
  if (!rc && (!r->x || r->nframes == 0))
    rc = exp_complain(who, EXP_EXIT_FAIL, "%s: run '%s' records no positions", dir, r->name);
  if (!rc && !exp_gp_plain_name(r->name))
    rc = exp_complain(who, EXP_EXIT_FAIL, "%s: run name '%s' holds characters the scripts cannot take", dir, r->name);
  /* The frames: m of them, evenly spaced, the first and the last included. */
  size_t m = 0;
  FILE *fa = NULL, *fb = NULL, *fv = NULL;
  if (!rc) {
    m = r->nframes < (size_t)maxf ? r->nframes : (size_t)maxf;
    fa = exp_gp_tmp_file(&c, "anim.dat");
    fb = exp_gp_tmp_file(&c, "anim-balls.dat");
    fv = exp_gp_tmp_file(&c, "anim.gp");
    if (!fa || !fb || !fv)
      rc = exp_complain(who, EXP_EXIT_FAIL, "cannot write into %s: %s", c.tmp, strerror(errno));
  }
  if (!rc) {
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    fprintf(fv, "NF = %zu; AMODE = %d; array AT[%zu]\n", m, exp_gp_draw_mode(r), m);
    for (size_t k = 0; k < m; k++) {
      size_t fr = m > 1 ? (size_t)((double)k * (double)(r->nframes - 1) / (double)(m - 1) + 0.5) : 0;
      if (k) {
        fputs("\n\n", fa);
        fputs("\n\n", fb);
      }
      exp_gp_write_frame(fa, r, fr);
      exp_gp_write_balls(fb, r, fr);
      exp_gp_bounds(lo, hi, r, fr);
      fprintf(fv, "AT[%zu] = %.9g\n", k + 1, r->t[fr]);
    }
    exp_gp_write_ranges(fv, lo, hi);
    fprintf(fv, "FPS = %ld; ARUN = '%s'\n", fps, r->name);
  }
  int bad = 0;
  if (fa)
    bad |= fclose(fa) != 0;
  if (fb)
    bad |= fclose(fb) != 0;
  if (fv)
    bad |= fclose(fv) != 0;
  if (!rc && bad)
    rc = exp_complain(who, EXP_EXIT_FAIL, "cannot write into %s", c.tmp);
  if (!rc) {
    exp_text vars = {0}, out = {0};
    exp_gp_vars(&c, &vars, r->name, NULL);
    exp_text_printf(&out, "%s-%s.%s", c.stem, r->name, mp4 ? "mp4" : "gif");
    if (vars.failed || out.failed) {
      rc = exp_complain(who, EXP_EXIT_FAIL, "out of memory");
    } else if (!mp4) {
      rc = exp_gp_draw(&c, "run-animate.gp", vars.s, "gif", out.s);
    } else {
      /* PNG frames into the temporary directory, then ffmpeg. */
      exp_text pat = {0}, tmp = {0}, fin = {0}, fr = {0}, sp = {0}, e = {0};
      exp_text_printf(&pat, "%s/frame-%%05d.png", c.tmp);
      exp_text_printf(&tmp, "%s/.%s-%s.tmp.mp4", dir, c.stem, r->name);
      exp_text_printf(&fin, "%s/%s", dir, out.s);
      exp_text_printf(&fr, "%ld", fps);
      exp_text_printf(&sp, "%s/run-animate.gp", c.datadir);
      exp_text_puts(&e, vars.s);
      exp_text_puts(&e, "TERM_NAME = 'pngframes'; OUT_NAME = ");
      exp_gp_str(&e, pat.s ? pat.s : "");
      if (pat.failed || tmp.failed || fin.failed || fr.failed || sp.failed || e.failed) {
        rc = exp_complain(who, EXP_EXIT_FAIL, "out of memory");
      } else {
        char *gargv[] = {c.gnuplot, "-e", e.s, sp.s, NULL};
        char *fargv[] = {ffmpeg, "-y", "-loglevel", "error", "-framerate", fr.s, "-i", pat.s, "-vf",
                         "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-pix_fmt", "yuv420p", "-f", "mp4", tmp.s, NULL};
        struct stat sb;
        if (exp_gp_run(gargv, c.log)) {
          exp_gp_show_log(&c);
          rc = exp_complain(who, EXP_EXIT_FAIL, "gnuplot failed drawing the frames with %s", sp.s);
        } else if (exp_gp_run(fargv, c.log) || stat(tmp.s, &sb) || sb.st_size == 0) {
          remove(tmp.s);
          exp_gp_show_log(&c);
          rc = exp_complain(who, EXP_EXIT_FAIL, "ffmpeg failed joining the frames into %s", fin.s);
        } else if (rename(tmp.s, fin.s)) {
          rc = exp_complain(who, EXP_EXIT_FAIL, "cannot rename %s to %s: %s", tmp.s, fin.s, strerror(errno));
          remove(tmp.s);
        } else {
          printf("%s\n", fin.s);
        }
      }
      exp_text_free(&pat);
      exp_text_free(&tmp);
      exp_text_free(&fin);
      exp_text_free(&fr);
      exp_text_free(&sp);
      exp_text_free(&e);
    }
    exp_text_free(&vars);
    exp_text_free(&out);
  }
  free(ffmpeg);
  exp_gp_close(&c);
  return rc;
}
