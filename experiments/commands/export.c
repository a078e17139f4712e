/*
 * export.c: `cdyn export EXPERIMENT [options]`: the experiment run into
 * a scratch directory (`cdyn run`, run.c) with the capture on
 * (runner/capture.c), so that its directory (--out, default
 * EXPERIMENT-scenes) gets every run the experiment starts as a scene,
 * with index.csv (each scene's run and the digest of its trajectory,
 * which `cdyn replay` checks).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "runargs.h"
#include "studies/table.h"

/*
 * cdyn export EXPERIMENT [--out DIR] [--force] [run options]: run the
 * experiment (its output into a scratch directory, removed afterwards)
 * with the capture on (capture.c), so that DIR gets every run it starts
 * as a scene, and DIR/index.csv each scene's trajectory digest.
 */
int exp_cmd_export(int argc, char **argv, const char *command)
{
  if (argc < 1 || argv[0][0] == '-') {
    fprintf(stderr, "usage: cdyn export EXPERIMENT [--out DIR] [--force] [the options of cdyn run]\n");
    return 2;
  }
  const cdyn_experiment *e = exp_find(argv[0]);
  if (!e) {
    fprintf(stderr, "cdyn export: unknown experiment '%s'%s (cdyn list experiments shows them)\n", argv[0],
            exp_experiment_hint(argv[0]));
    return 2;
  }
  if (!e->schemes) {
    fprintf(stderr, "cdyn export: %s runs no schemes (it studies part of the library directly): it has no system "
            "to export\n", e->name);
    return 2;
  }
  char defdir[256];
  snprintf(defdir, sizeof defdir, "%s-scenes", e->name);
  const char *dir = defdir;
  int force = 0;
  char **rargv = calloc((size_t)argc + 4, sizeof *rargv);
  if (!rargv)
    return 1;
  int rargc = 0;
  rargv[rargc++] = argv[0];
  for (int k = 1; k < argc; k++) {
    if (!strcmp(argv[k], "--out") && k + 1 < argc && *argv[k + 1]) {
      dir = argv[++k];
    } else if (!strcmp(argv[k], "--out")) {
      fprintf(stderr, "cdyn export: --out needs a directory\n");
      free(rargv);
      return 2;
    } else if (!strcmp(argv[k], "--force")) {
      force = 1;
    } else {
      rargv[rargc++] = argv[k];
    }
  }
  if (strlen(dir) > 3000) {
    fprintf(stderr, "cdyn export: --out: a directory path of %zu bytes is too long (at most 3000)\n", strlen(dir));
    free(rargv);
    return 2;
  }
  char tmp[4096];
  const char *tdir = getenv("TMPDIR");
  snprintf(tmp, sizeof tmp, "%s/cdyn-export-XXXXXX", tdir && *tdir ? tdir : "/tmp");
  int created = 0;
  if (exp_prepare_outdir("cdyn export", dir, force, &created, exp_clear_dir)) {
    free(rargv);
    return 1;
  }
  if (!mkdtemp(tmp)) {
    fprintf(stderr, "cdyn export: cannot make a scratch directory %s: %s\n", tmp, strerror(errno));
    free(rargv);
    if (created)
      rmdir(dir);
    return 1;
  }
  rargv[rargc++] = "--out";
  rargv[rargc++] = tmp;
  int rc = exp_capture_start(dir, e->name);
  if (rc) {
    fprintf(stderr, "cdyn export: %s\n", cdyn_errmsg());
    rc = 1;
  } else {
    rc = exp_cmd_run(rargc, rargv, command);
    int crc = exp_capture_finish(rc == 0);
    if (!rc && crc) {
      fprintf(stderr, "cdyn export: %s\n", cdyn_errmsg());
      rc = 1;
    }
    if (!rc && exp_capture_count() == 0) {
      fprintf(stderr, "cdyn export: %s started no run with these options: nothing to export\n", e->name);
      rc = 1;
    }
  }
  exp_clear_dir("cdyn export", tmp, 0, NULL);
  rmdir(tmp);
  free(rargv);
  if (rc) {
    exp_clear_dir("cdyn export", dir, 0, NULL);
    if (created)
      rmdir(dir);
    return rc;
  }
  printf("%s: %d scenes in %s/ (index.csv: each scene's run and the digest of its trajectory;\n"
         "  cdyn run scene %s/SCENE --steps STEPS_DONE reproduces it)\n",
         e->name, exp_capture_count(), dir, dir);
  return 0;
}
