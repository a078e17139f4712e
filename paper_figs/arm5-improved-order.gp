# Beyond 000 fig. 3: the order of implicit and the improved scheme on the
# 5-link arm, errors at T = 1 s against the reduced-coordinate reference.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 8.0; FIG_H = 3.6
load ARG1."/common.gp"
EXPDIR = "arm5-improved"
OTITLE = "5-link arm: errors at T = 1 s against h"
load ARG1."/arm5-order.gp"
