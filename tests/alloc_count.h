/*
 * tests/alloc_count.h: an allocator that counts, and fails on request, for
 * the test programs that include it (one file per program: it defines
 * malloc, calloc and realloc).
 *
 * Plain builds: the program's own malloc, calloc and realloc take
 * precedence over glibc's by ELF symbol interposition, so libcdyn (and
 * GSL, LAPACKE, OpenBLAS) call them.  They count the calls while
 * ta_armed is set and forward to glibc's __libc_* allocator; when
 * ta_fail_at is k > 0, the k-th armed call returns NULL instead (fault
 * injection).
 *
 * Under AddressSanitizer the sanitizer owns malloc and the program cannot
 * replace it.  Counting still works, through the sanitizer's allocation
 * hook (installed by ta_init); failing does not, and ta_can_fail says so,
 * so that a test of allocation failures skips (tu_skip) rather than
 * passing without having run.
 *
 * Under valgrind the program's allocator is used only with
 * --soname-synonyms=somalloc=nouserintercepts (as `make check-valgrind`
 * runs it); otherwise valgrind replaces it and nothing would be counted.
 * ta_init therefore checks that an allocation is counted, and ta_works
 * says whether it was: a program that cannot count must skip, not pass.
 * ta_bytes adds up the sizes the armed calls asked for (a realloc's new
 * size), for tests of how much a call reserves.
 */
#ifndef CDYN_ALLOC_COUNT_H
#define CDYN_ALLOC_COUNT_H

#include <stddef.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define TA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TA_ASAN 1
#endif
#endif

static volatile int ta_armed;
static volatile long ta_count;
static volatile size_t ta_bytes; /* what the armed calls asked for */
static volatile long ta_fail_at; /* fail the k-th armed allocation (0: never) */
static int ta_works;             /* set by ta_init: an allocation was counted */

#ifdef TA_ASAN
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));

static void ta_hook(const volatile void *p, size_t n)
{
  (void)p;
  if (ta_armed) {
    ta_count++;
    ta_bytes += n;
  }
}

/* The sanitizer installs no hook pair with a NULL member (it returns 0
   then), so the free hook is a no-op rather than NULL. */
static void ta_free_hook(const volatile void *p) { (void)p; }

static const int ta_can_fail = 0;

static void ta_install(void) { __sanitizer_install_malloc_and_free_hooks(ta_hook, ta_free_hook); }
#else
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static const int ta_can_fail = 1;

static void ta_install(void) {}

/* Count an armed call of n bytes; 1 if it is the one to fail. */
static int ta_fails(size_t n)
{
  if (!ta_armed)
    return 0;
  ta_bytes += n;
  return ++ta_count == ta_fail_at;
}

void *malloc(size_t n) { return ta_fails(n) ? NULL : __libc_malloc(n); }

void *calloc(size_t a, size_t b) { return ta_fails(a * b) ? NULL : __libc_calloc(a, b); }

void *realloc(void *p, size_t n) { return ta_fails(n) ? NULL : __libc_realloc(p, n); }
#endif

/* Install the counting, and check that it counts: ta_works. */
static void ta_init(void)
{
  void *(*volatile get)(size_t) = malloc; /* a call the compiler cannot remove */
  ta_install();
  ta_count = 0;
  ta_armed = 1;
  void *p = get(24);
  ta_armed = 0;
  free(p);
  ta_works = ta_count == 1;
  ta_count = 0;
}

/* Start counting from zero; fail the k-th allocation (k = 0: none). */
static inline void ta_arm(long fail_at)
{
  ta_count = 0;
  ta_bytes = 0;
  ta_fail_at = fail_at;
  ta_armed = 1;
}

static inline long ta_disarm(void)
{
  ta_armed = 0;
  ta_fail_at = 0;
  return ta_count;
}

#endif
