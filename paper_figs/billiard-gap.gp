# The billiard scene (003 fig. 6): the smallest signed gap over the 77
# inequality rows (top; < 0 is a penetration) and the total penetration
# (bottom, the sum of the violations, log scale, with the thresholds
# 1e-6 r and 1e-3 r), one line per run of the billiard experiment
# (runs.csv: the active-set algorithms), on the tilted table with the main
# restitution.  A step without any penetration is drawn at the bottom of
# the log axis, 1e-18 r.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = D."/billiard/"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".E."runs.csv'")
FIG_W = 7.0; FIG_H = 4.8
load ARG1."/common.gp"
PAL_X = pal_use(RUNS)
R = real(system(sprintf("awk -F, 'NR == 2 { print $6 }' '%s'", E."snapshots-".word(RUNS, 1).".csv")))
s(r) = E."series-".r.".csv"
FLOOR = 1e-18
set multiplot layout 2, 1 title "Billiard, tilted table: gaps and penetration" margins 0.13, 0.8, 0.1, 0.92 spacing 0, 0.08
set ylabel lab("min_k g_k / r", '$\min_k g_k / r$')
set key at screen 0.81, graph 1 left top nobox Left reverse
set format y "%g"
set format x ""
plot for [i = 1:words(RUNS)] s(word(RUNS, i)) using "t":(column("min_gap") / R) with steps \
       lc rgb pal_colour(word(RUNS, i)) dt pal_dash(word(RUNS, i)) lw PAL_LW title small(nm(word(RUNS, i))), \
     0 with lines ls 9 notitle
set xlabel lab("t (s)", '$t$ (s)') offset 0, 0.3
set format x "%g"
set ylabel lab("{/Symbol S}_k max(0, -g_k) / r", '$\sum_k \max(0, -g_k) / r$')
set logscale y
set format y lab("10^{%L}", '$10^{%L}$')
set yrange [FLOOR / 2:10]
set ytics 1e-18, 1e3
plot for [i = 1:words(RUNS)] s(word(RUNS, i)) \
       using "t":(column("penetration") > 0 ? column("penetration") / R : FLOOR) with steps \
       lc rgb pal_colour(word(RUNS, i)) dt pal_dash(word(RUNS, i)) lw PAL_LW notitle, \
     1e-6 with lines ls 4 title small(lab("10^{-6} r", '$10^{-6}\,r$')), \
     1e-3 with lines ls 9 title small(lab("10^{-3} r", '$10^{-3}\,r$')), \
     keyentry with lines lc rgb "#ffffff" title small("no penetration:"), \
     keyentry with lines lc rgb "#ffffff" title small(lab("drawn at 10^{-18} r", 'drawn at $10^{-18}\,r$'))
unset multiplot
