# run-series.gp: the time series of a run directory: one panel per
# quantity of the runs' CSVs (constraint error e, energy change
# E - E(0), kinetic and potential energy, momentum, ... -- every column
# but step, t, status and node positions), one curve per run in its
# palette style, units from the runs' .meta.json, one key for all.
#
#   gnuplot [-e "RUNS='a b'; STEM='title'; D='PALETTE_DIR'"] \
#           -c run-series.gp FIGSRC RUNDIR pdf|png|cairolatex OUTPUT
#
# (`cdyn plot` runs it so; `make figures` through scene.gp.)  D is the
# directory whose palette.gp gives the schemes' styles (default RUNDIR's
# parent).
#
# A run that coincides with an earlier one is drawn dotted and named in
# the key beside it.  A quantity that is zero throughout in every run is left out.
#
# Scales.  e is drawn on a log axis (its zeros left out) when it has a
# positive value.  Energy (E) is drawn as its change from the first row.
# A quantity whose runs differ by more than a factor 30 in their largest
# magnitude (a run that blew up) is drawn as its magnitude on a log axis,
# so that every run stays visible.  The t axis has about five ticks.
if (!exists("RUNDIR")) { FIGSRC = ARG1; RUNDIR = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4 }
if (!exists("D")) { D = system("dirname '".RUNDIR."'") }
load FIGSRC."/rundir.gp"
if (NRUNS == 0) { print "run-series.gp: no runs in ".RUNDIR; exit status 1 }
QS = system(RD_AWK." -v what=cols '".series(word(RUNS, 1))."'")
NQ = words(QS)
if (NQ == 0) { print "run-series.gp: nothing to draw in ".series(word(RUNS, 1)); exit status 1 }
FILES = ""
do for [i = 1:NRUNS] { FILES = FILES." '".series(word(RUNS, i))."'" }
stat(q, delta) = system(RD_AWK." -v what=stat -v col=".q." -v delta=".delta.FILES)
TSPAN = real(word(stat("t", 0), 2))
# Leave out a quantity that is 0 in every row of every run (p_z of a
# planar motion): it says nothing.
QALL = QS
QS = ""
do for [k = 1:words(QALL)] {
  if (real(word(stat(word(QALL, k), 0), 2)) > 0) { QS = QS.word(QALL, k)." " }
}
NQ = words(QS)
if (NQ == 0) { QS = word(QALL, 1); NQ = 1 }
NCOL = NQ < 3 ? NQ : 3
NROW = int((NQ + NCOL - 1) / NCOL)
KCOLS = NRUNS < 5 ? NRUNS : 5
KROWS = int((NRUNS + KCOLS - 1) / KCOLS)
ROW_H = 1.9
KEY_HH = KROWS * 0.145 + 0.1
FIG_W = 7.0; FIG_H = 0.35 + NROW * ROW_H + KEY_HH + 0.1
load FIGSRC."/common.gp"
PAL_X = pal_use(RUNS)
set datafile columnheaders
unit(q) = system(RD_AWK." -v what=unit -v col=".q." '".meta(word(RUNS, 1))."'")
ulab(u) = (strlen(u) && u ne "1") ? " (".nm(u).")" : ""
# A quantity's title and, for the y axis, its symbol.
qtitle(q) = q eq "e" ? lab("constraint error e", 'constraint error $e$') : \
  q eq "E" ? lab("energy change E - E(0)", 'energy change $E - E(0)$') : \
  q eq "T" ? lab("kinetic energy T", 'kinetic energy $T$') : \
  q eq "V" ? lab("potential energy V", 'potential energy $V$') : \
  q eq "px" ? lab("momentum p_x", 'momentum $p_x$') : \
  q eq "py" ? lab("momentum p_y", 'momentum $p_y$') : \
  q eq "pz" ? lab("momentum p_z", 'momentum $p_z$') : nm(q)
qsym(q) = q eq "E" ? lab("E - E(0)", '$E - E(0)$') : q eq "e" ? lab("e", '$e$') : \
  q eq "px" ? lab("p_x", '$p_x$') : q eq "py" ? lab("p_y", '$p_y$') : q eq "pz" ? lab("p_z", '$p_z$') : \
  (strlen(q) == 1 ? lab(q, '$'.q.'$') : nm(q))
# Runs whose curves coincide with an earlier run's (the same rows, the
# energy -- else the first quantity -- within 1e-9 of its largest
# magnitude) are drawn dotted over it, and the key says so ("xpbd = pbd").
CO = coinc_files(RUNDIR."/".CSV_PREFIX, ".csv", RUNS, in_list("E", QS) ? "E" : word(QS, 1), 1e-9)
cdt(r) = co_entry(r) > 0 ? 3 : pal_dash(r)
clw(r) = co_entry(r) > 0 ? 1.6 * PAL_LW : PAL_LW
# The panels on a grid, the key below them.
LM = 0.09; RM = 0.03; HG = 0.095
PW = (1 - LM - RM - (NCOL - 1) * HG) / NCOL
TOP = 1 - 0.35 / FIG_H; BOT = (KEY_HH + 0.1) / FIG_H
PH = (TOP - BOT) / NROW
panel(k) = sprintf("set lmargin at screen %g; set rmargin at screen %g; set tmargin at screen %g; set bmargin at screen %g", \
  LM + ((k - 1) % NCOL) * (PW + HG), LM + ((k - 1) % NCOL) * (PW + HG) + PW, \
  TOP - int((k - 1) / NCOL) * PH - 0.28 / FIG_H, TOP - int((k - 1) / NCOL) * PH - PH + 0.42 / FIG_H)
set multiplot title nm(STEM).(NRUNS > 1 ? sprintf(" (%d runs)", NRUNS) : "")
set xrange [0:TSPAN > 0 ? TSPAN : 1]
set xtics nice(TSPAN, 4)
set mxtics 2
set xlabel lab("t (s)", '$t$ (s)') offset 0, 0.5
array Q0[NRUNS]
do for [k = 1:NQ] {
  Q = word(QS, k)
  DELTA = (Q eq "E") ? 1 : 0
  S = stat(Q, DELTA)
  POS = real(word(S, 1)); MAXABS = real(word(S, 2)); MINRUN = real(word(S, 3)); NPOS = int(word(S, 4))
  do for [i = 1:NRUNS] {
    Q0[i] = DELTA ? real(system(RD_AWK." -v what=first -v col=".Q." '".series(word(RUNS, i))."'")) : 0
  }
  # e: log when positive; any quantity whose runs' sizes differ by 30 times: log of the magnitude.
  LOGY = (Q eq "e" && POS > 0) || (NPOS > 1 && MAXABS > 30 * MINRUN)
  ABS = LOGY && !(Q eq "e")
  eval panel(k)
  set title qtitle(Q).(ABS ? lab(", magnitude", ', magnitude') : "") offset 0, -0.6
  U = unit(Q)
  set ylabel (ABS ? "|".qsym(Q)."|" : qsym(Q)).ulab(U) offset 0.5, 0
  if (LOGY) {
    set logscale y
    set format y lab("10^{%L}", '$10^{%L}$')
    set ytics autofreq
    set mytics 10
  } else {
    unset logscale y
    set format y "%g"
    if (MAXABS > 0) { set ytics nice(MAXABS, 3) } else { set ytics autofreq }
    set mytics default
  }
  if (MAXABS == 0 && !LOGY) { set yrange [-1:1] } else { set yrange [*:*] }
  unset key
  plot for [i = 1:NRUNS] series(word(RUNS, i)) using "t":( \
      (ABS ? abs(column(Q) - Q0[i]) : column(Q) - Q0[i]) > 0 || !LOGY ? \
      (ABS ? abs(column(Q) - Q0[i]) : column(Q) - Q0[i]) : NaN) \
    with lines lc rgb pal_colour(word(RUNS, i)) dt cdt(word(RUNS, i)) lw clw(word(RUNS, i)) \
    notitle
}
# The key: a panel of its own below the others, with nothing but it.
set lmargin at screen 0.02; set rmargin at screen 0.98; set bmargin at screen 0.01; set tmargin at screen BOT - 0.1 / FIG_H
unset title; unset xlabel; unset ylabel; unset logscale y; unset border; unset tics; unset grid
set xrange [0:1]; set yrange [0:1]
set key center center horizontal maxcols KCOLS nobox Left reverse samplen 2.5 font KEY_SMALL
plot for [i = 1:NRUNS] NaN with lines lc rgb pal_colour(word(RUNS, i)) dt cdt(word(RUNS, i)) lw clw(word(RUNS, i)) \
  title small(co_label(word(RUNS, i)))
unset multiplot
