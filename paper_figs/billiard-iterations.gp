# The billiard scene (003 fig. 6) on the tilted table with the main
# restitution: the active-set work of each step, one colour per
# algorithm.  Top: the most linear solves one active-set problem of the
# step needed (iterative: one per pass that added rows; Platt and the
# tendency algorithm: one).  Bottom: the inequality rows active after the
# step (g <= active_tol, dashed) and the rows in the handled set of the
# step's last acceleration-level solve (solid).
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 6.5; FIG_H = 5.2
load ARG1."/common.gp"
E = D."/billiard/"
S = E."summary.csv"
RUNS = system(sprintf("awk -F, 'NR > 1 && $1 == $2 { printf \"%%s \", $1 }' '%s'", S))
col(s) = s eq "iterative" ? "#d62728" : s eq "platt" ? "#1f77b4" : s eq "tendency" ? "#2ca02c" : s eq "lcp" ? "#9467bd" : "#7f7f7f"
set multiplot layout 2, 1 title lab("Billiard (003 fig. 6), tilted table: active-set work per step", \
                                    'Billiard (003 fig.~6), tilted table: active-set work per step')
set ylabel "linear solves (most in one problem)"
set yrange [0:*]
set offsets 0, 0, 0.5, 0
set ytics 1
set key top right font KEY_SMALL
plot for [i = 1:words(RUNS)] E."series-".word(RUNS, i).".csv" using "t":"max_solves" with steps \
       lc rgb col(word(RUNS, i)) lw 1.5 title small(word(RUNS, i))
set xlabel lab("t (s)", '$t$ (s)')
set ylabel "inequality rows (of 77)"
set ytics autofreq
set offsets 0, 0, 0, 0
set key top right font KEY_SMALL maxrows 4
plot for [i = 1:words(RUNS)] E."series-".word(RUNS, i).".csv" using "t":"handled" with steps \
       lc rgb col(word(RUNS, i)) lw 1.5 title small(word(RUNS, i)." handled"), \
     for [i = 1:words(RUNS)] E."series-".word(RUNS, i).".csv" using "t":"active" with steps \
       lc rgb col(word(RUNS, i)) lw 1.2 dt 2 title small(word(RUNS, i)." active")
unset multiplot
