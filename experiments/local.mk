# experiments/local.mk: the cdyn program, which runs the experiments and
# writes the claims report (`make figures` runs it: paper_figs/local.mk).
# Included by the top Makefile.am; paths are relative to the top directory.
bin_PROGRAMS = cdyn
# The experiments' files come from experiments/experiments.def (through
# lib/types.am, which ./autogen.sh writes); the rest is the framework.
# The layers, from the top: main.c dispatches to the commands (cmd_*.c,
# scene_run.c's check, report.c's report); run, export and sweep parse and
# check a run's arguments with runargs.c; every command writes through
# cmdutil.c.  The commands find the experiments in table.c (from
# experiments.def); the experiments stand on the framework: their
# parameters, output and metadata (common.c), the runner (runner.c),
# export (capture.c), the claims' rules and verdicts (claimdefs.c), column
# documentation (columns.c) and the shared problems.
cdyn_SOURCES = experiments/main.c experiments/commands.h experiments/usage.c \
	experiments/cmd_list.c experiments/cmd_run.c experiments/cmd_sweep.c experiments/cmd_collect.c \
	experiments/cmd_view.c \
	experiments/runargs.h experiments/runargs.c experiments/cmdutil.h experiments/cmdutil.c \
	experiments/rundir.h experiments/rundir.c \
	experiments/experiment.h experiments/common.c experiments/experiments.def experiments/table.c \
	experiments/report.c experiments/claims.h experiments/claimdefs.c \
	experiments/runner.c experiments/watch.c experiments/capture.c experiments/scene_run.c experiments/columns.c \
	experiments/problems.h experiments/problems.c \
	experiments/contact_problems.h experiments/contact_problems.c experiments/ccd_queries.h \
	experiments/ccd_queries.c experiments/cmd_plot.c $(EXPERIMENT_SOURCES)
# Where `cdyn list` says the manual is installed, and where `cdyn plot`
# finds its scripts: installed, else (a program not installed) the source
# tree's.
cdyn_CPPFLAGS = $(AM_CPPFLAGS) -DCDYN_DOCDIR='"$(docdir)"' -DCDYN_PKGDATADIR='"$(pkgdatadir)"' \
	-DCDYN_SRCFIGS='"$(abs_top_srcdir)/paper_figs"'
cdyn_LDADD = lib/libcdyn.la reference/libcdynref.la $(DEPS_LIBS) $(DL_LIBS)
nodist_cdyn_SOURCES = build-info.h viewer-html.h

# The build's provenance for every metadata record: the git commit, whether
# the tree was modified, and the compiler flags.  Rewritten at every make,
# but replaced only when it changed, so an unchanged tree rebuilds nothing.
build-info.h: FORCE
	@$(SHELL) $(srcdir)/build-aux/build-info.sh $(srcdir) '$(CFLAGS)' > $@.tmp && \
	  if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
FORCE:
BUILT_SOURCES += build-info.h
# BUILT_SOURCES serve `make`, `make check` and `make install`; `make
# figures` builds cdyn directly, so its objects name the header too.
$(cdyn_OBJECTS): build-info.h
DISTCLEANFILES = build-info.h
EXTRA_DIST += build-aux/build-info.sh

# The page of `cdyn view`: experiments/viewer.html as a C array of its
# bytes (NUL-terminated), built into the program so that it needs no file
# at run time.
viewer-html.h: $(srcdir)/experiments/viewer.html
	@{ echo '/* experiments/viewer.html, made by make: do not edit. */'; \
	  echo 'static const char viewer_html[] = {'; \
	  od -An -v -tu1 < $(srcdir)/experiments/viewer.html | sed -e 's/  */,/g' -e 's/^,//' -e 's/$$/,/'; \
	  echo '0};'; } > $@.tmp && mv $@.tmp $@
BUILT_SOURCES += viewer-html.h
$(cdyn_OBJECTS): viewer-html.h
DISTCLEANFILES += viewer-html.h
EXTRA_DIST += experiments/viewer.html
