/*
 * options.c: typed options set from text (cdyn/option.h), so that schemes
 * and solvers declare their parameters once (name, kind, bounds, default,
 * documentation) and the stepper, the command line and the metadata
 * writer all read that table.  An integrator-valued option is looked up in
 * the integrators' table (lib/integrators/table.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepper/internal.h"

static int parse_double(const char *s, double *out)
{
  char *end;
  errno = 0;
  double x = strtod(s, &end);
  if (end == s || *end != '\0' || errno == ERANGE)
    return 0;
  *out = x;
  return 1;
}

size_t cdyn_option_count(const cdyn_option *t)
{
  size_t k = 0;
  while (t && t[k].name)
    k++;
  return k;
}

int cdyn_option_parse(const cdyn_option *o, void *base, const char *value)
{
  if (!o || !base || !value)
    return cdyn_error(CDYN_EINVAL, "cdyn_option_parse: NULL argument");
  char *dst = (char *)base + o->offset;
  switch (o->kind) {
  case CDYN_OPT_DOUBLE: {
    double x;
    if (!parse_double(value, &x) || !isfinite(x))
      return cdyn_error(CDYN_EINVAL, "option %s: '%s' is not a finite number", o->name, value);
    if (x < o->min || x > o->max)
      return cdyn_error(CDYN_EINVAL, "option %s: %g is outside [%g, %g]", o->name, x, o->min, o->max);
    memcpy(dst, &x, sizeof x);
    return CDYN_OK;
  }
  case CDYN_OPT_INT: {
    double x;
    if (!parse_double(value, &x) || x != floor(x))
      return cdyn_error(CDYN_EINVAL, "option %s: '%s' is not an integer", o->name, value);
    if (x < o->min || x > o->max)
      return cdyn_error(CDYN_EINVAL, "option %s: %g is outside [%g, %g]", o->name, x, o->min, o->max);
    long k = (long)x;
    memcpy(dst, &k, sizeof k);
    return CDYN_OK;
  }
  case CDYN_OPT_BOOL: {
    int b;
    if (!strcmp(value, "1") || !strcmp(value, "true") || !strcmp(value, "on") || !strcmp(value, "yes"))
      b = 1;
    else if (!strcmp(value, "0") || !strcmp(value, "false") || !strcmp(value, "off") || !strcmp(value, "no"))
      b = 0;
    else
      return cdyn_error(CDYN_EINVAL, "option %s: '%s' is not a boolean (on/off, 1/0)", o->name, value);
    memcpy(dst, &b, sizeof b);
    return CDYN_OK;
  }
  case CDYN_OPT_CHOICE:
    for (int k = 0; o->choices[k]; k++)
      if (!strcmp(o->choices[k], value)) {
        memcpy(dst, &k, sizeof k);
        return CDYN_OK;
      }
    {
      char list[256] = "";
      for (int k = 0; o->choices[k]; k++) {
        strncat(list, k ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, o->choices[k], sizeof list - strlen(list) - 1);
      }
      return cdyn_error(CDYN_EUNKNOWN, "option %s: unknown value '%s' (one of: %s)", o->name, value, list);
    }
  case CDYN_OPT_INTEGRATOR: {
    const cdyn_integrator_type *it;
    int rc = cdyn_integrator_type_find(value, &it);
    if (rc)
      return rc;
    memcpy(dst, &it, sizeof it);
    return CDYN_OK;
  }
  }
  return cdyn_error(CDYN_EINVAL, "option %s: unknown kind", o->name);
}

int cdyn_option_format(const cdyn_option *o, const void *base, char *buf, size_t len)
{
  if (!o || !base || !buf || len == 0)
    return cdyn_error(CDYN_EINVAL, "cdyn_option_format: NULL argument");
  const char *src = (const char *)base + o->offset;
  int w = 0;
  switch (o->kind) {
  case CDYN_OPT_DOUBLE: {
    double x;
    memcpy(&x, src, sizeof x);
    w = snprintf(buf, len, "%.17g", x);
    break;
  }
  case CDYN_OPT_INT: {
    long k;
    memcpy(&k, src, sizeof k);
    w = snprintf(buf, len, "%ld", k);
    break;
  }
  case CDYN_OPT_BOOL: {
    int b;
    memcpy(&b, src, sizeof b);
    w = snprintf(buf, len, "%s", b ? "on" : "off");
    break;
  }
  case CDYN_OPT_CHOICE: {
    int k;
    memcpy(&k, src, sizeof k);
    w = snprintf(buf, len, "%s", o->choices[k]);
    break;
  }
  case CDYN_OPT_INTEGRATOR: {
    const cdyn_integrator_type *it;
    memcpy(&it, src, sizeof it);
    w = snprintf(buf, len, "%s", it ? it->name : "");
    break;
  }
  }
  if (w < 0 || (size_t)w >= len)
    return cdyn_error(CDYN_EINVAL, "option %s: buffer of %zu bytes too small", o->name, len);
  return CDYN_OK;
}
