# 001 fig. 3: y of the second node of the falling 2-link arm at the
# coarsest step of arm2-trajectory, against the reduced-coordinate
# reference (joint angles, GSL rk8pd 1e-13): one panel per run (runs.csv),
# the reference in black behind each, so that no run hides another.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = D."/arm2-trajectory/"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".E."runs.csv'")
NR = words(RUNS)
# The coarsest step size, from tracking.csv (the paper's h = 0.05).
H = system("awk -F, 'NR > 1 && $2 > m { m = $2 } END { printf \"%g\", m }' '".E."tracking.csv'")
FIG_W = 7.0; FIG_H = 0.45 + 0.95 * NR
load ARG1."/common.gp"
PAL_X = pal_use(RUNS)
set multiplot layout NR, 1 margins 0.08, 0.80, 0.45 / FIG_H, 1 - 0.3 / FIG_H spacing 0, 0.12 / FIG_H \
  title lab("2-link arm, h = ".H." s: y of node 2 against the reference", \
            '2-link arm, $h = '.H.'$~s: $y$ of node 2 against the reference')
set yrange [-2.2:0.7]
set ytics -2, 1, 0
set mytics 2
set ylabel lab("y_2 (m)", '$y_2$ (m)')
set xrange [0:*]
set autoscale xfix
set key outside right center vertical nobox Left reverse samplen 2
do for [i = 1:NR] {
  R = word(RUNS, i)
  if (i == NR) { set xlabel lab("t (s)", '$t$ (s)'); set format x "%g" } else { unset xlabel; set format x "" }
  plot E."reference.csv" using "t":"y2" with lines lc rgb "#000000" lw 0.8 title small("reference"), \
       E.R."_h".H.".csv" using "t":"y2" with lines lc rgb pal_colour(R) dt pal_dash(R) lw PAL_LW title small(nm(R))
}
unset multiplot
