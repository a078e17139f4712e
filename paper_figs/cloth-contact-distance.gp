# cloth-contact: penetration and distance over time, continuous against
# discrete detection.  Top: the smallest distance between non-adjacent
# mesh elements at each step's end (cloth-cloth, within 4 delta; minimum
# over out_every steps), against the thickness delta (dashed); a run's
# curve stops below where nothing is that close.  Middle: the smallest
# gap |x_node - c| - r between a node and a ball, against delta.  Third:
# the cloth's mean height (the mean y of its nodes), which shows how far
# each run's cloth has fallen, draped or slid off.  Bottom: the cumulative number of crossings found by the exact replay of
# every step's motion (pairs that touched), log scale; a run with none
# is drawn at the floor of the axis, the tic marked "0", and named there.
# The key, four entries a row, sits above the panels.
# cloth-self-contact's plot sets E (the experiment) and TITLE and loads this.
if (!exists("FIGSRC")) FIGSRC = ARG1; D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
if (!exists("E")) E = "cloth-contact"
if (!exists("TITLE")) TITLE = "Cloth against balls and itself: distances against the thickness, and crossings"
F = D."/".E."/".E.".csv"
S = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' '".F."'")
NS = words(S)
# The runs with a point in each panel (a panel plots only those: gnuplot
# warns of a data set without one): a distance within 4 delta, a positive
# ball gap, a crossing.
SD = system("awk -F, 'NR > 1 && $6 != \"nan\" && !seen[$1]++ { printf \"%s \", $1 }' '".F."'")
SG = system("awk -F, 'NR > 1 && $7 > 0 && !seen[$1]++ { printf \"%s \", $1 }' '".F."'")
SC = system("awk -F, 'NR > 1 && $4 > 0 && !seen[$1]++ { printf \"%s \", $1 }' '".F."'")
DELTA = real(system("sed -n 's/.*\"thickness\": *\"\\([0-9.e+-]*\\)\".*/\\1/p' '".D."/".E."/run.meta.json' | head -1"))
# The key above the panels, four entries a row (the runs and the thickness).
KROWS = int((NS + 1 + 3) / 4)
FIG_W = 7; FIG_H = 7.5 + 0.145 * KROWS
load FIGSRC."/common.gp"
PAL_X = pal_use(S)
# The runs without a crossing (drawn on the floor of the bottom panel).
SZ = ""
do for [i = 1:NS] { if (!in_list(word(S, i), SC)) { SZ = SZ.word(S, i)." " } }
ZFLOOR = 0.3
# Cumulative crossings of run r.
cum(r) = sprintf("< awk -F, 'NR > 1 && $1 == \"%s\" { c += $4; if (c > 0) print $2 \",\" c }' '%s'", r, F)
set multiplot layout 4, 1 title TITLE margins 0.1, 0.97, 0.5 / FIG_H, 1 - (0.5 + 0.145 * KROWS) / FIG_H spacing 0.03
set key at screen 0.5, screen 1 - 0.4 / FIG_H center top vertical maxcols 4 maxrows KROWS nobox Left reverse samplen 2 \
  font KEY_SMALL
set logscale y
set format y lab("10^{%L}", '$10^{%L}$')
set format x ""
set ylabel "min distance (m)"
plot for [i = 1:words(SD)] F using (strcol(1) eq word(SD, i) ? $2 : NaN):6 with lines \
       lc rgb pal_colour(word(SD, i)) dt pal_dash(word(SD, i)) lw PAL_LW title small(nm(word(SD, i))), \
     DELTA with lines lc rgb "#000000" dt 2 lw 0.8 title lab("thickness δ", 'thickness $\delta$')
unset key
set ylabel "min ball gap (m)"
plot for [i = 1:words(SG)] F using (strcol(1) eq word(SG, i) && $7 > 0 ? $2 : NaN):7 with lines \
       lc rgb pal_colour(word(SG, i)) dt pal_dash(word(SG, i)) lw PAL_LW notitle, \
     DELTA with lines lc rgb "#000000" dt 2 lw 0.8 notitle
unset logscale y
set format y "%g"
set ylabel "mean height (m)"
plot for [i = 1:NS] F using (strcol(1) eq word(S, i) ? $2 : NaN):21 with lines \
       lc rgb pal_colour(word(S, i)) dt pal_dash(word(S, i)) lw PAL_LW notitle
set logscale y
set format x "%g"
set xlabel lab("t (s)", '$t$ (s)')
set ylabel "crossings (cumulative)"
# The axis from 0.03 (room under the floor for the note) to the largest
# count; its tics the decades from 1 up (every other one past eight) and
# "0" at the floor.
CMAX = real(system("awk -F, 'NR > 1 { c[$1] += $4; if (c[$1] > m) m = c[$1] } END { print m + 0 }' '".F."'"))
CDEC = CMAX >= 1 ? ceil(log10(CMAX) + 1e-9) : 1
set yrange [0.03:10 ** CDEC]
set ytics ("0" ZFLOOR)
do for [e = 0:CDEC:(CDEC > 8 ? 2 : 1)] { set ytics add (lab(sprintf("10^{%d}", e), sprintf('$10^{%d}$', e)) 10.0 ** e) }
ZNOTE = words(SZ) == 0 ? "" : (words(SZ) == 1 ? "no crossing: " : "no crossings: ")
do for [i = 1:words(SZ)] { ZNOTE = ZNOTE.(i > 1 ? ", " : "").nm(word(SZ, i)) }
if (words(SZ) > 0) {
  set label 3 small(ZNOTE) at graph 0.99, first ZFLOOR / 3.6 right font KEY_SMALL
}
if (words(SC) > 0) {
  plot for [i = 1:words(SC)] cum(word(SC, i)) using 1:2 with steps lc rgb pal_colour(word(SC, i)) \
         dt pal_dash(word(SC, i)) lw PAL_LW notitle, \
       for [i = 1:words(SZ)] F using (strcol(1) eq word(SZ, i) ? $2 : NaN):(ZFLOOR) with lines \
         lc rgb pal_colour(word(SZ, i)) dt pal_dash(word(SZ, i)) lw PAL_LW notitle
} else {
  plot for [i = 1:words(SZ)] F using (strcol(1) eq word(SZ, i) ? $2 : NaN):(ZFLOOR) with lines \
         lc rgb pal_colour(word(SZ, i)) dt pal_dash(word(SZ, i)) lw PAL_LW notitle
}
unset multiplot
