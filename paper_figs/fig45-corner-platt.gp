# 003 figs. 4-5: the particle in the corner g1 = x - y >= 0, g2 = y >= 0
# under f = (2, -1), position y and acceleration along y against time, for
# m = 2 (top) and m = 3 (bottom), one line per run of the corner
# experiment (runs.csv: the active-set algorithms).  Platt drops both
# constraints after the first step (their multipliers, -2 and -1, pull),
# the particle crosses y = 0, and Baumgarte's term pulls it back once g2
# is handled again; the others keep y at 0.  Runs that coincide in a
# panel (within 1e-6 of the panel's largest value, row by row) are drawn
# dotted over the earlier one, and the panel's key says so.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = D."/corner/"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".E."runs.csv'")
FIG_W = 7.0; FIG_H = 4.8
load ARG1."/common.gp"
PAL_X = pal_use(RUNS)
f(m, a) = sprintf("%scorner-f1-m%s-%s.csv", E, m, a)
dash_of(r) = co_entry(r) > 0 ? 3 : pal_dash(r)
lw_of(r) = co_entry(r) > 0 ? 2.6 : PAL_LW
set multiplot layout 2, 2 title "Particle in the corner, f = (2, -1)" margins 0.11, 0.98, 0.09, 0.9 spacing 0.12, 0.15
set xlabel lab("t (s)", '$t$ (s)') offset 0, 0.4
set key bottom right nobox Left reverse
set format y "%g"
do for [m in "2 3"] {
  set title sprintf("m = %s: position", m) offset 0, -0.4
  set ylabel lab("y (mm)", '$y$ (mm)')
  CO = coinc_files(E."corner-f1-m".m."-", ".csv", RUNS, "y", 1e-6)
  plot for [i = 1:words(RUNS)] f(m, word(RUNS, i)) using "t":(1e3 * column("y")) with lines \
         lc rgb pal_colour(word(RUNS, i)) dt dash_of(word(RUNS, i)) lw lw_of(word(RUNS, i)) \
         title small(co_label(word(RUNS, i)))
  set title sprintf("m = %s: acceleration", m)
  set ylabel lab("acceleration along y (m/s^2)", 'acceleration along $y$ (m/s$^2$)')
  CO = coinc_files(E."corner-f1-m".m."-", ".csv", RUNS, "ay", 1e-6)
  plot for [i = 1:words(RUNS)] f(m, word(RUNS, i)) using "t":"ay" with lines \
         lc rgb pal_colour(word(RUNS, i)) dt dash_of(word(RUNS, i)) lw lw_of(word(RUNS, i)) \
         title small(co_label(word(RUNS, i)))
}
unset multiplot
