# 001 fig. 4: per-step constraint error e_n of the 10-link saw-tooth chain
# with both ends pinned, h = 0.001, from the exact saw tooth (the
# unperturbed run of chain10-stability), one line per run, log scale.  A
# run that fails (e_n > fail_tol, a failed or non-finite step) ends there.
# poststab-mass (mass-weighted projection) is dashed: with equal masses it
# coincides with poststab.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 6.5; FIG_H = 4.2
load ARG1."/common.gp"
E = D."/chain10-stability/"
RUNS = schemes_of(E."summary.csv")
set style line 6 lc rgb "#9467bd" lw 1.2
set style line 7 lc rgb "#ff7f0e" lw 1.2
set style line 8 lc rgb "#17becf" lw 1.5 dt 2
# Line style and legend of a run name.
style(s) = s eq "baumgarte" ? 1 : s eq "poststab" ? 2 : s eq "implicit" ? 3 : s eq "improved" ? 6 : \
           s eq "rattle" ? 7 : s eq "poststab-mass" ? 8 : 4
name(s) = s eq "baumgarte" ? lab("Baumgarte ({/Symbol a} = {/Symbol b} = 2)", "Baumgarte ($\\alpha = \\beta = 2$)") : \
          s eq "poststab" ? "post-stabilisation (unit weighting)" : \
          s eq "poststab-mass" ? "post-stabilisation (mass weighting)" : \
          s eq "implicit" ? "implicit" : s eq "improved" ? "improved (midpoint)" : \
          s eq "rattle" ? "RATTLE" : s
set title "10-link chain, both ends pinned, h = 0.001: constraint error per step (001 fig. 4)"
set xlabel "step"
set ylabel lab("e_n = {/Symbol S}_c ||{/Symbol F}_c||  (m)", "$e_n = \\sum_c \\|\\Phi_c\\|$ (m)")
set logscale y
set format y lab("10^{%L}", "$10^{%L}$")
set ytics 100
# Room above the curves for the key.
set yrange [1e-16:1e4]
set key inside top center horizontal maxrows 3 font KEY_SMALL
# The failure threshold, from the run's metadata.
FT = real(system("sed -n 's/.*\"fail_tol\": \"\\(.*\\)\".*/\\1/p' '".E."summary.meta.json'"))
plot for [i = 1:words(RUNS)] E.word(RUNS, i).".csv" using "step":"e" with lines ls style(word(RUNS, i)) \
       title small(name(word(RUNS, i))), \
     FT with lines ls 4 title small(lab("failure threshold fail\\_tol", "failure threshold fail\\_tol"))
