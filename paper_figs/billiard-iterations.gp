# The billiard scene (003 fig. 6) on the tilted table with the main
# restitution: the active-set work of each step, one line per run of the
# billiard experiment (runs.csv).  Top: the most linear solves one
# active-set problem of the step needed (iterative: one per pass that
# added rows; Platt and the tendency algorithm: one).  Middle: the rows in
# the handled set of the step's last acceleration-level solve.  Bottom:
# the inequality rows active after the step (g <= active_tol).  Runs that
# coincide in a panel (row by row) are drawn dotted over the earlier one,
# and the panel's key says so.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = D."/billiard/"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".E."runs.csv'")
FIG_W = 7.0; FIG_H = 5.6
load ARG1."/common.gp"
PAL_X = pal_use(RUNS)
s(r) = E."series-".r.".csv"
NROWS = int(system("awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) if ($k ~ /^g/) n++ } END { print n + 0 }' '".E."snapshots-".word(RUNS, 1).".csv'"))
dash_of(r) = co_entry(r) > 0 ? 3 : pal_dash(r)
lw_of(r) = co_entry(r) > 0 ? 2.6 : PAL_LW
set multiplot layout 3, 1 title "Billiard, tilted table: active-set work per step" margins 0.1, 0.72, 0.08, 0.93 spacing 0, 0.06
set format x ""
set key at screen 0.73, graph 1 left top nobox Left reverse
set yrange [0:*]
set offsets 0, 0, 0.5, 0
set ytics 2
set ylabel "linear solves\n(most in one problem)"
CO = coinc_files(E."series-", ".csv", RUNS, "max_solves", 0)
plot for [i = 1:words(RUNS)] s(word(RUNS, i)) using "t":"max_solves" with steps \
       lc rgb pal_colour(word(RUNS, i)) dt dash_of(word(RUNS, i)) lw lw_of(word(RUNS, i)) title small(co_label(word(RUNS, i)))
set ytics autofreq
set offsets 0, 0, 1, 0
set ylabel "handled rows"
CO = coinc_files(E."series-", ".csv", RUNS, "handled", 0)
plot for [i = 1:words(RUNS)] s(word(RUNS, i)) using "t":"handled" with steps \
       lc rgb pal_colour(word(RUNS, i)) dt dash_of(word(RUNS, i)) lw lw_of(word(RUNS, i)) title small(co_label(word(RUNS, i)))
set xlabel lab("t (s)", '$t$ (s)') offset 0, 0.3
set format x "%g"
set ylabel "active rows"
CO = coinc_files(E."series-", ".csv", RUNS, "active", 0)
plot for [i = 1:words(RUNS)] s(word(RUNS, i)) using "t":"active" with steps \
       lc rgb pal_colour(word(RUNS, i)) dt dash_of(word(RUNS, i)) lw lw_of(word(RUNS, i)) title small(co_label(word(RUNS, i)))
unset multiplot
