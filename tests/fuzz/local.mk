# tests/fuzz/local.mk: the libFuzzer harnesses over the public API
# (tests/fuzz/fuzz_api.c), the contact solver (fuzz_activeset.c) and the
# scene reader and writer (fuzz_scene.c).
# Included by the top Makefile.am; paths are relative to the top directory.
#
# `make fuzz` builds them with clang (found by configure; without it, it
# says so and succeeds), compiling the library's sources into each with
# libFuzzer's coverage and AddressSanitizer and UndefinedBehaviorSanitizer.
# `make fuzz-smoke` runs each over its committed seed corpus and then for a
# fixed number of inputs in all (FUZZ_RUNS, default 100000; a fixed seed), as
# CI does; `make fuzz-run FUZZ_SECONDS=600` runs each for that long, adding
# what it finds to a corpus in the build tree.
FUZZ_HARNESSES = tests/fuzz/fuzz_api tests/fuzz/fuzz_activeset tests/fuzz/fuzz_scene
FUZZ_SMOKE = $(FUZZ_HARNESSES:tests/fuzz/fuzz_%=fuzz-smoke-%)
FUZZ_RUNS = 100000
FUZZ_SECONDS = 60
FUZZ_CFLAGS = -std=c11 -g -O1 -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer
# The library is compiled once for the harnesses, into tests/fuzz/obj/
# (every object depends on every header of the library: a header that
# changes compiles them all again), and archived.
FUZZ_LIB_C = $(filter %.c,$(lib_libcdyn_la_SOURCES))
FUZZ_LIB_H = $(addprefix $(srcdir)/,$(filter %.h,$(lib_libcdyn_la_SOURCES)) $(cdyninclude_HEADERS)) \
	$(srcdir)/lib/types.am
FUZZ_LIB_OBJ = $(FUZZ_LIB_C:%.c=tests/fuzz/obj/%.o)
FUZZ_INCLUDES = -I$(srcdir)/lib -I$(top_builddir) -I$(srcdir)/tests/fuzz $(JANSSON_CFLAGS) $(CHOLMOD_CFLAGS) \
	$(LAPACKE_CFLAGS) $(BLAS_CFLAGS)
# Per harness NAME: the longest input libFuzzer makes (FUZZ_MAX_LEN_NAME,
# else FUZZ_MAX_LEN) and a dictionary of the input's keywords
# (FUZZ_DICT_NAME, none if unset).  A scene file is text, longer than the
# other harnesses' scripts of choices; its dictionary holds the format's
# field names and values.
FUZZ_MAX_LEN = 512
FUZZ_MAX_LEN_fuzz_scene = 65536
FUZZ_DICT_fuzz_scene = $(srcdir)/tests/fuzz/scene.dict
fuzz_opts = -max_len=$(or $(FUZZ_MAX_LEN_$(1)),$(FUZZ_MAX_LEN))$(if $(FUZZ_DICT_$(1)), -dict=$(FUZZ_DICT_$(1)))
# One word for the shell per harness: 'HARNESS OPTION...'.
FUZZ_SPECS = $(foreach h,$(FUZZ_HARNESSES),'$(h) $(call fuzz_opts,$(notdir $(h)))')
FUZZ_ENV = ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
	OPENBLAS_NUM_THREADS=1

if HAVE_CLANG
tests/fuzz/obj/%.o: $(srcdir)/%.c $(FUZZ_LIB_H)
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_INCLUDES) -c -o $@ $<

tests/fuzz/libcdyn-fuzz.a: $(FUZZ_LIB_OBJ)
	$(AM_V_AR)rm -f $@ && $(AR) rcs $@ $(FUZZ_LIB_OBJ)

tests/fuzz/%: $(srcdir)/tests/fuzz/%.c $(srcdir)/tests/fuzz/fuzz.h $(srcdir)/tests/fuzz/activeset_input.h \
	  tests/fuzz/libcdyn-fuzz.a
	@$(MKDIR_P) tests/fuzz
	$(AM_V_GEN)$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_INCLUDES) -o $@ $< tests/fuzz/libcdyn-fuzz.a \
	  $(JANSSON_LIBS) $(CHOLMOD_LIBS) $(LAPACKE_LIBS) $(BLAS_LIBS) -lm

fuzz: $(FUZZ_HARNESSES)

# Each harness over its seed corpus, then new inputs from seed 1 up to
# FUZZ_RUNS in all; a crash, a leak, a sanitizer report or a broken check
# fails it.  What it finds goes into tests/fuzz/work-smoke-NAME in the
# build tree (libFuzzer adds to the first corpus directory it is given),
# never into the source tree.
# One target per harness (FUZZ_SMOKE), so that `make -j2 fuzz-smoke` runs
# two at once; each prints its log's end when it is done.
fuzz-smoke: $(FUZZ_SMOKE)
$(FUZZ_SMOKE): fuzz-smoke-%: tests/fuzz/fuzz_%
	@h=tests/fuzz/fuzz_$*; corpus=$(srcdir)/tests/fuzz/corpus/$*; \
	work=tests/fuzz/work-smoke-$*; rm -rf $$work; $(MKDIR_P) $$work; log=$$h-smoke.log; \
	if $(FUZZ_ENV) ./$$h -runs=$(FUZZ_RUNS) -seed=1 $(call fuzz_opts,fuzz_$*) -timeout=20 -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix=$$work/ $$work $$corpus >$$log 2>&1; then \
	  { echo "$$h: $(FUZZ_RUNS) runs from the corpus $$corpus"; tail -n 14 $$log; }; \
	else cat $$log; echo "FAIL: $$h (log: $$log; the input in $$work)" >&2; exit 1; fi

fuzz-run: $(FUZZ_HARNESSES)
	@for spec in $(FUZZ_SPECS); do \
	  set -- $$spec; h=$$1; shift; \
	  name=$${h##*/}; work=tests/fuzz/work-$${name#fuzz_}; $(MKDIR_P) $$work; \
	  log=$$h-run.log; \
	  if $(FUZZ_ENV) ./$$h -max_total_time=$(FUZZ_SECONDS) "$$@" -timeout=20 -rss_limit_mb=2048 \
	      -print_final_stats=1 -artifact_prefix=$$work/ $$work $(srcdir)/tests/fuzz/corpus/$${name#fuzz_} >$$log 2>&1; \
	  then tail -n 14 $$log; else cat $$log; echo "FAIL: $$h (log: $$log; inputs in $$work)" >&2; exit 1; fi; \
	done
else
fuzz fuzz-smoke fuzz-run:
	@echo "SKIP: make $@ needs clang with libFuzzer, which configure did not find" >&2
	@echo "(on Debian: apt-get install clang libclang-rt-14-dev, then re-run ./configure)." >&2
endif

CLEANFILES += $(FUZZ_HARNESSES) $(FUZZ_HARNESSES:=-smoke.log) $(FUZZ_HARNESSES:=-run.log) tests/fuzz/libcdyn-fuzz.a
EXTRA_DIST += tests/fuzz/fuzz.h tests/fuzz/activeset_input.h tests/fuzz/fuzz_api.c tests/fuzz/fuzz_activeset.c \
	tests/fuzz/fuzz_scene.c \
	tests/fuzz/scene.dict tests/fuzz/corpus
