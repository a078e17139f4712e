# The billiard scene (003 fig. 6) on the tilted table with the main
# restitution: momentum (top; p_x solid, p_y dashed; it changes by the
# tilt's force M g_tilt and the walls' impulses) and the change of the
# total energy E - E(0), kinetic plus the tilt's potential (bottom), one
# colour per active-set algorithm.  Symplectic Euler under the constant
# tilt alone loses m h^2 g_tilt^2 / 2 per step for each moving ball.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 6.5; FIG_H = 5.2
load ARG1."/common.gp"
E = D."/billiard/"
S = E."summary.csv"
RUNS = system(sprintf("awk -F, 'NR > 1 && $1 == $2 { printf \"%%s \", $1 }' '%s'", S))
set style line 6 lc rgb "#9467bd" lw 1.5
style(s) = s eq "iterative" ? 1 : s eq "platt" ? 2 : s eq "tendency" ? 3 : s eq "lcp" ? 6 : 4
col(s) = s eq "iterative" ? "#d62728" : s eq "platt" ? "#1f77b4" : s eq "tendency" ? "#2ca02c" : s eq "lcp" ? "#9467bd" : "#7f7f7f"
# E(0) of each run, read once.
array E0S[words(RUNS)]
do for [i = 1:words(RUNS)] {
  E0S[i] = real(system(sprintf("awk -F, 'NR == 2 { print $9 }' '%s'", E."series-".word(RUNS, i).".csv")))
}
set multiplot layout 2, 1 title lab("Billiard (003 fig. 6), tilted table: momentum and energy", \
                                    'Billiard (003 fig.~6), tilted table: momentum and energy')
set ylabel "momentum (kg m/s)"
set key bottom left font KEY_SMALL maxrows 4
plot for [i = 1:words(RUNS)] E."series-".word(RUNS, i).".csv" using "t":"px" with lines lc rgb col(word(RUNS, i)) lw 1.5 \
       title small(lab(word(RUNS, i)." p_x", word(RUNS, i).' $p_x$')), \
     for [i = 1:words(RUNS)] E."series-".word(RUNS, i).".csv" using "t":"py" with lines lc rgb col(word(RUNS, i)) lw 1.5 dt 2 \
       title small(lab(word(RUNS, i)." p_y", word(RUNS, i).' $p_y$'))
set xlabel lab("t (s)", '$t$ (s)')
set ylabel lab("E - E(0) (J)", '$E - E(0)$ (J)')
set key bottom left font KEY_SMALL maxrows 4
plot for [i = 1:words(RUNS)] E."series-".word(RUNS, i).".csv" using "t":(column("E") - E0S[i]) \
       with lines ls style(word(RUNS, i)) title small(word(RUNS, i))
unset multiplot
