# 000 fig 1, 001 fig 6 (cloth-elongation): the largest elongation of the
# structural springs over time for every run (solid), and their 99th
# percentile (thin, dashed), on a log scale, with the limit eps_max = 0.1
# (black, under the curves) and the claim's tolerance 0.11 (dotted); the
# implicit run (the paper's) is drawn last and thick, on top of the limit.  A run that
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
# The y axis reaches just above the largest elongation drawn (at least
# 0.3, at most 20: a run beyond that stopped).
YMAX = real(system("awk -F, 'NR > 1 && $4 != \"nan\" && $4 + 0 > m { m = $4 + 0 } END { print m + 0 }' '".F."'"))
YTOP = YMAX * 1.5 < 0.3 ? 0.3 : YMAX * 1.5 > 20 ? 20 : YMAX * 1.5
set yrange [0.01:YTOP]
set format y "%g"
set ytics (0.01, 0.03, 0.1, 0.3, 1, 3, 10)
# The limit and the claim's bound first, under the curves; then the 99th
# percentiles; then the largest elongations, the paper's scheme (implicit)
# last and thicker, on top: it is the curve that should lie on the limit.
IMP = in_list("implicit", S) ? "implicit" : ""
plot 0.1 with lines lc rgb "#000000" lw 0.8 title small(lab("limit ε_{max} = 0.1", 'limit $\varepsilon_{\max} = 0.1$')), \
     0.11 with lines ls 9 title small("claim's bound 0.11"), \
     for [i = 1:NS] F using (strcol(1) eq word(S, i) ? $2 : NaN):5 with lines lc rgb pal_colour(word(S, i)) \
       dt 2 lw 0.6 notitle, \
     for [i = 1:NS] F using (strcol(1) eq word(S, i) && word(S, i) ne IMP ? $2 : NaN):4 with lines \
       lc rgb pal_colour(word(S, i)) dt pal_dash(word(S, i)) lw PAL_LW \
       title (word(S, i) eq IMP ? "" : small(nm(word(S, i)))), \
     F using (strcol(1) eq IMP ? $2 : NaN):4 with lines lc rgb pal_colour(IMP) lw 2.5 * PAL_LW \
       title (IMP eq "" ? "" : small(nm(IMP)))
