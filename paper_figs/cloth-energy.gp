# cloth-elongation: the cloth's energy over time (kinetic, gravity's and
# every spring's elastic energy, constrained or not), per run.  The
# springs' damping and Baraff-Witkin's numerical damping take energy out;
# the ball, which moves on a prescribed path, puts energy in from t = 1.4 s.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
F = D."/cloth-elongation/cloth-elongation.csv"
S = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' '".F."'")
NS = words(S)
KROWS = int((NS + 2) / 3)
FIG_W = 7; FIG_H = 2.8 + 0.145 * KROWS
load ARG1."/common.gp"
PAL_X = pal_use(S)
eval key_below(KROWS, 3)
set key nobox Left reverse samplen 2
set title "Falling cloth pushed by a ball: energy"
set xlabel lab("t (s)", '$t$ (s)')
set ylabel lab("E (J)", '$E$ (J)')
set yrange [*:*]
plot for [i = 1:NS] F using (strcol(1) eq word(S, i) && abs($12) < 100 ? $2 : NaN):12 with lines \
       lc rgb pal_colour(word(S, i)) dt pal_dash(word(S, i)) lw PAL_LW title small(nm(word(S, i)))
