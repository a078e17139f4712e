# The bead on the spinning hoop (spinning-hoop): released 0.05 rad from
# its relative equilibrium theta* = pi/3, it should oscillate about it at
# Omega = sqrt(3 g / 2) with a constant amplitude.  Left: theta - theta*
# against time at the coarsest step for the reference and the two
# readings of post-stabilisation (001's, positions only, and with the
# velocity projection) beside implicit; the axis is clipped at +-0.6 rad
# (001's reading leaves the equilibrium and swings around the hoop).
# Right: the amplitude over the last period against the first (1 for the
# exact motion) against h, for every run that stayed at its equilibrium
# and on the hoop; those that did not are named below.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = D."/spinning-hoop/"
S = E."hoop-summary.csv"
TR = E."hoop-trace.csv"
RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".E."runs.csv'")
# Runs that left or stopped at some h (columns 5 stopped, 6 left).
GONE = system("awk -F, 'NR > 1 && $1 != \"reference\" && ($5 == 1 || $6 == 1) && !($1 in s) { s[$1] = 1; printf \"%s \", $1 }' '".S."'")
KEEP = ""
do for [i = 1:words(RUNS)] { if (strstrt(" ".GONE, " ".word(RUNS, i)." ") == 0) { KEEP = KEEP.word(RUNS, i)." " } }
SHOW = "poststab poststab-pv implicit"
FIG_W = 7.0; FIG_H = 3.8
load ARG1."/common.gp"
PAL_X = pal_use(RUNS)
H = system("awk -F, 'NR == 2 { printf \"%g\", $2 }' '".S."'")
set multiplot title lab("Bead on a spinning hoop: oscillation about the relative equilibrium", \
                        'Bead on a spinning hoop: oscillation about the relative equilibrium')
set lmargin at screen 0.09
set rmargin at screen 0.5
set tmargin at screen 1 - 0.5 / FIG_H
set bmargin at screen 0.95 / FIG_H
set xlabel lab("t (s)", '$t$ (s)') offset 0, 0.4
set ylabel lab("{/Symbol q} - {/Symbol q}* (rad)", '$\theta - \theta^*$ (rad)')
set yrange [-0.6:0.6]
set xrange [0:*]
set autoscale xfix
set title lab("h = ".H." s", '$h = '.H.'$~s') offset 0, -0.5
set key top left nobox Left reverse opaque maxrows 2 samplen 1.5
plot TR using (strcol(1) eq "reference" ? $2 : NaN):3 with lines lc rgb "#000000" lw 2.5 title small("reference"), \
     for [i = 1:words(SHOW)] TR using (strcol(1) eq word(SHOW, i) ? $2 : NaN):3 with lines \
       lc rgb pal_colour(word(SHOW, i)) dt pal_dash(word(SHOW, i)) lw PAL_LW title small(word(SHOW, i))
set lmargin at screen 0.6
set rmargin at screen 0.8
set logscale xy
HMIN = real(system("awk -F, 'NR > 1 && (m == \"\" || $2 + 0 < m) { m = $2 + 0 } END { printf \"%.17g\", m }' '".S."'"))
HMAX = real(system("awk -F, 'NR > 1 && $2 + 0 > m { m = $2 + 0 } END { printf \"%.17g\", m }' '".S."'"))
set xrange [HMIN / 1.4:HMAX * 1.4]
set yrange [*:*]
set format x "%g"
# Tics about half a decade apart: closer, their labels run together.
set xtics (0.001, 0.003, 0.01, 0.03)
set xlabel lab("h (s)", '$h$ (s)')
set ylabel lab("amplitude, last period / first", 'amplitude, last period / first') offset 1, 0
set title "Amplitude after 20 s" offset 0, -0.5
set key at screen 0.81, screen 1 - 0.6 / FIG_H left top vertical Left reverse nobox samplen 1.5 maxrows 30
set label 1 small("Not drawn right, having left the equilibrium or the hoop at some h:") at screen 0.09, screen 0.3 / FIG_H left
set label 2 small(GONE) at screen 0.09, screen 0.1 / FIG_H left
plot for [i = 1:words(KEEP)] S using (strcol(1) eq word(KEEP, i) ? $2 : NaN):10 with linespoints \
       lc rgb pal_colour(word(KEEP, i)) dt pal_dash(word(KEEP, i)) pt pal_point(word(KEEP, i)) ps 0.6 * PSC lw PAL_LW \
       title small(word(KEEP, i)), \
     1 with lines ls 4 notitle
unset multiplot
