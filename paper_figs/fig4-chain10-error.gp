# 001 fig. 4: per-step constraint error e_n of the 10-link saw-tooth chain
# with both ends pinned, h = 0.001, from the exact saw tooth (the
# unperturbed run of chain10-stability), one line per run (runs.csv), log
# scale.  A run that fails (e_n > fail_tol, a failed or non-finite step:
# failures.csv, trial 0) ends there, marked with a cross.  poststab-mass
# (mass-weighted projection) is compared bitwise with poststab
# (summary.csv, identical_to_poststab): when every run of it is identical,
# the key says so and its dotted line lies on poststab's.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = D."/chain10-stability/"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".E."runs.csv'")
# The key below the plot in two columns: the runs, the cross, the threshold.
KROWS = int((words(RUNS) + 3) / 2)
FIG_W = 7.0; FIG_H = 2.5 + 0.145 * KROWS + 0.1
load ARG1."/common.gp"
PAL_X = pal_use(RUNS)
S = E."summary.csv"
FL = E."failures.csv"
# Runs identical to poststab in every one of their runs (and compared).
IDENT = system("awk -F, 'NR > 1 && $12 >= 0 && $12 == $2 { printf \"%s \", $1 }' '".S."'")
NID(r) = int(system("awk -F, '$1 == \"".r."\" { print $12 }' '".S."'"))
NRUNS(r) = int(system("awk -F, '$1 == \"".r."\" { print $2 }' '".S."'"))
entry(r) = in_list(r, IDENT) ? \
  sprintf("%s = poststab (bitwise, %d of %d runs)", \
          nm(r), NID(r), NRUNS(r)) : nm(r)
dash_of(r) = in_list(r, IDENT) ? 3 : pal_dash(r)
lw_of(r) = in_list(r, IDENT) ? 2.4 : PAL_LW
# The failure step of each run's unperturbed start (trial 0), and whether
# any failed.
FAILS = system("awk -F, 'NR > 1 && $2 == 0 && $3 == 1 { printf \"%s=%s \", $1, $4 }' '".FL."'")
fail_step(r) = sum [k = 1:words(FAILS)] (strstrt(word(FAILS, k), r."=") == 1 ? int(word(FAILS, k)[strlen(r) + 2:]) : 0)
NFAIL = words(FAILS)
# The failure threshold, from the run's metadata.
FT = real(system("sed -n 's/.*\"fail_tol\": \"\\([^\"]*\\)\".*/\\1/p' '".E."summary.meta.json' | head -n 1"))
STEPS = system("sed -n 's/^  \"steps\": \\([0-9]*\\),$/\\1/p' '".E."summary.meta.json'")
H = system("awk -F, 'NR == 3 { printf \"%g\", $2 }' '".E.word(RUNS, 1).".csv'")
set title lab("10-link chain, both ends pinned, h = ".H." s: constraint error per step", \
  '10-link chain, both ends pinned, $h = '.H.'$~s: constraint error per step')
set xlabel "step"
set ylabel lab("e_n (m)", '$e_n$ (m)')
set logscale y
set format y lab("10^{%L}", '$10^{%L}$')
FILES = ""
do for [i = 1:words(RUNS)] { FILES = FILES." '".E.word(RUNS, i).".csv'" }
YR = pos_range(FILES, "e")
set ytics log_step(real(word(YR, 1)), FT * 4)
set xrange [0:STEPS]
set yrange [real(word(YR, 1)) / 2:FT * 4]
eval key_below(KROWS, 2)
set key Left reverse nobox samplen 2 width -6
plot for [i = 1:words(RUNS)] E.word(RUNS, i).".csv" using "step":"e" with lines \
       lc rgb pal_colour(word(RUNS, i)) dt dash_of(word(RUNS, i)) lw lw_of(word(RUNS, i)) title small(entry(word(RUNS, i))), \
     for [i = 1:words(RUNS)] E.word(RUNS, i).".csv" \
       using ((fail_step(word(RUNS, i)) > 0 && column("step") == fail_step(word(RUNS, i))) ? column("step") : NaN):"e" \
       with points pt 2 ps 1.6 * PSC lw 2 lc rgb "#000000" notitle, \
     NaN with points pt 2 ps 1.6 * PSC lw 2 lc rgb "#000000" \
       title (NFAIL > 0 ? small(lab("run fails (e_n > fail\\_tol)", 'run fails ($e_n >$ fail\_tol)')) : ""), \
     FT with lines ls 4 title small(lab(sprintf("fail\\_tol = %g m", FT), sprintf('fail\_tol $= %g$~m', FT)))
