# cloth-snapshots.awk: the projection and colours of paper_figs/cloth-snapshots.gp.
# Reads cloth-snapshots.csv (scheme,snap,tri,x1,y1,z1,x2,y2,z2,x3,y3,z3,t,strain,bx,by,bz,br)
# with -F, and the variables run, snap, what, side, ct, st, cp, sp:
#   what = "tris": the triangles of run at snap behind (side -1) or in front
#     of (side 1) the ball, each as "depth X1 Y1 X2 Y2 X3 Y3 colour" for sorting;
#   what = "ball": the ball as "X Y r".
# The view turns about the vertical by the angle of (ct, st) = (cos, sin) and
# tilts down by that of (cp, sp); depth grows towards the viewer.
function px(x, z) { return x * ct + z * st }
function pz(x, z) { return -x * st + z * ct }
function sy(y, zz) { return y * cp - zz * sp }
function dp(y, zz) { return zz * cp + y * sp }
# Strain to colour: blue at 0 or less, green, yellow at 0.1, red at 0.3 and beyond.
function col(s,  r, g, b, f) {
  if (s <= 0) { r = 70; g = 110; b = 220 }
  else if (s <= 0.05) { f = s / 0.05; r = 70; g = 110 + f * 100; b = 220 - f * 120 }
  else if (s <= 0.1) { f = (s - 0.05) / 0.05; r = 70 + f * 180; g = 210 + f * 20; b = 100 - f * 60 }
  else { f = (s - 0.1) / 0.2; if (f > 1) f = 1; r = 250; g = 230 - f * 210; b = 40 - f * 20 }
  return int(r) * 65536 + int(g) * 256 + int(b)
}
NR > 1 && $1 == run && $2 == snap {
  if (what == "ball") {
    if ($15 != "nan") printf "%.8g %.8g %.8g\n", px($15, $17), sy($16, pz($15, $17)), $18
    exit
  }
  d = (dp($5, pz($4, $6)) + dp($8, pz($7, $9)) + dp($11, pz($10, $12))) / 3
  bd = ($15 == "nan") ? -1e300 : dp($16, pz($15, $17))
  if ((d < bd) != (side < 0)) next
  printf "%.17g %.8g %.8g %.8g %.8g %.8g %.8g %d\n", d, px($4, $6), sy($5, pz($4, $6)), px($7, $9), \
    sy($8, pz($7, $9)), px($10, $12), sy($11, pz($10, $12)), col($14)
}
