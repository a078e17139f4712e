# 004: position-based dynamics with few iterations makes constraints look
# soft.  Stretch of a hanging 10-link chain against sweeps per step.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
load ARG1."/common.gp"
F = D."/stiff-pendulum/pbd-stretch.csv"
set title lab("Hanging 10-link chain: stretch against PBD iterations (h = 0.01)", \
  'Hanging 10-link chain: stretch against PBD iterations ($h = 0.01$)')
set logscale xy
set format y lab("10^{%L}", "$10^{%L}$")
set xlabel lab("Gauss-Seidel sweeps per step K", 'Gauss--Seidel sweeps per step $K$')
set ylabel lab("e_n / length", '$e_n$ / length')
set key top right
plot F using (strcol(1) eq "pbd" ? $2 : NaN):3 with linespoints ls 1 pt 7 title "PBD", \
     F using (strcol(1) eq "xpbd" ? $2 : NaN):3 with linespoints ls 2 pt 5 title "XPBD, compliance 0"
