# chain10-stability: when each run fails, as a strip plot.  One row per
# run (runs.csv); each of its runs (the exact saw tooth and the perturbed
# starts, failures.csv) is a point at its failure step (e_n above
# fail_tol, a failed step or a non-finite state), a cross in the run's
# colour, spread vertically by trial number so that equal steps stay
# visible.  A run that survives is an open circle at the end of the run
# with an arrow: its failure step, if any, is beyond the run (a lower
# bound).
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = D."/chain10-stability/"
F = E."failures.csv"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".E."runs.csv'")
NR = words(RUNS)
FIG_W = 7.0; FIG_H = 1.05 + 0.28 * NR + 0.145 * 2
load ARG1."/common.gp"
PAL_X = pal_use(RUNS)
idx(s) = sum [i = 1:NR] (word(RUNS, i) eq s ? i : 0)
stats F using "trial" nooutput
NT = STATS_max + 1
STEPS = real(system("sed -n 's/^  \"steps\": \\([0-9]*\\),$/\\1/p' '".E."failures.meta.json'"))
y(s, t) = idx(s) + 0.6 * (t / (NT > 1 ? NT - 1 : 1) - 0.5)
set title sprintf("10-link chain, both ends pinned: step at which each of the %d runs per scheme fails", NT)
set xlabel "step"
set xrange [0:STEPS * 1.06]
set yrange [NR + 0.6:0.4]
set ytics () scale 0
do for [i = 1:NR] { set ytics add (nm(word(RUNS, i)) i) }
set grid xtics noytics
eval key_below(2, 1)
set key nobox Left reverse samplen 1
col(s) = pal_colour(s)
plot for [i = 1:NR] F using (strcol(1) eq word(RUNS, i) && column("failed") == 1 ? column("fail_step") : NaN):(y(strcol(1), column("trial"))) \
       with points pt 2 ps 0.9 * PSC lw 1.5 lc rgb pal_colour(word(RUNS, i)) notitle, \
     for [i = 1:NR] F using (strcol(1) eq word(RUNS, i) && column("failed") == 0 ? column("fail_step") : NaN):(y(strcol(1), column("trial"))) \
       with points pt 6 ps 0.8 * PSC lc rgb pal_colour(word(RUNS, i)) notitle, \
     for [i = 1:NR] F using (strcol(1) eq word(RUNS, i) && column("failed") == 0 && column("trial") == 0 ? column("fail_step") : NaN):(idx(strcol(1))):(STEPS * 0.045):(0) \
       with vectors head filled size screen 0.008, 25 lc rgb pal_colour(word(RUNS, i)) lw 1.2 notitle, \
     NaN with points pt 2 ps 0.9 * PSC lw 1.5 lc rgb "#000000" \
       title small(lab("failed (e_n > fail\\_tol, failed or non-finite step)", 'failed ($e_n >$ fail\_tol, failed or non-finite step)')), \
     NaN with points pt 6 ps 0.8 * PSC lc rgb "#000000" title small("survived the whole run (failure step a lower bound)")
