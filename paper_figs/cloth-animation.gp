# cloth-elongation at animation steps (anim_h: 1/60 and 1/120 s by
# default): the largest elongation of the structural springs over time
# for every run, one panel per step, log scale, with the limit
# eps_max = 0.1 (black), the claim's tolerance 0.11 (dotted) and the
# stability bound on the strain (strain_bound, 1 by default; grey,
# dashed); backward-euler, projected-newton and admm, the runs with their
# springs implicit, are drawn thicker.  A run that stopped (a failed step, a step not taken, an
# elongation beyond 10) ends where it stopped.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
F = D."/cloth-elongation/cloth-animation-series.csv"
S = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' '".F."'")
HS = system("awk -F, 'NR > 1 && !seen[$2]++ { printf \"%s \", $2 }' '".F."'")
BOUND = real(system("grep -o '\"strain_bound\": [0-9][0-9.eE+-]*' '".D."/cloth-elongation/cloth-animation.meta.json' " . \
  "| head -1 | sed 's/.*: //'"))
NS = words(S)
NH = words(HS)
KROWS = int((NS + 3 + 3) / 4)
FIG_W = 7; FIG_H = 3.0 + 0.145 * KROWS
load ARG1."/common.gp"
PAL_X = pal_use(S)
lw_of(n) = n eq "backward-euler" || n eq "projected-newton" || n eq "admm" ? 2.5 * PAL_LW : PAL_LW
hname(h) = abs(1 / h - floor(1 / h + 0.5)) < 1e-6 * (1 / h) ? sprintf("1/%d", floor(1 / h + 0.5)) : sprintf("%g", h)
eval key_below(KROWS, 4)
set key nobox Left reverse samplen 2
set multiplot layout 1, NH title "Falling cloth pushed by a ball at animation steps: largest elongation of the structural springs"
set xlabel lab("t (s)", '$t$ (s)')
set logscale y
set yrange [0.01:20]
set format y "%g"
set ytics (0.01, 0.03, 0.1, 0.3, 1, 3, 10)
do for [k = 1:NH] {
  H = word(HS, k)
  set title lab("h = ".hname(real(H))." s", '$h = '.hname(real(H)).'$ s')
  if (k == 1) {
    set ylabel lab("elongation ε", 'elongation $\varepsilon$')
    plot 0.1 with lines ls 5 title small(lab("limit ε_{max} = 0.1", 'limit $\varepsilon_{\max} = 0.1$')), \
         0.11 with lines ls 9 title small("claim's bound 0.11"), \
         BOUND with lines ls 4 title small("stability bound"), \
         for [i = 1:NS] F using (strcol(1) eq word(S, i) && strcol(2) eq H ? $3 : NaN):5 with lines \
           lc rgb pal_colour(word(S, i)) dt pal_dash(word(S, i)) lw lw_of(word(S, i)) title small(nm(word(S, i)))
  } else {
    unset ylabel
    unset key
    plot 0.1 with lines ls 5 notitle, 0.11 with lines ls 9 notitle, BOUND with lines ls 4 notitle, \
         for [i = 1:NS] F using (strcol(1) eq word(S, i) && strcol(2) eq H ? $3 : NaN):5 with lines \
           lc rgb pal_colour(word(S, i)) dt pal_dash(word(S, i)) lw lw_of(word(S, i)) notitle
  }
}
unset multiplot
