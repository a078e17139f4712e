# 001 fig. 2: per-step constraint error e_n of the falling 2-link arm,
# h = 0.05, 1460 steps, one line per run of arm2-drift (runs.csv): the
# paper's Baumgarte, post-stabilisation and implicit, any extra scheme,
# and Baumgarte without feedback (alpha = beta = 0) for context.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = D."/arm2-drift/"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".E."runs.csv'")
NR = words(RUNS)
# One column, the key below the plot, one run a row, without a box.
FIG_W = 3.3; FIG_H = 2.1 + 0.145 * NR
load ARG1."/common.gp"
PAL_X = pal_use(RUNS)
H = system("awk -F, 'NR == 3 { printf \"%g\", $2 }' '".E.word(RUNS, 1).".csv'")
set title lab("2-link arm, h = ".H." s", '2-link arm, $h = '.H.'$~s')
set xlabel "step"
set ylabel lab("e_n (m)", '$e_n$ (m)')
set logscale y
set format y lab("10^{%L}", '$10^{%L}$')
FILES = ""
do for [i = 1:NR] { FILES = FILES." '".E.word(RUNS, i).".csv'" }
YR = pos_range(FILES, "e")
set ytics log_step(real(word(YR, 1)), real(word(YR, 2)))
set xtics 500
set xrange [0:*]
eval key_below(NR, 1)
set key nobox Left reverse samplen 1.5
plot for [i = 1:NR] E.word(RUNS, i).".csv" using "step":"e" with lines \
       lc rgb pal_colour(word(RUNS, i)) dt pal_dash(word(RUNS, i)) lw PAL_LW \
       title small(run_label("arm2-drift", word(RUNS, i)))
