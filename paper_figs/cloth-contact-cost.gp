# cloth-contact: the cost per step of each run, split into detection
# (before and after the step, the fail-safe apart), the step's solves and
# the fail-safe, stacked, beside the unconstrained step (the cloth alone,
# no contacts and no balls, the run's scheme) from the run's own states
# (the hollow bar) and over its first 100 steps from rest (the dash).
# Above each run: (detection + solves + fail-safe) / the unconstrained
# step at the run's states (the cost CSV's `ratio`), said under the title
# with the machine that timed it.  Wall-clock times on a shared machine:
# they change from run to run, the ratios less.
# cloth-self-contact's plot sets E (the experiment) and TITLE and loads this.
if (!exists("FIGSRC")) FIGSRC = ARG1; D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
if (!exists("E")) E = "cloth-contact"
if (!exists("TITLE")) TITLE = "Cloth against balls: cost per step"
F = D."/".E."/".E."-cost.csv"
FIG_W = 7; FIG_H = 3.4
load FIGSRC."/common.gp"
set datafile separator ","
set title TITLE offset 0, 0.3
set label 20 small(lab("n×", '$n\times$').": (detection + solve + fail-safe) / the hollow bar; ".timed_on(E)) \
  at graph 0.5, graph 1 center offset 0, 0.6 font KEY_SMALL
set style fill solid 0.85 border lc rgb "#404040"
set boxwidth 0.35
set key top center horizontal maxrows 2 nobox Left reverse samplen 1.5
set ylabel "time per step (ms)"
set logscale y
set format y lab("10^{%L}", '$10^{%L}$')
set xtics rotate by -30 nomirror
set offsets 0.5, 0.5, graph 0.15, 0
set yrange [*:*]
N = int(real(system("awk -F, 'NR > 1 { n++ } END { print n + 0 }' '".F."'")))
set xrange [-0.7:N - 0.3]
ratio(r) = column(10)
# (A `with labels` text reads a backslash as an escape: the LaTeX one doubled.)
rtext(x) = (x >= 10 ? sprintf("%.0f", x) : sprintf("%.2g", x)).lab("×", '$\\times$')
plot F every ::1 using ($0 - 0.18):(1e3 * ($3 + $4 + $7)):xtic(nm(strcol(1))) with boxes lc rgb "#fdb863" \
       title small("fail-safe"), \
     F every ::1 using ($0 - 0.18):(1e3 * ($3 + $4)) with boxes lc rgb "#b2abd2" title small("solve"), \
     F every ::1 using ($0 - 0.18):(1e3 * $3) with boxes lc rgb "#5e3c99" title small("detection"), \
     F every ::1 using ($0 + 0.18):(1e3 * $9) with boxes fs empty lc rgb "#000000" \
       title small("unconstrained step at the run's states"), \
     F every ::1 using ($0 + 0.005):(1e3 * $8):(0.35):(0) with vectors nohead dt 2 lw 1.5 lc rgb "#000000" \
       title small("unconstrained step from rest"), \
     F every ::1 using ($0):(1e3 * ($3 + $4 + $7) * 1.6):(rtext(ratio(0))) with labels \
       font fsz(7) notitle
