/*
 * bench/peer_bullet.cpp: a cloth in Bullet 3.24's soft body, the peer of
 * cdyn-bench's cloth section (peer_bullet.h, cloth.c).  The project's
 * only C++ file; built when configure finds Bullet (bullet-float64, in
 * which btScalar is a double, else bullet, single precision; the meta
 * record says which).
 *
 * Model.  One btSoftBody in a btSoftRigidDynamicsWorld (the default
 * collision configuration btSoftBodyRigidBodyCollisionConfiguration, a
 * btDbvtBroadphase, a btSequentialImpulseConstraintSolver, and Bullet's
 * default soft body solver, the classic one on the CPU).  The nodes are
 * cdyn's cloth nodes in cdyn's order, each of its mass (0.5 kg / N^2 on
 * the N x N cloth); a pinned node gets setMass(i, 0) (an inverse mass of
 * 0: Bullet moves it never).  The links are cdyn's springs in cdyn's
 * order (structural, shear, bend: appendLink with one material per kind),
 * rest length their starting length, as cdyn's springs; the faces are
 * cdyn's triangles (used for normals only: no aerodynamics runs, Bullet's
 * kDG = kLF = 0).  The world's gravity and the soft body world info's
 * (Bullet's own default there is -10) are both g.
 *
 * A step of h (stepSimulation(h, 0): maxSubSteps 0 takes exactly one
 * internal step of h per call) is, for the soft body (btSoftBody::
 * predictMotion, solveConstraints):
 *   v += h g,  q = x,  x += h v             (symplectic Euler, forces only)
 *   contacts: each node against the sphere's signed distance field
 *   piterations times, in order: Anchors, RContacts, SContacts, Linear:
 *     for each link (a, b), rest length L, d = x_b - x_a:
 *       k = kLST (L^2 - |d|^2) / ((w_a + w_b)(L^2 + |d|^2))
 *       x_a -= k w_a d,  x_b += k w_b d       (w: inverse masses)
 *   v = (x - q) / h (1 - kDP)
 * so a link is a position projection, PBD without compliance: its
 * "stiffness" kLST is a fraction of the violation removed per iteration,
 * in [0, 1], not N/m, and how stiff the cloth ends up depends on kLST,
 * piterations, h and the resolution together.  There is no spring force:
 * with kLST = 1 and enough iterations every link is inextensible.
 *
 * How cdyn's cloth maps (the choices; cloth.c states them with the
 * problems):
 *   k_struct, k_shear, k_bend (100, 20, 2 N/m)  kLST 1, 0.2, 0.02: the
 *       structural links as stiff as Bullet makes them, the others in the
 *       same ratios to them as cdyn's stiffnesses (no conversion to N/m
 *       exists);
 *   damping (0.02 N s/m on each spring's relative velocity)  kDP = 0:
 *       Bullet's kDP scales every node's whole velocity by (1 - kDP) each
 *       step, a drag on the absolute motion that would also slow the fall,
 *       and its classic links have no relative damping; the projection's
 *       own dissipation stands in for it;
 *   piterations  10 or 40 (the variants), the number of sweeps;
 *   the ball  a static btRigidBody (mass 0) with a btSphereShape of the
 *       ball's radius, friction 0 (cdyn's ball is frictionless); the soft
 *       body collides with it by fCollision::SDF_RS (Bullet's default:
 *       each node against the rigid shape's sparse signed distance field,
 *       contact below the soft body's collision margin, which is set to
 *       cdyn's contact thickness instead of Bullet's default 0.25 m; the
 *       field's voxels are set to `voxel`, not Bullet's default 0.25 m, so
 *       that its trilinear interpolation follows the sphere); the contact
 *       hardness for a static body is Bullet's default kKHR = 0.1.
 * Everything else is Bullet's default (viterations 0, diterations 0,
 * citerations 4, kMT 0, kVC 0, kPR 0, timescale 1, no clusters, no
 * randomizeConstraints: links solved in cdyn's order every iteration).
 *
 * Bullet is deterministic here: one thread, the same order of links and
 * contacts at every run.
 */
#include "peer_bullet.h"

#include <btBulletDynamicsCommon.h>
#include <BulletSoftBody/btSoftBody.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <BulletSoftBody/btSoftRigidDynamicsWorld.h>

#include <cmath>
#include <cstdio>
#include <exception>
#include <new>

struct peer_bullet {
  btSoftBodyRigidBodyCollisionConfiguration *config;
  btCollisionDispatcher *dispatcher;
  btBroadphaseInterface *broadphase;
  btSequentialImpulseConstraintSolver *solver;
  btSoftRigidDynamicsWorld *world;
  btSoftBody *body;
  btSphereShape *sphere;
  btDefaultMotionState *motion;
  btRigidBody *ball;
};

static void release(peer_bullet *pb)
{
  if (!pb)
    return;
  if (pb->world && pb->body)
    pb->world->removeSoftBody(pb->body);
  if (pb->world && pb->ball)
    pb->world->removeRigidBody(pb->ball);
  delete pb->body;
  delete pb->ball;
  delete pb->motion;
  delete pb->sphere;
  delete pb->world;
  delete pb->solver;
  delete pb->broadphase;
  delete pb->dispatcher;
  delete pb->config;
  delete pb;
}

static peer_bullet *build(const peer_bullet_cloth *c, char *why, size_t len)
{
  peer_bullet *pb = new peer_bullet();
  pb->config = new btSoftBodyRigidBodyCollisionConfiguration();
  pb->dispatcher = new btCollisionDispatcher(pb->config);
  pb->broadphase = new btDbvtBroadphase();
  pb->solver = new btSequentialImpulseConstraintSolver();
  pb->world = new btSoftRigidDynamicsWorld(pb->dispatcher, pb->broadphase, pb->solver, pb->config);
  const btVector3 g(btScalar(c->g[0]), btScalar(c->g[1]), btScalar(c->g[2]));
  pb->world->setGravity(g);
  btSoftBodyWorldInfo &info = pb->world->getWorldInfo();
  info.m_gravity = g;
  info.m_sparsesdf.setDefaultVoxelsz(btScalar(c->voxel));
  info.m_sparsesdf.Reset();

  btAlignedObjectArray<btVector3> x;
  btAlignedObjectArray<btScalar> m;
  x.resize(int(c->n));
  m.resize(int(c->n));
  for (size_t i = 0; i < c->n; i++) {
    x[int(i)] = btVector3(btScalar(c->x0[3 * i]), btScalar(c->x0[3 * i + 1]), btScalar(c->x0[3 * i + 2]));
    m[int(i)] = btScalar(c->mass[i]);
  }
  pb->body = new btSoftBody(&info, int(c->n), &x[0], &m[0]);
  btSoftBody *sb = pb->body;
  sb->getCollisionShape()->setMargin(btScalar(c->margin));
  for (size_t i = 0; i < c->n; i++)
    if (!(c->mass[i] > 0))
      sb->setMass(int(i), 0);
  /* One material per distinct kLST (the kinds), in the order met. */
  btSoftBody::Material *mat[8] = {0};
  double kl[8];
  int nmat = 0;
  for (size_t k = 0; k < c->links; k++) {
    int im = 0;
    while (im < nmat && kl[im] != c->stiffness[k])
      im++;
    if (im == nmat) {
      if (nmat == 8) {
        std::snprintf(why, len, "more than 8 distinct link stiffnesses");
        release(pb);
        return NULL;
      }
      mat[im] = nmat ? sb->appendMaterial() : sb->m_materials[0];
      mat[im]->m_kLST = btScalar(c->stiffness[k]);
      mat[im]->m_kAST = 1;
      mat[im]->m_kVST = 1;
      kl[im] = c->stiffness[k];
      nmat++;
    }
    sb->appendLink(int(c->link[2 * k]), int(c->link[2 * k + 1]), mat[im], false);
  }
  for (size_t t = 0; t < c->triangles; t++)
    sb->appendFace(int(c->tri[3 * t]), int(c->tri[3 * t + 1]), int(c->tri[3 * t + 2]));
  sb->m_cfg.piterations = c->iterations;
  sb->m_cfg.kDP = btScalar(c->damping);
  sb->m_cfg.collisions = btSoftBody::fCollision::SDF_RS;
  pb->world->addSoftBody(sb);

  if (c->ball) {
    pb->sphere = new btSphereShape(btScalar(c->radius));
    btTransform at;
    at.setIdentity();
    at.setOrigin(btVector3(btScalar(c->centre[0]), btScalar(c->centre[1]), btScalar(c->centre[2])));
    pb->motion = new btDefaultMotionState(at);
    btRigidBody::btRigidBodyConstructionInfo ci(0, pb->motion, pb->sphere, btVector3(0, 0, 0));
    ci.m_friction = 0;
    pb->ball = new btRigidBody(ci);
    pb->world->addRigidBody(pb->ball);
  }
  return pb;
}

extern "C" peer_bullet *peer_bullet_new(const peer_bullet_cloth *c, char *why, size_t len)
{
  if (!c || c->n < 2 || !c->x0 || !c->mass || !c->link || !c->stiffness || (c->triangles && !c->tri) ||
      c->iterations < 1 || !(c->margin > 0) || !(c->damping >= 0 && c->damping <= 1) ||
      (c->ball && !(c->radius > 0 && c->voxel > 0)) || c->n > 1000000000u) {
    std::snprintf(why, len, "peer_bullet_new: bad input");
    return NULL;
  }
  for (size_t k = 0; k < c->links; k++)
    if (c->link[2 * k] >= c->n || c->link[2 * k + 1] >= c->n || c->link[2 * k] == c->link[2 * k + 1] ||
        !(c->stiffness[k] > 0 && c->stiffness[k] <= 1)) {
      std::snprintf(why, len, "peer_bullet_new: link %zu is bad (nodes or kLST)", k);
      return NULL;
    }
  try {
    return build(c, why, len);
  } catch (const std::bad_alloc &) {
    std::snprintf(why, len, "Bullet: out of memory");
  } catch (const std::exception &e) {
    std::snprintf(why, len, "Bullet threw: %.200s", e.what());
  }
  return NULL;
}

extern "C" int peer_bullet_step(peer_bullet *pb, double h, char *why, size_t len)
{
  try {
    pb->world->stepSimulation(btScalar(h), 0);
  } catch (const std::exception &e) {
    std::snprintf(why, len, "Bullet threw: %.200s", e.what());
    return -1;
  }
  return 0;
}

extern "C" void peer_bullet_positions(const peer_bullet *pb, double *x)
{
  const btSoftBody::tNodeArray &nodes = pb->body->m_nodes;
  for (int i = 0; i < nodes.size(); i++) {
    const btVector3 &p = nodes[i].m_x;
    x[3 * i] = double(p.x());
    x[3 * i + 1] = double(p.y());
    x[3 * i + 2] = double(p.z());
  }
}

extern "C" void peer_bullet_free(peer_bullet *pb)
{
  release(pb);
}

extern "C" const char *peer_bullet_version(void)
{
  static char v[16];
  std::snprintf(v, sizeof v, "%d.%02d", BT_BULLET_VERSION / 100, BT_BULLET_VERSION % 100);
  return v;
}

extern "C" int peer_bullet_scalar_bytes(void)
{
  return int(sizeof(btScalar));
}
