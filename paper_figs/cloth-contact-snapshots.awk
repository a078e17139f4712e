# cloth-contact-snapshots.awk: the projection and colours of
# paper_figs/cloth-contact-snapshots.gp.  Reads, with -F, and the variables
# run, snap, what, ct, st, cp, sp:
#   what = "tris": cloth-contact-snapshots.csv (scheme,snap,tri,x1,y1,z1,
#     x2,y2,z2,x3,y3,z3,t,flag), the triangles of run at snap as
#     "depth X1 Y1 X2 Y2 X3 Y3 colour" for sorting;
#   what = "balls": cloth-contact-balls.csv (scheme,snap,ball,x,y,z,radius,t),
#     the balls as "depth X Y r".
# The view turns about the vertical by the angle of (ct, st) = (cos, sin)
# and tilts down by that of (cp, sp); depth grows towards the viewer.
# Colours: flag 0 (free) blue-grey, 1 (a cloth-cloth contact holds a node)
# orange, 2 (a node at a ball) green.  A triangle with a corner more than
# 10 m from the origin (a run that blew up) is left out: it is far
# outside the view, and gnuplot's polygon clipping fails on such
# coordinates.
function px(x, z) { return x * ct + z * st }
function pz(x, z) { return -x * st + z * ct }
function sy(y, zz) { return y * cp - zz * sp }
function dp(y, zz) { return zz * cp + y * sp }
function col(f) { return f == 1 ? 15105570 : f == 2 ? 5089895 : 9418700 }
NR > 1 && $1 == run && $2 == snap {
  if (what == "balls") {
    printf "%.17g %.8g %.8g %.8g\n", dp($5, pz($4, $6)), px($4, $6), sy($5, pz($4, $6)), $7
    next
  }
  for (i = 4; i <= 12; i++)
    if ($i > 10 || $i < -10)
      next
  d = (dp($5, pz($4, $6)) + dp($8, pz($7, $9)) + dp($11, pz($10, $12))) / 3
  printf "%.17g %.8g %.8g %.8g %.8g %.8g %.8g %d\n", d, px($4, $6), sy($5, pz($4, $6)), px($7, $9), \
    sy($8, pz($7, $9)), px($10, $12), sy($11, pz($10, $12)), col($14)
}
