# scene.gp: a run directory of `cdyn run scene` (or of `cdyn run
# EXPERIMENT`) as `make figures` draws it, with the scripts `cdyn plot`
# uses: the time series of every run (run-series.gp), or, with
# SCENE_FIG = "paths" set first, every run's particle paths
# (run-paths.gp).
#
#   gnuplot -c paper_figs/scene.gp paper_figs RUNDIR pdf|png|cairolatex OUTPUT
#
# paper_figs/scene-double-pendulum.gp and scene-double-pendulum-paths.gp
# set FIGSRC, D (the figures' directory, for the palette), RUNDIR,
# TERM_NAME and OUT_NAME first, and load this.  `cdyn plot DIR` draws the
# same figures and, for a cloth, its states in 3-D (doc/plotting.md).
if (!exists("RUNDIR")) { FIGSRC = ARG1; RUNDIR = ARG2; TERM_NAME = ARG3; OUT_NAME = ARG4 }
load FIGSRC."/run-".(exists("SCENE_FIG") ? SCENE_FIG : "series").".gp"
