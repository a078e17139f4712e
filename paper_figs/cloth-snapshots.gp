# 000 fig 1, 001 fig 6 (cloth-elongation): the cloth at the snapshot
# times, one row per run, one column per time (a run that stopped before
# a time has no panel there; one that stopped before the first, no row).
# Each triangle is coloured by the larger strain |edge| / rest - 1 of its
# two structural edges (its diagonal is a shear spring, not limited): blue
# at rest (0 or less),
# through green to yellow at the limit 0.1, to red at 0.3 and beyond.  The
# ball is the grey disc.  Orthographic view: turned 65 degrees about the
# vertical and tilted 20 degrees down; triangles are drawn far to near
# (the painter's order of their centroids), the ball in its place among
# them.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
F = D."/cloth-elongation/cloth-snapshots.csv"
RUNS = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' '".F."'")
NR = words(RUNS)
NS = int(real(system("awk -F, 'NR > 1 && !seen[$2]++ { n++ } END { print n + 0 }' '".F."'")))
tsnap(k) = real(system(sprintf("awk -F, 'NR > 1 && $2 == %d { print $13; exit }' '%s'", k, F)))
FIG_W = 7.0; FIG_H = 1.45 * NR + 0.8
load ARG1."/common.gp"
set datafile separator whitespace
TH = 65 * pi / 180; PH = 20 * pi / 180
# The projection and colours are in cloth-snapshots.awk.
AWK = sprintf("awk -F, -f '%s/cloth-snapshots.awk' -v ct=%.15g -v st=%.15g -v cp=%.15g -v sp=%.15g", \
              ARG1, cos(TH), sin(TH), cos(PH), sin(PH))
# The triangles of run r at snapshot k behind (-1) or in front of (1) the
# ball, as polygons "X Y colour" separated by blank lines, far to near.
tris(r, k, side) = sprintf("< %s -v what=tris -v run='%s' -v snap=%d -v side=%d '%s' | sort -g -k1,1 | " . \
  "awk '{ printf \"%%s %%s %%d\\n%%s %%s %%d\\n%%s %%s %%d\\n\\n\", $2, $3, $8, $4, $5, $8, $6, $7, $8 }'", \
  AWK, r, k, side, F)
ball(r, k) = sprintf("< %s -v what=ball -v run='%s' -v snap=%d '%s'", AWK, r, k, F)
unset key
unset grid
unset border
unset tics
set size ratio -1
set xrange [-1.25:1.25]
set yrange [-1.45:0.3]
set style fill solid 1.0 border lc rgb "#303030"
set multiplot layout NR, NS margins 0.1, 0.99, 0.5 / FIG_H, 1 - 0.45 / FIG_H spacing 0.005, 0.01 \
    title lab("Falling cloth and a ball: triangles coloured by the strain of their structural edges (blue 0, yellow 0.1, red ≥ 0.3)", \
              'Falling cloth and a ball: triangles coloured by the strain of their structural edges (blue 0, yellow 0.1, red $\geq 0.3$)')
do for [i = 1:NR] {
  do for [k = 0:NS - 1] {
    set title (i == 1 ? sprintf(lab("t = %.1f s", '$t = %.1f$~s'), tsnap(k)) : "") offset 0, -0.6
    set label 1 (k == 0 ? nm(word(RUNS, i)) : "") at graph -0.02, graph 0.5 right font KEY_SMALL
    plot tris(word(RUNS, i), k, -1) using 1:2:3 with polygons fc rgb variable lw 0.2, \
         ball(word(RUNS, i), k) using 1:2:3 with circles fc rgb "#9a9a9a" fs solid 1.0 border lc rgb "#505050", \
         tris(word(RUNS, i), k, 1) using 1:2:3 with polygons fc rgb variable lw 0.2
  }
}
unset multiplot
