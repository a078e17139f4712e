# The velocity error max_i |v_i - v_i^ref| at T = 1 s of every run of the
# convergence experiment against h, laid out as convergence.gp lays out
# the position error (which it loads), the runs grouped by their declared
# velocity order.
FIGSRC = ARG1; D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
QTY = "vel"
load FIGSRC."/convergence.gp"
