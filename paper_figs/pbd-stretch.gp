# 004: position-based dynamics with few iterations makes constraints look
# soft.  Stretch of a hanging 10-link chain against Gauss-Seidel sweeps
# per step, one line per run of pbd-stretch.csv (XPBD with compliance 0).
# A run equal to an earlier one at every K (within 0.1 %) is drawn as
# symbols on its line, and the key says so.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 3.3; FIG_H = 2.6
load ARG1."/common.gp"
F = D."/stiff-pendulum/pbd-stretch.csv"
S = schemes_of(F)
PAL_X = pal_use(S)
CO = coinc(F, "$2", 3, S, 1e-3)
# The step size, from the file's note ("h = 0.01").
H = system("sed -n 's/.*\"note\": \".*h = \\([0-9.e+-]*\\).*/\\1/p' '".D."/stiff-pendulum/pbd-stretch.meta.json' | head -n 1")
set title lab("Hanging 10-link chain, h = ".H." s", 'Hanging 10-link chain, $h = '.H.'$~s')
set logscale xy
set format y lab("10^{%L}", '$10^{%L}$')
set xlabel lab("Gauss-Seidel sweeps per step K", 'Gauss--Seidel sweeps per step $K$')
set ylabel lab("e_n / length", '$e_n$ / length')
set autoscale fix
set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06
set key top right nobox Left reverse
plot for [i = 1:words(S)] F using (strcol(1) eq word(S, i) && co_entry(word(S, i)) == 0 ? $2 : NaN):3 with linespoints \
       lc rgb pal_colour(word(S, i)) dt pal_dash(word(S, i)) lw PAL_LW pt pal_point(word(S, i)) ps 0.9 * PSC \
       title (co_entry(word(S, i)) == 0 ? small(co_label(word(S, i))) : ""), \
     for [i = 1:words(S)] F using (strcol(1) eq word(S, i) && co_entry(word(S, i)) > 0 ? $2 : NaN):3 with points \
       lc rgb pal_colour(word(S, i)) pt pal_point(word(S, i)) ps 1.4 * PSC lw 1.2 \
       title (co_entry(word(S, i)) > 0 ? small(co_label(word(S, i))) : "")
