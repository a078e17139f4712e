# Baumgarte's sensitivity to alpha and beta on the 5-link arm (000 fig. 4's
# remark, made measurable): mean e_n over the last tenth of the run for
# every (alpha, beta), on a log colour scale; a cross marks a run that
# broke the stability rules (a failed step, e_n above 10 % of the arm's
# length, or an energy gain above 10 % of the releasable energy).
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 3.4; FIG_H = 3.5
load ARG1."/common.gp"
F = D."/arm5-baumgarte/sweep.csv"
H = system("awk -F, 'NR == 3 { printf \"%g\", $2 }' '".D."/arm5-baumgarte/baumgarte.csv'")
set title lab("Baumgarte on the 5-link arm, h = ".H." s", "Baumgarte on the 5-link arm, $h = ".H."$~s")
set xlabel lab("{/Symbol a}", "$\\alpha$")
set ylabel lab("{/Symbol b}", "$\\beta$")
# Cells are indexed; the tics carry the values 0, 2^-2 .. 2^8.
set xtics ("0" 0, "1/4" 1, "1/2" 2, "1" 3, "2" 4, "4" 5, "8" 6, "16" 7, "32" 8, "64" 9, "128" 10, "256" 11)
set ytics ("0" 0, "1/4" 1, "1/2" 2, "1" 3, "2" 4, "4" 5, "8" 6, "16" 7, "32" 8, "64" 9, "128" 10, "256" 11)
set xrange [-0.5:11.5]
set yrange [-0.5:11.5]
set grid noxtics noytics
set logscale cb
set format cb lab("10^{%L}", "$10^{%L}$")
set cblabel lab("mean e_n over the last tenth (m)", "mean $e_n$ over the last tenth (m)") offset -0.5, 0
set xtics rotate by 90 right
set palette rgb 33,13,10
eval key_below(1, 1)
set key nobox Left reverse
set bmargin at screen (KEY_H(1) + 0.62) / FIG_H
set rmargin at screen 0.8
set datafile missing "__none__"
plot F using 1:2:($5 > 0 ? $7 : NaN) with image notitle, \
     F using ($5 > 0 ? NaN : $1):2 with points pt 2 ps 1.0 * PSC lc rgb "#555555" \
       title small("unstable (broke a stability rule)")
