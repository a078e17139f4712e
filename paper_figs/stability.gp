# Largest stable step size of every scheme (stability.c's rules: 10 s from
# horizontal, e_n <= 10 % of the length, no energy gain above 10 % of the
# releasable energy, no failed step).  Each bar runs from the largest
# stable grid point to the first unstable one.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 6.5; FIG_H = 4.5
load ARG1."/common.gp"
F = D."/stability/stability.csv"
set title lab("Largest stable step size (implicit.large\\_steps, 001 sec. III)", \
  'Largest stable step size (\texttt{implicit.large\_steps}, 001 sec.~III)')
set logscale x
set format x lab("10^{%L}", "$10^{%L}$")
set xlabel lab("h (s)", '$h$ (s)')
set xrange [1e-4:1]
stats F using 2 nooutput
set yrange [STATS_max + 0.7:-0.7]
set ytics font ",8"
set grid xtics ytics
set key bottom right
# Stable on the whole grid (no failure up to 0.5): the bar runs to the
# plot's edge.
# "nan" is read as a number here, not as missing, so that such rows stay.
set datafile missing "__none__"
top(c) = (column(c) == column(c)) ? column(c) : 1.0
plot F using 3:($2 - 0.15):3:(top(4)):ytic(1) with xerrorbars ls 2 pt 7 ps 0.6 title "single pendulum", \
     F using 5:($2 + 0.15):5:(top(6)) with xerrorbars ls 1 pt 5 ps 0.6 title "10-link arm"
