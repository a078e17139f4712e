/*
 * tests/fuzz/fuzz.h: what the libFuzzer harnesses share: reading the input
 * as a script of choices, counting allocations, and a check that aborts
 * (libFuzzer then reports the input as a crash).
 */
#ifndef CDYN_FUZZ_H
#define CDYN_FUZZ_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const uint8_t *data;
  size_t size, pos;
  int exhausted; /* the input ran out: every later read gives 0 */
} fuzz_input;

static inline uint8_t fuzz_byte(fuzz_input *in)
{
  if (in->pos >= in->size) {
    in->exhausted = 1;
    return 0;
  }
  return in->data[in->pos++];
}

/*
 * A double: mostly ordinary values of either sign over many decades, and
 * sometimes the values that break code: 0, -0, NaN, infinities, the
 * smallest and largest doubles, a subnormal.
 */
static inline double fuzz_double(fuzz_input *in)
{
  static const double special[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1e-310, 4.9e-324,
                                   1.7976931348623157e308, -1e300, 1e154, 1.0, 0.5};
  uint8_t k = fuzz_byte(in);
  if (k < 24)
    return special[k % (sizeof special / sizeof special[0])];
  double mant = (fuzz_byte(in) + 256.0 * fuzz_byte(in)) / 65536.0; /* [0, 1) */
  int exp10 = (int)(fuzz_byte(in) % 25) - 12;                      /* 1e-12 .. 1e12 */
  double x = (0.1 + mant) * pow(10.0, exp10);
  return (k & 1) ? -x : x;
}

/* A moderate double, in (-16, 16): velocities, gravity, damping. */
static inline double fuzz_small(fuzz_input *in)
{
  return ((double)fuzz_byte(in) - 128.0) / 8.0 + (double)fuzz_byte(in) / 2048.0;
}

/* A broken promise: print it and abort, so that libFuzzer keeps the input. */
#define FUZZ_REQUIRE(cond, what)                                                                   \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "fuzz: %s (%s:%d)\n", (what), __FILE__, __LINE__);                          \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

/*
 * Allocation counting through the sanitizer's hook (the harnesses are
 * built with AddressSanitizer, which owns malloc).  The hook pair must
 * have both members: the sanitizer installs none with a NULL one.
 */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
static volatile int fuzz_armed;
static volatile long fuzz_allocs;
static void fuzz_malloc_hook(const volatile void *p, size_t n)
{
  (void)p;
  (void)n;
  if (fuzz_armed)
    fuzz_allocs++;
}
static void fuzz_free_hook(const volatile void *p) { (void)p; }
static inline void fuzz_alloc_install(void)
{
  static int done;
  if (!done)
    done = __sanitizer_install_malloc_and_free_hooks(fuzz_malloc_hook, fuzz_free_hook) != 0;
}
static inline void fuzz_alloc_arm(void)
{
  fuzz_allocs = 0;
  fuzz_armed = 1;
}
static inline long fuzz_alloc_disarm(void)
{
  fuzz_armed = 0;
  return fuzz_allocs;
}

#endif
