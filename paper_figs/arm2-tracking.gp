# Beyond 001 fig. 3: how long each run keeps y of node 2 within the
# tracking tolerance of the reference, against the step size.  The double
# pendulum is chaotic, so this time, not a point-by-point overlap over
# 73 s, is what a scheme's accuracy buys.  A run that never left the band
# (tracked_all = 1) tracked for at least the whole run: an open circle
# with an upward arrow.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = D."/arm2-trajectory/"
F = E."tracking.csv"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".E."runs.csv'")
NR = words(RUNS)
NCENS = int(system("awk -F, 'NR > 1 && $5 == 1 { n++ } END { print n + 0 }' '".F."'"))
NK = NR + (NCENS > 0 ? 1 : 0)
FIG_W = 3.3; FIG_H = 2.1 + 0.145 * int((NK + 1) / 2)
load ARG1."/common.gp"
PAL_X = pal_use(RUNS)
TOL = system("sed -n 's/.*\"track_tol\": \"\\([^\"]*\\)\".*/\\1/p' '".E."tracking.meta.json' | head -n 1")
set title lab("2-link arm: time y_2 tracked within ".TOL." m", '2-link arm: time $y_2$ tracked within '.TOL.'~m')
set xlabel lab("h (s)", '$h$ (s)')
set ylabel "time tracked (s)"
set logscale xy
set xtics ("0.00625" 0.00625, "0.0125" 0.0125, "0.025" 0.025, "0.05" 0.05)
set xrange [0.0052:0.06]
set ytics ("0.2" 0.2, "0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20, "50" 50)
set autoscale yfix
set offsets 0, 0, graph 0.08, graph 0.08
eval key_below(int((NK + 1) / 2), 2)
set key nobox Left reverse samplen 2
censored(c) = column("tracked_all") == 1 ? c : NaN
plot for [i = 1:NR] F using (strcol(1) eq word(RUNS, i) ? $2 : NaN):"t_track" with linespoints \
       lc rgb pal_colour(word(RUNS, i)) dt pal_dash(word(RUNS, i)) lw PAL_LW pt pal_point(word(RUNS, i)) ps 1.0 * PSC \
       title small(nm(word(RUNS, i))), \
     F using (censored($2)):(column("t_track")):(0):(column("t_track")) with vectors head filled size screen 0.015, 25 \
       lc rgb "#000000" lw 1 notitle, \
     F using (censored($2)):(column("t_track")) with points pt 6 ps 1.4 * PSC lc rgb "#000000" \
       title (NCENS > 0 ? small("tracked the whole run (lower bound)") : "")
