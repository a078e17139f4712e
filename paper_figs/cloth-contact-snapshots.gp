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
if (NS == 0) { print "cloth-contact-snapshots.gp: no snapshot in ".F." (every run ended before the first snapshot time)"; exit status 1 }
tsnap(k) = real(system(sprintf("awk -F, 'NR > 1 && $2 == %d { print $13; exit }' '%s'", k, F)))
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
# The panels, drawn once for the three versions of the figure, into a
# directory DIR: for each run and snapshot, RUN-K.polys, its polygons as
# cloth-render.awk writes them, sorted far to near, in gnuplot's polygon
# format, and RUN-K.off, its notes (empty when there are none); and box,
# the projected extent.  The snapshots are first split into one file per
# panel (its rows, in the file's order: the drawing is the same), so that
# each panel's rendering reads its own rows, not the whole file (47 MB for
# cloth-self-contact); the split files are removed at the end.  make draws
# the panels first, in a pass of this script with PREPARE set to the
# directory to fill (paper_figs/local.mk: PLOT.panels beside the
# figures), and the three versions read them.  Run without them (or with
# them older than the snapshots), the script draws them into a scratch
# directory of its own, removed at the end.
# (The commands are joined with ".", not formed by sprintf: gnuplot 5.4's
# sprintf cut such a command short when its arguments were long paths.)
split_rows(dir) = system("awk -F, -v dir='".dir."' 'NR == 1 { h = $0; next } { f = dir \"/\" $1 \"-\" $2 \".csv\"; " . \
  "if (f != cur) { if (cur != \"\") close(cur); cur = f; if (!(f in seen)) { seen[f] = 1; print h > f; close(f) } } " . \
  "print >> f }' '".F."' && echo ok")
# Each panel's polygons, then the extent over all of them (a run that
# stopped before its first snapshot has no panel: none may be there).
render(dir) = system("for f in '".dir."'/*.csv; do [ -f \"$f\" ] || continue; b=${f##*/}; r=${b%-*}; k=${b##*-}; " . \
  AWK." -v what=polys -v run=\"$r\" -v snap=\"${k%.csv}\" -v posts='".POSTS."' '".B."' \"$f\" | sort -g -k1,1 | " . \
  "awk '{ for (i = 0; i < $3; i++) print $(4 + 2 * i), $(5 + 2 * i), $2; print \"\" }' > \"${f%.csv}.polys\" " . \
  "|| exit 1; done; ".AWK." -v what=bbox -v reach=0.3 '".B."' '".F."' > '".dir."/box' && echo ok")
# Each panel's notes, for the view box b, and the split files removed.
notes(dir, b) = system("for f in '".dir."'/*.csv; do [ -f \"$f\" ] || continue; bn=${f##*/}; r=${bn%-*}; k=${bn##*-}; " . \
  AWK." -v what=off -v run=\"$r\" -v snap=\"${k%.csv}\" -v box='".b."' '".B."' \"$f\" > \"${f%.csv}.off\" && rm -f \"$f\" " . \
  "|| exit 1; done; echo ok")
PLOT = E."-snapshots"
if (exists("PREPARE")) {
  DIR = PREPARE; OWN = 0; DRAW = 1
} else {
  PANELS = D."/".PLOT.".panels"
  OWN = system("test -f '".PANELS."/done' && test '".PANELS."/done' -nt '".F."' && echo 0 || echo 1") eq "1"
  DRAW = OWN
  DIR = OWN ? system("mktemp -d \"${TMPDIR:-/tmp}/cdyn-snapshots.XXXXXX\"") : PANELS
  if (DIR eq "") { print "cloth-contact-snapshots.gp: mktemp failed"; exit status 1 }
}
if (DRAW) {
  if (split_rows(DIR) ne "ok" || render(DIR) ne "ok") {
    if (OWN) { system(sprintf("rm -rf '%s'", DIR)) }
    print "cloth-contact-snapshots.gp: the panels could not be drawn"; exit status 1
  }
}
BOX = system(sprintf("cat '%s/box'", DIR))
load FIGSRC."/cloth-box.gp"
if (DRAW) {
  if (notes(DIR, VIEWBOX) ne "ok") {
    if (OWN) { system(sprintf("rm -rf '%s'", DIR)) }
    print "cloth-contact-snapshots.gp: the panels' notes could not be placed"; exit status 1
  }
}
if (exists("PREPARE")) { exit }
has(r, k) = int(real(system(sprintf("test -f '%s/%s-%d.polys' && echo 1 || echo 0", DIR, r, k))))
polys(r, k) = sprintf("%s/%s-%d.polys", DIR, r, k)
# (The notes were placed for the view box; b is that box.)
offv(r, k, b) = int(real(system(sprintf("test -s '%s/%s-%d.off' && echo 1 || echo 0", DIR, r, k)))) ? \
  sprintf("%s/%s-%d.off", DIR, r, k) : ""
LEGEND = "flag"
load FIGSRC."/cloth-panels.gp"
if (OWN) { system(sprintf("rm -rf '%s'", DIR)) }
