# Shared by arm5-improved.gp and arm5-improved-heavy-end.gp (000 fig. 3):
# per-step constraint error e_n against time for every run of
# arm5-improved (runs.csv: first-order implicit, the improved midpoint
# scheme in both AB2 readings, any extra scheme), one panel per step size
# h and mass, all on the same time axis.  The caller sets VARIANT
# ("uniform" or "heavy-end") and VTITLE.  A run that diverged (panels.csv:
# diverged, fail_step; e_n above the arm's length or a failed step) stops
# there, marked with a cross on its last row.  Runs whose e_n coincide in a panel (the same
# divergence step and sum of e_n within 1e-6, panels.csv) are drawn
# dotted over the earlier one.
E = D."/arm5-improved/"
P = E."panels.csv"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".E."runs.csv'")
PAL_X = pal_use(RUNS)
# The panels' h and masses, from panels.csv (column 3 and 4 of the rows
# of this variant), in order of first appearance.
HS = system(sprintf("awk -F, 'NR > 1 && $1 == \"%s\" && !s[$3]++ { printf \"%%g \", $3 }' '%s'", VARIANT, P))
MS = system(sprintf("awk -F, 'NR > 1 && $1 == \"%s\" && !s[$4]++ { printf \"%%g \", $4 }' '%s'", VARIANT, P))
run(h, m, s) = sprintf("%s%s-h%s-m%s-%s.csv", E, VARIANT, h, m, s)
# The divergence step of a run in a panel (0 if it did not diverge).
FAILS = system("awk -F, -v v='".VARIANT."' 'NR > 1 && $1 == v && $6 == 1 { printf \"%g/%g/%s=%d \", $3, $4, $2, $7 }' '".P."'")
fail_key(h, m, s) = h."/".m."/".s."="
fail_at(h, m, s) = sum [k = 1:words(FAILS)] (strstrt(word(FAILS, k), fail_key(h, m, s)) == 1 ? \
  int(word(FAILS, k)[strlen(fail_key(h, m, s)) + 1:]) : 0)
# A diverged run's cross sits on its last row, the step before the one
# that failed or that the divergence guard refused (neither is written);
# an e_n of 0 (a failed first step) at the bottom of the axis.
last_step(h, m, s) = fail_at(h, m, s) > 0 ? int(system("tail -n 1 '".run(h, m, s)."' | cut -d, -f1")) : -1
# Runs whose e_n coincides with an earlier run's in a panel (the same
# divergence step and sum of e_n within 1e-6), as "h/m/RUN" words.
SAME = system("awk -F, -v v='".VARIANT."' 'NR > 1 && $1 == v { k = $3 + 0 \"/\" $4 + 0; " . \
  "for (j = 1; j <= n[k]; j++) { d = $8 - es[k, j]; if (d < 0) d = -d; if ($7 == fs[k, j] && d <= 1e-6 * ($8 < 0 ? -$8 : $8)) break }" . \
  " if (j <= n[k]) printf \"%s/%s=%s \", k, $2, nm[k, j]; else { n[k]++; es[k, n[k]] = $8; fs[k, n[k]] = $7; nm[k, n[k]] = $2 } }' '".P."'")
same_k(h, m, s) = sum [k = 1:words(SAME)] (strstrt(word(SAME, k), h."/".m."/".s."=") == 1 ? k : 0)
same_as(h, m, s) = same_k(h, m, s) > 0
# In how many panels a run coincides, and with which run (the first).
n_same(s) = sum [k = 1:words(SAME)] (strstrt(word(SAME, k), "/".s."=") > 0 ? 1 : 0)
k_same(s) = sum [k = 1:words(SAME)] (strstrt(word(SAME, k), "/".s."=") > 0 && \
  (sum [j = 1:k - 1] (strstrt(word(SAME, j), "/".s."=") > 0 ? 1 : 0)) == 0 ? k : 0)
partner(s) = word(SAME, k_same(s))[strstrt(word(SAME, k_same(s)), "/".s."=") + strlen(s) + 2:]
entry(s) = n_same(s) == 0 ? nm(s) : n_same(s) == NPAN ? nm(s)." = ".nm(partner(s)) : \
  nm(s)." (dotted where = ".nm(partner(s)).")"
dash_of(h, m, s) = same_as(h, m, s) ? 3 : pal_dash(s)
lw_of(h, m, s) = same_as(h, m, s) ? 2.4 : PAL_LW
NPAN = words(HS) * words(MS)
# Every panel on the same time axis: the longest run, steps h.
TEND = real(system("awk -F, -v v='".VARIANT."' 'NR > 1 && $1 == v && $3 * $5 > t { t = $3 * $5 } END { printf \"%.17g\", t }' '".P."'"))
set logscale y
set format y lab("10^{%L}", '$10^{%L}$')
# The y range: from the smallest positive e_n after the first step of any
# run of this variant (a third of it, at most 1e-7) to above the
# divergence threshold.
ELO = real(system("awk -F, 'FNR > 2 && $3 + 0 > 0 && (m == \"\" || $3 + 0 < m) { m = $3 + 0 } END { printf \"%.17g\", m }' ".E.VARIANT."-h*-m*-*.csv"))
ELO = (ELO / 3 < 1e-7 ? ELO / 3 : 1e-7)
set yrange [ELO:10]
YT = (log10(10 / ELO) > 24 ? 1e8 : log10(10 / ELO) > 12 ? 1e4 : 100)
set ytics YT
set xlabel lab("t (s)", '$t$ (s)')
set xrange [0:TEND]
# Layout: the panels, then one key for all below them.
NK = words(RUNS) + (words(FAILS) > 0)
KROWS = int((NK + 1) / 2)
PB = (0.145 * KROWS + 0.15 + 0.45) / FIG_H
PT = 1 - 0.55 / FIG_H
NH = words(HS); NM = words(MS)
PH = (PT - PB - (NH - 1) * 0.7 / FIG_H) / NH
LM = 0.1; PW = (0.98 - LM - (NM - 1) * 0.08) / NM
set multiplot title VTITLE
do for [ih = 1:NH] {
  do for [im = 1:NM] {
    H = word(HS, ih); M = word(MS, im)
    set lmargin at screen LM + (im - 1) * (PW + 0.08)
    set rmargin at screen LM + (im - 1) * (PW + 0.08) + PW
    set tmargin at screen PT - (ih - 1) * (PH + 0.7 / FIG_H)
    set bmargin at screen PT - (ih - 1) * (PH + 0.7 / FIG_H) - PH
    set title sprintf(lab("h = %s s, mass %s kg", '$h = %s$~s, mass %s~kg'), H, M) offset 0, -0.6
    set ylabel (im == 1 ? lab("e_n (m)", '$e_n$ (m)') : "")
    set xlabel lab("t (s)", '$t$ (s)') offset 0, 0.4
    if (ih == 1 && im == 1) {
      eval sprintf("set key at screen 0.5, screen %g center top vertical maxrows %d Left reverse nobox width -3", \
        (0.145 * KROWS + 0.12) / FIG_H, KROWS)
    } else {
      set key off
    }
    # The last steps of the panel's runs, read once (not at every point).
    array LAST[words(RUNS)]
    do for [i = 1:words(RUNS)] { LAST[i] = last_step(H, M, word(RUNS, i)) }
    plot for [i = 1:words(RUNS)] run(H, M, word(RUNS, i)) using "t":"e" with lines \
           lc rgb pal_colour(word(RUNS, i)) dt dash_of(H, M, word(RUNS, i)) \
           lw lw_of(H, M, word(RUNS, i)) title small(entry(word(RUNS, i))), \
         for [i = 1:words(RUNS)] run(H, M, word(RUNS, i)) \
           using (LAST[i] >= 0 && column("step") == LAST[i] ? column("t") : NaN) \
           :(column("e") > ELO ? column("e") : ELO) \
           with points pt 2 ps 1.5 * PSC lw 2 lc rgb "#000000" notitle, \
         keyentry with points pt 2 ps 1.5 * PSC lw 2 lc rgb "#000000" title (words(FAILS) > 0 ? small("diverged or a step failed (the run stops)") : "")
  }
}
unset multiplot
