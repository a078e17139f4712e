# cloth-self-contact: the cloth draping over the fixed ball and folding
# onto itself, one row per run, one column per snapshot time (the plot of
# cloth-contact-snapshots.gp on this experiment's output, with a view
# that holds the hanging cloth).
# load passes no ARGn on: the shared script reads them from these.
FIGSRC = ARG1; D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = "cloth-self-contact"
TITLE = "A cloth dropped onto a ball: triangles in a cloth-cloth contact orange, at the ball green"
XR0 = -0.95; XR1 = 0.95; YR0 = -1.45; YR1 = 0.45
load ARG1."/cloth-contact-snapshots.gp"
