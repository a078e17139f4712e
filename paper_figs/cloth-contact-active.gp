# cloth-contact: contacts and releases over time.  Top: cloth-cloth
# contacts active after each step (node-triangle and edge-edge together),
# per run.  Middle: node-ball pairs within r + delta.  Bottom: cloth-cloth
# contacts released over each out_every steps (log scale; none: no point).
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
F = D."/cloth-contact/cloth-contact.csv"
S = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' '".F."'")
NS = words(S)
FIG_W = 7; FIG_H = 6.2
load ARG1."/common.gp"
PAL_X = pal_use(S)
set multiplot layout 3, 1 title "Cloth against balls and itself: contacts and releases"
set key top left nobox Left reverse samplen 2 font KEY_SMALL
set format x ""
set ylabel "cloth-cloth contacts"
plot for [i = 1:NS] F using (strcol(1) eq word(S, i) ? $2 : NaN):9 with lines lc rgb pal_colour(word(S, i)) \
       dt pal_dash(word(S, i)) lw PAL_LW title small(nm(word(S, i)))
unset key
set ylabel "node-ball contacts"
plot for [i = 1:NS] F using (strcol(1) eq word(S, i) ? $2 : NaN):12 with lines lc rgb pal_colour(word(S, i)) \
       dt pal_dash(word(S, i)) lw PAL_LW notitle
set format x "%g"
set xlabel lab("t (s)", '$t$ (s)')
set ylabel "releases per interval"
set logscale y
set format y lab("10^{%L}", '$10^{%L}$')
SR = system("awk -F, 'NR > 1 && $14 > 0 && !seen[$1]++ { printf \"%s \", $1 }' '".F."'")
if (words(SR) > 0) {
  plot for [i = 1:words(SR)] F using (strcol(1) eq word(SR, i) && $14 > 0 ? $2 : NaN):14 with points \
         lc rgb pal_colour(word(SR, i)) pt 7 ps 0.4 * PSC notitle
} else {
  set label 3 "no release in any run" at graph 0.5, graph 0.5 center
  unset logscale y
  plot [0:1] NaN notitle
}
unset multiplot
