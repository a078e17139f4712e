# tests/fuzz/local.mk: the libFuzzer harnesses over the public API
# (tests/fuzz/fuzz_api.c) and the contact solver (fuzz_activeset.c).
# Included by the top Makefile.am; paths are relative to the top directory.
#
# `make fuzz` builds them with clang (found by configure; without it, it
# says so and succeeds), compiling the library's sources into each with
# libFuzzer's coverage and AddressSanitizer and UndefinedBehaviorSanitizer.
# `make fuzz-smoke` runs each over its committed seed corpus and then for a
# fixed number of inputs in all (FUZZ_RUNS, default 100000; a fixed seed), as
# CI does; `make fuzz-run FUZZ_SECONDS=600` runs each for that long, adding
# what it finds to a corpus in the build tree.
FUZZ_HARNESSES = tests/fuzz/fuzz_api tests/fuzz/fuzz_activeset
FUZZ_RUNS = 100000
FUZZ_SECONDS = 60
FUZZ_CFLAGS = -std=c11 -g -O1 -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_LIB_C = $(addprefix $(srcdir)/,$(filter %.c,$(lib_libcdyn_la_SOURCES)))
FUZZ_ENV = ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
	OPENBLAS_NUM_THREADS=1

if HAVE_CLANG
tests/fuzz/%: $(srcdir)/tests/fuzz/%.c $(srcdir)/tests/fuzz/fuzz.h $(FUZZ_LIB_C) $(srcdir)/lib/types.am
	@$(MKDIR_P) tests/fuzz
	$(AM_V_GEN)$(CLANG) $(FUZZ_CFLAGS) -I$(srcdir)/lib -I$(top_builddir) -I$(srcdir)/tests/fuzz \
	  $(JANSSON_CFLAGS) $(CHOLMOD_CFLAGS) $(LAPACKE_CFLAGS) $(BLAS_CFLAGS) -o $@ $< $(FUZZ_LIB_C) $(JANSSON_LIBS) $(CHOLMOD_LIBS) $(LAPACKE_LIBS) $(BLAS_LIBS) -lm

fuzz: $(FUZZ_HARNESSES)

# Each harness over its seed corpus, then new inputs from seed 1 up to
# FUZZ_RUNS in all; a crash, a leak, a sanitizer report or a broken check
# fails it.  What it finds goes into tests/fuzz/work-smoke-NAME in the
# build tree (libFuzzer adds to the first corpus directory it is given),
# never into the source tree.
fuzz-smoke: $(FUZZ_HARNESSES)
	@for h in $(FUZZ_HARNESSES); do \
	  name=$${h##*/}; corpus=$(srcdir)/tests/fuzz/corpus/$${name#fuzz_}; \
	  work=tests/fuzz/work-smoke-$${name#fuzz_}; rm -rf $$work; $(MKDIR_P) $$work; \
	  echo "$$h: $(FUZZ_RUNS) runs from the corpus $$corpus"; \
	  log=$$h-smoke.log; \
	  if $(FUZZ_ENV) ./$$h -runs=$(FUZZ_RUNS) -seed=1 -max_len=512 -timeout=20 -rss_limit_mb=2048 \
	      -print_final_stats=1 -artifact_prefix=$$work/ $$work $$corpus >$$log 2>&1; then tail -n 14 $$log; \
	  else cat $$log; echo "FAIL: $$h (log: $$log; the input in $$work)" >&2; exit 1; fi; \
	done

fuzz-run: $(FUZZ_HARNESSES)
	@for h in $(FUZZ_HARNESSES); do \
	  name=$${h##*/}; work=tests/fuzz/work-$${name#fuzz_}; $(MKDIR_P) $$work; \
	  log=$$h-run.log; \
	  if $(FUZZ_ENV) ./$$h -max_total_time=$(FUZZ_SECONDS) -max_len=512 -timeout=20 -rss_limit_mb=2048 \
	      -print_final_stats=1 -artifact_prefix=$$work/ $$work $(srcdir)/tests/fuzz/corpus/$${name#fuzz_} >$$log 2>&1; \
	  then tail -n 14 $$log; else cat $$log; echo "FAIL: $$h (log: $$log; inputs in $$work)" >&2; exit 1; fi; \
	done
else
fuzz fuzz-smoke fuzz-run:
	@echo "SKIP: make $@ needs clang with libFuzzer, which configure did not find" >&2
	@echo "(on Debian: apt-get install clang libclang-rt-14-dev, then re-run ./configure)." >&2
endif

CLEANFILES = $(FUZZ_HARNESSES) $(FUZZ_HARNESSES:=-smoke.log) $(FUZZ_HARNESSES:=-run.log)
EXTRA_DIST += tests/fuzz/fuzz.h tests/fuzz/fuzz_api.c tests/fuzz/fuzz_activeset.c tests/fuzz/corpus
