# 001 fig 5 (cloth-contact): heavy balls strike a cloth held by two posts,
# one row per run, one column per snapshot time (a run that failed before
# a time has no panel there).  Triangles are coloured by contact: orange
# when a cloth-cloth constraint holds one of their nodes, green when a
# node touches a ball, blue-grey otherwise; the balls are grey discs.
# Orthographic view, turned 35 degrees about the vertical and tilted 20
# degrees down; the triangles are drawn far to near (painter's order of
# their centroids), then the balls (drawn last: they are mostly in front
# of the cloth they land on).
# cloth-self-contact's plot sets E (the experiment), TITLE and the view's
# ranges (XR0, XR1, YR0, YR1) and loads this.
if (!exists("FIGSRC")) FIGSRC = ARG1; D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
if (!exists("E")) E = "cloth-contact"
if (!exists("TITLE")) TITLE = "Balls striking a cloth held by two posts: triangles in a cloth-cloth contact orange, at a ball green"
if (!exists("XR0")) XR0 = -0.95; XR1 = 0.95; YR0 = -1.15; YR1 = 0.75
F = D."/".E."/".E."-snapshots.csv"
B = D."/".E."/".E."-balls.csv"
RUNS = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' '".F."'")
NR = words(RUNS)
NS = int(real(system("awk -F, 'NR > 1 && !seen[$2]++ { n++ } END { print n + 0 }' '".F."'")))
tsnap(k) = real(system(sprintf("awk -F, 'NR > 1 && $2 == %d { print $13; exit }' '%s'", k, F)))
has(r, k) = int(real(system(sprintf("awk -F, 'NR > 1 && $1 == \"%s\" && $2 == %d { n++ } END { print n + 0 }' '%s'", r, k, F))))
FIG_W = 7.0; FIG_H = 1.5 * NR + 0.8
load FIGSRC."/common.gp"
set datafile separator whitespace
TH = 35 * pi / 180; PH = 20 * pi / 180
AWK = sprintf("awk -F, -f '%s/cloth-contact-snapshots.awk' -v ct=%.15g -v st=%.15g -v cp=%.15g -v sp=%.15g", \
              FIGSRC, cos(TH), sin(TH), cos(PH), sin(PH))
tris(r, k) = sprintf("< %s -v what=tris -v run='%s' -v snap=%d '%s' | sort -g -k1,1 | " . \
  "awk '{ printf \"%%s %%s %%d\\n%%s %%s %%d\\n%%s %%s %%d\\n\\n\", $2, $3, $8, $4, $5, $8, $6, $7, $8 }'", \
  AWK, r, k, F)
balls(r, k) = sprintf("< %s -v what=balls -v run='%s' -v snap=%d '%s' | sort -g -k1,1", AWK, r, k, B)
unset key
unset grid
unset border
unset tics
set size ratio -1
set xrange [XR0:XR1]
set yrange [YR0:YR1]
set style fill solid 1.0 border lc rgb "#303030"
set multiplot layout NR, NS margins 0.1, 0.99, 0.5 / FIG_H, 1 - 0.45 / FIG_H spacing 0.005, 0.01 \
    title TITLE
do for [i = 1:NR] {
  do for [k = 0:NS - 1] {
    set title (i == 1 ? sprintf(lab("t = %.2f s", '$t = %.2f$~s'), tsnap(k)) : "") offset 0, -0.6
    set label 1 (k == 0 ? nm(word(RUNS, i)) : "") at graph -0.02, graph 0.5 right font KEY_SMALL
    if (has(word(RUNS, i), k) > 0) {
      plot tris(word(RUNS, i), k) using 1:2:3 with polygons fc rgb variable lw 0.2, \
           balls(word(RUNS, i), k) using 2:3:4 with circles fc rgb "#9a9a9a" fs solid 0.85 border lc rgb "#505050"
    } else {
      set label 2 "(failed)" at graph 0.5, graph 0.5 center font KEY_SMALL
      plot NaN notitle
      unset label 2
    }
  }
}
unset multiplot
