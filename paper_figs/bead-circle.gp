# 002's bead on the unit circle.  Left: the radial error |r - 1| (top)
# and the angle error against the exact motion (bottom) against time for
# the companion runs of Witkin's scheme without and with feedback (002's
# comparison).  Right: every run of the experiment (runs.csv), its
# largest |r - 1| and largest angle error over the run; a run that stays
# exactly on the circle (|r - 1| = 0 throughout) is an open symbol on the
# axis' left edge, and a run that diverged (it stops before the end) a
# cross on the right edge.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = D."/bead-circle/"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".E."runs.csv'")
COMP = system("awk -F, 'NR > 1 && $3 == \"companion\" { printf \"%s \", $1 }' '".E."runs.csv'")
NR = words(RUNS)
FIG_W = 7.0; FIG_H = (NR * 0.17 + 1.3 > 4.4 ? NR * 0.17 + 1.3 : 4.4)
load ARG1."/common.gp"
PAL_X = pal_use(RUNS)
f(r) = E."bead-".r.".csv"
H = system("awk -F, 'NR == 3 { printf \"%g\", $2 }' '".f(word(RUNS, 1))."'")
STEPS = int(system("sed -n 's/^  \"steps\": \\([0-9]*\\),$/\\1/p' '".E."runs.meta.json'"))
# Each run's largest |r - 1| and angle error, and its last step.
array RMAX[NR]; array AMAX[NR]; array LAST[NR]
do for [i = 1:NR] {
  V = system("awk -F, 'NR > 1 { a = $5 + 0; if (a < 0) a = -a; if (a > r) r = a; if ($9 + 0 > m) m = $9 + 0; s = $1 } " . \
             "END { printf \"%.17g %.17g %d\", r, m, s }' '".f(word(RUNS, i))."'")
  RMAX[i] = real(word(V, 1)); AMAX[i] = real(word(V, 2)); LAST[i] = int(word(V, 3))
}
NDIV = 0; NZERO = 0
do for [i = 1:NR] { NDIV = NDIV + (LAST[i] < STEPS); NZERO = NZERO + (RMAX[i] == 0) }
set multiplot title lab("Bead on the unit circle, h = ".H." s", 'Bead on the unit circle, $h = '.H.'$~s')
# Left: the companion runs against time.
set logscale y
set format y lab("10^{%L}", '$10^{%L}$')
set xrange [0:*]
set autoscale xfix
set key bottom right nobox Left reverse opaque
set lmargin at screen 0.1
set rmargin at screen 0.49
set tmargin at screen 1 - 0.45 / FIG_H
set bmargin at screen 0.52
set title "002: Witkin's feedback, with and without" offset 0, -0.4
unset xlabel
set format x ""
set ylabel lab("|r - 1|", '$|r - 1|$')
set ytics 100
plot for [i = 1:words(COMP)] f(word(COMP, i)) using "t":(abs(column("radial_err"))) with lines \
       lc rgb pal_colour(word(COMP, i)) dt pal_dash(word(COMP, i)) lw PAL_LW title small(run_label("bead-circle", word(COMP, i)))
unset title
set tmargin at screen 0.47
set bmargin at screen 0.5 / FIG_H
set format x "%g"
set xlabel lab("t (s)", '$t$ (s)') offset 0, 0.4
set ylabel lab("|{/Symbol q} - {/Symbol q}_{ref}| (rad)", '$|\theta - \theta_{\mathrm{ref}}|$ (rad)')
set key off
plot for [i = 1:words(COMP)] f(word(COMP, i)) using "t":"angle_err" with lines \
       lc rgb pal_colour(word(COMP, i)) dt pal_dash(word(COMP, i)) lw PAL_LW notitle
# Right: every run's largest errors.
FLOOR = 1e-17; CEIL = 1e3
set lmargin at screen 0.67
set rmargin at screen 0.98
set tmargin at screen 1 - 0.45 / FIG_H
set bmargin at screen (0.55 + 0.145 * 4) / FIG_H
set title "every run: largest error over the run" offset 0, -0.4
unset logscale; set logscale x
set format x lab("10^{%L}", '$10^{%L}$')
set xtics 1e4
set xrange [FLOOR / 3:CEIL * 3]
set yrange [NR + 0.7:0.3]
set ytics () scale 0
do for [i = 1:NR] { set ytics add (nm(word(RUNS, i)) i) }
set grid xtics noytics
unset ylabel
set xlabel "largest error over the run" offset 0, 0.3
set key at screen 0.6, screen (0.145 * 3 + 0.06) / FIG_H left top vertical maxrows 4 Left reverse nobox
clip(v) = v <= 0 ? FLOOR : v > CEIL ? CEIL : v
plot for [i = 1:NR] '+' using (LAST[i] < STEPS ? NaN : clip(RMAX[i])):(i - 0.15) every ::0::0 \
       with points pt (RMAX[i] > 0 ? 7 : 6) ps 1.0 * PSC lc rgb pal_colour(word(RUNS, i)) notitle, \
     for [i = 1:NR] '+' using (LAST[i] < STEPS ? NaN : clip(AMAX[i])):(i + 0.15) every ::0::0 \
       with points pt (AMAX[i] > 0 ? 5 : 4) ps 1.0 * PSC lc rgb pal_colour(word(RUNS, i)) notitle, \
     for [i = 1:NR] '+' using (LAST[i] < STEPS ? CEIL : NaN):(i) every ::0::0 \
       with points pt 2 ps 1.3 * PSC lw 2 lc rgb pal_colour(word(RUNS, i)) notitle, \
     keyentry with points pt 7 ps 1.0 * PSC lc rgb "#000000" title small(lab("largest |r - 1| (m)", 'largest $|r - 1|$ (m)')), \
     keyentry with points pt 5 ps 1.0 * PSC lc rgb "#000000" \
       title small(lab("largest |{/Symbol q} - {/Symbol q}_{ref}| (rad)", 'largest $|\theta - \theta_{\mathrm{ref}}|$ (rad)')), \
     keyentry with points pt 6 ps 1.0 * PSC lc rgb "#000000" \
       title (NZERO > 0 ? small(sprintf(lab("|r - 1| = 0 (drawn at 10^{%d})", '$|r - 1| = 0$ (drawn at $10^{%d}$)'), int(log10(FLOOR)))) : ""), \
     keyentry with points pt 2 ps 1.3 * PSC lw 2 lc rgb "#000000" \
       title (NDIV > 0 ? small("diverged (the run stops)") : "")
unset multiplot
