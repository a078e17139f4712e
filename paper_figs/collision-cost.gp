# collision-cost: the collision detector's time per step against the
# number of triangles, log-log: cdyn_contacts_before (broad phase,
# proximity and continuous tests over the predicted motion) plus
# cdyn_contacts_after (continuous check of the motion taken), and the
# exact replay of the same motion (reference/ccd_replay.c) for
# comparison; the dotted line is n log n through the first point.  The
# fitted slope of the detector's time is in the key.  Wall-clock times:
# they change from run to run.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
F = D."/collision-cost/collision-cost-time.csv"
FIG_W = 5.5; FIG_H = 3.4
load ARG1."/common.gp"
slope = real(system(sprintf("awk -F, 'NR > 1 { x = log($2); y = log($3 + $4); n++; sx += x; sy += y; sxx += x * x; sxy += x * y } END { if (n > 1) printf \"%%.3f\", (n * sxy - sx * sy) / (n * sxx - sx * sx); else print \"nan\" }' '%s'", F)))
n0 = real(system(sprintf("awk -F, 'NR == 2 { print $2 }' '%s'", F)))
t0 = real(system(sprintf("awk -F, 'NR == 2 { print 1e3 * ($3 + $4) }' '%s'", F)))
set key top left nobox Left reverse samplen 2
set title "Collision detection: time per step against mesh size"
# The machine that timed it (run.meta.json's "machine": processor and
# processors online), under the title; a run from before that record
# says so.
set label 20 small(timed_on("collision-cost")) \
  at graph 0.5, graph 1 center offset 0, 0.5 font KEY_SMALL
set logscale xy
set xlabel "triangles"
set ylabel "time per step (ms)"
set format x lab("10^{%L}", '$10^{%L}$')
set format y lab("10^{%L}", '$10^{%L}$')
set offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05
set datafile separator ","
plot F using 2:(1e3 * ($3 + $4)) every ::1 with linespoints lc rgb "#1b7837" lw 2 pt 7 ps PSC \
       title small(sprintf("detection, before + after (slope %.2f)", slope)), \
     F using 2:(1e3 * $5) every ::1 with linespoints lc rgb "#762a83" dt 2 lw 1 pt 5 ps PSC \
       title small("exact replay (reference)"), \
     F using 2:(t0 * $2 * log($2) / (n0 * log(n0))) every ::1 with lines lc rgb "#000000" dt 3 lw 0.8 \
       title small("n log n")
