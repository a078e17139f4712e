/*
 * bench/peer_bullet.h: a cloth run in Bullet 3.24's soft body (its
 * classic position-based solver, btSoftBody in a btSoftRigidDynamicsWorld),
 * as the peer of cdyn-bench's cloth section (cloth.c).  The interface is
 * C; peer_bullet.cpp, the project's only C++, implements it.
 *
 * The cloth is given as cdyn's cloth generator builds it (the caller
 * passes its nodes, springs and triangles), so that node k and link k of
 * the soft body are node k and spring k of cdyn's system: the same
 * numbering, the same edges.  How cdyn's parameters map onto Bullet's:
 * peer_bullet.cpp's header.
 */
#ifndef CDYN_BENCH_PEER_BULLET_H
#define CDYN_BENCH_PEER_BULLET_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct peer_bullet_cloth {
  size_t n;                /* nodes */
  const double *x0;        /* 3n, the nodes' starting positions (at rest) */
  const double *mass;      /* n, kg; 0: a pinned node (Bullet's setMass(i, 0)) */
  size_t links;            /* springs */
  const size_t *link;      /* 2 links, the nodes of each */
  const double *stiffness; /* links, Bullet's kLST of each (a fraction in (0, 1], not N/m) */
  size_t triangles;        /* faces, for Bullet's normals (no aerodynamics runs) */
  const size_t *tri;       /* 3 triangles */
  double g[3];             /* m/s^2 */
  double damping;          /* Bullet's kDP, in [0, 1] */
  int iterations;          /* Bullet's piterations, >= 1 */
  double margin;           /* m, the soft body's collision margin (> 0) */
  int ball;                /* 1: a static sphere */
  double centre[3], radius; /* m */
  double voxel;            /* m, the sparse signed distance field's voxel size */
} peer_bullet_cloth;

typedef struct peer_bullet peer_bullet;

/* Builds the world and the soft body; NULL (with the reason in why) on
   bad input or without memory. */
peer_bullet *peer_bullet_new(const peer_bullet_cloth *spec, char *why, size_t len);

/* One frame of h seconds: stepSimulation(h, 0), exactly one internal step
   of h.  0, or -1 (with why) if Bullet threw. */
int peer_bullet_step(peer_bullet *pb, double h, char *why, size_t len);

/* The nodes' positions m_nodes[i].m_x into x (3n), in cdyn's numbering. */
void peer_bullet_positions(const peer_bullet *pb, double *x);

void peer_bullet_free(peer_bullet *pb);

/* Bullet's version as its headers give it ("3.24"), and the size of its
   btScalar in bytes (8: the double precision build). */
const char *peer_bullet_version(void);
int peer_bullet_scalar_bytes(void);

#ifdef __cplusplus
}
#endif
#endif
