# cloth-elongation: the adaptive constraints over time.  Top: the
# constraints active after each step (strain limits) per run; bottom: the
# cumulative number of flips (a spring made a constraint again right
# after its release), log scale.  Runs without constraints (springs,
# Provot, Baraff-Witkin) are left out.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
F = D."/cloth-elongation/cloth-elongation.csv"
S = system("awk -F, 'NR > 1 && $6 > 0 && !seen[$1]++ { printf \"%s \", $1 }' '".F."'")
NS = words(S)
FIG_W = 7; FIG_H = 4.4
load ARG1."/common.gp"
PAL_X = pal_use(S)
set multiplot layout 2, 1 title "Adaptive constraints on the falling cloth"
set key top left nobox Left reverse samplen 2
set ylabel "active constraints"
set format x ""
plot for [i = 1:NS] F using (strcol(1) eq word(S, i) ? $2 : NaN):6 with lines lc rgb pal_colour(word(S, i)) \
       dt pal_dash(word(S, i)) lw PAL_LW title small(nm(word(S, i)))
set format x "%g"
set xlabel lab("t (s)", '$t$ (s)')
set ylabel "flips (cumulative)"
set logscale y
set format y lab("10^{%L}", '$10^{%L}$')
unset key
plot for [i = 1:NS] F using (strcol(1) eq word(S, i) && $9 > 0 ? $2 : NaN):9 with lines lc rgb pal_colour(word(S, i)) \
       dt pal_dash(word(S, i)) lw PAL_LW notitle
unset multiplot
