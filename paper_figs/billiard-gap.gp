# The billiard scene (003 fig. 6): the smallest signed gap over the 77
# inequality rows (top; < 0 is a penetration) and the total penetration
# (bottom, the sum of the violations, log scale, with the claim's
# thresholds 1e-6 r and 1e-3 r), one line per active-set algorithm, on
# the tilted table with the main restitution.  A step without any
# penetration is drawn at the bottom of the log axis, 1e-18 r.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 6.5; FIG_H = 5.2
load ARG1."/common.gp"
E = D."/billiard/"
S = E."summary.csv"
RUNS = system(sprintf("awk -F, 'NR > 1 && $1 == $2 { printf \"%%s \", $1 }' '%s'", S))
R = real(system(sprintf("awk -F, 'NR == 2 { print $6 }' '%s'", E."snapshots-".word(RUNS, 1).".csv")))
set style line 6 lc rgb "#9467bd" lw 1.5
style(s) = s eq "iterative" ? 1 : s eq "platt" ? 2 : s eq "tendency" ? 3 : s eq "lcp" ? 6 : 4
FLOOR = 1e-18
set multiplot layout 2, 1 title lab("Billiard (003 fig. 6), tilted table: gaps and penetration", \
                                    'Billiard (003 fig.~6), tilted table: gaps and penetration')
set ylabel lab("min_k g_k / r", '$\min_k g_k / r$')
set key top right font KEY_SMALL
set format y "%g"
plot for [i = 1:words(RUNS)] E."series-".word(RUNS, i).".csv" using "t":(column("min_gap") / R) with steps \
       ls style(word(RUNS, i)) title small(word(RUNS, i)), \
     0 with lines ls 4 notitle
set xlabel lab("t (s)", '$t$ (s)')
set ylabel lab("{/Symbol S}_k max(0, -g_k) / r", '$\sum_k \max(0, -g_k) / r$')
set logscale y
set format y lab("10^{%L}", "$10^{%L}$")
set yrange [FLOOR / 2:10]
set ytics 1e-18, 1e3
plot for [i = 1:words(RUNS)] E."series-".word(RUNS, i).".csv" \
       using "t":(column("penetration") > 0 ? column("penetration") / R : FLOOR) with steps \
       ls style(word(RUNS, i)) title small(word(RUNS, i)), \
     1e-6 with lines ls 4 title small(lab("claim: holds below 10^{-6} r", 'claim: holds below $10^{-6}\,r$')), \
     1e-3 with lines lc rgb "#7f7f7f" lw 1.2 dt 3 title small(lab("partly below 10^{-3} r", 'partly below $10^{-3}\,r$'))
unset multiplot
