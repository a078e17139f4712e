# tests/local.mk: the Check test programs (one per suite, so that make -j
# runs them in parallel), run through automake's TAP driver by `make check`,
# and `make check-valgrind`.  Included by the top Makefile.am; paths are
# relative to the top directory.
# Every test program links the library, the references and Check (LDADD
# is the default of every program without its own _LDADD: cdyn has one),
# and is built from tests/NAME.c unless it lists its sources.
TESTS_LIBS = experiments/libcdynexp.la lib/libcdyn.la reference/libcdynref.la $(CHECK_LIBS) $(DEPS_LIBS)
LDADD = $(TESTS_LIBS)
AM_CFLAGS += $(CHECK_CFLAGS)
TEST_DATA_CPPFLAGS = $(AM_CPPFLAGS) -DCDYN_TEST_DATA='"$(abs_top_srcdir)/tests/data"'
# Check is needed for `make check` only.  Without it (configure warns), the
# library and cdyn build and install, and `make check` stops with the
# remedy before it builds or runs any test: check-am makes check_SCRIPTS
# before it runs the tests, and this one's rule fails.
if HAVE_CHECK
# The longest tests come first: `make -j2 check` starts them in this
# order (after the scripts below), so that no long one starts last and
# runs alone.  Under AddressSanitizer test_cloth_experiments took 45 s,
# test_ccd 38 s, test_census 24 s, test_cloth and test_ccd_filter 17 s,
# test_cli 11 s; the others under 9 s each.
check_PROGRAMS = $(EXPERIMENT_TESTS) tests/test_ccd tests/test_census tests/test_cloth tests/test_ccd_filter \
	tests/test_constraints tests/test_constraint_derivatives tests/test_solvers tests/test_schemes \
	tests/test_ab2 \
	tests/test_reference tests/test_reference_bead tests/test_reference_kkt \
	tests/test_errors tests/test_alloc tests/test_fdhess \
	tests/test_forces \
	tests/test_soft \
	tests/test_nonlinear \
	tests/test_arms \
	tests/test_lcp \
	tests/test_lcp_corpus \
	tests/test_subsolve \
	tests/test_ccd_census \
	tests/test_contact \
	tests/test_switching \
	tests/test_contacts tests/test_failsafe tests/test_scene \
	tests/test_oom tests/test_solver_register
else !HAVE_CHECK
check_SCRIPTS = tests/check-not-found
tests/check-not-found:
	@echo "make check needs Check (>= 0.11), which ./configure did not find." >&2
	@echo "On Debian: apt-get install check, then re-run ./configure." >&2
	@exit 1
endif !HAVE_CHECK
noinst_HEADERS = tests/testutil.h tests/alloc_count.h tests/ext_scheme.h tests/refutil.h \
	tests/pendutil.h tests/planted.h

# The cdyn program end to end (tests/experiments/): one test program per
# experiment or family of experiments, each built from its NAME.c, the
# harness they share and the claims table (experiments/runner/claims.c),
# whose rules they apply to what the runs wrote.  Each runs the built
# cdyn, so it is built after it.
EXPERIMENT_TESTS = tests/experiments/test_cloth_experiments tests/experiments/test_cli tests/experiments/test_arm2 \
	tests/experiments/test_convergence tests/experiments/test_stability \
	tests/experiments/test_bad_initial tests/experiments/test_bead_circle \
	tests/experiments/test_arm5 tests/experiments/test_chain10 \
	tests/experiments/test_contact_experiments \
	tests/experiments/test_view tests/experiments/test_watch tests/experiments/test_parsers
EXPERIMENT_TEST_SOURCES = tests/experiments/harness.c tests/experiments/harness.h
tests_experiments_test_cli_SOURCES = tests/experiments/test_cli.c $(EXPERIMENT_TEST_SOURCES)
tests_experiments_test_watch_SOURCES = tests/experiments/test_watch.c $(EXPERIMENT_TEST_SOURCES)
tests_experiments_test_arm2_SOURCES = tests/experiments/test_arm2.c $(EXPERIMENT_TEST_SOURCES)
tests_experiments_test_convergence_SOURCES = tests/experiments/test_convergence.c $(EXPERIMENT_TEST_SOURCES)
tests_experiments_test_stability_SOURCES = tests/experiments/test_stability.c $(EXPERIMENT_TEST_SOURCES)
tests_experiments_test_bad_initial_SOURCES = tests/experiments/test_bad_initial.c $(EXPERIMENT_TEST_SOURCES)
tests_experiments_test_bead_circle_SOURCES = tests/experiments/test_bead_circle.c $(EXPERIMENT_TEST_SOURCES)
tests_experiments_test_arm5_SOURCES = tests/experiments/test_arm5.c $(EXPERIMENT_TEST_SOURCES)
tests_experiments_test_chain10_SOURCES = tests/experiments/test_chain10.c $(EXPERIMENT_TEST_SOURCES)
tests_experiments_test_contact_experiments_SOURCES = tests/experiments/test_contact_experiments.c \
	$(EXPERIMENT_TEST_SOURCES)
tests_experiments_test_contact_experiments_CPPFLAGS = $(TEST_DATA_CPPFLAGS)
tests_experiments_test_cloth_experiments_SOURCES = tests/experiments/test_cloth_experiments.c \
	$(EXPERIMENT_TEST_SOURCES)
# The run-directory reader (experiments/rundir.c) and cdyn view.
tests_experiments_test_view_SOURCES = tests/experiments/test_view.c $(EXPERIMENT_TEST_SOURCES)
# The program's CSV reader against its writer, and its list parser.
tests_experiments_test_parsers_SOURCES = tests/experiments/test_parsers.c
$(addsuffix $(EXEEXT),$(EXPERIMENT_TESTS)): cdyn$(EXEEXT)

tests_test_census_SOURCES = tests/test_census.c
tests_test_census_CPPFLAGS = $(TEST_DATA_CPPFLAGS)
tests_test_ccd_census_SOURCES = tests/test_ccd_census.c
tests_test_ccd_census_CPPFLAGS = $(TEST_DATA_CPPFLAGS)
tests_test_ccd_filter_SOURCES = tests/test_ccd_filter.c
tests_test_ccd_filter_CPPFLAGS = $(TEST_DATA_CPPFLAGS)
tests_test_lcp_SOURCES = tests/test_lcp.c
tests_test_lcp_CPPFLAGS = $(TEST_DATA_CPPFLAGS)
# The fuzz corpus of the active-set harness, decoded as the harness does
# (shipped: test_lcp_corpus reads it from the source tree).
EXTRA_DIST += tests/fuzz/corpus/activeset
tests_test_lcp_corpus_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/tests/fuzz \
	-DCDYN_FUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/activeset"'

# A write that fails on demand, preloaded into the cdyn program by
# tests/experiments/test_cli (tests/failwrite.c); built for make check only.
check_LTLIBRARIES = tests/libfailwrite.la
tests_libfailwrite_la_SOURCES = tests/failwrite.c
tests_libfailwrite_la_LDFLAGS = -module -avoid-version -shared -rpath $(abs_builddir)/tests
tests_libfailwrite_la_LIBADD = $(DL_LIBS)

TESTS = $(check_PROGRAMS)

# `cdyn sweep` and `cdyn collect` through make and GNU parallel: a shell
# script, run by automake's plain driver (its default for .test files,
# which automake installs as build-aux/test-driver; exit 77: skipped, when GNU
# parallel is not installed, unless CDYN_REQUIRE_PARALLEL=1).
TESTS += tests/sweep.test
TEST_LOG_COMPILER = $(SHELL)
EXTRA_DIST += tests/sweep.test
# The example scenes against the scene format's JSON Schema (python3's
# jsonschema; skipped without it unless CDYN_REQUIRE_JSONSCHEMA=1).
TESTS += tests/scene-schema.test
EXTRA_DIST += tests/scene-schema.test
# The example scenes run; cdyn export of every experiment with a system,
# each scene run again by cdyn run scene: the same trajectory to the last
# bit.
TESTS += tests/scenes.test
EXTRA_DIST += tests/scenes.test
# `cdyn plot` and `cdyn animate` on small runs, and their errors (gnuplot;
# skipped without it unless CDYN_REQUIRE_GNUPLOT=1).
TESTS += tests/plot.test
EXTRA_DIST += tests/plot.test
# The cloth snapshot figures' panels, drawn once for the three versions
# (paper_figs/cloth-contact-snapshots.gp's preparing pass) or by the
# script alone: the same figure; stale panels not read; no snapshot a
# clear error (gnuplot; skipped without it unless CDYN_REQUIRE_GNUPLOT=1).
TESTS += tests/snapshots.test
EXTRA_DIST += tests/snapshots.test
# doc/examples/analyse.py, the pandas example of doc/pandas.md, on a run
# and a sweep made by the test (python3's pandas, Debian python3-pandas;
# skipped without it unless CDYN_REQUIRE_PANDAS=1).
TESTS += tests/pandas.test
EXTRA_DIST += tests/pandas.test
# cdyn view's page in headless Chromium: frames advance, the mesh is
# drawn, a screenshot lands where the state CSVs say (skipped without
# chromium or python3 unless CDYN_REQUIRE_CHROMIUM=1).
TESTS += tests/viewer.test
EXTRA_DIST += tests/viewer.test
# The manual page names every command and option of cdyn --help, and groff
# renders it without a warning; the bash completion completes commands,
# names, options and files (skipped without bash).
TESTS += tests/manpage.test tests/completion.test
EXTRA_DIST += tests/manpage.test tests/completion.test
# Every path of the source tree that README.md and doc/*.md name exists,
# and doc/reliability.md's table names every test of this file.
TESTS += tests/docpaths.test
EXTRA_DIST += tests/docpaths.test
# The library's rooms and the program's (README.md, "Layout"): no call from
# a room into one listed after it and no cycle among the files of a room,
# read by nm from the objects (CDYN_LIB_OBJECTS, CDYN_PROGRAM_OBJECTS),
# after a self-check on made-up listings with planted violations.
TESTS += tests/rooms.test
EXTRA_DIST += tests/rooms.test
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
# The tests run the built cdyn itself, not libtool's wrapper script for it
# (./cdyn when the library is shared): the wrapper is a shell that starts
# before every run, about 50 ms, and the suite runs cdyn about a thousand
# times.  libtool --mode=execute names the program the wrapper would run
# and the library path it would set (shlibpath_var: LD_LIBRARY_PATH on
# GNU/Linux); tests/cdyn-program.env holds the three, a line each, for
# AM_TESTS_ENVIRONMENT below.  Without a wrapper (static builds), the
# program is ./cdyn and the path the one the tests already have.
check_DATA = tests/cdyn-program.env
CLEANFILES += tests/cdyn-program.env
tests/cdyn-program.env: cdyn$(EXEEXT) libtool
	$(AM_V_GEN)var=`$(SHELL) ./libtool --config | sed -n 's/^shlibpath_var=//p'`; \
	test -n "$$var" || var=LD_LIBRARY_PATH; \
	$(LIBTOOL) --mode=execute $(SHELL) -c 'printf "%s\n%s\n" "$$1" "$$2"; eval "printf \"%s\\n\" \"\$${$$2-}\""' \
	  cdyn-program '$(abs_top_builddir)/cdyn$(EXEEXT)' "$$var" > $@-t && mv -f $@-t $@
AM_TESTS_ENVIRONMENT = CK_TAP_LOG_FILE_NAME=-; export CK_TAP_LOG_FILE_NAME; \
	OPENBLAS_NUM_THREADS=1; export OPENBLAS_NUM_THREADS; \
	{ read CDYN_PROGRAM; read cdyn_path_var; read cdyn_path; } < '$(abs_top_builddir)/tests/cdyn-program.env'; \
	export CDYN_PROGRAM; eval "$$cdyn_path_var=\$$cdyn_path; export $$cdyn_path_var"; \
	CDYN_EXPERIMENT_NAMES='$(EXPERIMENT_NAMES)'; export CDYN_EXPERIMENT_NAMES; \
	CDYN_FAILWRITE='$(abs_top_builddir)/tests/.libs/libfailwrite.so'; export CDYN_FAILWRITE; \
	CDYN_LIB_OBJECTS='$(lib_libcdyn_la_OBJECTS)'; export CDYN_LIB_OBJECTS; \
	CDYN_PROGRAM_OBJECTS='$(experiments_libcdynexp_la_OBJECTS) $(cdyn_OBJECTS)'; export CDYN_PROGRAM_OBJECTS; \
	CDYN_NM='$(NM)'; CDYN_AWK='$(AWK)'; CDYN_CC='$(CC)'; export CDYN_NM CDYN_AWK CDYN_CC;

# `make check-valgrind`: the suite under valgrind's memcheck.  The
# synonym lets the test programs' own counting allocator
# (tests/alloc_count.h) stand in front of valgrind's, so that test_alloc
# and test_oom run their checks rather than skipping.
check-valgrind: $(check_PROGRAMS)
	$(MAKE) $(AM_MAKEFLAGS) check CK_FORK=no \
	  LOG_COMPILER='$(LIBTOOL) --mode=execute valgrind -q --error-exitcode=1 --leak-check=full \
	  --soname-synonyms=somalloc=nouserintercepts'

EXTRA_DIST += tests/data/census-counterexamples.csv tests/data/ccd-census-counterexamples.csv tests/data/lcp-degenerate.txt \
	build-aux/tap-driver.sh
