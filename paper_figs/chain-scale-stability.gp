# The stability map of a long hanging chain (chain-scale-stability):
# for every run, the largest stable step size h_max against the number of
# links N (left), and h_max omega_N, omega_N = sqrt(N g / l), against N
# (right), where a boundary h_max = c / omega_N is a flat line at c.
# The grey lines are h omega_N = 1 and sqrt(2): with the fastest
# transverse mode of the tensioned chain at 2 omega_N, the limits of
# symplectic Euler (h omega < 2) and of RK4 on the imaginary axis
# (h omega < 2 sqrt(2)).  A run stable on the whole grid (the fully
# implicit step solved by full Newton, reference/chain_be.c) is an open
# symbol with an arrow up: a lower bound.  Runs equal to an earlier one at
# every N are drawn as symbols only and named with it in the key.  Runs
# unstable down to the grid's bottom have no points; the key names them.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
F = D."/chain-scale-stability/chain-scale-map.csv"
S = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' '".F."'")
NS = words(S)
# Runs unstable at every grid point, at every N: h_max nan throughout.
NONE = system("awk -F, 'NR > 1 { n[$1]++; if ($3 == \"nan\") u[$1]++ } END { for (r in n) if (u[r] == n[r]) printf \"%s \", r }' '".F."' | tr ' ' '\\n' | sort | tr '\\n' ' '")
NNONE = words(NONE)
# Runs stable on the whole grid at some N (h_fail nan).
NCENS = int(system("awk -F, 'NR > 1 && $4 == \"nan\" && $3 != \"nan\" { n++ } END { print n + 0 }' '".F."'"))
NSHOWN = NS - NNONE
KROWS = int((NSHOWN + 2 + (NCENS > 0) + 2) / 3)
FIG_W = 7; FIG_H = 2.55 + 0.145 * KROWS + 0.15 * ((NNONE > 0) + (NCENS > 0))
load ARG1."/common.gp"
CO = coinc(F, "$2", 3, S, 1e-6)
PAL_X = pal_use(S)
isnan(c) = strcol(c) eq "nan"
set datafile missing "__none__"
REF = "full-newton-ref"
colour(r) = r eq REF ? "#000000" : pal_colour(r)
shown(r) = !in_list(r, NONE)
drawn_line(r) = shown(r) && co_entry(r) == 0
LBL(r) = co_label(r)
# Each run's key entry once, in the left panel: a line (or symbols only for a coinciding run).
set multiplot
set logscale x 2
# 640 is a tic without a label: its label would run into 1000's.
set xtics (5, 10, 20, 40, 80, 160, 320, "" 640, 1000)
set xlabel lab("links N", 'links $N$')
set grid xtics ytics
# The key below both panels.
eval key_below(KROWS, 3)
set key nobox Left reverse samplen 2
KEYB = (KEY_H(KROWS) + 0.48 + 0.15 * ((NNONE > 0) + (NCENS > 0))) / FIG_H
# The key's top row sits KEYB - 0.46 in above the bottom; runs without points are named below the key.
set key at screen 0.5, screen (KEY_H(KROWS) + 0.02 + 0.15 * ((NNONE > 0) + (NCENS > 0))) / FIG_H
NOTES = (NCENS > 0) + (NNONE > 0)
if (NCENS > 0) set label 1 small("Open symbol with an arrow: stable over the whole grid (to 0.5 s), a lower bound.") \
  at screen 0.5, screen (0.06 + 0.15 * (NNONE > 0)) / FIG_H center font KEY_SMALL
if (NNONE > 0) set label 2 small("No points: unstable down to 1.2e-4 s at every N: ".nm(NONE)) \
  at screen 0.5, screen 0.06 / FIG_H center font KEY_SMALL
set bmargin at screen KEYB
set tmargin at screen 1 - 0.3 / FIG_H
set lmargin at screen 0.08
set rmargin at screen 0.47
set title "Hanging chain, kicked sideways: largest stable step size"
set logscale y
set format y lab("10^{%L}", '$10^{%L}$')
set ylabel lab("h_{max} (s)", '$h_{\max}$ (s)')
set autoscale fix
set offsets graph 0.03, graph 0.03, graph 0.02, graph 0.06
plot for [i = 1:NS] F using (strcol(1) eq word(S, i) && drawn_line(word(S, i)) && !isnan(3) && !isnan(4) ? $2 : NaN):3 \
       with linespoints lc rgb colour(word(S, i)) dt pal_dash(word(S, i)) lw PAL_LW pt pal_point(word(S, i)) ps 0.9 * PSC \
       title (drawn_line(word(S, i)) && word(S, i) ne REF ? small(LBL(word(S, i))) : ""), \
     for [i = 1:NS] F using (strcol(1) eq word(S, i) && shown(word(S, i)) && co_entry(word(S, i)) > 0 && !isnan(3) ? $2 : NaN):3 \
       with points lc rgb colour(word(S, i)) pt pal_point(word(S, i)) ps 1.5 * PSC lw 1.2 \
       title (shown(word(S, i)) && co_entry(word(S, i)) > 0 ? small(LBL(word(S, i))) : ""), \
     for [i = 1:NS] F using (strcol(1) eq word(S, i) && !isnan(3) && isnan(4) ? $2 : NaN):3 \
       with points lc rgb colour(word(S, i)) pt 6 ps 1.2 * PSC lw 1.2 notitle, \
     for [i = 1:NS] F using (strcol(1) eq word(S, i) && !isnan(3) && isnan(4) ? $2 : NaN):3:(0):(column(3) * 0.6) \
       with vectors head filled size screen 0.008, 25 lc rgb colour(word(S, i)) lw 1.2 notitle, \
     F using (strcol(1) eq word(S, 1) ? $2 : NaN):(1 / $5) with lines ls 4 \
       title small(lab("h ω_N = 1", '$h\,\omega_N = 1$')), \
     F using (strcol(1) eq word(S, 1) ? $2 : NaN):(sqrt(2) / $5) with lines ls 9 \
       title small(lab("h ω_N = √2", '$h\,\omega_N = \sqrt{2}$')), \
     keyentry with points pt 6 ps 1.2 * PSC lw 1.2 lc rgb "#000000" \
       title (NCENS > 0 ? small("full Newton (reference)") : "")
unset key
unset label 1
unset label 2
set lmargin at screen 0.58
set rmargin at screen 0.98
set title lab("The same, times ω_N = (N g / l)^{1/2}", 'The same, times $\omega_N = (N g / l)^{1/2}$')
unset logscale y
set format y "%g"
set ylabel lab("h_{max} ω_N", '$h_{\max}\,\omega_N$')
set yrange [0:*]
set offsets graph 0.03, graph 0.03, graph 0.1, 0
plot for [i = 1:NS] F using (strcol(1) eq word(S, i) && drawn_line(word(S, i)) && !isnan(3) && !isnan(4) ? $2 : NaN):6 \
       with linespoints lc rgb colour(word(S, i)) dt pal_dash(word(S, i)) lw PAL_LW pt pal_point(word(S, i)) ps 0.9 * PSC, \
     for [i = 1:NS] F using (strcol(1) eq word(S, i) && shown(word(S, i)) && co_entry(word(S, i)) > 0 && !isnan(3) && !isnan(4) ? $2 : NaN):6 \
       with points lc rgb colour(word(S, i)) pt pal_point(word(S, i)) ps 1.5 * PSC lw 1.2, \
     1 with lines ls 4, sqrt(2) with lines ls 9
unset multiplot
