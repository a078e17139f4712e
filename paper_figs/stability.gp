# Largest stable step size of every run of the stability experiment
# (stability.c's rules: 10 s from horizontal, e_n <= 10 % of the length,
# no energy gain above 10 % of the releasable energy, no failed step), on
# the single pendulum (circle) and the 10-link arm (square), in the run's
# colour.  Each bar runs from the largest stable grid point h_max to the
# first unstable one h_fail: the limit lies inside it.  Censored points:
# stable over the whole grid (h_fail nan) is an open symbol with an arrow
# to the right, h_max a lower bound; unstable down to the grid's bottom
# (h_max nan) is an open symbol at h_fail with an arrow to the left.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
F = D."/stability/stability.csv"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".D."/stability/runs.csv'")
NR = words(RUNS)
# How many points are censored either way, for the key.
NCENS = int(system("awk -F, 'NR > 1 { n += ($4 == \"nan\") + ($6 == \"nan\") } END { print n + 0 }' '".F."'"))
NUNST = int(system("awk -F, 'NR > 1 { n += ($3 == \"nan\") + ($5 == \"nan\") } END { print n + 0 }' '".F."'"))
NKEY = 2 + (NCENS > 0) + (NUNST > 0)
FIG_W = 3.4; FIG_H = 1.15 + 0.2 * NR + 0.145 * NKEY
load ARG1."/common.gp"
PAL_X = pal_use(RUNS)
# The grid's bottom, from the metadata's note ("unstable down to X").
HBOT = real(system("sed -n 's/.*unstable down to \\([0-9.e+-]*\\).*/\\1/p' '".D."/stability/stability.meta.json' | head -n 1"))
HBOT = HBOT > 0 ? HBOT : 1.2e-4
set title "Largest stable step size"
set logscale x
set format x lab("10^{%L}", '$10^{%L}$')
set xlabel lab("h (s)", '$h$ (s)')
set xrange [HBOT / 1.5:1.2]
set yrange [NR + 0.6:0.4]
set ytics () scale 0
do for [i = 1:NR] { set ytics add (nm(word(RUNS, i)) i) }
set grid xtics noytics
eval key_below(NKEY, 1)
set key nobox Left reverse samplen 1.5
row(s) = sum [i = 1:NR] (word(RUNS, i) eq s ? i : 0)
# A column that holds "nan" (NaN propagates through any arithmetic test).
isnan(c) = strcol(c) eq "nan"
# Columns: 3 pendulum_h_max, 4 pendulum_h_fail, 5 chain10_h_max, 6 chain10_h_fail.
# "nan" is read as a number here, not as missing, so that such rows stay.
set datafile missing "__none__"
OFF = 0.17
plot for [p = 0:1] for [i = 1:NR] F using (strcol(1) eq word(RUNS, i) && !isnan(3 + 2 * p) && !isnan(4 + 2 * p) ? column(3 + 2 * p) : NaN):(row(strcol(1)) + (p ? OFF : -OFF)) \
       :(column(3 + 2 * p)):(isnan(4 + 2 * p) ? column(3 + 2 * p) : column(4 + 2 * p)) \
       with xerrorbars lc rgb pal_colour(word(RUNS, i)) lw 1.2 pt (p ? 5 : 7) ps 0.8 * PSC notitle, \
     for [p = 0:1] for [i = 1:NR] F using (strcol(1) eq word(RUNS, i) && !isnan(3 + 2 * p) && isnan(4 + 2 * p) ? column(3 + 2 * p) : NaN) \
       :(row(strcol(1)) + (p ? OFF : -OFF)):(column(3 + 2 * p) * 0.9):(0) \
       with vectors head filled size screen 0.012, 25 lc rgb pal_colour(word(RUNS, i)) lw 1.2 notitle, \
     for [p = 0:1] for [i = 1:NR] F using (strcol(1) eq word(RUNS, i) && isnan(3 + 2 * p) ? column(4 + 2 * p) : NaN) \
       :(row(strcol(1)) + (p ? OFF : -OFF)):(-column(4 + 2 * p) * 0.5):(0) \
       with vectors head filled size screen 0.012, 25 lc rgb pal_colour(word(RUNS, i)) lw 1.2 notitle, \
     for [p = 0:1] for [i = 1:NR] F using (strcol(1) eq word(RUNS, i) && (isnan(3 + 2 * p) || isnan(4 + 2 * p)) \
       ? (isnan(3 + 2 * p) ? column(4 + 2 * p) : column(3 + 2 * p)) : NaN):(row(strcol(1)) + (p ? OFF : -OFF)) \
       with points pt (p ? 4 : 6) ps 1.1 * PSC lw 1.2 lc rgb pal_colour(word(RUNS, i)) notitle, \
     keyentry with xerrorbars pt 7 ps 0.8 * PSC lc rgb "#000000" \
       title small(lab("single pendulum: h_{max} to h_{fail}", 'single pendulum: $h_{\max}$ to $h_{\mathrm{fail}}$')), \
     keyentry with xerrorbars pt 5 ps 0.8 * PSC lc rgb "#000000" \
       title small(lab("10-link arm: h_{max} to h_{fail}", '10-link arm: $h_{\max}$ to $h_{\mathrm{fail}}$')), \
     keyentry with points pt 6 ps 1.1 * PSC lw 1.2 lc rgb "#000000" \
       title (NCENS > 0 ? small("stable over the whole grid (lower bound)") : ""), \
     keyentry with points pt 4 ps 1.1 * PSC lw 1.2 lc rgb "#000000" \
       title (NUNST > 0 ? small(sprintf("unstable down to %g s (upper bound)", HBOT)) : "")
