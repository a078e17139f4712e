# tests/local.mk: the Check test programs (one per suite, so that make -j
# runs them in parallel), run through automake's TAP driver by `make check`,
# and `make check-valgrind`.  Included by the top Makefile.am; paths are
# relative to the top directory.
TESTS_LIBS = lib/libcdyn.la reference/libcdynref.la $(CHECK_LIBS) $(DEPS_LIBS)
TESTS_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
# Check is needed for `make check` only.  Without it (configure warns), the
# library and cdyn build and install, and `make check` stops with the
# remedy before it builds or runs any test: check-am makes check_SCRIPTS
# before it runs the tests, and this one's rule fails.
if HAVE_CHECK
check_PROGRAMS = tests/test_constraints tests/test_solvers tests/test_schemes \
	tests/test_reference tests/test_errors tests/test_experiments tests/test_alloc \
	tests/test_forces \
	tests/test_soft \
	tests/test_nonlinear \
	tests/test_arms \
	tests/test_lcp \
	tests/test_census \
	tests/test_contact \
	tests/test_switching \
	tests/test_oom
else !HAVE_CHECK
check_SCRIPTS = tests/check-not-found
tests/check-not-found:
	@echo "make check needs Check (>= 0.11), which ./configure did not find." >&2
	@echo "On Debian: apt-get install check, then re-run ./configure." >&2
	@exit 1
endif !HAVE_CHECK
noinst_HEADERS = tests/testutil.h tests/alloc_count.h tests/ext_scheme.h
tests_test_constraints_SOURCES = tests/test_constraints.c
tests_test_constraints_CFLAGS = $(TESTS_CFLAGS)
tests_test_constraints_LDADD = $(TESTS_LIBS)
tests_test_solvers_SOURCES = tests/test_solvers.c
tests_test_solvers_CFLAGS = $(TESTS_CFLAGS)
tests_test_solvers_LDADD = $(TESTS_LIBS)
tests_test_schemes_SOURCES = tests/test_schemes.c
tests_test_schemes_CFLAGS = $(TESTS_CFLAGS)
tests_test_schemes_LDADD = $(TESTS_LIBS)
tests_test_reference_SOURCES = tests/test_reference.c
tests_test_reference_CFLAGS = $(TESTS_CFLAGS)
tests_test_reference_LDADD = $(TESTS_LIBS)
tests_test_errors_SOURCES = tests/test_errors.c
tests_test_errors_CFLAGS = $(TESTS_CFLAGS)
tests_test_errors_LDADD = $(TESTS_LIBS)
tests_test_experiments_SOURCES = tests/test_experiments.c experiments/claimdefs.c experiments/claims.h
tests_test_experiments_CFLAGS = $(TESTS_CFLAGS)
tests_test_experiments_CPPFLAGS = $(AM_CPPFLAGS) -DCDYN_TEST_DATA='"$(abs_top_srcdir)/tests/data"'
tests_test_experiments_LDADD = $(TESTS_LIBS)
tests_test_experiments_DEPENDENCIES = cdyn$(EXEEXT)
tests_test_alloc_SOURCES = tests/test_alloc.c
tests_test_alloc_CFLAGS = $(TESTS_CFLAGS)
tests_test_alloc_LDADD = $(TESTS_LIBS)
tests_test_forces_SOURCES = tests/test_forces.c
tests_test_forces_CFLAGS = $(TESTS_CFLAGS)
tests_test_forces_LDADD = $(TESTS_LIBS)
tests_test_soft_SOURCES = tests/test_soft.c
tests_test_soft_CFLAGS = $(TESTS_CFLAGS)
tests_test_soft_LDADD = $(TESTS_LIBS)
tests_test_nonlinear_SOURCES = tests/test_nonlinear.c
tests_test_nonlinear_CFLAGS = $(TESTS_CFLAGS)
tests_test_nonlinear_LDADD = $(TESTS_LIBS)
tests_test_arms_SOURCES = tests/test_arms.c
tests_test_arms_CFLAGS = $(TESTS_CFLAGS)
tests_test_arms_LDADD = $(TESTS_LIBS)
tests_test_census_SOURCES = tests/test_census.c experiments/contact_problems.c
tests_test_census_CFLAGS = $(TESTS_CFLAGS)
tests_test_census_CPPFLAGS = $(AM_CPPFLAGS) -DCDYN_TEST_DATA='"$(abs_top_srcdir)/tests/data"'
tests_test_census_LDADD = $(TESTS_LIBS)
tests_test_lcp_SOURCES = tests/test_lcp.c experiments/contact_problems.c experiments/contact_problems.h
tests_test_lcp_CFLAGS = $(TESTS_CFLAGS)
tests_test_lcp_LDADD = $(TESTS_LIBS)
tests_test_contact_SOURCES = tests/test_contact.c
tests_test_contact_CFLAGS = $(TESTS_CFLAGS)
tests_test_contact_LDADD = $(TESTS_LIBS)
tests_test_switching_SOURCES = tests/test_switching.c
tests_test_switching_CFLAGS = $(TESTS_CFLAGS)
tests_test_switching_LDADD = $(TESTS_LIBS)
tests_test_oom_SOURCES = tests/test_oom.c
tests_test_oom_CFLAGS = $(TESTS_CFLAGS)
tests_test_oom_LDADD = $(TESTS_LIBS)

TESTS = $(check_PROGRAMS)
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
AM_TESTS_ENVIRONMENT = CK_TAP_LOG_FILE_NAME=-; export CK_TAP_LOG_FILE_NAME; \
	OPENBLAS_NUM_THREADS=1; export OPENBLAS_NUM_THREADS; \
	CDYN_PROGRAM='$(abs_top_builddir)/cdyn$(EXEEXT)'; export CDYN_PROGRAM;

# `make check-valgrind`: the suite under valgrind's memcheck.  The
# synonym lets the test programs' own counting allocator
# (tests/alloc_count.h) stand in front of valgrind's, so that test_alloc
# and test_oom run their checks rather than skipping.
check-valgrind: $(check_PROGRAMS)
	$(MAKE) $(AM_MAKEFLAGS) check CK_FORK=no \
	  LOG_COMPILER='$(LIBTOOL) --mode=execute valgrind -q --error-exitcode=1 --leak-check=full \
	  --soname-synonyms=somalloc=nouserintercepts'

EXTRA_DIST += tests/data/census-counterexamples.csv build-aux/tap-driver.sh
