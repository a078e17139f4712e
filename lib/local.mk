# lib/local.mk: libcdyn, its installed headers and cdyn.pc, and the check
# that lib/types.am (the type objects' sources) is current.  Included by
# the top Makefile.am; paths are relative to the top directory.
lib_LTLIBRARIES = lib/libcdyn.la
cdynincludedir = $(includedir)/cdyn
cdyninclude_HEADERS = lib/cdyn/cdyn.h lib/cdyn/error.h lib/cdyn/option.h lib/cdyn/system.h \
	lib/cdyn/constraint.h lib/cdyn/stepper.h lib/cdyn/solver.h lib/cdyn/contact.h lib/cdyn/scheme.h \
	lib/cdyn/cloth.h lib/cdyn/collision.h lib/cdyn/scene.h
# The type objects' sources come from their tables (lib/*/*.def) through
# lib/types.am, which ./autogen.sh writes: adding a constraint type, solver,
# integrator, scheme or active-set algorithm is one file plus one table line.
include $(srcdir)/lib/types.am
# The sources, room by room (the folders of lib/), from the bottom up in
# the order README.md's Layout lists the rooms, the one place that order
# is stated: a room calls only into itself and the rooms listed before
# it, so of two neighbours such as constraints/ and solvers/, or
# integrators/ and activeset/, the later may call the earlier and not the
# reverse; and the files of a room call one another without a cycle.  The
# rooms of the type objects (TYPE_SOURCES, from their tables) are also
# reached from above through their tables and function pointers.
# tests/rooms.test reads the order from README.md and checks the built
# objects against it with nm.
lib_libcdyn_la_SOURCES = lib/base/error.c lib/base/errserial.h lib/base/numeric.c lib/base/version.c lib/base/words.c \
	lib/constraints/constraints.def lib/constraints/vec3.h lib/constraints/table.c \
	lib/solvers/solvers.def lib/solvers/table.c lib/solvers/lookup.c lib/solvers/lsq.h lib/solvers/lsq.c \
	lib/solvers/matrix.c \
	lib/core/internal.h lib/core/frequency.c lib/core/fdhess.c lib/core/system.c lib/core/pattern.c lib/core/blocks.c \
	lib/core/adjacency.c \
	lib/integrators/integrators.def lib/integrators/table.c \
	lib/activeset/activeset.h lib/activeset/activesets.def lib/activeset/activeset.c lib/activeset/common.c \
	lib/activeset/dense.c lib/activeset/sparse.c \
	lib/schemes/schemes.def lib/schemes/table.c lib/schemes/shake.h \
	lib/stepper/internal.h lib/stepper/options.c lib/stepper/registry.c lib/stepper/layout.c \
	lib/stepper/stepper.c \
	lib/cloth/cloth.c lib/cloth/strainlimit.c lib/cloth/ball.c \
	lib/collision/bvh.c lib/collision/proximity.c lib/collision/ccd.c lib/collision/candidates.c \
	lib/collision/contacts.c lib/collision/failsafe.c lib/collision/contacts_impl.h \
	lib/scene/internal.h lib/scene/scene.c lib/scene/load.h lib/scene/fields.c lib/scene/generate.c \
	lib/scene/load.c \
	$(TYPE_SOURCES)
# libcdyn itself uses Jansson (the scene reader), CHOLMOD, LAPACKE and BLAS only (its sparse storage
# is its own, so no GSL error handler can abort the caller's process); GSL
# serves the references, the experiments and the tests.
LIB_LIBS = $(JANSSON_LIBS) $(CHOLMOD_LIBS) $(LAPACKE_LIBS) $(BLAS_LIBS) $(LIBM)
lib_libcdyn_la_LIBADD = $(LIB_LIBS)
lib_libcdyn_la_LDFLAGS = -version-info $(CDYN_LT_VERSION) -no-undefined
pkgconfig_DATA = cdyn.pc

# lib/types.am must list what the tables name (lib/*/*.def and
# experiments/studies/experiments.def): a table edited without re-running
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
	  echo "experiments/studies/experiments.def name: run ./autogen.sh (then ./configure) to regenerate it." >&2; \
	  exit 1; fi

EXTRA_DIST += build-aux/types-am.sh
