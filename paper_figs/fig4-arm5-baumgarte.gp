# 000 fig. 4: per-step constraint error e_n of the falling 5-link arm,
# explicit Baumgarte (alpha = beta = 2) against first-order implicit.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
load ARG1."/common.gp"
E = D."/arm5-baumgarte/"
# The step size of the run: t at step 1.
H = system("awk -F, 'NR == 3 { printf \"%g\", $2 }' '".E."baumgarte.csv'")
set title "5-link arm, h = ".H.": constraint error per step (000 fig. 4)"
set xlabel "step"
set ylabel lab("e_n (m)", "$e_n$ (m)")
set logscale y
set format y lab("10^{%L}", "$10^{%L}$")
set key bottom right
plot E."baumgarte.csv" using "step":"e" with lines ls 1 \
       title lab("Baumgarte ({/Symbol a} = {/Symbol b} = 2)", "Baumgarte ($\\alpha = \\beta = 2$)"), \
     E."implicit.csv" using "step":"e" with lines ls 3 title "implicit"
