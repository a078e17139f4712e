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
# The snapshots, split once into one file per run and snapshot (each with
# the header), in a scratch directory removed at the end: the panels'
# renderings then read their own rows, not the whole file (47 MB for
# cloth-self-contact, read some 170 times over by the three terminals).
# The rows of a panel are in the file's order, so its drawing is the same.
SPLIT = system("mktemp -d \"${TMPDIR:-/tmp}/cdyn-snapshots.XXXXXX\"")
if (SPLIT eq "") { print "cloth-contact-snapshots.gp: mktemp failed"; exit status 1 }
PF(r, k) = sprintf("%s/%s-%d.csv", SPLIT, r, k)
SPLIT_OK = system(sprintf("awk -F, -v dir='%s' 'NR == 1 { h = $0; next } { f = dir \"/\" $1 \"-\" $2 \".csv\"; " . \
  "if (f != cur) { if (cur != \"\") close(cur); cur = f; if (!(f in seen)) { seen[f] = 1; print h > f; close(f) } } " . \
  "print >> f }' '%s' && echo ok", SPLIT, F))
if (SPLIT_OK ne "ok") { system(sprintf("rm -rf '%s'", SPLIT)); print "cloth-contact-snapshots.gp: the snapshots could not be split"; exit status 1 }
has(r, k) = int(real(system(sprintf("test -f '%s' && echo 1 || echo 0", PF(r, k)))))
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
  "awk '{ for (i = 0; i < $3; i++) print $(4 + 2 * i), $(5 + 2 * i), $2; print \"\" }'", AWK, r, k, POSTS, B, PF(r, k))
offv(r, k, b) = system(sprintf("%s -v what=off -v run='%s' -v snap=%d -v box='%s' '%s' '%s' | head -c 1", AWK, r, k, b, B, PF(r, k))) eq "" ? "" : \
  sprintf("< %s -v what=off -v run='%s' -v snap=%d -v box='%s' '%s' '%s'", AWK, r, k, b, B, PF(r, k))
BOX = system(sprintf("%s -v what=bbox -v reach=0.3 '%s' '%s'", AWK, B, F))
LEGEND = "flag"
load FIGSRC."/cloth-panels.gp"
system(sprintf("rm -rf '%s'", SPLIT))
