# cloth-robustness: the largest strain of the structural springs over
# time, one curve per variant and run, in one panel: the first run
# (projected-newton by default) solid, the others dashed and thinner, one
# colour per variant; each limit eps_max of the variants drawn in black,
# the rule's bound eps_max + eps_tol dotted; a run that stopped (the rule
# broken: strain beyond the bound, a step not taken, a failed step) ends
# where it stopped, with a cross at (t_stop, its last strain).
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
F = D."/cloth-robustness/cloth-robustness-series.csv"
SUM = D."/cloth-robustness/cloth-robustness.csv"
R = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' '".SUM."'")
V = system("awk -F, 'NR > 1 && !seen[$2]++ { printf \"%s \", $2 }' '".SUM."'")
LIMITS = system("awk -F, 'NR > 1 && !seen[$11]++ { printf \"%s \", $11 }' '".SUM."'")
BOUNDS = system("awk -F, 'NR > 1 && !seen[$12]++ { printf \"%s \", $12 }' '".SUM."'")
SMAX = real(system("awk -F, 'NR > 1 && $18 != \"nan\" && $18 + 0 > m { m = $18 + 0 } END { print m + 0 }' '".SUM."'"))
NR = words(R)
NV = words(V)
KROWS = int((NV + NR + 2 + 3) / 4)
FIG_W = 7; FIG_H = 3.2 + 0.145 * KROWS
load ARG1."/common.gp"
# One colour per variant (none of the reference lines' black or grey).
VCOL = "#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b #e377c2 #17becf #bcbd22 #393b79 #e6a100 #637939 #7b4173"
vcol(i) = word(VCOL, (i - 1) % words(VCOL) + 1)
rdash(j) = j == 1 ? 1 : j
rlw(j) = j == 1 ? 2.0 * PAL_LW : PAL_LW
YMAX = SMAX * 1.15 > 0.15 ? (SMAX * 1.15 < 1 ? SMAX * 1.15 : 1) : 0.15
eval key_below(KROWS, 4)
set key nobox Left reverse samplen 2.5
set title "Hanging cloth in variants: largest strain of the structural springs"
set xlabel lab("t (s)", '$t$ (s)')
set ylabel lab("largest strain ε", 'largest strain $\varepsilon$')
set yrange [0:YMAX]
set xrange [0:*]
plot for [l = 1:words(LIMITS)] real(word(LIMITS, l)) with lines ls 5 \
       title (l == 1 ? small(lab("ε_{max}", '$\varepsilon_{\max}$')) : ""), \
     for [l = 1:words(BOUNDS)] real(word(BOUNDS, l)) with lines ls 9 \
       title (l == 1 ? small(lab("ε_{max} + ε_{tol}", '$\varepsilon_{\max} + \varepsilon_{\mathrm{tol}}$')) : ""), \
     for [j = 1:NR] NaN with lines lc rgb "#000000" dt rdash(j) lw rlw(j) title small(nm(word(R, j))), \
     for [i = 1:NV] for [j = 1:NR] F using (strcol(1) eq word(R, j) && strcol(2) eq word(V, i) ? $4 : NaN):6 \
       with lines lc rgb vcol(i) dt rdash(j) lw rlw(j) title (j == 1 ? small(nm(word(V, i))) : ""), \
     for [i = 1:NV] for [j = 1:NR] SUM using (strcol(1) eq word(R, j) && strcol(2) eq word(V, i) && $16 == 0 ? $17 : NaN):19 \
       with points lc rgb vcol(i) pt 2 ps 1.2 * PSC notitle
