# The example scene examples/double-pendulum.json as `make figures` runs
# it (figures/scene-double-pendulum/, three schemes): every run's time
# series, drawn by paper_figs/scene.gp (run-series.gp, as `cdyn plot`).
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4; FIGSRC = ARG1
RUNDIR = D."/scene-double-pendulum"
load FIGSRC."/scene.gp"
