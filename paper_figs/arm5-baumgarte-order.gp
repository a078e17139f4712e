# Beyond 000 fig. 4: the order of Baumgarte and implicit on the 5-link arm,
# errors at T = 1 s against the reduced-coordinate reference.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 8.0; FIG_H = 3.6
load ARG1."/common.gp"
EXPDIR = "arm5-baumgarte"
OTITLE = "5-link arm: errors at T = 1 s against h"
load ARG1."/arm5-order.gp"
