# chain10-stability: when each run fails, as a strip plot.  One row per
# run name; each of its runs (the exact saw tooth and the perturbed
# starts) is a point at its failure step (e_n above fail_tol, a failed
# step or a non-finite state), spread vertically by trial number so that
# equal steps stay visible; a run that survives is an open triangle at the
# end of the run.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 6.5; FIG_H = 3.8
load ARG1."/common.gp"
E = D."/chain10-stability/"
F = E."failures.csv"
RUNS = schemes_of(F)
NR = words(RUNS)
idx(s) = sum [i = 1:NR] (word(RUNS, i) eq s ? i : 0)
stats F using "trial" nooutput
NT = STATS_max + 1
STEPS = real(system("sed -n 's/^  \"steps\": \\([0-9]*\\),$/\\1/p' '".E."failures.meta.json'"))
y(s, t) = idx(s) + 0.6 * (t / (NT > 1 ? NT - 1 : 1) - 0.5)
set title "10-link chain, both ends pinned: step at which each run fails"
set xlabel "step"
set xrange [0:STEPS * 1.04]
set yrange [NR + 0.7:0.3]
set ytics () font ",8"
do for [i = 1:NR] { set ytics add (word(RUNS, i) i) }
set grid xtics ytics
set key outside top center horizontal font KEY_SMALL
plot F using (column("failed") == 1 ? column("fail_step") : NaN):(y(strcol(1), column("trial"))) \
       with points ls 1 pt 7 ps 0.5 title small(lab("failed (e_n > fail\\_tol, failed or non-finite step)", \
                                        "failed ($e_n >$ fail\\_tol, failed or non-finite step)")), \
     F using (column("failed") == 0 ? column("fail_step") : NaN):(y(strcol(1), column("trial"))) \
       with points ls 3 pt 8 ps 0.5 title small("survived the whole run")
