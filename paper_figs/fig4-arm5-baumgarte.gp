# 000 fig. 4: per-step constraint error e_n of the falling 5-link arm, one
# line per run of arm5-baumgarte (runs.csv): explicit Baumgarte
# (alpha = beta = 2) against first-order implicit, and any extra scheme.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = D."/arm5-baumgarte/"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".E."runs.csv'")
NR = words(RUNS)
FIG_W = 3.3; FIG_H = 2.25 + 0.145 * NR
load ARG1."/common.gp"
PAL_X = pal_use(RUNS)
# The step size of the run: t at step 1.
H = system("awk -F, 'NR == 3 { printf \"%g\", $2 }' '".E.word(RUNS, 1).".csv'")
# Baumgarte's parameters, from the experiment's record.
par(k) = system("sed -n 's/^ *\"".k."\": \"\\([^\"]*\\)\".*/\\1/p' '".E."runs.meta.json' | head -n 1")
AL = par("alpha"); BE = par("beta")
set title lab("5-link arm, h = ".H." s\nbaumgarte: {/Symbol a} = ".AL.", {/Symbol b} = ".BE, \
  '5-link arm, $h = '.H.'$~s'."\n".'baumgarte: $\alpha = '.AL.'$, $\beta = '.BE.'$')
set xlabel "step"
set ylabel lab("e_n (m)", '$e_n$ (m)')
set logscale y
set format y lab("10^{%L}", '$10^{%L}$')
FILES = ""
do for [i = 1:NR] { FILES = FILES." '".E.word(RUNS, i).".csv'" }
YR = pos_range(FILES, "e")
set ytics log_step(real(word(YR, 1)), real(word(YR, 2)))
set xrange [0:*]
set autoscale xfix
eval key_below(NR, 1)
set key nobox Left reverse
plot for [i = 1:NR] E.word(RUNS, i).".csv" using "step":"e" with lines \
       lc rgb pal_colour(word(RUNS, i)) dt pal_dash(word(RUNS, i)) lw PAL_LW \
       title small(run_label("arm5-baumgarte", word(RUNS, i)))
