/*
 * check.c: `cdyn check FILE.json ...`: each scene file read and its
 * stepper made (which checks the options' values), a line per file on
 * stdout (its particles, springs, constraints, scheme, h and steps) or
 * the reader's message on stderr; nothing written.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "runner/cli.h"
#include "commands.h"
#include "runner/experiment.h"

int exp_cmd_check(int argc, char **argv, const char *command)
{
  (void)command;
  if (argc < 1) {
    fprintf(stderr, "usage: cdyn check FILE.json ...\n");
    return 2;
  }
  static const char *const options[] = {"--help", NULL};
  for (int k = 0; k < argc; k++)
    if (!strncmp(argv[k], "--", 2))
      return exp_unknown_option("cdyn check", argv[k], options);
  int bad = 0;
  for (int k = 0; k < argc; k++) {
    cdyn_scene *sc;
    int rc = cdyn_scene_load(&sc, argv[k], NULL);
    cdyn_stepper *st = NULL;
    /* The options' values are checked by the stepper that takes them. */
    if (!rc)
      rc = cdyn_scene_stepper(&st, sc, NULL);
    if (rc) {
      /* The reader's messages name the file; the stepper's do not. */
      const char *msg = cdyn_errmsg();
      if (strncmp(msg, argv[k], strlen(argv[k])))
        fprintf(stderr, "%s: %s\n", argv[k], msg);
      else
        fprintf(stderr, "%s\n", msg);
      bad = 1;
      cdyn_scene_free(sc);
      continue;
    }
    cdyn_system *sys = cdyn_scene_system(sc);
    cdyn_scene_run run;
    cdyn_scene_get_run(sc, &run);
    printf("%s: scene \"%s\": %zu particles, %zu springs, %zu constraints (%zu rows, %zu inequality rows), "
           "%zu strain limiters, %zu balls, %s; scheme %s, h = %g s, %ld steps\n",
           argv[k], cdyn_scene_name(sc), cdyn_system_size(sys), cdyn_system_spring_count(sys),
           cdyn_system_live_constraints(sys), cdyn_system_row_count(sys), cdyn_system_inequality_rows(sys),
           cdyn_scene_strainlimit_count(sc), cdyn_scene_ball_count(sc),
           cdyn_scene_contacts(sc) ? "contact handling" : "no contact handling", cdyn_scene_scheme(sc), run.h,
           run.steps);
    cdyn_stepper_free(st);
    cdyn_scene_free(sc);
  }
  return bad;
}
