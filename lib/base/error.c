/*
 * error.c: per-thread status message for cdyn_errmsg().
 *
 * The library never prints and never aborts; a failing call records why in
 * a thread-local buffer and returns its code.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cdyn/error.h"
#include "base/errserial.h"

/* Long enough for a path of PATH_MAX (4096) and the reason after it. */
#define ERRBUF 6144
static _Thread_local char errbuf[ERRBUF];
/* How many messages this thread has recorded (cdyn_error_serial). */
static _Thread_local unsigned long serial;

unsigned long cdyn_error_serial(void) { return serial; }

const char *cdyn_errmsg(void) { return errbuf; }

void cdyn_error_clear(void) { errbuf[0] = '\0'; }

/* Keep this much of the end of a message too long for the buffer: the
   reason comes last ("cannot write PATH: File name too long"). */
#define TAIL 512

int cdyn_error(int status, const char *fmt, ...)
{
  /* Formatted apart first, then copied: a caller may pass cdyn_errmsg()
     itself as an argument, to wrap the reason of a call that failed. */
  static _Thread_local char whole[4 * ERRBUF];
  serial++;
  va_list ap;
  va_start(ap, fmt);
  int m = vsnprintf(whole, sizeof whole, fmt, ap);
  va_end(ap);
  if (m < 0)
    whole[0] = '\0';
  size_t len = m < 0 ? 0 : m < (int)sizeof whole ? (size_t)m : sizeof whole - 1;
  if (len < sizeof errbuf) {
    memcpy(errbuf, whole, len + 1);
  } else {
    /* Too long: keep its head and its end, joined by " ... ". */
    size_t head = sizeof errbuf - TAIL - 6;
    memcpy(errbuf, whole, head);
    memcpy(errbuf + head, " ... ", 5);
    memcpy(errbuf + head + 5, whole + len - TAIL, TAIL);
    errbuf[head + 5 + TAIL] = '\0';
  }
  return status;
}

const char *cdyn_strerror(int status)
{
  switch (status) {
  case CDYN_OK: return "success";
  case CDYN_NOCONV: return "iteration stopped before reaching its tolerance";
  case CDYN_EINVAL: return "invalid argument";
  case CDYN_ENOMEM: return "out of memory";
  case CDYN_ENONFINITE: return "non-finite value";
  case CDYN_EUNKNOWN: return "unknown name";
  case CDYN_EDEGENERATE: return "degenerate constraint geometry";
  case CDYN_ESTALE: return "stale (no longer returned)";
  case CDYN_ECALLBACK: return "user callback failed";
  case CDYN_EIO: return "input/output error";
  case CDYN_ESOLVE: return "solve failed";
  case CDYN_EDIVERGED: return "iteration diverged";
  case CDYN_EINFEASIBLE: return "infeasible constraint set";
  case CDYN_EUNVERIFIED: return "answer failed its verification";
  default: return "unknown status";
  }
}
