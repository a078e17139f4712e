# 001 fig. 2: per-step constraint error e_n of the falling 2-link arm,
# h = 0.05, 1460 steps, for Baumgarte, post-stabilisation and implicit
# (plus Baumgarte without feedback, alpha = beta = 0, for context).
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
load ARG1."/common.gp"
E = D."/arm2-drift/"
set title lab("2-link arm, h = 0.05: constraint error per step (001 fig. 2)", \
  '2-link arm, $h = 0.05$: constraint error per step (001 fig.~2)')
set xlabel "step"
set ylabel lab("e_n = {/Symbol S} | |x_i - x_j| - L |  (m)", \
  '$e_n = \sum \bigl|\, |x_i - x_j| - L \,\bigr|$ (m)')
set logscale y
set format y lab("10^{%L}", "$10^{%L}$")
set yrange [1e-12:*]
set key bottom right
plot E."baumgarte.csv" using "step":"e" with lines ls 1 title lab("Baumgarte ({/Symbol a} = {/Symbol b} = 2)", 'Baumgarte ($\alpha = \beta = 2$)'), \
     E."poststab.csv" using "step":"e" with lines ls 2 title "post-stabilisation", \
     E."implicit.csv" using "step":"e" with lines ls 3 title "implicit", \
     E."baumgarte-a0b0.csv" using "step":"e" with lines ls 4 title lab("no feedback ({/Symbol a} = {/Symbol b} = 0)", \
       'no feedback ($\alpha = \beta = 0$)')
