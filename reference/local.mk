# reference/local.mk: libcdynref, the independent references (reduced-
# coordinate models, the dense KKT solve, contact by enumeration) that the
# cdyn program and the tests check libcdyn against; not installed.
# Included by the top Makefile.am; paths are relative to the top directory.
noinst_LTLIBRARIES = reference/libcdynref.la
reference_libcdynref_la_SOURCES = reference/nlink.h reference/nlink.c \
	reference/bead.h reference/bead.c reference/hoop.h reference/hoop.c reference/spherical.h reference/spherical.c \
	reference/kkt.h reference/kkt.c reference/ode.h reference/ode.c \
	reference/lcp_enum.h reference/lcp_enum.c \
	reference/chain_be.h reference/chain_be.c \
	reference/ccd_exact.h reference/ccd_exact.c \
	reference/ccd_filter.h reference/ccd_filter.c \
	reference/ccd_replay.h reference/ccd_replay.c
reference_libcdynref_la_LIBADD = $(DEPS_LIBS) $(GMP_LIBS)
