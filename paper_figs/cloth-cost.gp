# 001 sec V-B (cloth-vs-implicit-ode): time per step against the number
# of nodes, log-log, for every solver of the adaptive constraints (green
# family) and of Baraff-Witkin stiffened to the same strain bound (pink
# family); each method's fastest solver is drawn with filled symbols and
# a solid line, with its fitted slope (the cost exponent) in the key.
# Baraff-Witkin's solvers other than its first are timed over the first
# probe_steps steps only, and a solver stopped in a race (slower than the
# fastest before it) over the steps it took.  Times are wall clock: they
# change from run to run.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
F = D."/cloth-vs-implicit-ode/cloth-cost.csv"
PAIRS = system("awk -F, 'NR > 1 && !seen[$1 \":\" $2]++ { printf \"%s:%s \", $1, $2 }' '".F."'")
NP = words(PAIRS)
METHODS = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' '".F."'")
NM = words(METHODS)
FIG_W = 7; FIG_H = 3.2
load ARG1."/common.gp"
PAL_X = pal_use(METHODS)
pm(p) = p[1:strstrt(p, ":") - 1]
ps(p) = p[strstrt(p, ":") + 1:]
# The rows of one method (and solver; best: its fastest at each grid), in grid order.
rows(m, sv) = sprintf("< awk -F, 'NR > 1 && $1 == \"%s\" && (\"%s\" == \"best\" ? $16 == 1 : $2 == \"%s\")' '%s'", m, sv, sv, F)
# The fitted slope of log(time) against log(nodes) over a method's best rows.
slope(m) = real(system(sprintf("awk -F, 'NR > 1 && $1 == \"%s\" && $16 == 1 { x = log($4); y = log($8); n++; sx += x; sy += y; sxx += x * x; sxy += x * y } END { if (n > 1) printf \"%%.3f\", (n * sxy - sx * sy) / (n * sxx - sx * sx); else print \"nan\" }' '%s'", m, F)))
set key outside right top vertical nobox Left reverse samplen 2
set title "Cloth: time per step at equal largest elongation" offset 0, 0.3
set label 20 small(timed_on("cloth-vs-implicit-ode")) at graph 0.5, graph 1 center offset 0, 0.6 font KEY_SMALL
set logscale xy
set xlabel "nodes"
set ylabel "time per step (ms)"
set format y lab("10^{%L}", '$10^{%L}$')
set offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05
plot for [i = 1:NM] rows(word(METHODS, i), "best") using 4:($8 * 1e3) \
       with linespoints lc rgb pal_colour(word(METHODS, i)) lw 2 * PAL_LW pt 7 ps 1.4 * PSC \
       title small(sprintf("%s, fastest (slope %.2f)", nm(word(METHODS, i)), slope(word(METHODS, i)))), \
     for [i = 1:NP] rows(pm(word(PAIRS, i)), ps(word(PAIRS, i))) using 4:($8 * 1e3) \
       with linespoints lc rgb pal_colour(pm(word(PAIRS, i))) dt 2 lw 0.8 pt (i % 4 + 4) ps 1.0 * PSC \
       title small(nm(pm(word(PAIRS, i)))." ".nm(ps(word(PAIRS, i))))
