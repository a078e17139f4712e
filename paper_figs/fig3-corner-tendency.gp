# 003 fig. 3: the particle in the corner under f = (-1, -2).  The exact
# motion stays in the corner.  The violation-tendency algorithm handles
# only g2 (the unconstrained acceleration leaves g1 alone), whose push
# drives the particle through g1 = x - y >= 0; Baumgarte's term then
# brings it back once g1's tendency turns.  The others hold both.  g1
# against time for m = 2 and 3 (one panel each), one line per run of the
# corner experiment (runs.csv); runs that coincide (within 1e-6 of the
# panel's largest |g1|, row by row) are drawn dotted over the earlier
# one, and the key says so.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = D."/corner/"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".E."runs.csv'")
FIG_W = 7.0; FIG_H = 2.6
load ARG1."/common.gp"
PAL_X = pal_use(RUNS)
f(m, a) = sprintf("%scorner-f2-m%s-%s.csv", E, m, a)
dash_of(r) = co_entry(r) > 0 ? 3 : pal_dash(r)
lw_of(r) = co_entry(r) > 0 ? 2.6 : PAL_LW
set multiplot layout 1, 2 title lab("Particle in the corner, f = (-1, -2): the tendency algorithm crosses g_1 = 0", 'Particle in the corner, $f = (-1, -2)$: the tendency algorithm crosses $g_1 = 0$') \
  margins 0.09, 0.98, 0.17, 0.83 spacing 0.09, 0.1
set xlabel lab("t (s)", '$t$ (s)') offset 0, 0.4
set key at graph 0.98, graph 0.82 right top nobox noopaque Left reverse
set ytics 1
do for [m in "2 3"] {
  set title sprintf("m = %s", m) offset 0, -0.4
  set ylabel (m eq "2" ? lab("g_1 = x - y (mm)", '$g_1 = x - y$ (mm)') : "")
  CO = coinc_files(E."corner-f2-m".m."-", ".csv", RUNS, "g1", 1e-6)
  plot for [i = 1:words(RUNS)] f(m, word(RUNS, i)) using "t":(1e3 * column("g1")) with lines \
         lc rgb pal_colour(word(RUNS, i)) dt dash_of(word(RUNS, i)) lw lw_of(word(RUNS, i)) \
         title small(co_label(word(RUNS, i)))
}
unset multiplot
