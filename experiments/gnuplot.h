/*
 * gnuplot.h: what `cdyn plot` and `cdyn animate` share (gnuplot.c): the
 * run directory loaded, gnuplot and the scripts found, a temporary
 * directory with the palette in it; a figure drawn by a script; the 3-D
 * data the scripts read; the figures' palette.
 */
#ifndef CDYN_GNUPLOT_H
#define CDYN_GNUPLOT_H

#include <stddef.h>
#include <stdio.h>

#include "runner/text.h"
#include "rundir.h"

typedef struct exp_plotctx {
  const char *who;    /* "cdyn plot" or "cdyn animate" */
  const char *dir;    /* the run directory */
  char *stem;         /* the figures' base name */
  char *datadir;      /* the scripts */
  char *gnuplot;      /* the gnuplot program found on PATH */
  char tmp[4096];     /* the temporary directory */
  char log[4200];     /* gnuplot's and ffmpeg's messages, shown when one fails */
  exp_rundir_run *runs;
  size_t nruns;
} exp_plotctx;

/* Everything both commands need: the runs, gnuplot, the scripts, the
   temporary directory with the palette in it; 0, or the exit status with
   a message.  exp_gp_close frees it and removes the temporary directory
   (also after a failed exp_gp_open). */
int exp_gp_open(exp_plotctx *c, const char *who, const char *dir);
void exp_gp_close(exp_plotctx *c);

/* s as a gnuplot single-quoted string ('' for a quote within). */
void exp_gp_str(exp_text *b, const char *s);
/* Run argv[0] with argv, its standard output to /dev/null and its
   standard error to the file ERR (when not NULL); 0 when it exits with
   status 0. */
int exp_gp_run(char *const *argv, const char *err);
/* Copy what the program that failed said to stderr. */
void exp_gp_show_log(const exp_plotctx *c);
/* The gnuplot variables every script takes (CSV_PREFIX when prefix is
   not NULL), appended to e. */
void exp_gp_vars(const exp_plotctx *c, exp_text *e, const char *runs, const char *prefix);
/* Draw SCRIPT into DIR/OUT (through DIR/.OUT.tmp.EXT) with terminal TERM
   and the variables VARS.  0, or 1 with a message. */
int exp_gp_draw(const exp_plotctx *c, const char *script, const char *vars, const char *term, const char *out);
/* Can a run name go into a gnuplot word list? */
int exp_gp_plain_name(const char *s);

/* The run's frame FR as drawn: triangles (polygons), else links
   (segments), else points; blocks separated by blank lines. */
void exp_gp_write_frame(FILE *f, const exp_rundir_run *r, size_t fr);
/* The balls of the run at frame FR, each a sphere of quadrilaterals. */
void exp_gp_write_balls(FILE *f, const exp_rundir_run *r, size_t fr);
/* How a run's frames are drawn: 1 polygons, 2 segments, 3 points. */
int exp_gp_draw_mode(const exp_rundir_run *r);
/* Extend the bounds (gnuplot's axes) by the finite points of frame FR
   and its balls. */
void exp_gp_bounds(double lo[3], double hi[3], const exp_rundir_run *r, size_t fr);
/* The axes' ranges, for the scripts: XR0 .. ZR1 (a degenerate one
   widened). */
void exp_gp_write_ranges(FILE *f, double lo[3], double hi[3]);
/* The file NAME in the temporary directory, open for writing, or NULL. */
FILE *exp_gp_tmp_file(const exp_plotctx *c, const char *name);

/* The figures' line styles as gnuplot definitions (what `cdyn palette`
   prints, what paper_figs/common.gp loads) into F; 0, or -1 when F
   failed. */
int exp_palette_write(FILE *f);

#endif
