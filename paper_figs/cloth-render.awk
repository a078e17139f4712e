# cloth-render.awk: the scene of one cloth snapshot as shaded polygons in
# painter's order, for paper_figs/cloth-snapshots.gp and
# cloth-contact-snapshots.gp (gnuplot draws them `with polygons` in the
# order given, so that what is nearer the viewer covers what is behind).
#
# Input (-F,), any of:
#   cloth-snapshots.csv (scheme,snap,tri,x1,y1,z1,x2,y2,z2,x3,y3,z3,t,
#     strain,bx,by,bz,br): triangles, colour by strain, and the ball of
#     each row (bx..br, nan when there is none);
#   EXP-snapshots.csv (scheme,snap,tri,x1,...,z3,t,flag): triangles,
#     colour by contact flag (0 free, 1 cloth-cloth, 2 at a ball);
#   EXP-balls.csv (scheme,snap,ball,x,y,z,radius,t): balls.
# A file's kind is read from its header.  Variables:
#   run, snap        the run and snapshot drawn (what = "polys", "off");
#   ct, st, cp, sp   the view: turned about the vertical by the angle of
#                    (cos, sin) = (ct, st), tilted down by that of (cp, sp);
#   lx, ly, lz       the direction towards the light in view coordinates
#                    (screen right, screen up, towards the viewer);
#   posts            "" or the posts as "x z y_top y_bottom radius;..."
#                    (world coordinates: vertical cylinders);
#   what             "polys": every polygon as
#                      "depth colour n X1 Y1 ... Xn Yn" (sort -g on the
#                      first field puts them far to near);
#                    "bbox": "X0 X1 Y0 Y1", the projected extent of the
#                      cloth over every run and snapshot, widened to hold
#                      each ball whose centre lies within `reach` of it;
#                    "off": the balls of run at snap outside the box
#                      "X0 X1 Y0 Y1" given in box, each as "X Y side -"
#                      (the point just inside the box's edge nearest the
#                      ball, side -1 when it is below the box, else 1),
#                      then the notes (see END; reads the triangles too).
# Shading (Lambert): a polygon of colour c and unit normal n is drawn
# c (a + (1 - a) |n . l|), with a = 0.4 the ambient share (|n . l|: the
# cloth has two sides; the balls and posts show only their lit side
# max(n . l, 0)).  The normal of a triangle is the cross product of two
# of its edges in view coordinates; that of a ball facet or post facet is
# the sphere's or cylinder's normal at the facet's middle.  Depth is the
# mean of the corners' depths (the painter's algorithm: exact for
# polygons that do not interpenetrate, close enough for small ones); a
# ball facet's is set back by a tenth of the radius, so that cloth lying
# on the ball is drawn over it.
# A triangle with a corner more than 10 m from the origin (a run that blew
# up) is left out: it is far outside the view, and gnuplot's polygon
# clipping fails on such coordinates.
function px(x, z) { return x * ct + z * st }
function pz(x, z) { return -x * st + z * ct }
function sy(y, zz) { return y * cp - zz * sp }
function dp(y, zz) { return zz * cp + y * sp }
# The view coordinates of a world point, into VX, VY, VD.
function view(x, y, z,  zz) { zz = pz(x, z); VX = px(x, z); VY = sy(y, zz); VD = dp(y, zz) }
# Strain to colour: blue at 0 or less, green at 0.05, yellow at the limit
# 0.1, red at 0.3 and beyond (the palette of the figure's colour bar).
function strain_rgb(s,  f) {
  if (s <= 0) { R = 70; G = 110; B = 220 }
  else if (s <= 0.05) { f = s / 0.05; R = 70; G = 110 + f * 100; B = 220 - f * 120 }
  else if (s <= 0.1) { f = (s - 0.05) / 0.05; R = 70 + f * 180; G = 210 + f * 20; B = 100 - f * 60 }
  else { f = (s - 0.1) / 0.2; if (f > 1) f = 1; R = 250; G = 230 - f * 210; B = 40 - f * 20 }
}
# Contact flag to colour: free light blue-grey, cloth-cloth orange, at a ball green.
function flag_rgb(f) {
  if (f == 1) { R = 240; G = 130; B = 20 }
  else if (f == 2) { R = 20; G = 200; B = 60 }
  else { R = 160; G = 190; B = 215 }
}
function shaded(k) {
  if (k > 1) k = 1
  k = AMB + (1 - AMB) * k
  return int(R * k + 0.5) * 65536 + int(G * k + 0.5) * 256 + int(B * k + 0.5)
}
function emit(d, c, n, pts) { printf "%.12g %d %d%s\n", d, c, n, pts }
function pt(x, y) { return sprintf(" %.7g %.7g", x, y) }
# A ball of radius r centred at the view point (cx, cy, cd): its half
# towards the viewer, NK rings of NA facets.
function ball(cx, cy, cd, r,  k, j, b0, b1, bm, a0, a1, am, nx, ny, nz, pts, d) {
  R = 200; G = 200; B = 205
  for (k = 0; k < NK; k++) {
    b0 = (PI / 2) * k / NK; b1 = (PI / 2) * (k + 1) / NK; bm = (b0 + b1) / 2
    for (j = 0; j < NA; j++) {
      a0 = 2 * PI * j / NA; a1 = 2 * PI * (j + 1) / NA; am = (a0 + a1) / 2
      nx = sin(bm) * cos(am); ny = sin(bm) * sin(am); nz = cos(bm)
      pts = pt(cx + r * sin(b1) * cos(a0), cy + r * sin(b1) * sin(a0)) pt(cx + r * sin(b1) * cos(a1), cy + r * sin(b1) * sin(a1))
      if (k > 0)
        pts = pts pt(cx + r * sin(b0) * cos(a1), cy + r * sin(b0) * sin(a1)) pt(cx + r * sin(b0) * cos(a0), cy + r * sin(b0) * sin(a0))
      else
        pts = pts pt(cx, cy)
      d = cd + r * nz - 0.1 * r
      emit(d, shaded(lit(nx * lx + ny * ly + nz * lz)), k > 0 ? 4 : 3, pts)
    }
  }
}
function lit(c) { return c > 0 ? c : 0 }
# A vertical cylinder (world axis x0, z0 from y0 down to y1, radius r):
# its facets that face the viewer, NP around, each cut into NH pieces
# along its height, and its top.
function post(x0, z0, y0, y1, r,  j, h, a0, a1, am, nx, nz, vnx, vny, vnd, zz, ya, yb, pts, d, n, top) {
  R = 120; G = 110; B = 100
  top = ""
  for (j = 0; j < NP; j++) {
    a0 = 2 * PI * j / NP; a1 = 2 * PI * (j + 1) / NP; am = (a0 + a1) / 2
    nx = cos(am); nz = sin(am)
    zz = pz(nx, nz); vnx = px(nx, nz); vny = sy(0, zz); vnd = dp(0, zz)
    view(x0 + r * cos(a0), y0, z0 + r * sin(a0)); top = top pt(VX, VY); d = VD
    if (vnd <= 0)
      continue
    for (h = 0; h < NH; h++) {
      ya = y0 + (y1 - y0) * h / NH; yb = y0 + (y1 - y0) * (h + 1) / NH
      d = 0
      view(x0 + r * cos(a0), ya, z0 + r * sin(a0)); pts = pt(VX, VY); d += VD
      view(x0 + r * cos(a1), ya, z0 + r * sin(a1)); pts = pts pt(VX, VY); d += VD
      view(x0 + r * cos(a1), yb, z0 + r * sin(a1)); pts = pts pt(VX, VY); d += VD
      view(x0 + r * cos(a0), yb, z0 + r * sin(a0)); pts = pts pt(VX, VY); d += VD
      emit(d / 4, shaded(lit(vnx * lx + vny * ly + vnd * lz)), 4, pts)
    }
  }
  # The top faces up: its view normal is that of the world's y axis.
  view(x0, y0, z0)
  emit(VD + 1e-6, shaded(lit(cp * ly + sp * lz)), NP, top)
}
function grow(x, y) {
  if (!nbox || x < X0) X0 = x; if (!nbox || x > X1) X1 = x
  if (!nbox || y < Y0) Y0 = y; if (!nbox || y > Y1) Y1 = y
  nbox = 1
}
BEGIN {
  PI = atan2(0, -1); AMB = 0.4; NK = 10; NA = 32; NP = 12; NH = 8
  n = sqrt(lx * lx + ly * ly + lz * lz); lx /= n; ly /= n; lz /= n
  nballs = 0
  if (what == "off") {
    split(box, bx, " ")
    # The notes' points lie 5 % of the box inside its edges.
    ix0 = bx[1] + 0.05 * (bx[2] - bx[1]); ix1 = bx[2] - 0.05 * (bx[2] - bx[1])
    iy0 = bx[3] + 0.05 * (bx[4] - bx[3]); iy1 = bx[4] - 0.05 * (bx[4] - bx[3])
  }
}
FNR == 1 { kind = ($3 == "ball") ? "balls" : ($14 == "strain") ? "strain" : "flag"; next }
# Every mode but bbox reads only the rows of run at snap, which lie
# together in each file (written run by run, snapshot by snapshot): the
# rest of a file past them is not read.
what != "bbox" {
  if ($1 != run || $2 != snap) {
    if (FILENAME in past)
      nextfile
    next
  }
  past[FILENAME] = 1
}
kind == "balls" {
  if (what == "bbox") { bc[++nballs] = $4 " " $5 " " $6 " " $7; next }
  if ($1 != run || $2 != snap) next
  if (what == "off") {
    view($4, $5, $6)
    if (VX + $7 < bx[1] || VX - $7 > bx[2] || VY + $7 < bx[3] || VY - $7 > bx[4]) {
      side = VY < bx[3] ? -1 : 1
      printf("%.6g %.6g %d -\n", (VX < ix0 ? ix0 : (VX > ix1 ? ix1 : VX)), (side < 0 ? iy0 : iy1), side)
      # Below: the highest of them; above or beside: the lowest.
      if (!nout[side] || (side < 0 ? $5 > ext[side] : $5 < ext[side])) ext[side] = $5
      nout[side]++
    }
    next
  }
  view($4, $5, $6); ball(VX, VY, VD, $7)
  next
}
what == "off" {
  # A triangle of run at snap that is drawn (no corner beyond 10 m) with a
  # corner in the box: the cloth shows.
  if ($1 != run || $2 != snap) next
  ntri++
  ysum += ($5 + $8 + $11) / 3
  for (i = 4; i <= 12; i++)
    if ($i > 10 || $i < -10)
      next
  for (i = 4; i <= 12; i += 3) {
    view($i, $(i + 1), $(i + 2))
    if (VX >= bx[1] && VX <= bx[2] && VY >= bx[3] && VY <= bx[4]) { nin++; break }
  }
  # One triangle in the box settles it (nin stays set, and ntri and ysum
  # serve only a panel with none): the rest of this file is not needed.
  # The balls are read in their own block, from their own file.
  if (nin)
    nextfile
  next
}
{
  for (i = 4; i <= 12; i++)
    if ($i > 10 || $i < -10)
      next
  if (what == "bbox") {
    for (i = 4; i <= 12; i += 3) { view($i, $(i + 1), $(i + 2)); grow(VX, VY) }
    if (kind == "strain" && $15 != "nan" && !(($1 SUBSEP $2) in bseen)) {
      bseen[$1, $2] = 1; bc[++nballs] = $15 " " $16 " " $17 " " $18
    }
    next
  }
  if ($1 != run || $2 != snap) next
  if (what != "polys") next
  if (kind == "strain" && !ballseen && $15 != "nan") { view($15, $16, $17); ball(VX, VY, VD, $18); ballseen = 1 }
  view($4, $5, $6); x1 = VX; y1 = VY; d1 = VD
  view($7, $8, $9); x2 = VX; y2 = VY; d2 = VD
  view($10, $11, $12); x3 = VX; y3 = VY; d3 = VD
  ux = x2 - x1; uy = y2 - y1; ud = d2 - d1; vx = x3 - x1; vy = y3 - y1; vd = d3 - d1
  nx = uy * vd - ud * vy; ny = ud * vx - ux * vd; nd = ux * vy - uy * vx
  nn = sqrt(nx * nx + ny * ny + nd * nd)
  c = nn > 0 ? (nx * lx + ny * ly + nd * lz) / nn : 1
  if (c < 0) c = -c
  if (kind == "strain") strain_rgb($14); else flag_rgb($14)
  emit((d1 + d2 + d3) / 3, shaded(c), 3, pt(x1, y1) pt(x2, y2) pt(x3, y3))
}
END {
  if (what == "polys" && posts != "") {
    np = split(posts, pl, ";")
    for (i = 1; i <= np; i++) { split(pl[i], p, " "); post(p[1], p[2], p[3], p[4], p[5]) }
  }
  # The notes, "X Y side n y": just above the middle of the box's lower
  # edge (over the marks) the number of balls below it and the highest
  # one's height, just below the upper edge those of the others and the
  # lowest one's; and "X Y 0 0 y" at the middle when no triangle of the
  # cloth has a corner in the box, y the cloth's mean height.
  if (what == "off") {
    if (nout[-1]) printf("%.6g %.6g -1 %d %.3g\n", (bx[1] + bx[2]) / 2, iy0 + 0.07 * (bx[4] - bx[3]), nout[-1], ext[-1])
    if (nout[1]) printf("%.6g %.6g 1 %d %.3g\n", (bx[1] + bx[2]) / 2, iy1 - 0.07 * (bx[4] - bx[3]), nout[1], ext[1])
    if (ntri && !nin) printf("%.6g %.6g 0 0 %.3g\n", (bx[1] + bx[2]) / 2, (bx[3] + bx[4]) / 2, ysum / ntri)
  }
  if (what == "bbox") {
    # Balls whose centre lies within `reach` of the cloth's box widen it.
    cx0 = X0; cx1 = X1; cy0 = Y0; cy1 = Y1
    for (i = 1; i <= nballs; i++) {
      split(bc[i], b, " ")
      view(b[1], b[2], b[3])
      if (VX > cx0 - reach && VX < cx1 + reach && VY > cy0 - reach && VY < cy1 + reach) {
        grow(VX - b[4], VY - b[4]); grow(VX + b[4], VY + b[4])
      }
    }
    printf "%.6g %.6g %.6g %.6g\n", X0, X1, Y0, Y1
  }
}
