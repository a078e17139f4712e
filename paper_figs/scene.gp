# scene.gp: a run of `cdyn run scene` (doc/scene-format.md): the particles'
# paths in the x-y plane (from NAME-RUN-state.csv, when the scene records
# positions: every particle's path for up to 30 particles, else their
# positions at the first and last recorded step), the constraint error e_n
# and the energy change E - E(0) against t, one curve per run (scheme).
#
#   gnuplot -c paper_figs/scene.gp paper_figs RUNDIR pdf|png|cairolatex OUTPUT
#
# RUNDIR is the directory `cdyn run scene FILE --out RUNDIR` wrote.  `make
# figures` draws examples/double-pendulum.json this way through
# paper_figs/scene-double-pendulum.gp, which sets D (the figures'
# directory, for the palette), RUNDIR, TERM_NAME and OUT_NAME first.
if (!exists("RUNDIR")) { RUNDIR = ARG2; D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4; FIGSRC = ARG1 }
SUMMARY = system("ls '".RUNDIR."'/*-summary.csv 2>/dev/null | head -n 1")
if (strlen(SUMMARY) == 0) { print "scene.gp: no *-summary.csv in ".RUNDIR." (is it a directory of cdyn run scene?)"; exit status 1 }
NAME = system("basename '".SUMMARY."' -summary.csv")
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".SUMMARY."'")
series(r) = RUNDIR."/".NAME."-".r.".csv"
STATE = RUNDIR."/".NAME."-".word(RUNS, 1)."-state.csv"
HAVE_STATE = system("test -f '".STATE."' && echo 1 || echo 0") + 0
NP = HAVE_STATE ? system("awk -F, 'NR > 1 && $3 + 0 > n { n = $3 + 0 } END { print n + 1 }' '".STATE."'") + 0 : 0
FIG_W = 7.0; FIG_H = 2.7
load FIGSRC."/common.gp"
PAL_X = pal_use(RUNS)
set multiplot title nm(NAME).(words(RUNS) > 1 ? sprintf(" (%d runs)", words(RUNS)) : "")
NPAN = HAVE_STATE ? 3 : 2
LM = 0.08; GAP = 0.085; PW = (0.98 - LM - (NPAN - 1) * GAP) / NPAN
panel(k) = sprintf("set lmargin at screen %g; set rmargin at screen %g; set tmargin at screen %g; set bmargin at screen %g", \
  LM + (k - 1) * (PW + GAP), LM + (k - 1) * (PW + GAP) + PW, 1 - 0.55 / FIG_H, 0.5 / FIG_H)
PANEL = 0
set xtics autofreq
set mxtics
if (HAVE_STATE) {
  # One block per particle (blank lines between), so that `lines` draws
  # each path on its own; for many particles, the first and last states.
  TMPF = system("mktemp")
  FIRST = system("awk -F, 'NR == 2 { print $1; exit }' '".STATE."'") + 0
  LAST = system("awk -F, 'NR > 1 { s = $1 } END { print s }' '".STATE."'") + 0
  if (NP <= 30) {
    dummy = system("awk -F, 'NR > 1 { p = $3 + 0; l[p] = l[p] $4 \",\" $5 \"\\n\" } END { for (i = 0; i in l; i++) printf \"%s\\n\\n\", l[i] }' '".STATE."' > '".TMPF."'")
  }
  PANEL = PANEL + 1
  eval panel(PANEL)
  set title (NP <= 30 ? lab("paths, x-y plane", 'paths, $x$--$y$ plane') : \
    lab("first and last state, x-y plane", 'first and last state, $x$--$y$ plane')) offset 0, -0.5
  set xtics autofreq
  set xlabel lab("x (m)", '$x$ (m)')
  set ylabel lab("y (m)", '$y$ (m)') offset 1, 0
  set key bottom right font KEY_SMALL
  if (NP <= 30) {
    plot TMPF using 1:2 with lines lc rgb pal_colour(word(RUNS, 1)) lw 1 title small(nm(word(RUNS, 1)))
  } else {
    plot STATE using ($1 == FIRST ? $4 : NaN):5 with points pt 7 ps 0.3 * PSC lc rgb "#7f7f7f" \
           title small(sprintf("t = %g s", FIRST * 0 + system("awk -F, 'NR == 2 { print $2; exit }' '".STATE."'"))), \
         STATE using ($1 == LAST ? $4 : NaN):5 with points pt 7 ps 0.3 * PSC lc rgb pal_colour(word(RUNS, 1)) \
           title small(sprintf("t = %g s", system("awk -F, 'NR > 1 { t = $2 } END { print t }' '".STATE."'") + 0))
  }
  dummy = system("rm -f '".TMPF."'")
}
set key top left font KEY_SMALL
PANEL = PANEL + 1
eval panel(PANEL)
set title lab("constraint error e_n", 'constraint error $e_n$') offset 0, -0.5
set xlabel lab("t (s)", '$t$ (s)')
set ylabel lab("e_n (m)", '$e_n$ (m)') offset 1, 0
set logscale y
set format y lab("10^{%L}", '$10^{%L}$')
# e_n is exactly 0 at the start of a consistent scene: a log axis skips it.
plot for [i = 1:words(RUNS)] series(word(RUNS, i)) using 2:($3 > 0 ? $3 : NaN) with lines \
  lc rgb pal_colour(word(RUNS, i)) dt pal_dash(word(RUNS, i)) lw PAL_LW title small(nm(word(RUNS, i)))
unset logscale y
set format y "%g"
PANEL = PANEL + 1
eval panel(PANEL)
set title lab("energy change E - E(0)", 'energy change $E - E(0)$') offset 0, -0.5
set ylabel lab("E - E(0) (J)", '$E - E(0)$ (J)') offset 1, 0
# E(0) of each run, read once (not at every point of the plot).
E0(r) = system("awk -F, 'NR == 2 { printf \"%.17g\", $6; exit }' '".series(r)."'") + 0
array E0S[words(RUNS)]
do for [i = 1:words(RUNS)] { E0S[i] = E0(word(RUNS, i)) }
plot for [i = 1:words(RUNS)] series(word(RUNS, i)) using 2:($6 - E0S[i]) with lines \
  lc rgb pal_colour(word(RUNS, i)) dt pal_dash(word(RUNS, i)) lw PAL_LW title small(nm(word(RUNS, i)))
unset multiplot
