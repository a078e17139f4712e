# Shared by arm5-improved-order.gp and arm5-baumgarte-order.gp (beyond the
# papers): constraint error e_n (left) and trajectory error against the
# reduced-coordinate reference (right) at a fixed time, against h, on the
# papers' 5-link arm, one line per run of the experiment (runs.csv).
# Reference slopes 1 (grey, dashed) and 2 (grey, dotted), named in the
# key (a label on a line would sit on the curves that cross it).  A run that did not reach
# the time (completed = 0) is left out at that h.  A run equal to an
# earlier one at every h (within 0.1 %) is drawn as symbols on its line,
# and the key says so (the key is the left panel's).  The caller sets EXPDIR
# and OTITLE, and FIG_W and FIG_H before loading common.gp.
F = D."/".EXPDIR."/order.csv"
RUNS = runs_of(EXPDIR)
PAL_X = pal_use(RUNS)
set logscale xy
set format x lab("10^{%L}", '$10^{%L}$')
set format y lab("10^{%L}", '$10^{%L}$')
set xlabel lab("h (s)", '$h$ (s)')
HMIN = real(system("awk -F, 'NR > 1 && (m == \"\" || $2 + 0 < m) { m = $2 + 0 } END { printf \"%.17g\", m }' '".F."'"))
HMAX = real(system("awk -F, 'NR > 1 && $2 + 0 > m { m = $2 + 0 } END { printf \"%.17g\", m }' '".F."'"))
set xrange [HMIN / 1.5:HMAX * 1.5]
# The lowest value at the largest h for the slopes' anchor, of the values
# there within 1e-6 of the largest (a run at rounding level is no guide).
low_at_hmax(c) = real(system("awk -F, -v c=".c." -v h=".sprintf("%.17g", HMAX)." 'NR > 1 && $4 == 1 && $2 + 0 >= h * (1 - 1e-9) && $c + 0 > 0 " . \
  "{ v[++n] = $c + 0; if (v[n] > mx) mx = v[n] } END { for (i = 1; i <= n; i++) if (v[i] >= 1e-6 * mx && (m == \"\" || v[i] < m)) m = v[i];" . \
  " printf \"%.17g\", m }' '".F."'"))
KROWS = words(RUNS) + 2
eval key_below(KROWS, 1)
set key nobox Left reverse samplen 2
set multiplot title OTITLE
do for [p = 1:2] {
  COL = (p == 1 ? 5 : 6)
  A = low_at_hmax(COL) / 10
  # Runs equal to an earlier one (within 0.1 %) at every h: symbols only.
  CO = coinc(F, "$2", COL, RUNS, 1e-3)
  set lmargin at screen (p == 1 ? 0.1 : 0.6)
  set rmargin at screen (p == 1 ? 0.47 : 0.97)
  set tmargin at screen 1 - 0.55 / FIG_H
  set bmargin at screen (KEY_H(KROWS) + 0.48) / FIG_H
  if (p == 1) {
    set title "constraint error at T" offset 0, -0.4
    set ylabel lab("e_n(T) (m)", '$e_n(T)$ (m)')
  } else {
    set title "trajectory error at T" offset 0, -0.4
    set ylabel lab("max_i |x_i - x_i^{ref}| (m)", '$\max_i |x_i - x_i^{\mathrm{ref}}|$ (m)')
    set key off
  }
  plot for [i = 1:words(RUNS)] F using (strcol(1) eq word(RUNS, i) && column("completed") == 1 && co_entry(word(RUNS, i)) == 0 ? $2 : NaN):COL \
         with linespoints lc rgb pal_colour(word(RUNS, i)) dt pal_dash(word(RUNS, i)) lw PAL_LW \
         pt pal_point(word(RUNS, i)) ps 0.8 * PSC title (co_entry(word(RUNS, i)) == 0 ? small(co_label(word(RUNS, i))) : ""), \
       for [i = 1:words(RUNS)] F using (strcol(1) eq word(RUNS, i) && column("completed") == 1 && co_entry(word(RUNS, i)) > 0 ? $2 : NaN):COL \
         with points lc rgb pal_colour(word(RUNS, i)) pt pal_point(word(RUNS, i)) ps 1.3 * PSC lw 1.2 \
         title (co_entry(word(RUNS, i)) > 0 ? small(co_label(word(RUNS, i))) : ""), \
       A * (x / HMAX) with lines ls 4 title small("reference slope 1"), \
       A * (x / HMAX) ** 2 with lines lc rgb "#7f7f7f" lw 1.0 dt 3 title small("reference slope 2")
}
unset multiplot
