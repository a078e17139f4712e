# cloth-self-contact: the cost per step of each run (detection, solve,
# fail-safe) beside the unconstrained step, with (detection + solves +
# fail-safe) / unconstrained step at the run's states above each run (the plot of cloth-contact-cost.gp on
# this experiment's output).  Wall-clock times: they change from run to run.
# load passes no ARGn on: the shared script reads them from these.
FIGSRC = ARG1; D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = "cloth-self-contact"
TITLE = "A cloth dropped onto a ball: cost per step"
load ARG1."/cloth-contact-cost.gp"
