/*
 * error.c: per-thread status message for cdyn_errmsg().
 *
 * The library never prints and never aborts; a failing call records why in
 * a thread-local buffer and returns its code.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cdyn/error.h"

static _Thread_local char errbuf[512];

const char *cdyn_errmsg(void) { return errbuf; }

void cdyn_error_clear(void) { errbuf[0] = '\0'; }

int cdyn_error(int status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(errbuf, sizeof errbuf, fmt, ap);
  va_end(ap);
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
  default: return "unknown status";
  }
}
