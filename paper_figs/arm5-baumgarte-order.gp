# Beyond 000 fig. 4: the order of Baumgarte and implicit on the 5-link arm,
# errors at T = 1 s against the reduced-coordinate reference.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
EXPDIR = "arm5-baumgarte"
NRUNS = int(system("awk 'END { print NR - 1 }' '".D."/".EXPDIR."/runs.csv'"))
FIG_W = 7.0; FIG_H = 2.6 + 0.145 * (NRUNS + 2)
load ARG1."/common.gp"
OTITLE = lab("5-link arm: errors at T = 1 s against h", '5-link arm: errors at $T = 1$~s against $h$')
load ARG1."/arm5-order.gp"
