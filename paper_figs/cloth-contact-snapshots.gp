# 001 fig 5 (cloth-contact): heavy balls strike a cloth held by two posts,
# one panel per run and snapshot time (a run that failed before a time has
# none there).  Triangles are coloured by contact: orange when a
# cloth-cloth constraint holds one of their nodes, green when a node
# touches a ball, light blue-grey otherwise, and shaded by their normal's
# angle to a light from the upper left (Lambert); the balls are shaded
# spheres and the posts (the pinned nodes' supports, from run.meta.json's
# posts, size and grid) vertical bars under the pins.  Orthographic view,
# turned 35 degrees about the vertical and tilted 25 degrees down.
# cloth-render.awk writes triangles, balls and posts as polygons far to
# near, so each hides what is behind it; a ball outside the view (fallen
# through, or thrown off) is a marked note at the panel's edge with its
# height.  cloth-panels.gp lays the panels out.
# cloth-self-contact's plot sets E (the experiment), TITLE and POSTS ("":
# none) and loads this.
if (!exists("FIGSRC")) FIGSRC = ARG1; D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
if (!exists("E")) E = "cloth-contact"
if (!exists("TITLE")) TITLE = "Balls striking a cloth held by two posts"
F = D."/".E."/".E."-snapshots.csv"
B = D."/".E."/".E."-balls.csv"
M = D."/".E."/run.meta.json"
RUNS = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' '".F."'")
NR = words(RUNS)
NS = int(real(system("awk -F, 'NR > 1 && !seen[$2]++ { n++ } END { print n + 0 }' '".F."'")))
tsnap(k) = real(system(sprintf("awk -F, 'NR > 1 && $2 == %d { print $13; exit }' '%s'", k, F)))
has(r, k) = int(real(system(sprintf("awk -F, 'NR > 1 && $1 == \"%s\" && $2 == %d { n = 1; exit } END { print n + 0 }' '%s'", r, k, F))))
# A parameter of the run (run.meta.json's "params"), or DEF when absent.
param(name, def) = system(sprintf("awk -v k='%s' -v d='%s' 'index($0, \"\\\"\" k \"\\\":\") { s = $0; sub(/^[^:]*: *\"?/, \"\", s); sub(/\"?,? *$/, \"\", s); print s; f = 1; exit } END { if (!f) print d }' '%s'", name, def, M))
# The posts: under the two middle nodes of the edges x = -size/2 and
# x = +size/2 (posts = points), or at the four corners (posts = edges,
# every node of those edges pinned), from the cloth's plane y = 0 down,
# as "x z y_top y_bottom radius;...".
if (!exists("POSTS")) {
  SIZE = real(param("size", "1"))
  if (param("posts", "points") eq "edges") {
    POSTS = sprintf("%g %g 0 -4 0.02;%g %g 0 -4 0.02;%g %g 0 -4 0.02;%g %g 0 -4 0.02", \
                    -SIZE / 2, -SIZE / 2, -SIZE / 2, SIZE / 2, SIZE / 2, -SIZE / 2, SIZE / 2, SIZE / 2)
  } else {
    POSTS = sprintf("%g 0 0 -4 0.02;%g 0 0 -4 0.02", -SIZE / 2, SIZE / 2)
  }
}
TH = 35 * pi / 180; PH = 25 * pi / 180
AWK = sprintf("awk -F, -f '%s/cloth-render.awk' -v ct=%.15g -v st=%.15g -v cp=%.15g -v sp=%.15g -v lx=-0.5 -v ly=0.8 -v lz=0.6", \
              FIGSRC, cos(TH), sin(TH), cos(PH), sin(PH))
polys(r, k) = sprintf("< %s -v what=polys -v run='%s' -v snap=%d -v posts='%s' '%s' '%s' | sort -g -k1,1 | " . \
  "awk '{ for (i = 0; i < $3; i++) print $(4 + 2 * i), $(5 + 2 * i), $2; print \"\" }'", AWK, r, k, POSTS, B, F)
offv(r, k, b) = system(sprintf("%s -v what=off -v run='%s' -v snap=%d -v box='%s' '%s' '%s' | head -c 1", AWK, r, k, b, B, F)) eq "" ? "" : \
  sprintf("< %s -v what=off -v run='%s' -v snap=%d -v box='%s' '%s' '%s'", AWK, r, k, b, B, F)
BOX = system(sprintf("%s -v what=bbox -v reach=0.3 '%s' '%s'", AWK, B, F))
LEGEND = "flag"
load FIGSRC."/cloth-panels.gp"
