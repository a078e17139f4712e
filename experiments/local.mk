# experiments/local.mk: the cdyn program, which runs the experiments and
# writes the claims report (`make figures` runs it: paper_figs/local.mk).
# Included by the top Makefile.am; paths are relative to the top directory.
bin_PROGRAMS = cdyn
# The experiments' files come from experiments/experiments.def (through
# lib/types.am, which ./autogen.sh writes); the rest is the framework.
cdyn_SOURCES = experiments/main.c experiments/experiment.h experiments/common.c \
	experiments/experiments.def experiments/claims.c experiments/claims.h experiments/claimdefs.c \
	experiments/runner.c experiments/capture.c experiments/scene_run.h experiments/scene_run.c experiments/columns.c experiments/problems.h experiments/problems.c \
	experiments/contact_problems.h experiments/contact_problems.c experiments/ccd_queries.h \
	experiments/ccd_queries.c experiments/sweep.h experiments/sweep.c $(EXPERIMENT_SOURCES)
cdyn_LDADD = lib/libcdyn.la reference/libcdynref.la $(DEPS_LIBS) $(DL_LIBS)
nodist_cdyn_SOURCES = build-info.h

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
