# Convergence of every run of the convergence experiment against the
# references, at T = 1 s against the step size: one column per problem
# (single pendulum, double pendulum, bead on a circle, bead on a spinning
# hoop), one row per group of schemes by their declared order under a
# constant force (orders.csv: first order or lower, second order and
# higher), with reference slopes of each row's orders in grey.  Drawn for
# the position error (this figure) or, when a wrapper sets QTY first, the
# energy drift |E(T) - E(0)| / (m g L) (QTY = "drift",
# convergence-energy.gp), the velocity error ("vel",
# convergence-velocity.gp, grouped by the declared velocity order) or the
# multiplier error against the exact constraint force ("lambda",
# convergence-lambda.gp, grouped by the declared multiplier order; runs
# whose multipliers are not the constraint force, lambda_force = 0 in
# orders.csv, are left out and named under the figure).
#
# Runs whose curves coincide (within 5 % at every h, in every problem) are
# said to in the key ("witkin (= baumgarte)": equal to 1e-6; "≈": within
# 5 %), and the later one is drawn as symbols only on the earlier one's
# line, so that neither hides the other.
# `load` does not pass ARG1..ARG4 on: the wrapper sets FIGSRC, D,
# TERM_NAME and OUT_NAME itself.
if (!exists("QTY")) { QTY = "pos"; FIGSRC = ARG1; D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4 }
E = D."/convergence/"
F = E."convergence.csv"
O = E."orders.csv"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".E."runs.csv'")
# The declared order that groups the runs: of the position under a
# constant force (column 4 of orders.csv), of the velocity (12) or of the
# multipliers (15).
OCOL = (QTY eq "vel" ? 12 : QTY eq "lambda" ? 15 : 4)
NOTF = ""
ORD = system("awk -F, -v c=".OCOL." 'NR > 1 && $2 == \"pendulum\" { printf \"%s=%s \", $1, $c }' '".O."'")
# The multiplier figure leaves out the runs whose multipliers are not the
# constraint force (column 17, lambda_force = 0).
if (QTY eq "lambda") {
  NOTF = system("awk -F, 'NR > 1 && $2 == \"pendulum\" && $17 == 0 { printf \"%s \", $1 }' '".O."'")
  KEEP = ""
  do for [i = 1:words(RUNS)] {
    if (strstrt(" ".NOTF, " ".word(RUNS, i)." ") == 0) { KEEP = KEEP.word(RUNS, i)." " }
  }
  RUNS = KEEP
}
ord_of(r) = sum [k = 1:words(ORD)] (strstrt(word(ORD, k), r."=") == 1 && strlen(word(ORD, k)) > strlen(r) + 1 \
                                     ? real(word(ORD, k)[strlen(r) + 2:]) : 0)
G1 = ""; G2 = ""
do for [i = 1:words(RUNS)] {
  R = word(RUNS, i)
  if (ord_of(R) >= 2) { G2 = G2.R." " } else { G1 = G1.R." " }
}
NG1 = words(G1); NG2 = words(G2)
NROW = (NG1 > 0) + (NG2 > 0)
ROWMAX = (NG1 > NG2 ? NG1 : NG2)
# Height: every row's panels 1.45 in, or as tall as the longest key.
PH = (ROWMAX * 0.145 + 0.3 > 1.45 ? ROWMAX * 0.145 + 0.3 : 1.45)
RGAP = 0.12
FIG_W = 7.0
NOTE_H = (QTY eq "lambda" && words(NOTF) > 0 ? 0.3 : 0)
FIG_H = 0.5 + NROW * PH + (NROW - 1) * RGAP + 0.45 + NOTE_H
load FIGSRC."/common.gp"
PAL_X = pal_use(RUNS)
# The column drawn, and its absolute value.
if (QTY eq "vel") {
  COL = 7
  YLAB = lab("max_i |v_i - v_i^{ref}| (m/s)", '$\max_i |v_i - v_i^{\mathrm{ref}}|$ (m/s)')
  TTL = lab("Velocity error at T = 1 s against h", 'Velocity error at $T = 1$~s against $h$')
} else { if (QTY eq "lambda") {
  COL = 12
  YLAB = lab("max_r |{/Symbol l}_r - {/Symbol l}_r^{ref}| (N)", '$\max_r |\lambda_r - \lambda_r^{\mathrm{ref}}|$ (N)')
  TTL = lab("Multiplier error against the exact constraint force, last step of T = 1 s, against h", \
            'Multiplier error against the exact constraint force, last step of $T = 1$~s, against $h$')
} else { if (QTY eq "drift") {
  COL = 10
  YLAB = lab("|{/Symbol D}E| / (m g L)", '$|\Delta E| / (m g L)$')
  TTL = lab("Energy drift {/Symbol D}E = E(T) - E(0) at T = 1 s against h", \
            'Energy drift $\Delta E = E(T) - E(0)$ at $T = 1$~s against $h$')
} else {
  COL = 6
  YLAB = lab("max_i |x_i - x_i^{ref}| (m)", '$\max_i |x_i - x_i^{\mathrm{ref}}|$ (m)')
  TTL = lab("Position error at T = 1 s against h", 'Position error at $T = 1$~s against $h$')
} } }
# Coinciding runs within a group: "RUN=EARLIER=SYM ...", SYM "=" (relative
# difference below 1e-6 everywhere) or "~" (below 5 %).
coinc(col, grp) = system("awk -F, -v col=".col." -v grp='".grp."' '" . \
  "BEGIN { n = split(grp, g, \" \") } NR > 1 { v[$1 SUBSEP $2 SUBSEP $3] = $col; key[$2 SUBSEP $3] = 1 }" . \
  " END { for (i = 2; i <= n; i++) { for (j = 1; j < i; j++) { if (g[j] in root) continue; m = 0; ok = 1;" . \
  "  for (k in key) { a = v[g[i] SUBSEP k]; b = v[g[j] SUBSEP k]; an = (a == \"nan\" || a == \"\"); bn = (b == \"nan\" || b == \"\");" . \
  "   if (an != bn) { ok = 0; break } if (an) continue; a = a + 0; b = b + 0; if (a < 0) a = -a; if (b < 0) b = -b;" . \
  "   d = a - b; if (d < 0) d = -d; s = (a > b ? a : b); if (s > 0 && d / s > m) m = d / s }" . \
  "  if (ok && m < 0.05) { root[g[i]] = 1; printf \"%s=%s=%s \", g[i], g[j], (m < 1e-6 ? \"=\" : \"~\"); break } } } }' '".F."'")
C1 = coinc(COL, G1)
C2 = coinc(COL, G2)
CO = C1." ".C2
# The entry of r in CO ("" if none), the run it coincides with, its sign.
co_entry(r) = sum [k = 1:words(CO)] (strstrt(word(CO, k), r."=") == 1 ? k : 0)
co_with(r) = co_entry(r) > 0 ? word(CO, co_entry(r))[strlen(r) + 2:strlen(word(CO, co_entry(r))) - 2] : ""
co_sym(r) = co_entry(r) > 0 ? word(CO, co_entry(r))[strlen(word(CO, co_entry(r))):] : ""
co_sign(r) = co_sym(r) eq "=" ? "=" : lab("≈", '$\approx$')
entry(r) = co_entry(r) > 0 ? nm(r)." ".co_sign(r)." ".nm(co_with(r)) : nm(r)
PROBS = "pendulum double bead hoop"
TITLES = "'single pendulum' 'double pendulum' 'bead on a circle' 'spinning hoop'"
NPROB = words(PROBS)
# Reference slopes: through a point below the lowest curve of a panel at
# its largest h, a quarter of that value.
anchor(col, p, grp) = system("awk -F, -v col=".col." -v p='".p."' -v grp='".grp."' 'BEGIN { n = split(grp, g, \" \"); for (i = 1; i <= n; i++) in_g[g[i]] = 1 }" . \
  " NR > 1 && $2 == p && ($1 in in_g) && $col != \"nan\" { h = $3 + 0; y = $col + 0; if (y < 0) y = -y; if (y <= 0) next;" . \
  "  if (h > hm + 1e-12) { hm = h; ym = y } else if (h > hm - 1e-12 && y < ym) ym = y }" . \
  " END { printf \"%.17g %.17g\", hm, ym }' '".F."'")
# The range of a group's values over the problems: "MIN MAX".
yrange_of(col, grp) = system("awk -F, -v col=".col." -v grp='".grp."' 'BEGIN { n = split(grp, g, \" \"); for (i = 1; i <= n; i++) in_g[g[i]] = 1 }" . \
  " NR > 1 && ($1 in in_g) && $col != \"nan\" { y = $col + 0; if (y < 0) y = -y; if (y <= 0) next;" . \
  "  if (lo == \"\" || y < lo) lo = y; if (y > hi) hi = y } END { printf \"%.17g %.17g\", lo, hi }' '".F."'")
HMIN = real(system("awk -F, 'NR > 1 && (m == \"\" || $3 + 0 < m) { m = $3 + 0 } END { printf \"%.17g\", m }' '".F."'"))
HMAX = real(system("awk -F, 'NR > 1 && $3 + 0 > m { m = $3 + 0 } END { printf \"%.17g\", m }' '".F."'"))
set logscale xy
# (Room right of the largest h for the slopes' labels.)
set xrange [HMIN / 1.6:HMAX * 2.5]
set format x lab("10^{%L}", '$10^{%L}$')
# The x axis' labelled tics: the decades from the smallest h to the
# largest (not the one past it that the room for the slopes' labels
# reaches, whose label would run into the next panel's first).
XT0 = ceil(log10(HMIN / 1.6)); XT1 = floor(log10(HMAX * 1.001))
XTICS = ""
do for [e = XT0:XT1] { XTICS = XTICS.(e > XT0 ? ", " : "").sprintf("'%s' %.17g", sprintf(TEX ? '$10^{%d}$' : "10^{%d}", e), 10.0 ** e) }
XTICS0 = ""
do for [e = XT0:XT1] { XTICS0 = XTICS0.(e > XT0 ? ", " : "").sprintf("'' %.17g", 10.0 ** e) }
set format y lab("10^{%L}", '$10^{%L}$')
set mxtics 10
# Panel geometry (screen fractions): four panels sharing each row's y
# range, then the row's key in a panel of its own, as tall as the row (a
# key beside a plot is cut to the plot's height).
LM = 0.09; PW = 0.148; GAP = 0.014
KEYX = LM + NPROB * PW + (NPROB - 1) * GAP + 0.012
TOP = 1 - 0.5 / FIG_H
set multiplot title TTL
row = 0
do for [g = 1:2] {
  GRP = (g == 1 ? G1 : G2)
  if (words(GRP) > 0) {
    row = row + 1
    RTOP = TOP - (row - 1) * (PH + RGAP) / FIG_H
    RBOT = RTOP - PH / FIG_H
    YR = yrange_of(COL, GRP)
    YLO = real(word(YR, 1)) / 3; YHI = real(word(YR, 2)) * 3
    DEC = log10(YHI / YLO)
    set yrange [YLO:YHI]
    set ytics 10 ** (DEC > 10 ? 4 : DEC > 5 ? 2 : 1)
    SLOPES = (g == 1 ? "1" : QTY eq "lambda" ? "2 3" : "2 4")
    GNAME = (g == 1 ? lab("order ≤ 1", 'order $\le 1$') : lab("order ≥ 2", 'order $\ge 2$'))
    set key off
    do for [p = 1:NPROB] {
      P = word(PROBS, p)
      set lmargin at screen LM + (p - 1) * (PW + GAP)
      set rmargin at screen LM + (p - 1) * (PW + GAP) + PW
      set tmargin at screen RTOP
      set bmargin at screen RBOT
      set format y (p == 1 ? lab("10^{%L}", '$10^{%L}$') : "")
      set title (row == 1 ? word(TITLES, p) : "") offset 0, -0.5
      set xlabel (row == NROW ? lab("h (s)", '$h$ (s)') : "") offset 0, 0.4
      eval "set xtics (".(row == NROW ? XTICS : XTICS0).")"
      set ylabel (p == 1 ? YLAB : "") offset 1, 0
      A = anchor(COL, P, GRP)
      AH = real(word(A, 1)); AY = real(word(A, 2)) / 3
      unset label
      # Each slope's label sits off its line on the side away from the
      # curves.  The steepest line's label: below and right of the anchor
      # (every curve lies above the anchor there, and the lines rise to
      # the right of it).  A shallower line of the same row meets the
      # steeper curves at small h, so its label sits above its left end,
      # at the panel's smallest h, where those curves are far below.
      do for [s = 1:words(SLOPES)] {
        OS = real(word(SLOPES, s))
        if (s < words(SLOPES)) {
          XL = HMIN * 1.15
          set label s sprintf("%d", OS) at XL, AY * (XL / AH) ** OS left offset 0, 0.7 \
            textcolor rgb "#555555" font fsz(8)
        } else {
          set label s sprintf("%d", OS) at AH, AY left offset 0.3, -0.8 \
            textcolor rgb "#555555" font fsz(8)
        }
      }
      plot for [i = 1:words(GRP)] F using (strcol(2) eq P && strcol(1) eq word(GRP, i) && co_entry(word(GRP, i)) == 0 ? $3 : NaN):(abs(column(COL))) \
             with linespoints lc rgb pal_colour(word(GRP, i)) dt pal_dash(word(GRP, i)) lw PAL_LW \
             pt pal_point(word(GRP, i)) ps 0.7 * PSC notitle, \
           for [i = 1:words(GRP)] F using (strcol(2) eq P && strcol(1) eq word(GRP, i) && co_entry(word(GRP, i)) > 0 ? $3 : NaN):(abs(column(COL))) \
             with points lc rgb pal_colour(word(GRP, i)) pt pal_point(word(GRP, i)) ps 1.1 * PSC notitle, \
           for [s = 1:words(SLOPES)] AY * (x / AH) ** real(word(SLOPES, s)) with lines ls 4 notitle
      unset label
    }
    # The row's key.
    set lmargin at screen KEYX
    set rmargin at screen 0.995
    set tmargin at screen RTOP
    set bmargin at screen RBOT
    unset title; unset xlabel; unset ylabel; unset border; unset tics; unset grid
    unset logscale
    set xrange [0:1]; set yrange [0:1]
    set label 1 small(GNAME) at graph 0, graph 1 left offset 0.5, -0.2
    if (row == NROW && NOTE_H > 0) {
      NOTL = ""
      do for [j = 1:words(NOTF)] { NOTL = NOTL.(j > 1 ? ", " : "").nm(word(NOTF, j)) }
      set label 99 small("Not drawn (multipliers not the constraint force): ".NOTL) \
        at screen 0.02, screen 0.12 / FIG_H left
    }
    set key at graph 0, graph 1 - 0.18 / PH left top vertical Left reverse maxrows 99 nobox samplen 1.6
    plot for [i = 1:words(GRP)] NaN with linespoints lc rgb pal_colour(word(GRP, i)) dt pal_dash(word(GRP, i)) lw PAL_LW \
           pt pal_point(word(GRP, i)) ps 0.7 * PSC title (co_entry(word(GRP, i)) == 0 ? small(entry(word(GRP, i))) : ""), \
         for [i = 1:words(GRP)] NaN with points lc rgb pal_colour(word(GRP, i)) pt pal_point(word(GRP, i)) ps 1.1 * PSC \
           title (co_entry(word(GRP, i)) > 0 ? small(entry(word(GRP, i))) : ""), \
         NaN with lines ls 4 title small(g == 1 ? "slope 1" : QTY eq "lambda" ? "slopes 2, 3" : "slopes 2, 4")
    unset label 1
    unset label 99
    set border; set tics; set grid
    set logscale xy
    set xrange [HMIN / 1.6:HMAX * 2.5]
    set mxtics 10
  }
}
unset multiplot
