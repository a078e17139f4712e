# The energy drift |E(T) - E(0)| / (m g L) at T = 1 s of every run of the
# convergence experiment against h, laid out as convergence.gp lays out
# the position error (which it loads).
FIGSRC = ARG1; D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
QTY = "drift"
load FIGSRC."/convergence.gp"
