# 002's bead on the unit circle: radial error |r - 1| with and without
# Witkin's feedback (top), and the angle error against the exact motion
# (bottom).
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 6.0; FIG_H = 5.0
load ARG1."/common.gp"
E = D."/bead-circle/"
set multiplot layout 2,1
set title lab("Bead on the unit circle (002), h = 0.01", 'Bead on the unit circle (002), $h = 0.01$')
set logscale y
set format y lab("10^{%L}", "$10^{%L}$")
set ylabel lab("|r - 1|", '$|r - 1|$')
set key bottom right
plot E."bead-no-feedback.csv" using "t":(abs(column("radial_err"))) with lines ls 1 title lab("no feedback (k_s = k_d = 0)", 'no feedback ($k_s = k_d = 0$)'), \
     E."bead-feedback.csv" using "t":(abs(column("radial_err"))) with lines ls 2 title lab("feedback (k_s, k_d)", 'feedback ($k_s$, $k_d$)')
set title ""
set xlabel lab("t (s)", '$t$ (s)')
set ylabel lab("|{/Symbol q} - {/Symbol q}_{ref}| (rad)", '$|\theta - \theta_{\mathrm{ref}}|$ (rad)')
plot E."bead-no-feedback.csv" using "t":"angle_err" with lines ls 1 title "no feedback", \
     E."bead-feedback.csv" using "t":"angle_err" with lines ls 2 title "feedback"
unset multiplot
