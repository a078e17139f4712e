/*
 * boxes.c: the cloth contact handler's three bounding-volume hierarchies
 * (nodes, triangles, edges; bvh.c) and the boxes they are built over:
 * each element's box bounds it at x0, or over the straight-line motion
 * x0 -> x1, grown by the thickness.  The handler builds them at the
 * system's state (contacts.c) and refits them to a step's predicted
 * motion for its detection (contacts.c) and to each motion its fail-safe
 * judges (failsafe.c).
 */
#include <math.h>
#include <stddef.h>

#include "collision/contacts_impl.h"

/* The boxes of the elements over the points x0 and x1 (x1 NULL: x0 alone), grown by g. */
void cdyn_contacts_boxes(const cdyn_contacts *cc, const size_t *idx, size_t per, size_t count,
                         const double *x0, const double *x1, double g, double *lo, double *hi)
{
  for (size_t e = 0; e < count; e++)
    for (int k = 0; k < 3; k++) {
      double l = INFINITY, u = -INFINITY;
      for (size_t a = 0; a < per; a++) {
        size_t i = idx[per * e + a];
        double y = x0[3 * i + k];
        l = y < l ? y : l, u = y > u ? y : u;
        if (x1) {
          y = x1[3 * i + k];
          l = y < l ? y : l, u = y > u ? y : u;
        }
      }
      lo[3 * e + k] = l - g;
      hi[3 * e + k] = u + g;
    }
  (void)cc;
}

/* Refit the three hierarchies to the motion x0 -> x1. */
int cdyn_contacts_refit(cdyn_contacts *cc, const double *x0, const double *x1)
{
  double g = cc->o.thickness;
  int rc;
  cdyn_contacts_boxes(cc, cc->node, 1, cc->nnode, x0, x1, g, cc->lo, cc->hi);
  if ((rc = cdyn_bvh_refit(cc->bn, cc->lo, cc->hi)))
    return rc;
  cdyn_contacts_boxes(cc, cc->tri, 3, cc->ntri, x0, x1, g, cc->lo, cc->hi);
  if ((rc = cdyn_bvh_refit(cc->bt, cc->lo, cc->hi)))
    return rc;
  cdyn_contacts_boxes(cc, cc->edge, 2, cc->nedge, x0, x1, g, cc->lo, cc->hi);
  return cdyn_bvh_refit(cc->be, cc->lo, cc->hi);
}
