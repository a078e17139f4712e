# Return to the constraint manifold from a state violating Phi and
# Phi-dot (implicit.bad_initial, 001 sec. III): e_n / e_0 against time,
# every run of bad-initial, in three panels by what the run did
# (bad-initial-summary.csv): settled (e_n stayed below 1e-2 e_0 from some
# step on), stayed bounded without settling, or grew (e_n above 1e3 e_0
# at the end, or a failed step, marked with a cross).  Runs whose curves
# coincide (within 1 % at every step) are said to in the key, the later
# one drawn dotted over the earlier.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = D."/bad-initial/"
F = E."bad-initial.csv"
S = E."bad-initial-summary.csv"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".E."runs.csv'")
# The group of each run: 1 settled, 2 bounded, 3 grew.
grp_of(want) = system("awk -F, -v want=".want." 'NR > 1 { g = ($2 + 0 > 0 && ($7 + 0) / ($2 + 0) > 1e3) || $10 != 0 ? 3 : $3 >= 0 ? 1 : 2;" . \
  " if (g == want) printf \"%s \", $1 }' '".S."'")
G1 = grp_of(1); G2 = grp_of(2); G3 = grp_of(3)
NMAX = words(G1) > words(G2) ? words(G1) : words(G2)
NMAX = words(G3) > NMAX ? words(G3) : NMAX
FIG_W = 7.0; FIG_H = 2.75 + 0.145 * NMAX + 0.15
load ARG1."/common.gp"
PAL_X = pal_use(RUNS)
# Coinciding runs within a group: "RUN=EARLIER=SYM ...".
coinc(grp) = system("awk -F, -v grp='".grp."' 'BEGIN { n = split(grp, g, \" \") }" . \
  " NR > 1 { v[$1 SUBSEP $2] = $5; st[$2] = 1 }" . \
  " END { for (i = 2; i <= n; i++) { for (j = 1; j < i; j++) { if (g[j] in root) continue; m = 0; ok = 1;" . \
  "  for (k in st) { a = v[g[i] SUBSEP k]; b = v[g[j] SUBSEP k]; if ((a == \"\") != (b == \"\")) { ok = 0; break }" . \
  "   if (a == \"\") continue; a = a + 0; b = b + 0; d = a - b; if (d < 0) d = -d; s = (a < 0 ? -a : a);" . \
  "   if (b > s) s = b; if (-b > s) s = -b; if (s > 0 && d / s > m) m = d / s }" . \
  "  if (ok && m < 1e-2) { root[g[i]] = 1; printf \"%s=%s=%s \", g[i], g[j], (m < 1e-6 ? \"=\" : \"~\"); break } } } }' '".F."'")
CO = coinc(G1)." ".coinc(G2)." ".coinc(G3)
co_entry(r) = sum [k = 1:words(CO)] (strstrt(word(CO, k), r."=") == 1 ? k : 0)
co_with(r) = co_entry(r) > 0 ? word(CO, co_entry(r))[strlen(r) + 2:strlen(word(CO, co_entry(r))) - 2] : ""
co_sym(r) = co_entry(r) > 0 ? word(CO, co_entry(r))[strlen(word(CO, co_entry(r))):] : ""
dash_of(r) = co_entry(r) > 0 ? 3 : pal_dash(r)
entry(r) = co_entry(r) > 0 ? nm(r)." ".(co_sym(r) eq "=" ? "=" : lab("≈", '$\approx$'))." ".nm(co_with(r)) : nm(r)
# A failed step: the run's status (summary column 10) and its last row.
FAILED = system("awk -F, 'NR > 1 && $10 != 0 { printf \"%s \", $1 }' '".S."'")
# The last row of each run, for the crosses.
TMPF = system("mktemp")
dummy = system("awk -F, 'NR > 1 { last[$1] = $0 } END { for (r in last) print last[r] }' '".F."' > '".TMPF."'")
# The y ranges: the first two panels from the smallest e_n / e_0 of their
# runs up, the third up to the largest.
yext(grp, mx) = real(system("awk -F, -v grp='".grp."' -v mx=".mx." 'BEGIN { n = split(grp, g, \" \"); for (i = 1; i <= n; i++) in_g[g[i]] = 1; r = mx ? 1 : 1 }" . \
  " NR > 1 && ($1 in in_g) && $5 + 0 > 0 { y = $5 + 0; if (mx ? y > r : y < r) r = y } END { printf \"%.17g\", r }' '".F."'"))
YLO1 = words(G1) > 0 ? yext(G1, 0) / 3 : 1e-3
YHI1 = words(G1) > 0 ? yext(G1, 1) * 3 : 1e3
YLO2 = words(G2) > 0 ? yext(G2, 0) / 3 : 1e-3
YHI2 = words(G2) > 0 ? yext(G2, 1) * 3 : 1e3
YHI3 = words(G3) > 0 ? yext(G3, 1) * 1e5 : 1e3
H = system("awk -F, 'NR == 3 { printf \"%g\", $3 }' '".F."'")
set multiplot title lab("2-link arm started off the manifold, h = ".H." s: e_n / e_0", \
  '2-link arm started off the manifold, $h = '.H.'$~s: $e_n / e_0$')
set logscale y
set format y lab("10^{%L}", '$10^{%L}$')
set xlabel lab("t (s)", '$t$ (s)')
set xrange [0:*]
set autoscale xfix
# The gap holds the next panel's y labels (10^{120} is wide).
LM = 0.075; PW = 0.25; GAP = 0.075
PTOP = 1 - 0.5 / FIG_H
PBOT = (0.145 * NMAX + 0.15 + 0.5) / FIG_H
TITLES = "'settles below 10^{-2} e_0' 'stays bounded, does not settle' 'grows without bound'"
TITLES_TEX = "'settles below $10^{-2} e_0$' 'stays bounded, does not settle' 'grows without bound'"
do for [p = 1:3] {
  GRP = (p == 1 ? G1 : p == 2 ? G2 : G3)
  set lmargin at screen LM + (p - 1) * (PW + GAP)
  set rmargin at screen LM + (p - 1) * (PW + GAP) + PW
  set tmargin at screen PTOP
  set bmargin at screen PBOT
  set title (TEX ? word(TITLES_TEX, p) : word(TITLES, p)) offset 0, -0.5
  set ylabel (p == 1 ? lab("e_n / e_0", '$e_n / e_0$') : "") offset 1, 0
  if (p < 3) {
    YLO = (p == 1 ? YLO1 : YLO2); YHI = (p == 1 ? YHI1 : YHI2)
    YLO = (YLO < 3e-3 ? YLO : 3e-3)
    set yrange [YLO:YHI]; set ytics 10 ** (log10(YHI / YLO) > 8 ? 4 : 1)
  } else {
    set yrange [1e-3:YHI3]; set ytics ()
    # A tick every 40 decades for errors that ran to 1e100 and beyond
    # (the divergence rule off), every decade or four for a run the rule
    # ended near 1e3 e_0.
    DK = (log10(YHI3) > 40 ? 40 : log10(YHI3) > 8 ? 4 : 1)
    do for [k = 0:int(log10(YHI3) / DK)] { set ytics add (lab(sprintf("10^{%d}", DK * k), sprintf('$10^{%d}$', DK * k)) 10.0 ** (DK * k)) }
  }
  set key at screen LM + (p - 1) * (PW + GAP), screen PBOT - 0.45 / FIG_H left top vertical Left reverse \
    maxrows 99 nobox samplen 1.8
  NF = 0
  do for [i = 1:words(GRP)] { NF = NF + in_list(word(GRP, i), FAILED) }
  if (words(GRP) == 0) {
    set label 1 "(none)" at graph 0.5, graph 0.5 center
    plot 1e-2 with lines ls 4 title small(lab("10^{-2}", '$10^{-2}$'))
    unset label 1
  } else {
  plot for [i = 1:words(GRP)] F using (strcol(1) eq word(GRP, i) ? $3 : NaN):5 with lines \
         lc rgb pal_colour(word(GRP, i)) dt dash_of(word(GRP, i)) \
         lw (co_entry(word(GRP, i)) > 0 ? 2.2 : PAL_LW) title small(entry(word(GRP, i))), \
       TMPF using (in_list(strcol(1), GRP) && in_list(strcol(1), FAILED) ? $3 : NaN):5 \
         with points pt 2 ps 1.6 * PSC lw 2 lc rgb "#000000" \
         title (NF > 0 ? small("diverged or a step failed (the run stops)") : ""), \
       1e-2 with lines ls 4 title small(lab("10^{-2} (settled)", '$10^{-2}$ (settled)'))
  }
}
unset multiplot
dummy = system("rm -f '".TMPF."'")
