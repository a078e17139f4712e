# Convergence of every scheme against the references: position error at
# T = 1 s (top) and energy drift |E(T) - E(0)| / (m g L) (bottom) against
# the step size, for the pendulum, the double pendulum and the bead on a
# circle.  Reference slopes 1, 2 and 4 in grey.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 11.0; FIG_H = 6.5
load ARG1."/common.gp"
F = D."/convergence/convergence.csv"
S = schemes_of(F)
PROBS = "pendulum double bead"
TITLES = "'single pendulum' 'double pendulum (001 arm)' 'bead on a circle (002)'"
set logscale xy
set format x lab("10^{%L}", "$10^{%L}$")
set format y lab("10^{%L}", "$10^{%L}$")
set xlabel lab("h (s)", '$h$ (s)')
set key off
set multiplot layout 2,3 title lab("Convergence at T = 1 s against the references", \
  'Convergence at $T = 1$~s against the references')
do for [p = 1:3] {
  P = word(PROBS, p)
  set title word(TITLES, p)
  set ylabel (p == 1 ? lab("max_i |x_i - x_i^{ref}| (m)", '$\max_i |x_i - x_i^{\mathrm{ref}}|$ (m)') : "")
  if (p == 3) { set key outside right top vertical font KEY_SMALL spacing 0.9 }
  plot for [i = 1:words(S)] F using (strcol(2) eq P && strcol(1) eq word(S, i) ? $3 : NaN):6 \
         with linespoints lt i pt (i % 13) + 1 ps 0.6 title small(word(S, i)), \
       0.3*x with lines ls 4 notitle, 0.3*x**2 with lines ls 4 notitle, 3*x**4 with lines ls 4 notitle
  set key off
}
do for [p = 1:3] {
  P = word(PROBS, p)
  set title ""
  set ylabel (p == 1 ? lab("|E(T) - E(0)| / (m g L)", '$|E(T) - E(0)| / (m g L)$') : "")
  plot for [i = 1:words(S)] F using (strcol(2) eq P && strcol(1) eq word(S, i) ? $3 : NaN):(abs($10)) \
         with linespoints lt i pt (i % 13) + 1 ps 0.6 notitle
}
unset multiplot
