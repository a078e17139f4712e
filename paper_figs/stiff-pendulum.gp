# 004's stiff pendulum.  Left: the largest stable step of the pendulum as
# a spring of stiffness k against k, one line per penalty run
# (stiff-spring.csv), with the linear oscillator's limit 2 sqrt(m/k) for
# symplectic Euler in black.  Right, on the same h axis: the largest
# stable step of every run that keeps the pendulum as a constraint
# (stiff-constraint.csv; independent of k).  Each bar runs from h_max to
# the first unstable grid point.  Censored points: stable over the whole
# grid (h_fail nan) is an open symbol with an arrow up (h_max a lower
# bound); unstable down to the grid's bottom (h_max nan) an open symbol
# at h_fail with an arrow down (an upper bound).
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = D."/stiff-pendulum/"
# The bottom margin holds the right panel's names, rotated: about 0.075 in
# a character at 9 pt, and at least the left panel's axis label.
LMAX = int(system("awk -F, 'NR > 1 && length($1) > m { m = length($1) } END { print m + 0 }' '".E."stiff-constraint.csv'"))
BOT = 0.2 + 0.075 * LMAX < 1.05 ? 1.05 : 0.2 + 0.075 * LMAX
FIG_W = 7.0; FIG_H = 2.85 + BOT
load ARG1."/common.gp"
P = E."stiff-spring.csv"
C = E."stiff-constraint.csv"
SP = schemes_of(P)
SC = schemes_of(C)
PAL_X = pal_use(SP." ".SC)
NC = words(SC)
# "nan" is read as a number, not as missing, so that such rows stay; a
# column holding it is tested as a string (NaN fails every comparison).
set datafile missing "__none__"
isnan(c) = strcol(c) eq "nan"
NCENS = int(system("awk -F, 'FNR > 1 && $3 == \"nan\" { n++ } END { print n + 0 }' '".C."'"))
NUP = int(system("awk -F, 'NR > 1 && $3 == \"nan\" { n++ } END { print n + 0 }' '".P."'"))
HLO = 3e-5; HHI = 2
set multiplot title "Pendulum as a stiff spring and as a constraint"
set logscale y
set format y lab("10^{%L}", '$10^{%L}$')
set yrange [HLO:HHI]
set ylabel lab("largest stable h (s)", 'largest stable $h$ (s)')
# Left: the penalty runs against k.
set lmargin at screen 0.1
set rmargin at screen 0.53
set tmargin at screen 1 - 0.45 / FIG_H
set bmargin at screen BOT / FIG_H
set title "penalty springs against k" offset 0, -0.4
set logscale x
set format x lab("10^{%L}", '$10^{%L}$')
set xlabel lab("k (N/m)", '$k$ (N/m)') offset 0, 0.3
set xrange [5e2:2e8]
set key at graph 0.98, graph 0.98 right top nobox Left reverse width -4
plot 2*sqrt(1/x) with lines ls 5 title small(lab("2 sqrt(m/k)", '$2\sqrt{m/k}$')), \
     for [i = 1:words(SP)] P using (strcol(1) eq word(SP, i) && !isnan(3) ? $2 : NaN):3 with linespoints \
       lc rgb pal_colour(word(SP, i)) dt pal_dash(word(SP, i)) lw PAL_LW pt pal_point(word(SP, i)) ps 0.9 * PSC \
       title small(nm(word(SP, i))), \
     for [i = 1:words(SP)] P using (strcol(1) eq word(SP, i) && isnan(3) ? $2 : NaN):4:(0):(-column(4) * 0.45) \
       with vectors head filled size screen 0.01, 25 lc rgb pal_colour(word(SP, i)) lw 1.2 notitle, \
     for [i = 1:words(SP)] P using (strcol(1) eq word(SP, i) && isnan(3) ? $2 : NaN):4 with points \
       pt 6 ps 1.1 * PSC lw 1.2 lc rgb pal_colour(word(SP, i)) notitle, \
     keyentry with points pt 6 ps 1.1 * PSC lw 1.2 lc rgb "#000000" \
       title (NUP > 0 ? small("no stable h on the grid (upper bound)") : "")
# Right: the constraint runs, one column each.
set lmargin at screen 0.6
set rmargin at screen 0.98
set title "constraints (any k)"
unset logscale x
set xrange [0.3:NC + 0.7]
set xtics () rotate by 90 right scale 0
do for [i = 1:NC] { set xtics add (nm(word(SC, i)) i) }
set format y ""
unset ylabel
unset xlabel
set grid ytics noxtics
set bmargin at screen BOT / FIG_H
set key at graph 0.03, graph 0.03 left bottom nobox Left reverse width 0
col(i) = i
plot for [i = 1:NC] C using (strcol(1) eq word(SC, i) && !isnan(3) ? i : NaN):2:2:(isnan(3) ? $2 : $3) \
       with yerrorbars lc rgb pal_colour(word(SC, i)) lw 1.2 pt 7 ps 0.8 * PSC notitle, \
     for [i = 1:NC] C using (strcol(1) eq word(SC, i) && isnan(3) ? i : NaN):2:(0):(column(2) * 0.9) \
       with vectors head filled size screen 0.01, 25 lc rgb pal_colour(word(SC, i)) lw 1.2 notitle, \
     for [i = 1:NC] C using (strcol(1) eq word(SC, i) && isnan(3) ? i : NaN):2 \
       with points pt 6 ps 1.1 * PSC lw 1.2 lc rgb pal_colour(word(SC, i)) notitle, \
     keyentry with yerrorbars pt 7 ps 0.8 * PSC lc rgb "#000000" \
       title small(lab("h_{max} to h_{fail}", '$h_{\max}$ to $h_{\mathrm{fail}}$')), \
     keyentry with points pt 6 ps 1.1 * PSC lw 1.2 lc rgb "#000000" \
       title (NCENS > 0 ? small("stable on the grid (lower bound)") : "")
unset multiplot
