# 003 figs. 4-5: the particle in the corner g1 = x - y >= 0, g2 = y >= 0
# under f = (2, -1), position y and acceleration along y against time, for
# m = 2 (top) and m = 3 (bottom).  Platt drops both constraints after the
# first step (their multipliers, -2 and -1, pull), the particle crosses
# y = 0, and Baumgarte's term pulls it back once g2 is handled again.  The
# iterative algorithm and the exact LCP (dashed) keep y at 0.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 7.0; FIG_H = 5.2
load ARG1."/common.gp"
E = D."/corner/"
set style line 6 lc rgb "#ff7f0e" lw 1.5 dt 2
f(m, a) = sprintf("%scorner-f1-m%s-%s.csv", E, m, a)
set multiplot layout 2, 2 title "Particle in the corner, f = (2, -1): Platt against the iterative algorithm (003 figs. 4-5)"
set key inside bottom right font KEY_SMALL
do for [m in "2 3"] {
  set title sprintf("m = %s: position", m)
  set xlabel "t (s)"
  set ylabel "y (m)"
  set format y "%.1e"
  plot f(m, "platt") using "t":"y" with lines ls 1 title small("Platt"), \
       f(m, "iterative") using "t":"y" with lines ls 3 title small("iterative"), \
       f(m, "lcp") using "t":"y" with lines ls 6 title small("exact LCP")
  set title sprintf("m = %s: acceleration", m)
  set ylabel lab("acceleration along y (m/s^2)", 'acceleration along $y$ (m/s$^2$)')
  set format y "%g"
  set key top right
  plot f(m, "platt") using "t":"ay" with lines ls 1 title small("Platt"), \
       f(m, "iterative") using "t":"ay" with lines ls 3 title small("iterative"), \
       f(m, "lcp") using "t":"ay" with lines ls 6 title small("exact LCP")
  set key bottom right
}
unset multiplot
