# Shared by arm5-improved-order.gp and arm5-baumgarte-order.gp (beyond the
# papers): constraint error e_n (left) and trajectory error against the
# reduced-coordinate reference (right) at a fixed time, against h, on the
# papers' 5-link arm.  Reference slopes 1 and 2 in grey.  The caller sets
# EXPDIR and OTITLE.
F = D."/".EXPDIR."/order.csv"
S = schemes_of(F)
set logscale xy
set format x lab("10^{%L}", "$10^{%L}$")
set format y lab("10^{%L}", "$10^{%L}$")
set xlabel "h (s)"
set key top left font KEY_SMALL
set multiplot layout 1,2 title OTITLE
set title "constraint error at T"
set ylabel lab("e_n(T) (m)", "$e_n(T)$ (m)")
plot for [i = 1:words(S)] F using (strcol(1) eq word(S, i) ? $2 : NaN):5 \
       with linespoints ls i pt (i % 13) + 1 ps 0.7 dt int(1 + (i > 2)) title small(word(S, i)), \
     0.5*x with lines ls 4 title small("slopes 1, 2"), 5*x**2 with lines ls 4 notitle
set title "trajectory error at T"
set key off
set ylabel lab("max_i |x_i - x_i^{ref}| (m)", "$\\max_i |x_i - x_i^{\\mathrm{ref}}|$ (m)")
plot for [i = 1:words(S)] F using (strcol(1) eq word(S, i) ? $2 : NaN):6 \
       with linespoints ls i pt (i % 13) + 1 ps 0.7 dt int(1 + (i > 2)) notitle, \
     0.5*x with lines ls 4 notitle, 5*x**2 with lines ls 4 notitle
unset multiplot
