# cloth-self-contact: distances against the thickness and crossings over
# time, per run (the plot of cloth-contact-distance.gp on this experiment's
# output): top, the smallest distance between non-adjacent mesh elements;
# middle, the smallest gap between a node and the ball; bottom, the
# cumulative crossings found by the exact replay (log scale).
# load passes no ARGn on: the shared script reads them from these.
FIGSRC = ARG1; D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = "cloth-self-contact"
TITLE = "A cloth draped over a ball and folding onto itself: distances against the thickness, and crossings"
load ARG1."/cloth-contact-distance.gp"
