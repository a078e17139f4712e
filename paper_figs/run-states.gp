# run-states.gp: the states of runs with many particles (a cloth) in 3-D:
# the first panel the first state (of the first run: the runs start
# alike), then one panel per run with its last state, in the run's
# palette colour, the balls grey.  Drawn from the data `cdyn plot` writes
# into TMPD (see run-view3d.gp and states.gp there: the frames sK-0.dat,
# sK-1.dat, the balls bK-0.dat, bK-1.dat, the times ST0, ST1, the
# drawing mode SMODE of run K, and OWN: its last state is drawn at its own
# scale, said in its title, when it is far larger than the first state --
# a run that blew up; the others share the ranges).
#
#   gnuplot -e "FIGSRC='...'; RUNDIR='...'; RUNS='a b'; STEM='...'; D='...'; TMPD='...'; \
#               TERM_NAME='pdf'; OUT_NAME='...'" run-states.gp
load FIGSRC."/rundir.gp"
load TMPD."/states.gp"
NPAN = NRUNS + 1
NCOL = NPAN < 4 ? NPAN : 4
NROW = int((NPAN + NCOL - 1) / NCOL)
FIG_W = 7.0; FIG_H = 0.35 + NROW * 1.9
load FIGSRC."/common.gp"
PAL_X = pal_use(RUNS)
load FIGSRC."/run-view3d.gp"
set multiplot layout NROW, NCOL title nm(STEM).lab(": first and last states", ': first and last states')
set title sprintf(lab("start, t = %g s", 'start, $t = %g$ s'), ST0[1]) offset 0, -1
eval view3d(TMPD."/s1-0.dat", TMPD."/b1-0.dat", 0, SMODE[1], "#bdbdbd")
do for [k = 1:NRUNS] {
  R = word(RUNS, k)
  set title small(nm(R).sprintf(lab(", t = %g s", ', $t = %g$ s'), ST1[k]). \
    (OWN[k] ? sprintf(lab("\n(own scale, %.2g m)", ' (own scale, %.2g m)'), OSPAN[k]) : "")) offset 0, -1
  if (OWN[k]) {
    set autoscale x; set autoscale y; set autoscale z
    set format x ""; set format y ""; set format z ""
  } else {
    eval V3_RANGES
  }
  eval view3d(TMPD.sprintf("/s%d-1.dat", k), TMPD.sprintf("/b%d-1.dat", k), 0, SMODE[k], pal_colour(R))
}
unset multiplot
