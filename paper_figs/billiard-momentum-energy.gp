# The billiard scene (003 fig. 6) on the tilted table with the main
# restitution: momentum p_x (top) and p_y (middle; each changes by the
# tilt's force M g_tilt and the walls' impulses) and the change of the
# total energy E - E(0), kinetic plus the tilt's potential (bottom), one
# line per run of the billiard experiment (runs.csv).  Symplectic Euler
# under the constant tilt alone loses m h^2 g_tilt^2 / 2 per step for
# each moving ball.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = D."/billiard/"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".E."runs.csv'")
FIG_W = 7.0; FIG_H = 5.6
load ARG1."/common.gp"
PAL_X = pal_use(RUNS)
s(r) = E."series-".r.".csv"
# E(0) of each run, read once.
array E0S[words(RUNS)]
do for [i = 1:words(RUNS)] {
  E0S[i] = real(system(sprintf("awk -F, 'NR == 2 { print $9 }' '%s'", s(word(RUNS, i)))))
}
set multiplot layout 3, 1 title "Billiard, tilted table: momentum and energy" margins 0.11, 0.8, 0.08, 0.93 spacing 0, 0.05
set format x ""
set key at screen 0.81, graph 1 left top nobox Left reverse
set ylabel lab("p_x (kg m/s)", '$p_x$ (kg\,m/s)')
plot for [i = 1:words(RUNS)] s(word(RUNS, i)) using "t":"px" with lines \
       lc rgb pal_colour(word(RUNS, i)) dt pal_dash(word(RUNS, i)) lw PAL_LW title small(nm(word(RUNS, i)))
set key off
set ylabel lab("p_y (kg m/s)", '$p_y$ (kg\,m/s)')
plot for [i = 1:words(RUNS)] s(word(RUNS, i)) using "t":"py" with lines \
       lc rgb pal_colour(word(RUNS, i)) dt pal_dash(word(RUNS, i)) lw PAL_LW notitle
set xlabel lab("t (s)", '$t$ (s)') offset 0, 0.3
set format x "%g"
set ylabel lab("E - E(0) (mJ)", '$E - E(0)$ (mJ)')
plot for [i = 1:words(RUNS)] s(word(RUNS, i)) using "t":(1e3 * (column("E") - E0S[i])) with lines \
       lc rgb pal_colour(word(RUNS, i)) dt pal_dash(word(RUNS, i)) lw PAL_LW notitle
unset multiplot
