# 004's stiff pendulum: the largest stable step of the pendulum as a spring
# of stiffness k (penalty schemes) against k, with the linear oscillator's
# limit 2 sqrt(m/k) for symplectic Euler, and the constraint schemes'
# largest stable step (independent of k) as horizontal lines.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 6.5; FIG_H = 4.2
load ARG1."/common.gp"
E = D."/stiff-pendulum/"
P = E."stiff-spring.csv"
C = E."stiff-constraint.csv"
SP = schemes_of(P)
set title "Pendulum as a stiff spring vs as a constraint (004)"
set logscale xy
set format x lab("10^{%L}", "$10^{%L}$")
set format y lab("10^{%L}", "$10^{%L}$")
set xlabel lab("k (N/m)", '$k$ (N/m)')
set ylabel lab("largest stable h (s)", 'largest stable $h$ (s)')
set xrange [5e2:2e8]
set key outside right top vertical font KEY_SMALL
hcon(s) = real(system(sprintf("awk -F, '$1 == \"%s\" { print $2 }' '%s'", s, C)))
plot 2*sqrt(1/x) with lines ls 5 title small(lab("2 sqrt(m/k)", '$2\sqrt{m/k}$')), \
     for [i = 1:words(SP)] P using (strcol(1) eq word(SP, i) ? $2 : NaN):3 with linespoints lt i pt 7 title small(word(SP, i)), \
     hcon("implicit") with lines ls 3 title small("implicit (constraint)"), \
     hcon("baumgarte") with lines ls 1 dt 2 title small("baumgarte (constraint)"), \
     hcon("rattle") with lines ls 2 dt 3 title small("rattle (constraint)")
