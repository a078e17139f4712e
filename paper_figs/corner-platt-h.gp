# Beyond 003: Platt's largest violation of y >= 0 in the corner under
# f = (2, -1) against the step size h (tau = 10 h, the same 2 s), for
# m = 2 and 3 (both in Platt's colour, told apart by symbol and dash),
# with 003's "below 1e-5 at m = 2" as a threshold line.  The first free
# step alone moves the particle h^2/m below the wall (symplectic Euler).
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 3.3; FIG_H = 2.4 + 0.145 * 3
load ARG1."/common.gp"
E = D."/corner/"
F = E."corner-platt-h.csv"
set title lab("Platt in the corner: largest violation of y ≥ 0", 'Platt in the corner: largest violation of $y \ge 0$')
set xlabel lab("h (s)", '$h$ (s)')
set ylabel lab("max(-y, 0) (m)", '$\max(-y, 0)$ (m)')
set logscale xy
set format x lab("10^{%L}", '$10^{%L}$')
set format y lab("10^{%L}", '$10^{%L}$')
set autoscale fix
set offsets graph 0.05, graph 0.05, graph 0.08, graph 0.08
set ytics 100
eval key_below(3, 1)
set key nobox Left reverse
plot F using "h":"pen_g2_m2" with linespoints lc rgb pal_colour("platt") dt 1 lw PAL_LW pt 7 ps 0.8 * PSC title small("platt, m = 2"), \
     F using "h":"pen_g2_m3" with linespoints lc rgb pal_colour("platt") dt 2 lw PAL_LW pt 6 ps 0.9 * PSC title small("platt, m = 3"), \
     1e-5 with lines ls 4 title small(lab("10^{-5} m (003's bound at m = 2)", '$10^{-5}$~m (003'."'".'s bound at $m = 2$)'))
