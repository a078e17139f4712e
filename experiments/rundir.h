/*
 * rundir.h: a reader of a run directory (what `cdyn run` or `cdyn run
 * scene` wrote), for the commands that show runs (cdyn view, plot, animate).
 *
 * Every run listed in DIR/runs.csv is read: its main CSV, and where there
 * is one, its motion (frames of particle positions) and its topology
 * (cloth triangles, links, pins, balls, springs with their rest lengths).
 *
 * Where the motion comes from, in order:
 *   a scene run:  NAME-RUN-state.csv (step,t,particle,x,y,z) (NAME that of
 *                 NAME-summary.csv, the scene's), with the
 *                 topology of NAME-RUN.scene.json loaded by the library
 *                 (cdyn_scene_load): the cloth patches' triangles, else
 *                 the contact handler's, else triangles recovered from
 *                 the springs (a spring graph's non-overlapping triangles
 *                 at the starting positions); pins and distance
 *                 constraints; balls; springs.
 *   a run CSV with node-position columns x0,y0,z0,x1,...: those, each
 *                 row a frame (t from column t), no topology;
 *   an experiment's triangle snapshots (a CSV named *snapshots.csv with
 *                 columns scheme,snap,tri,x1..z3,t, the rows of the run
 *                 being those whose scheme is the run's name): each
 *                 snapshot a frame of a triangle soup (three particles
 *                 per triangle), with the experiment's balls
 *                 (*-balls.csv: scheme,snap,ball,x,y,z,radius; or one
 *                 ball in columns bx,by,bz,br of every row) and the
 *                 triangles' strain or contact flag where the file has
 *                 them;
 *   otherwise the run has no frames (x NULL, nframes 0).
 */
#ifndef CDYN_RUNDIR_H
#define CDYN_RUNDIR_H

#include <stddef.h>

typedef struct exp_rundir_run {
  char *name;            /* the run's name, e.g. "implicit" (from runs.csv / file names) */
  char *csv;             /* path of the run's main CSV (NAME-RUN.csv or RUN.csv) */
  char *state_csv;       /* path of NAME-RUN-state.csv, or NULL */
  char *scene_json;      /* path of NAME-RUN.scene.json, or NULL */
  size_t nparticles, nframes;
  double *t;             /* nframes times */
  double *x;             /* nframes * nparticles * 3 positions, row-major; NULL without frames */
  size_t ntris;   size_t *tris;    /* 3 particle indices each (cloth triangles) */
  size_t nlinks;  size_t *links;   /* 2 each: distance constraints / links (not cloth springs) */
  size_t npins;   size_t *pins;    /* pinned particles */
  size_t nballs;  size_t *balls;  double *ball_radius;  /* ball particle and radius */
  size_t nsprings; size_t *springs; double *spring_rest; /* 2 each + rest length (for strain) */
  /* Added: */
  char *scheme;          /* the run's scheme (runs.csv), or NULL */
  char *source;          /* where the frames came from: "state", "columns", "snapshots", or NULL */
  double *tri_strain;    /* nframes * ntris strains from an experiment's snapshots, or NULL */
  unsigned char *tri_flag; /* nframes * ntris contact flags from an experiment's snapshots, or NULL */
} exp_rundir_run;

/* Read every run of DIR; on error print "cdyn: DIR: reason" on stderr and return EXP_EXIT_FAIL
   (or EXP_EXIT_USAGE for a directory that is no run directory). */
int exp_rundir_load(const char *dir, exp_rundir_run **runs, size_t *nruns);
void exp_rundir_free(exp_rundir_run *runs, size_t nruns);

#endif
