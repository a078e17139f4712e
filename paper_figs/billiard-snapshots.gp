# 003 fig. 6: the billiard scene (11 balls, 77 inequality constraints) at
# the snapshot times, one row of panels per active-set algorithm (the runs
# on the tilted table with the main restitution), one column per time.
# Coordinates in units of the radius r; the walls x = r and y = r of the
# balls' centres are the axes x = 0 and y = 0 of their surfaces.  Rack
# balls blue, the cue ball red; a ball beyond the 30 r square is not shown.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = D."/billiard/"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".E."runs.csv'")
NR = words(RUNS)
F1 = E."snapshots-".word(RUNS, 1).".csv"
NS = int(real(system(sprintf("awk -F, 'NR > 1 && !seen[$1]++ { n++ } END { print n }' '%s'", F1))))
tsnap(k) = real(system(sprintf("awk -F, 'NR > 1 && $1 == %d { print $2; exit }' '%s'", k, F1)))
FIG_W = 7.0; FIG_H = (6.6 / NS) * NR + 0.75
load ARG1."/common.gp"
L = 30
set size ratio -1
set xrange [0:L]
set yrange [0:L]
set xtics 0, 10, 20
set ytics 0, 10, 20
unset grid
unset key
set style fill solid 0.6 border lc rgb "#333333"
set border 3 lw 2
set tics nomirror
set multiplot layout NR, NS margins 0.1, 0.99, 0.35 / FIG_H, 1 - 0.55 / FIG_H spacing 0.012, 0.03 \
    title lab("Billiard, tilted table: 11 balls, 77 inequality constraints; x, y in units of r", \
              'Billiard, tilted table: 11 balls, 77 inequality constraints; $x$, $y$ in units of $r$')
do for [i = 1:NR] {
  F = E."snapshots-".word(RUNS, i).".csv"
  do for [k = 0:NS - 1] {
    set title (i == 1 ? sprintf(lab("t = %.2f s", '$t = %.2f$~s'), tsnap(k)) : "")
    set ylabel (k == 0 ? nm(word(RUNS, i)) : "") offset -0.5, 0
    set format x (i == NR ? "%g" : "")
    set format y (k == 0 ? "%g" : "")
    plot F using (column("snap") == k && column("cue") == 0 ? column("x") / column("r") : NaN):(column("y") / column("r")):(1) \
           with circles lc rgb "#1f77b4", \
         F using (column("snap") == k && column("cue") == 1 ? column("x") / column("r") : NaN):(column("y") / column("r")):(1) \
           with circles lc rgb "#d62728"
  }
}
unset multiplot
