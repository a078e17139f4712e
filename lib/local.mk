# lib/local.mk: libcdyn, its installed headers and cdyn.pc, and the check
# that lib/types.am (the type objects' sources) is current.  Included by
# the top Makefile.am; paths are relative to the top directory.
lib_LTLIBRARIES = lib/libcdyn.la
cdynincludedir = $(includedir)/cdyn
cdyninclude_HEADERS = lib/cdyn/cdyn.h lib/cdyn/error.h lib/cdyn/system.h \
	lib/cdyn/constraint.h lib/cdyn/stepper.h lib/cdyn/contact.h lib/cdyn/scheme.h lib/cdyn/cloth.h lib/cdyn/collision.h lib/cdyn/scene.h
# The type objects' sources come from their tables (lib/*/*.def) through
# lib/types.am, which ./autogen.sh writes: adding a constraint type, solver,
# integrator, scheme or active-set algorithm is one file plus one table line.
include $(srcdir)/lib/types.am
lib_libcdyn_la_SOURCES = lib/cdyn_internal.h lib/error.c lib/system.c \
	lib/options.c lib/stepper.c lib/layout.c lib/blocks.c lib/registry.c \
	lib/cloth.c lib/strainlimit.c lib/ball.c lib/ccd.c lib/bvh.c lib/proximity.c lib/contacts.c \
	lib/scene_internal.h lib/scene.c lib/scene_load.c \
	lib/constraints/constraints.def lib/constraints/vec3.h \
	lib/solvers/solvers.def lib/solvers/lsq.c lib/integrators/integrators.def lib/schemes/schemes.def \
	lib/activeset/activeset.h lib/activeset/activesets.def lib/activeset/common.c \
	$(TYPE_SOURCES)
# libcdyn itself uses Jansson (the scene reader), CHOLMOD, LAPACKE and BLAS only (its sparse storage
# is its own, so no GSL error handler can abort the caller's process); GSL
# serves the references, the experiments and the tests.
LIB_LIBS = $(JANSSON_LIBS) $(CHOLMOD_LIBS) $(LAPACKE_LIBS) $(BLAS_LIBS) $(LIBM)
lib_libcdyn_la_LIBADD = $(LIB_LIBS)
lib_libcdyn_la_LDFLAGS = -version-info $(CDYN_LT_VERSION) -no-undefined
pkgconfig_DATA = cdyn.pc

# lib/types.am must list what the tables name (lib/*/*.def and
# experiments/experiments.def): a table edited without re-running
# ./autogen.sh stops the build here, with the remedy.  BUILT_SOURCES runs
# the check for make, make check and make install; the order-only
# prerequisite runs it before any object of the library or of cdyn is
# compiled (make figures), without making them out of date.
BUILT_SOURCES = check-types-am
$(lib_libcdyn_la_OBJECTS) $(cdyn_OBJECTS): | check-types-am
check-types-am:
	@$(SHELL) $(srcdir)/build-aux/types-am.sh $(srcdir) > types.am.now && \
	if cmp -s types.am.now $(srcdir)/lib/types.am; then rm -f types.am.now; else \
	  rm -f types.am.now; \
	  echo "lib/types.am does not list the sources the tables lib/*/*.def and" >&2; \
	  echo "experiments/experiments.def name: run ./autogen.sh (then ./configure) to regenerate it." >&2; \
	  exit 1; fi

EXTRA_DIST += build-aux/types-am.sh
