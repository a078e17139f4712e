# 000 fig 1, 001 fig 6 (cloth-elongation): the cloth at the snapshot
# times, one panel per run and time (a run that stopped before a time has
# none there; one that stopped before the first, none at all).  Each
# triangle is coloured by the larger strain |edge| / rest - 1 of its two
# structural edges (its diagonal is a shear spring, not limited): blue at
# rest (0 or less), through green to yellow at the limit 0.1, to red at
# 0.3 and beyond (the colour bar), and shaded by its normal's angle to a
# light from the upper left (Lambert).  The ball is a shaded sphere.
# Orthographic view from the side the ball comes from: turned 140 degrees
# about the vertical and tilted 20 degrees down.  cloth-render.awk writes
# the triangles and the ball's facets as polygons far to near, so the
# ball and the cloth hide each other where they should; cloth-panels.gp
# lays the panels out.
FIGSRC = ARG1; D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
F = D."/cloth-elongation/cloth-snapshots.csv"
RUNS = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' '".F."'")
NR = words(RUNS)
NS = int(real(system("awk -F, 'NR > 1 && !seen[$2]++ { n++ } END { print n + 0 }' '".F."'")))
if (NS == 0) { print "cloth-snapshots.gp: no snapshot in ".F." (every run ended before the first snapshot time)"; exit status 1 }
tsnap(k) = real(system(sprintf("awk -F, 'NR > 1 && $2 == %d { print $13; exit }' '%s'", k, F)))
has(r, k) = int(real(system(sprintf("awk -F, 'NR > 1 && $1 == \"%s\" && $2 == %d { n = 1; exit } END { print n + 0 }' '%s'", r, k, F))))
TH = 140 * pi / 180; PH = 20 * pi / 180
AWK = sprintf("awk -F, -f '%s/cloth-render.awk' -v ct=%.15g -v st=%.15g -v cp=%.15g -v sp=%.15g -v lx=-0.5 -v ly=0.8 -v lz=0.6", \
              FIGSRC, cos(TH), sin(TH), cos(PH), sin(PH))
polys(r, k) = sprintf("< %s -v what=polys -v run='%s' -v snap=%d '%s' | sort -g -k1,1 | " . \
  "awk '{ for (i = 0; i < $3; i++) print $(4 + 2 * i), $(5 + 2 * i), $2; print \"\" }'", AWK, r, k, F)
offv(r, k, b) = ""
BOX = system(sprintf("%s -v what=bbox -v reach=0.5 '%s'", AWK, F))
TITLE = "Falling cloth pushed by a ball, seen from the ball's side"
LEGEND = "strain"
load FIGSRC."/cloth-panels.gp"
