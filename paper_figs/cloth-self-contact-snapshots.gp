# cloth-self-contact: the cloth draping over the fixed ball and folding
# onto itself, one panel per run and snapshot time (the plot of
# cloth-contact-snapshots.gp on this experiment's output: no posts).
# load passes no ARGn on: the shared script reads them from these.
FIGSRC = ARG1; D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4
E = "cloth-self-contact"
TITLE = "A cloth dropped onto a ball"
POSTS = ""
load ARG1."/cloth-contact-snapshots.gp"
