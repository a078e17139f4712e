# The example scene examples/double-pendulum.json as `make figures` runs
# it (figures/scene-double-pendulum/), drawn by paper_figs/scene.gp.
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4; FIGSRC = ARG1
RUNDIR = D."/scene-double-pendulum"
load FIGSRC."/scene.gp"
