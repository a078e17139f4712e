# Beyond 003: Platt's largest violation of y >= 0 in the corner under
# f = (2, -1) against the step size h (tau = 10 h, the same 2 s), for
# m = 2 and 3, with 003's "below 1e-5 at m = 2" as a line.  The first free
# step alone moves the particle h^2/m below the wall (symplectic Euler).
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
load ARG1."/common.gp"
E = D."/corner/"
set title "Platt in the corner: violation of y >= 0 against h"
set xlabel "h (s)"
set ylabel lab("largest violation max(-y, 0) (m)", 'largest violation $\max(-y, 0)$ (m)')
set logscale xy
set format x lab("10^{%L}", '$10^{%L}$')
set format y lab("10^{%L}", '$10^{%L}$')
set key inside top left font KEY_SMALL
plot E."corner-platt-h.csv" using "h":"pen_g2_m2" with linespoints ls 1 pt 7 title small("m = 2"), \
     E."corner-platt-h.csv" using "h":"pen_g2_m3" with linespoints ls 2 pt 5 title small("m = 3"), \
     1e-5 with lines ls 4 title small("003: below 1e-5 at m = 2")
