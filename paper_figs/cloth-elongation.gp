# 000 fig 1, 001 fig 6 (cloth-elongation): the largest elongation of the
# structural springs over time for every run (solid), and their 99th
# percentile (thin, dashed), on a log scale, with the limit eps_max = 0.1
# (black) and the claim's tolerance 0.11 (grey, dotted).  A run that
# stopped (a failed step, or an elongation beyond 10) ends where it
# stopped.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
F = D."/cloth-elongation/cloth-elongation.csv"
S = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' '".F."'")
NS = words(S)
KROWS = int((NS + 4) / 3)
FIG_W = 7; FIG_H = 3.0 + 0.145 * KROWS
load ARG1."/common.gp"
PAL_X = pal_use(S)
eval key_below(KROWS, 3)
set key nobox Left reverse samplen 2
set title "Falling cloth pushed by a ball: largest elongation of the structural springs (thin dashed: 99th percentile)"
set xlabel lab("t (s)", '$t$ (s)')
set ylabel lab("elongation ε", 'elongation $\varepsilon$')
set logscale y
set yrange [0.01:20]
set format y "%g"
set ytics (0.01, 0.03, 0.1, 0.3, 1, 3, 10)
plot for [i = 1:NS] F using (strcol(1) eq word(S, i) ? $2 : NaN):4 with lines lc rgb pal_colour(word(S, i)) \
       dt pal_dash(word(S, i)) lw PAL_LW title small(nm(word(S, i))), \
     for [i = 1:NS] F using (strcol(1) eq word(S, i) ? $2 : NaN):5 with lines lc rgb pal_colour(word(S, i)) \
       dt 2 lw 0.6 notitle, \
     0.1 with lines ls 5 title small(lab("limit ε_{max} = 0.1", 'limit $\varepsilon_{\max} = 0.1$')), \
     0.11 with lines ls 9 title small("claim's bound 0.11")
