# Return to the constraint manifold from a state violating Phi and
# Phi-dot (implicit.bad_initial, 001 sec. III): e_n / e_0 against time.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 6.5; FIG_H = 4.0
load ARG1."/common.gp"
F = D."/bad-initial/bad-initial.csv"
S = schemes_of(F)
set title lab("2-link arm started off the manifold: e_n / e_0 (h = 0.01)", \
  '2-link arm started off the manifold: $e_n / e_0$ ($h = 0.01$)')
set logscale y
set format y lab("10^{%L}", "$10^{%L}$")
set yrange [1e-12:1e3]
set xlabel lab("t (s)", '$t$ (s)')
set ylabel lab("e_n / e_0", '$e_n / e_0$')
set key outside right top vertical font KEY_SMALL
plot for [i = 1:words(S)] F using (strcol(1) eq word(S, i) ? $3 : NaN):5 with lines lt i lw 1.3 title small(word(S, i)), \
     1e-2 with lines ls 4 title small(lab("10^{-2}", '$10^{-2}$'))
