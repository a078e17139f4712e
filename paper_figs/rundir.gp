# rundir.gp: what the run scripts (run-series.gp, run-paths.gp,
# run-states.gp, run-animate.gp) share: the runs of a run directory and
# their files.  A script sets, before loading it,
#   FIGSRC  the directory of the scripts (for rundir.awk)
#   RUNDIR  the run directory (`cdyn run scene` or `cdyn run EXPERIMENT`)
# and may set RUNS (space-separated run names; default: every run of
# RUNDIR/runs.csv), CSV_PREFIX (below) and STEM (the figure's title; default: the scene's
# name, else the directory's).  A scene run's files are NAME-RUN.csv and
# NAME-RUN-state.csv (NAME from NAME-summary.csv); an experiment's RUN.csv.
if (!exists("RUNDIR")) { print "rundir.gp: RUNDIR is not set"; exit status 1 }
RD_AWK = "awk -f '".FIGSRC."/rundir.awk'"
RD_SUMMARY = system("ls '".RUNDIR."'/*-summary.csv 2>/dev/null | head -n 1")
NAME = strlen(RD_SUMMARY) ? system("basename '".RD_SUMMARY."' -summary.csv") : ""
if (!exists("RUNS")) { RUNS = system("awk -F, 'NR > 1 { printf \"%s \", $1 }' '".RUNDIR."/runs.csv'") }
if (!exists("STEM")) { STEM = strlen(NAME) ? NAME : system("basename '".RUNDIR."'") }
NRUNS = words(RUNS)
# A run's CSV is RUNDIR/CSV_PREFIX.RUN.csv: CSV_PREFIX is "NAME-" for a
# scene, "" for most experiments; `cdyn plot` sets it for the others
# (billiard's series-RUN.csv).
if (!exists("CSV_PREFIX")) { CSV_PREFIX = strlen(NAME) ? NAME."-" : "" }
series(r) = RUNDIR."/".CSV_PREFIX.r.".csv"
meta(r) = RUNDIR."/".CSV_PREFIX.r.".meta.json"
state(r) = RUNDIR."/".NAME."-".r."-state.csv"
has_file(f) = system("test -f '".f."' && echo 1 || echo 0") eq "1"
# The file of a run that holds its positions: its state CSV, else its CSV
# (node columns x0, y0, z0, ...).
posfile(r) = (strlen(NAME) && has_file(state(r))) ? state(r) : series(r)
# A tick step that gives about n intervals over a span: 1, 2 or 5 times a
# power of ten.
nice_r(f, m) = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * m
nice(span, n) = span <= 0 ? 1 : nice_r(span / n / 10 ** floor(log10(span / n)), 10 ** floor(log10(span / n)))
