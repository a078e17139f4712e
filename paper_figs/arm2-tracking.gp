# Beyond 001 fig. 3: how long each scheme keeps y of node 2 within the
# tracking tolerance of the reference, against the step size.  The double
# pendulum is chaotic, so this time, not a point-by-point overlap over
# 73 s, is what a scheme's accuracy buys.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
load ARG1."/common.gp"
F = D."/arm2-trajectory/tracking.csv"
set title "2-link arm: time within tolerance of the reference"
set xlabel lab("h (s)", '$h$ (s)')
set ylabel "time tracked (s)"
set logscale xy
set xrange [0.005:0.07]
set xtics ("0.00625" 0.00625, "0.0125" 0.0125, "0.025" 0.025, "0.05" 0.05)
set key top right
plot F using (strcol(1) eq "baumgarte" ? $2 : NaN):4 with linespoints ls 1 pt 7 title "Baumgarte", \
     F using (strcol(1) eq "poststab" ? $2 : NaN):4 with linespoints ls 2 pt 5 title "post-stabilisation", \
     F using (strcol(1) eq "implicit" ? $2 : NaN):4 with linespoints ls 3 pt 9 title "implicit"
