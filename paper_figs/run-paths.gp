# run-paths.gp: the particles' paths of every run of a run directory, one
# panel per run in its palette colour, projected onto the plane of the
# two coordinates with the largest extent over all runs (the third, the
# flattest, left out), at the same scale in every panel (equal units on
# both axes).  Each path starts at an open circle and ends at a filled
# one.  The positions come from NAME-RUN-state.csv (a scene that records
# them) or from the run CSV's node columns x0, y0, z0, x1, ... (an
# experiment); a run without either is left out.  Meant for few particles
# (cdyn plot draws it up to 30; a cloth gets run-states.gp).  A run whose
# extent is more than 5 times the smallest run's (it drifted away or blew
# up) gets its own scale, and its title says so.
#
#   gnuplot [-e "RUNS='a b'; STEM='title'; D='PALETTE_DIR'"] \
#           -c run-paths.gp FIGSRC RUNDIR pdf|png|cairolatex OUTPUT
if (!exists("RUNDIR")) { FIGSRC = ARG1; RUNDIR = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4 }
if (!exists("D")) { D = system("dirname '".RUNDIR."'") }
load FIGSRC."/rundir.gp"
# The runs with positions.
PR = ""
do for [i = 1:NRUNS] {
  if (int(system(RD_AWK." -v what=nparts '".posfile(word(RUNS, i))."'")) > 0) { PR = PR.word(RUNS, i)." " }
}
NPR = words(PR)
if (NPR == 0) { print "run-paths.gp: no run of ".RUNDIR." records positions"; exit status 1 }
# Each run's extent; a run whose largest span is more than 5 times the
# smallest run's (one that drifted or blew up) is drawn at its own scale,
# the others at the scale of their union.
array PEXT[NPR]
array PSPAN[NPR]
do for [i = 1:NPR] {
  PEXT[i] = system(RD_AWK." -v what=extent '".posfile(word(PR, i))."'")
  PSPAN[i] = 0
  do for [a = 1:3] {
    PSPAN[i] = (real(word(PEXT[i], 2 * a)) - real(word(PEXT[i], 2 * a - 1)) > PSPAN[i]) ? \
      real(word(PEXT[i], 2 * a)) - real(word(PEXT[i], 2 * a - 1)) : PSPAN[i]
  }
}
MINSPAN = PSPAN[1]
do for [i = 2:NPR] { MINSPAN = PSPAN[i] < MINSPAN ? PSPAN[i] : MINSPAN }
own(i) = PSPAN[i] > 5 * MINSPAN && PSPAN[i] > 0
array LO[3]; array HI[3]
do for [a = 1:3] { LO[a] = NaN; HI[a] = NaN }
do for [i = 1:NPR] {
  if (!own(i)) {
    do for [a = 1:3] {
      L = real(word(PEXT[i], 2 * a - 1)); H = real(word(PEXT[i], 2 * a))
      LO[a] = (LO[a] == LO[a] && LO[a] < L) ? LO[a] : L
      HI[a] = (HI[a] == HI[a] && HI[a] > H) ? HI[a] : H
    }
  }
}
# The two axes of largest extent, in their order x, y, z.
FLAT = (HI[1] - LO[1] <= HI[2] - LO[2] && HI[1] - LO[1] <= HI[3] - LO[3]) ? 1 : \
       (HI[2] - LO[2] <= HI[3] - LO[3]) ? 2 : 3
A1 = FLAT == 1 ? 2 : 1
A2 = FLAT == 3 ? 2 : 3
AXN = "x y z"
# Square-ish ranges with a margin, the same for every panel.
SPAN = (HI[A1] - LO[A1] > HI[A2] - LO[A2] ? HI[A1] - LO[A1] : HI[A2] - LO[A2])
SPAN = SPAN > 0 ? SPAN : 1
C1 = (LO[A1] + HI[A1]) / 2; C2 = (LO[A2] + HI[A2]) / 2
W1 = (HI[A1] - LO[A1]) / 2 + 0.08 * SPAN; W2 = (HI[A2] - LO[A2]) / 2 + 0.08 * SPAN
NCOL = NPR < 4 ? NPR : 4
NROW = int((NPR + NCOL - 1) / NCOL)
PANEL_W = 7.0 / NCOL
FIG_W = 7.0; FIG_H = 0.3 + NROW * (PANEL_W * (W2 / W1 < 1.4 ? W2 / W1 : 1.4) * 0.82 + 0.55)
load FIGSRC."/common.gp"
set datafile separator whitespace
PAL_X = pal_use(PR)
set multiplot layout NROW, NCOL title nm(STEM).lab(": paths, ", ': paths, ').word(AXN, A1)."-".word(AXN, A2).lab(" plane", ' plane')
set size ratio -1
set xrange [C1 - W1:C1 + W1]
set yrange [C2 - W2:C2 + W2]
set xtics nice(2 * W1, 3)
set ytics nice(2 * W2, 3)
set format x "%g"; set format y "%g"
set xlabel lab(word(AXN, A1)." (m)", '$'.word(AXN, A1).'$ (m)') offset 0, 0.5
set ylabel lab(word(AXN, A2)." (m)", '$'.word(AXN, A2).'$ (m)') offset 0.5, 0
unset key
do for [i = 1:NPR] {
  R = word(PR, i)
  P = "< ".RD_AWK." -v what=paths '".posfile(R)."'"
  if (own(i)) {
    # Its own ranges, square about its extent.
    OL1 = real(word(PEXT[i], 2 * A1 - 1)); OH1 = real(word(PEXT[i], 2 * A1))
    OL2 = real(word(PEXT[i], 2 * A2 - 1)); OH2 = real(word(PEXT[i], 2 * A2))
    OS = (OH1 - OL1 > OH2 - OL2 ? OH1 - OL1 : OH2 - OL2) * 0.58
    set xrange [(OL1 + OH1) / 2 - OS:(OL1 + OH1) / 2 + OS]
    set yrange [(OL2 + OH2) / 2 - OS:(OL2 + OH2) / 2 + OS]
    set xtics nice(2 * OS, 3); set ytics nice(2 * OS, 3)
    set title small(nm(R).lab("\n(own scale)", ' (own scale)')) offset 0, -0.2
  } else {
    set xrange [C1 - W1:C1 + W1]
    set yrange [C2 - W2:C2 + W2]
    set xtics nice(2 * W1, 3); set ytics nice(2 * W2, 3)
    set title small(nm(R)) offset 0, -0.6
  }
  plot P using A1:A2 with lines lc rgb pal_colour(R) lw 1, \
       P using A1:A2 every ::0::0 with points pt 6 ps 0.9 * PSC lc rgb "#000000", \
       "< ".RD_AWK." -v what=paths '".posfile(R)."' | awk 'NF { l = $0 } !NF && l != \"\" { print l; l = \"\" }'" \
         using A1:A2 with points pt 7 ps 0.9 * PSC lc rgb pal_colour(R)
}
unset multiplot
