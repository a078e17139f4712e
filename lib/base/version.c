/*
 * version.c: the library's version, from configure.ac (AC_INIT).
 */
#include "cdyn/stepper.h"
#include "config.h"

const char *cdyn_version(void) { return PACKAGE_VERSION; }
