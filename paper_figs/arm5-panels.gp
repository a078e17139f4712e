# Shared by arm5-improved.gp and arm5-improved-heavy-end.gp (000 fig. 3):
# per-step constraint error e_n against the step for first-order implicit
# and the improved midpoint scheme (both AB2 readings), one panel per step
# size h and mass.  The caller sets VARIANT ("uniform" or "heavy-end")
# and VTITLE.  A run that diverged (e_n above the arm's length) stops
# there; its line ends at the divergence.
E = D."/arm5-improved/"
P = E."panels.csv"
# The panels' h and masses, from panels.csv (column 3 and 4 of the rows
# of this variant), in order of first appearance.
HS = system(sprintf("awk -F, 'NR > 1 && $1 == \"%s\" && !s[$3]++ { printf \"%%g \", $3 }' '%s'", VARIANT, P))
MS = system(sprintf("awk -F, 'NR > 1 && $1 == \"%s\" && !s[$4]++ { printf \"%%g \", $4 }' '%s'", VARIANT, P))
SCH = system(sprintf("awk -F, 'NR > 1 && $1 == \"%s\" && !s[$2]++ { printf \"%%s \", $2 }' '%s'", VARIANT, P))
run(h, m, s) = sprintf("%s%s-h%s-m%s-%s.csv", E, VARIANT, h, m, s)
set logscale y
set format y lab("10^{%L}", "$10^{%L}$")
set yrange [1e-7:10]
set xlabel "step"
set key top left font KEY_SMALL spacing 0.9
set multiplot layout words(HS), words(MS) title VTITLE
do for [ih = 1:words(HS)] {
  do for [im = 1:words(MS)] {
    H = word(HS, ih); M = word(MS, im)
    set title sprintf("h = %s s, mass %s kg", H, M)
    set ylabel (im == 1 ? lab("e_n (m)", "$e_n$ (m)") : "")
    plot for [i = 1:words(SCH)] run(H, M, word(SCH, i)) using "step":"e" with lines \
           ls (i == 1 ? 1 : i == 2 ? 2 : 3) dt int(1 + (i > 2)) title small(word(SCH, i))
  }
}
unset multiplot
