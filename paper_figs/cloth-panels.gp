# cloth-panels.gp: the panels of the cloth snapshot figures
# (cloth-snapshots.gp, cloth-contact-snapshots.gp): one panel per run and
# snapshot time, each the scene drawn by cloth-render.awk as shaded
# polygons in painter's order, all at one scale, with a legend (a colour
# bar of the strain, or the contact colours) under them.
#
# The calling script sets FIGSRC, D, TERM_NAME, OUT_NAME, then
#   RUNS, NR, NS   the runs (one word each) and the number of snapshots;
#   tsnap(k)       the time of snapshot k (0 .. NS - 1);
#   has(r, k)      whether run r has a snapshot k (it may have stopped): 1 or 0;
#   polys(r, k)    the gnuplot data source of its polygons (cloth-render.awk
#                  what=polys, sorted: a "< ..." pipe or a file);
#   offv(r, k, b)  "" or the source of the notes for its balls (or its
#                  cloth) outside the box b ("X0 X1 Y0 Y1", VIEWBOX of
#                  cloth-box.gp):
#                  cloth-render.awk what=off (when not "", it holds at
#                  least one note: gnuplot 5.4 can crash on a `with
#                  labels` plot none of whose points is defined);
#   BOX            the projected extent "X0 X1 Y0 Y1" (what=bbox);
#   TITLE, LEGEND  "strain" (a colour bar 0 .. 0.3) or "flag" (three
#                  swatches: free, cloth-cloth contact, at a ball).
# Layout.  The figure is 7 in wide; every panel has the box's aspect (plus
# a margin of 3 %, cloth-box.gp), so the cloth fills it.  The panels go in rows of runs
# and columns of times, or (when that lets the panels be larger, or about
# as large in less height) in rows of times and columns of runs; the height
# is at most 8.6 in, and the panels shrink (centred) to fit it.
load FIGSRC."/cloth-box.gp"
ASP = (YB1 - YB0) / (XB1 - XB0)
FIG_W = 7.0
LM = 0.22; RM = 0.04; TM = 0.46; BM = 0.66; GX = 0.06; GY = 0.06; HMAX = 8.6
AW = FIG_W - LM - RM
# Panel width with R rows and C columns, and whether the height cap bound it.
pw_free(R, C) = (AW - (C - 1) * GX) / C
pw_cap(R, C) = (HMAX - TM - BM - (R - 1) * GY) / (R * ASP)
pw_of(R, C) = pw_free(R, C) < pw_cap(R, C) ? pw_free(R, C) : pw_cap(R, C)
fig_h(R, C) = TM + BM + R * pw_of(R, C) * ASP + (R - 1) * GY
# T = 1: rows of times, columns of runs: when that gives larger panels (by
# more than 20 %), or panels about as large in a lower figure.
PWA = pw_of(NR, NS); PWB = pw_of(NS, NR)
T = PWB > 1.2 * PWA ? 1 : PWA > 1.2 * PWB ? 0 : fig_h(NS, NR) < fig_h(NR, NS) ? 1 : 0
ROWS = T ? NS : NR; COLS = T ? NR : NS
# The row labels, rotated, take LM.  Run names too long for a panel's
# height (about 0.068 in a character at 8 pt) are written across instead,
# in a left margin as wide as the longest.
NAMEMAX = 0
do for [i = 1:NR] { NAMEMAX = strlen(word(RUNS, i)) > NAMEMAX ? strlen(word(RUNS, i)) : NAMEMAX }
ACROSS = (!T && NAMEMAX * 0.068 > 0.95 * pw_of(ROWS, COLS) * ASP) ? 1 : 0
if (ACROSS) { LM = 0.12 + NAMEMAX * 0.068; AW = FIG_W - LM - RM }
PW = pw_of(ROWS, COLS); PH = PW * ASP
FIG_H = TM + BM + ROWS * PH + (ROWS - 1) * GY
XL = LM + (AW - (COLS * PW + (COLS - 1) * GX)) / 2
load FIGSRC."/common.gp"
set datafile separator whitespace
NOTE_FONT = TEX ? ",8" : fsz(7)
# A note's text: balls outside the view (side -1 below, 1 above or
# beside; n of them; y the height of the nearest), or the cloth itself
# outside it (side 0; y its mean height).  y comes as awk's %.3g; an
# exponent is written as a power of ten.  (gnuplot reads a backslash in a
# `with labels` text as an escape, so the LaTeX ones are doubled.)
yfmt(y) = strstrt(y, "e") == 0 ? y : \
  y[1:strstrt(y, "e") - 1].(TEX ? '\\times 10^{' : "×10^{").sprintf("%d", int(y[strstrt(y, "e") + 1:]))."}"
offtxt(side, n, y) = side == 0 ? \
  (TEX ? '\\shortstack{\\scriptsize cloth outside the view\\\\ \\scriptsize $y \\approx '.yfmt(y).'$~m}' : \
         "cloth outside the view\ny ≈ ".yfmt(y)." m") : \
  (TEX ? '\\scriptsize ' : "").(n == 1 ? "" : sprintf("%d balls, ", n)). \
  (TEX ? '$y '.(n == 1 ? '=' : side < 0 ? '\\leq' : '\\geq').' '.yfmt(y).'$~m' : \
         "y ".(n == 1 ? "=" : side < 0 ? "≤" : "≥")." ".yfmt(y)." m")
# The panel of run i (1 ..) at snapshot k (0 ..): its row and column (0 ..)
# and its edges in screen coordinates.
prow(i, k) = T ? k : i - 1
pcol(i, k) = T ? i - 1 : k
pleft(i, k) = (XL + pcol(i, k) * (PW + GX)) / FIG_W
ptop(i, k) = (FIG_H - TM - prow(i, k) * (PH + GY)) / FIG_H
TLAB(k) = sprintf(lab("t = %.2f s", '$t = %.2f$~s'), tsnap(k))
unset key
unset grid
unset border
unset tics
set xrange [XB0:XB1]
set yrange [YB0:YB1]
set style fill solid 1.0 noborder
set multiplot title TITLE
do for [i = 1:NR] {
  do for [k = 0:NS - 1] {
    set lmargin at screen pleft(i, k)
    set rmargin at screen pleft(i, k) + PW / FIG_W
    set tmargin at screen ptop(i, k)
    set bmargin at screen ptop(i, k) - PH / FIG_H
    # Row labels at the left, rotated; column labels above the top row.
    unset label
    if (pcol(i, k) == 0 && !ACROSS) {
      set label 1 (T ? TLAB(k) : nm(word(RUNS, i))) at screen (XL - 0.06) / FIG_W, \
        screen ptop(i, k) - PH / FIG_H / 2 center rotate by 90 font KEY_SMALL
    }
    if (pcol(i, k) == 0 && ACROSS) {
      set label 1 nm(word(RUNS, i)) at screen (XL - 0.06) / FIG_W, \
        screen ptop(i, k) - PH / FIG_H / 2 right font KEY_SMALL
    }
    if (prow(i, k) == 0) {
      set label 2 (T ? nm(word(RUNS, i)) : TLAB(k)) at screen pleft(i, k) + PW / FIG_W / 2, \
        screen ptop(i, k) + 0.06 / FIG_H center
    }
    set object 1 rect from graph 0, graph 0 to graph 1, graph 1 behind fc rgb "#f4f4f4" fs solid 1.0 \
      border lc rgb "#c8c8c8" lw 0.5
    if (has(word(RUNS, i), k) > 0) {
      OFF = offv(word(RUNS, i), k, VIEWBOX)
      if (OFF eq "") {
        plot polys(word(RUNS, i), k) using 1:2:3 with polygons fc rgb variable
      } else {
        plot polys(word(RUNS, i), k) using 1:2:3 with polygons fc rgb variable, \
             OFF using 1:(strcol(4) eq "-" ? $2 : NaN):($3 < 0 ? 11 : 9) with points pt variable ps 1.2 * PSC lc rgb "#404040", \
             OFF using 1:(strcol(4) eq "-" ? NaN : $2):(strcol(4) eq "-" ? "" : offtxt($3, $4, strcol(5))) with labels center font NOTE_FONT
      }
    } else {
      set label 3 small("(run stopped)") at graph 0.5, graph 0.5 center font NOTE_FONT
      plot NaN notitle
    }
    unset object 1
  }
}
# The legend under the panels.
unset label
set lmargin at screen 0.2
set rmargin at screen 0.8
set bmargin at screen 0.42 / FIG_H
set tmargin at screen 0.52 / FIG_H
if (LEGEND eq "strain") {
  set palette defined (0 "#466edc", 0.05 "#46d264", 0.1 "#fae628", 0.3 "#fa1414")
  set cbrange [0:0.3]
  unset colorbox
  set xrange [0:0.3]
  set yrange [0:1]
  set border 15 lw 0.5
  set xtics out nomirror scale 0.5 (0, 0.05, 0.1, 0.15, 0.2, 0.25, lab("≥ 0.3", '$\geq 0.3$') 0.3)
  set xtics font KEY_SMALL
  set label 1 small(lab("strain of the structural edges, |edge| / rest - 1 (limit ε_{max} = 0.1); shaded by a light from the upper left", \
                        'strain of the structural edges, $|e| / e_0 - 1$ (limit $\varepsilon_{\max} = 0.1$); shaded by a light from the upper left')) \
    at screen 0.5, screen 0.1 / FIG_H center font KEY_SMALL
  # '++' samples u and v (not x and y): 151 values of the strain.
  set urange [0:0.3]
  set vrange [0:1]
  set samples 151, 2
  set isosamples 151, 2
  plot '++' using 1:2:1 with image
} else {
  set xrange [0:3]
  set yrange [0:1]
  unset border
  set style fill solid 1.0 border lc rgb "#505050"
  set object 11 rect from 0.05, 0.0 to 0.2, 1.0 fc rgb "#a0bed7" lw 0.5
  set object 12 rect from 1.05, 0.0 to 1.2, 1.0 fc rgb "#f08214" lw 0.5
  set object 13 rect from 2.05, 0.0 to 2.2, 1.0 fc rgb "#14c83c" lw 0.5
  set label 11 small("free") at 0.26, 0.5 left font KEY_SMALL
  set label 12 small("cloth-cloth contact") at 1.26, 0.5 left font KEY_SMALL
  set label 13 small("at a ball") at 2.26, 0.5 left font KEY_SMALL
  set label 1 small("shaded by a light from the upper left; a triangle mark: a ball outside the view, at height y") \
    at screen 0.5, screen 0.1 / FIG_H center font KEY_SMALL
  plot NaN notitle
}
unset multiplot
