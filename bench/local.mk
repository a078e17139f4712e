# bench/local.mk: `make bench`, cdyn against ODE 0.16 on hanging chains and
# falling grids (bench/bench.c), then at the animation step h = 1/60 s
# (bench/animation.c), then cloth against Bullet 3.24's soft body
# (bench/cloth.c).  Timing lives here, never in `make check`.
# Included by the top Makefile.am; paths are relative to the top directory.
EXTRA_PROGRAMS = bench/cdyn-bench
bench_cdyn_bench_SOURCES = bench/bench.c bench/animation.c bench/animation.h bench/cloth.c bench/cloth.h \
	bench/common.c bench/common.h bench/problems.c bench/problem.h bench/problems.h
bench_cdyn_bench_CPPFLAGS = $(AM_CPPFLAGS)
bench_cdyn_bench_LDADD = experiments/libcdynexp.la lib/libcdyn.la $(CHOLMOD_LIBS) $(LAPACKE_LIBS) $(BLAS_LIBS) $(DL_LIBS) $(LIBM)
if HAVE_ODE
bench_cdyn_bench_SOURCES += bench/peer_ode.c bench/peer_ode.h
bench_cdyn_bench_CPPFLAGS += -DHAVE_ODE $(ODE_CFLAGS)
bench_cdyn_bench_LDADD += $(ODE_LIBS)
else
EXTRA_DIST += bench/peer_ode.c bench/peer_ode.h
endif
# Bullet: the one C++ source, so the program links with the C++ linker
# (CXXLINK) when it is built, and with the C one (LINK) when it is not.
if HAVE_BULLET
bench_cdyn_bench_SOURCES += bench/peer_bullet.cpp bench/peer_bullet.h
bench_cdyn_bench_CPPFLAGS += -DHAVE_BULLET -DCDYN_BULLET_MODULE=\"$(BULLET_MODULE)\" $(BULLET_CFLAGS)
bench_cdyn_bench_LDADD += $(BULLET_LIBS)
bench_cdyn_bench_LINK = $(CXXLINK)
else
EXTRA_DIST += bench/peer_bullet.cpp bench/peer_bullet.h
bench_cdyn_bench_LINK = $(LINK)
endif
EXTRA_DIST += bench/bench.gp
CLEANFILES += bench/cdyn-bench$(EXEEXT)

# BENCH_FLAGS: e.g. --quick, --reps 5, --steps 200 (cdyn-bench --help).
BENCH_FLAGS =
bench: bench/cdyn-bench$(EXEEXT)
	@$(MKDIR_P) bench
@HAVE_ODE_FALSE@	@echo "ODE 0.16 was not found at configure: the benchmark runs cdyn without its peer."
@HAVE_ODE_FALSE@	@echo "To compare with ODE: apt-get install libode-dev, then ./configure again."
@HAVE_BULLET_FALSE@	@echo "Bullet 3.24 was not found at configure: the cloth section runs cdyn without its peer."
@HAVE_BULLET_FALSE@	@echo "To compare with Bullet: apt-get install libbullet-dev g++, then ./configure again."
	OPENBLAS_NUM_THREADS=1 ./bench/cdyn-bench --out bench $(BENCH_FLAGS)
if HAVE_GNUPLOT
	$(AM_V_GEN)$(GNUPLOT) -c $(srcdir)/bench/bench.gp bench/results.csv bench/time-per-step.pdf
	@echo "cdyn-bench: bench/results.csv (+ results.meta.json), bench/exponents.csv, bench/animation.csv (+ animation.meta.json, animation.md), bench/soft-body.csv (+ soft-body.meta.json, soft-body.md), bench/summary.md, bench/time-per-step.pdf"
else
	@echo "cdyn-bench: bench/results.csv (+ results.meta.json), bench/exponents.csv, bench/animation.csv (+ animation.meta.json, animation.md), bench/soft-body.csv (+ soft-body.meta.json, soft-body.md), bench/summary.md (no gnuplot: no figure)"
endif

# `make bench-cloth`: cloth-vs-implicit-ode up to 128 x 128 nodes, beyond
# what `make figures` runs (16 to 64); its output goes to bench/cloth-cost/.
# Baraff-Witkin's stiffness search at 128 x 128 dominates its time.
bench-cloth: cdyn$(EXEEXT)
	@$(MKDIR_P) bench
	@rm -rf bench/cloth-cost
	./cdyn$(EXEEXT) run cloth-vs-implicit-ode --set grids=16,32,64,128 --out bench/cloth-cost
.PHONY: bench-cloth

# `make bench-contact`: where cloth-contact's steps spend their linear
# algebra as the cloth grows: the default 16 x 16 run (every run, the
# dense contact runs lcp and iterative among them), then 32 x 32 (300
# steps) and 64 x 64 (150 steps) with the contact runs on the sparse path
# only (lcp-sparse, and iterative with subsolve=sparse: the dense path
# takes seconds a step there), each into bench/contact-cost/gridN/;
# bench/contact-cost/scaling.csv is their cloth-contact-solve.csv with the
# grid in front.  The balls reach the cloth after about 70 steps.
bench-contact: cdyn$(EXEEXT)
	@$(MKDIR_P) bench
	@rm -rf bench/contact-cost
	@$(MKDIR_P) bench/contact-cost
	./cdyn$(EXEEXT) run cloth-contact --out bench/contact-cost/grid16
	./cdyn$(EXEEXT) run cloth-contact --set grid=32 --steps 300 --set algorithms=iterative \
	  --set iterative.subsolve=sparse --out bench/contact-cost/grid32
	./cdyn$(EXEEXT) run cloth-contact --set grid=64 --steps 150 --set algorithms=iterative \
	  --set iterative.subsolve=sparse --out bench/contact-cost/grid64
	$(AM_V_GEN)for g in 16 32 64; do \
	  awk -v g=$$g -F, 'NR == 1 { if (g == 16) print "grid," $$0; next } { print g "," $$0 }' \
	    bench/contact-cost/grid$$g/cloth-contact-solve.csv; \
	done > bench/contact-cost/scaling.csv
	@echo "cdyn bench-contact: bench/contact-cost/scaling.csv (+ each grid's run in bench/contact-cost/gridN/)"
.PHONY: bench-contact
