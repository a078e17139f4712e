# 000 fig. 3: the falling 5-link arm, first-order implicit against the
# improved midpoint scheme; h in {0.01, 0.1} x mass in {1, 50} (every node).
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
FIG_W = 7.0; FIG_H = 5.4
load ARG1."/common.gp"
VARIANT = "uniform"
VTITLE = "5-link arm, every node of the given mass"
load ARG1."/arm5-panels.gp"
