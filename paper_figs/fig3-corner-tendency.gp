# 003 fig. 3: the particle in the corner under f = (-1, -2).  The exact
# motion stays in the corner.  The violation-tendency algorithm handles
# only g2 (the unconstrained acceleration leaves g1 alone), whose push
# drives the particle through g1 = x - y >= 0; Baumgarte's term then
# brings it back once g1's tendency turns.  The iterative algorithm holds
# both.  Violation of g1 against time, m = 2 and 3.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 6.0; FIG_H = 3.6
load ARG1."/common.gp"
E = D."/corner/"
f(m, a) = sprintf("%scorner-f2-m%s-%s.csv", E, m, a)
set style line 6 lc rgb "#ff7f0e" lw 1.5 dt 2
set style line 7 lc rgb "#1f77b4" lw 1.5 dt 3
set title "Particle in the corner, f = (-1, -2): the violation-tendency algorithm crosses g1 (003 fig. 3)"
set xlabel "t (s)"
set ylabel lab("g_1 = x - y (m)", '$g_1 = x - y$ (m)')
set key inside bottom right font KEY_SMALL
plot f("2", "tendency") using "t":"g1" with lines ls 1 title small("tendency, m = 2"), \
     f("3", "tendency") using "t":"g1" with lines ls 7 title small("tendency, m = 3"), \
     f("2", "iterative") using "t":"g1" with lines ls 3 title small("iterative, m = 2 and 3"), \
     f("2", "lcp") using "t":"g1" with lines ls 6 title small("exact LCP")
