# experiments/local.mk: the cdyn program, which runs the experiments and
# writes the claims report (`make figures` runs it: paper_figs/local.mk).
# Included by the top Makefile.am; paths are relative to the top directory.
bin_PROGRAMS = cdyn
# The rooms of the program, from the bottom up (README.md, "Layout"):
#   runner/    what runs an experiment and writes its results: parameters,
#              CSV files with their metadata records, the claims' rules and
#              verdicts, the runner and its watch, a scene file as an
#              experiment, export's capture, and the helpers every command
#              shares (lists, the CSV reader, text, the command line,
#              files);
#   problems/  the systems, references, scenes and queries several
#              experiments share;
#   studies/   the experiments, one file each, named after the experiment,
#              and their table (studies/experiments.def, whose files come
#              through lib/types.am, which ./autogen.sh writes);
#   runargs.c, rundir.c, gnuplot.c, usage.c at the top: what the
#              commands share (the checks of a run's arguments, the
#              run-directory reader, drawing with gnuplot and the figures'
#              palette, the usage texts);
#   commands/  one file per command word of the program;
#   main.c     the entry, which hands each command word to its file.
# Each room calls only into the rooms listed before it (tests/rooms.test).
# runner/, problems/, runargs.c and rundir.c are a convenience library
# that cdyn and the tests of the experiments both link.  runargs.c finds
# experiments in studies/table.c, which only cdyn links: a program that
# links the library and calls runargs.c links the studies too (the tests
# call what they need below it).
noinst_LTLIBRARIES += experiments/libcdynexp.la
experiments_libcdynexp_la_SOURCES = experiments/runner/experiment.h experiments/runner/claims.h \
	experiments/runner/claims.c experiments/runner/params.c experiments/runner/output.c \
	experiments/runner/verdicts.c experiments/runner/runner.c \
	experiments/runner/watch.c experiments/runner/capture.c experiments/runner/columns.c \
	experiments/runner/scene.c \
	experiments/runner/text.h experiments/runner/text.c experiments/runner/cli.h experiments/runner/cli.c \
	experiments/runner/files.h experiments/runner/files.c experiments/runner/lists.h experiments/runner/lists.c \
	experiments/runner/csv.h experiments/runner/csv.c \
	experiments/problems/problems.h experiments/problems/problems.c experiments/problems/stable_search.c \
	experiments/problems/contact_problems.h experiments/problems/contact_problems.c \
	experiments/problems/ccd_queries.h experiments/problems/ccd_queries.c \
	experiments/problems/arm2_runs.h experiments/problems/arm2_runs.c \
	experiments/problems/arm5_runs.h experiments/problems/arm5_runs.c \
	experiments/problems/cloth_scene.h experiments/problems/cloth_scene.c \
	experiments/problems/cloth_contact_scene.h experiments/problems/cloth_contact_scene.c \
	experiments/problems/replay_queue.h experiments/problems/replay_queue.c \
	experiments/runargs.h experiments/runargs.c experiments/rundir.h experiments/rundir.c
experiments_libcdynexp_la_CPPFLAGS = $(CDYN_PROGRAM_CPPFLAGS)
cdyn_SOURCES = experiments/main.c experiments/commands.h experiments/usage.h experiments/usage.c \
	experiments/gnuplot.h experiments/gnuplot.c \
	experiments/commands/list.c experiments/commands/palette.c \
	experiments/commands/run.c experiments/commands/export.c \
	experiments/commands/check.c experiments/commands/replay.c \
	experiments/commands/sweep.c experiments/commands/collect.c experiments/commands/report.c \
	experiments/commands/plot.c experiments/commands/animate.c experiments/commands/view.c \
	experiments/studies/experiments.def experiments/studies/table.h experiments/studies/table.c \
	$(EXPERIMENT_SOURCES)
# Where `cdyn list` says the manual is installed, and where `cdyn plot`
# finds its scripts: installed, else (a program not installed) the source
# tree's.
CDYN_PROGRAM_CPPFLAGS = $(AM_CPPFLAGS) -DCDYN_DOCDIR='"$(docdir)"' -DCDYN_PKGDATADIR='"$(pkgdatadir)"' \
	-DCDYN_SRCFIGS='"$(abs_top_srcdir)/paper_figs"'
cdyn_CPPFLAGS = $(CDYN_PROGRAM_CPPFLAGS)
cdyn_LDADD = experiments/libcdynexp.la lib/libcdyn.la reference/libcdynref.la $(DEPS_LIBS) $(DL_LIBS)
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
$(cdyn_OBJECTS) $(experiments_libcdynexp_la_OBJECTS): build-info.h
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
$(cdyn_OBJECTS) $(experiments_libcdynexp_la_OBJECTS): viewer-html.h
DISTCLEANFILES += viewer-html.h
EXTRA_DIST += experiments/viewer.html
