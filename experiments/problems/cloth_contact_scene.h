/*
 * cloth_contact_scene.h: the scene of cloth-contact and
 * cloth-self-contact, and the run both make of it
 * (cloth_contact_scene.c).
 */
#ifndef CDYN_CLOTH_CONTACT_SCENE_H
#define CDYN_CLOTH_CONTACT_SCENE_H

#include "runner/experiment.h"

typedef struct {
  long grid, balls;
  double size, mass, k_struct, k_shear, k_bend, damping, eps_max;
  double radius, ball_mass, speed, delta, ball_height, ball_spacing;
  long capacity, pairs; /* cloth-cloth contacts, broad-phase pairs per query reserved */
  double skin;          /* the broad phase's skin (m) */
  double merge;         /* the run merged: the merge rule's angle (degrees; cloth-self-contact's `merge`) */
  int along_x;    /* the balls on the line z = 0 (between the posts), not on x = 0 */
  int edge_posts; /* posts: 1 every node of the edges x = -size/2 and x = +size/2, 0 their two middle nodes */
  const char *name; /* the experiment: its files' prefix */
  int self;         /* cloth-self-contact's scene: no posts, one fixed ball below the cloth */
  double drop;      /* self: the ball's top this far below the cloth (m) */
  double offset[2]; /* self: the ball's centre off the cloth's centre along x and z (m) */
  double frame;     /* the step of the runs named *-frame, over the same time (s; 0: none) */
  long jobs;        /* processes running the runs at once (cloth-self-contact's `jobs`; 0 or 1: one) */
  const char *first; /* with jobs > 1, the run of this name is queued first (the longest, so that the
                        processes end together; the files do not depend on the order); may be NULL */
  int share;        /* the run failsafe may share the run implicit's simulation (cloth-self-contact's
                       `share_failsafe`; cloth_contact_scene.c, share_run) */
} exp_cc_spec;

/* The snapshot times checked: 0, or CDYN_EINVAL with a message. */
int exp_cc_check_snapshots(exp_ctx *ctx);

/* The parameters both experiments take (grid, capacity, pairs, the material,
   eps_max, ball_radius, thickness, skin) into sp. */
void exp_cc_read_spec(exp_ctx *ctx, exp_cc_spec *sp);

/* The run of both scene experiments (cloth-contact, cloth-self-contact):
   every run of ctx on the scene sp, their files under sp->name. */
int exp_cc_run(exp_ctx *ctx, const exp_cc_spec *sp0);

/* The columns of the files both experiments write (cloth-self-contact's
   under its name for cloth-contact's: its files_as). */
extern const exp_column exp_cc_columns[];

#endif
