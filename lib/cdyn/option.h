/*
 * cdyn/option.h: typed options set from text.
 *
 * Schemes and linear solvers declare their parameters once, as a table of
 * cdyn_option entries (name, kind, bounds, default, one line of
 * documentation), each naming a field of the type's option struct.  The
 * stepper sets them from text (cdyn_stepper_set), lists them
 * (cdyn_stepper_option_name, `cdyn list SCHEME`) and writes them into
 * every output's metadata, all from that one table.
 *
 * Options in use: doc/library.md.
 */
#ifndef CDYN_OPTION_H
#define CDYN_OPTION_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum cdyn_option_kind {
  CDYN_OPT_DOUBLE,     /* double, within [min, max] */
  CDYN_OPT_INT,        /* long, within [min, max] */
  CDYN_OPT_BOOL,       /* int: on/off, 1/0, true/false, yes/no */
  CDYN_OPT_CHOICE,     /* int: index into `choices` */
  CDYN_OPT_INTEGRATOR  /* const cdyn_integrator_type * */
};

/*
 * One option of a scheme or a solver: a field of its option struct, set from
 * text by cdyn_stepper_set, listed by `cdyn list SCHEME` and written to
 * every output's metadata.  A table ends with CDYN_OPTIONS_END.
 */
typedef struct cdyn_option {
  const char *name;
  enum cdyn_option_kind kind;
  size_t offset;               /* of the field within the option struct */
  const char *def;             /* default, as text */
  double min, max;             /* inclusive bounds for DOUBLE and INT */
  const char *const *choices;  /* NULL-terminated, for CHOICE */
  const char *doc;             /* one line */
} cdyn_option;

#define CDYN_OPTIONS_END {NULL, 0, 0, NULL, 0, 0, NULL, NULL}
/* The option entry of a scheme's integrator (field `field` of its options
   struct `type`). */
#define CDYN_INTEGRATOR_OPTION(type, field, def, doc)                                             \
  {"integrator", CDYN_OPT_INTEGRATOR, offsetof(type, field), def, 0, 0, NULL, doc}

/* The entries of a table (up to CDYN_OPTIONS_END); 0 for NULL. */
size_t cdyn_option_count(const cdyn_option *table);
/* Parse `value` for option o into its field of the option struct `opts`
   (CDYN_EINVAL or CDYN_EUNKNOWN with a message naming the option when the
   value is out of range or not one of the choices; the field unchanged);
   with o->def, this is how a stepper sets a type's defaults. */
int cdyn_option_parse(const cdyn_option *o, void *opts, const char *value);
/* The value of o's field of `opts` as text that parses back to it. */
int cdyn_option_format(const cdyn_option *o, const void *opts, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
