# The example scene examples/double-pendulum.json as `make figures` runs
# it: every run's paths of the two bobs, one panel per run, drawn by
# paper_figs/scene.gp (run-paths.gp, as `cdyn plot`).
D = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4; FIGSRC = ARG1
RUNDIR = D."/scene-double-pendulum"
SCENE_FIG = "paths"
load FIGSRC."/scene.gp"
