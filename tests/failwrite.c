/*
 * tests/failwrite.c: a shared library that a test preloads into the cdyn
 * program (LD_PRELOAD) to make one of its file operations fail, as on a
 * full disk, and so prove that no run reports success, or leaves output
 * that looks finished, when a write fails.
 *
 *   FAILOPEN_AT=k     the k-th fopen for writing or appending fails
 *   FAILCLOSE_AT=k    the k-th fclose of a stream opened for writing reports
 *                     a failed write: the stream is closed, but fclose
 *                     returns EOF (what a buffered write that found the
 *                     disk full makes it do)
 *   FAILRENAME_AT=k   the k-th rename fails
 *
 * each with errno ENOSPC.  glibc's stdio writes through internal calls that
 * no preloaded write(2) sees; fopen, fclose and rename are what the program
 * itself calls.  Counts are per process; the real functions are reached
 * through dlsym(RTLD_NEXT).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long at(const char *name)
{
  const char *s = getenv(name);
  return s ? strtol(s, NULL, 10) : 0;
}

/* The streams open for writing (a few hundred at most are open at once). */
#define MAXW 1024
static FILE *writing[MAXW];

FILE *fopen(const char *path, const char *mode)
{
  static long count;
  static FILE *(*real)(const char *, const char *);
  if (!real)
    *(void **)&real = dlsym(RTLD_NEXT, "fopen");
  int w = mode && (strchr(mode, 'w') || strchr(mode, 'a'));
  if (w && ++count == at("FAILOPEN_AT")) {
    errno = ENOSPC;
    return NULL;
  }
  FILE *f = real(path, mode);
  for (int k = 0; w && f && k < MAXW; k++)
    if (!writing[k]) {
      writing[k] = f;
      break;
    }
  return f;
}

int fclose(FILE *f)
{
  static long count;
  static int (*real)(FILE *);
  if (!real)
    *(void **)&real = dlsym(RTLD_NEXT, "fclose");
  int w = 0;
  for (int k = 0; f && k < MAXW; k++)
    if (writing[k] == f) {
      writing[k] = NULL;
      w = 1;
    }
  int rc = real(f);
  if (w && ++count == at("FAILCLOSE_AT")) {
    errno = ENOSPC;
    return EOF;
  }
  return rc;
}

int rename(const char *from, const char *to)
{
  static long count;
  static int (*real)(const char *, const char *);
  if (!real)
    *(void **)&real = dlsym(RTLD_NEXT, "rename");
  if (++count == at("FAILRENAME_AT")) {
    errno = ENOSPC;
    return -1;
  }
  return real(from, to);
}
