# The multiplier error of every run of the convergence experiment against
# h: the last step's multipliers against the exact constraint force at
# the time within the step that the scheme's multipliers belong to, the
# largest over the rows (N).  Laid out as convergence.gp lays out the
# position error (which it loads), the runs grouped by their declared
# multiplier order; runs whose multipliers are not the constraint force
# are left out and named.
FIGSRC = ARG1; D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
QTY = "lambda"
load FIGSRC."/convergence.gp"
