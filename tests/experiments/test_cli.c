/*
 * tests/experiments/test_cli.c: the cdyn program's command line, its
 * output directory and its claims report, end to end.
 *
 * - `--help`, `--version` and `list` (every registered scheme, active-set
 *   algorithm and experiment is listed; a scheme in full with every
 *   option, an experiment in full the same way as `run EXPERIMENT --help`,
 *   which writes nothing);
 * - bad input of every kind (unknown names, step sizes and counts out of
 *   range or not numbers, experiment parameters and scheme options that
 *   their checks refuse) is refused with a message and a non-zero status
 *   before anything is written;
 * - --out: a directory that is empty or absent, --force on one that holds
 *   only a cdyn run's files and never on one with a file of the user's,
 *   and the file system's reasons for refusing a name;
 * - the same bytes whatever OPENBLAS_NUM_THREADS says;
 * - no lost output: with each file operation failing in turn
 *   (tests/failwrite.c, preloaded), every run and report exits non-zero
 *   with a message and leaves nothing behind;
 * - `cdyn report` merges the runs' verdicts into DIR/claims.csv and DIR/claims.md
 *   with every claim of the table listed, judged or not run, and refuses
 *   two runs of one experiment; claims.md says in words what a failed or
 *   unbounded measure means (never "nan"), names every measured
 *   sub-measure with its unit, in the table and in the claim's section
 *   alike, and cites each paper by its title the first time.
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ctype.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "harness.h"

/* ---- --help, --version, list ----------------------------------------------- */

/* Is `name` the first word of a line in the section that starts with the
   line beginning `heading` (a section ends at an empty line)? */
static int listed_in(const char *out, const char *heading, const char *name)
{
  const char *s = out;
  while (s && strncmp(s, heading, strlen(heading))) {
    s = strchr(s, '\n');
    s = s ? s + 1 : NULL;
  }
  if (!s)
    return 0;
  for (s = strchr(s, '\n'); s && s[1] && s[1] != '\n'; s = strchr(s + 1, '\n')) {
    const char *w = s + 1;
    while (*w == ' ')
      w++;
    size_t n = strlen(name);
    if (!strncmp(w, name, n) && (w[n] == ' ' || w[n] == '\n'))
      return 1;
  }
  return 0;
}

START_TEST(test_help_and_list)
{
  proc p = run_cdyn("--help");
  ck_assert_msg(p.status == 0, "cdyn --help exited with %d", p.status);
  ck_assert_msg(strstr(p.out, "usage") != NULL, "cdyn --help does not print usage:\n%s", p.out);
  proc_free(&p);

  p = run_cdyn("--version");
  ck_assert_int_eq(p.status, 0);
  char want[128];
  snprintf(want, sizeof want, "cdyn %s (commit ", cdyn_version());
  ck_assert_msg(!strncmp(p.out, want, strlen(want)), "cdyn --version: %s", p.out);
  proc_free(&p);

  /* A scheme in full: every option a stepper of it has, with its default
     and doc (cdyn_scheme_option, the same list cdyn_stepper_option_* gives). */
  for (size_t i = 0; i < cdyn_scheme_count(); i++) {
    p = run_cdyn("list", cdyn_scheme_name(i));
    ck_assert_msg(p.status == 0, "cdyn list %s exited with %d: %s", cdyn_scheme_name(i), p.status, p.err);
    /* The columns as wide as the widest option name and default (at
       least 14 and 18). */
    int wname = 14, wdef = 18;
    for (size_t k = 0; k < cdyn_scheme_option_count(i); k++) {
      const char *name, *def;
      ck_assert_int_eq(cdyn_scheme_option(i, k, &name, &def, NULL), CDYN_OK);
      wname = (int)strlen(name) > wname ? (int)strlen(name) : wname;
      wdef = (int)strlen(def) > wdef ? (int)strlen(def) : wdef;
    }
    for (size_t k = 0; k < cdyn_scheme_option_count(i); k++) {
      const char *name, *def, *doc;
      ck_assert_int_eq(cdyn_scheme_option(i, k, &name, &def, &doc), CDYN_OK);
      char line[512];
      snprintf(line, sizeof line, "%-*s = %-*s %s\n", wname, name, wdef, def, doc);
      ck_assert_msg(strstr(p.out, line) != NULL, "cdyn list %s lacks the line '%s':\n%s", cdyn_scheme_name(i), line,
                    p.out);
    }
    proc_free(&p);
  }
  /* An experiment in full, twice the same way; nothing is written. */
  p = run_cdyn("list", "chain10-stability");
  proc q = run_cdyn("run", "chain10-stability", "--help");
  ck_assert_msg(p.status == 0 && q.status == 0, "list/--help exited with %d/%d: %s%s", p.status, q.status, p.err,
                q.err);
  ck_assert_str_eq(p.out, q.out);
  static const char *const want_help[] = {"sawtooth       = 45       (0, 90)", "trials         = 20       integer [0, 100000]",
                                          "companion run poststab-mass: poststab weighting=mass",
                                          "chain10.poststab_fails", "--h 0.001 (default)"};
  for (size_t k = 0; k < sizeof want_help / sizeof want_help[0]; k++)
    ck_assert_msg(strstr(p.out, want_help[k]) != NULL, "cdyn list chain10-stability lacks '%s':\n%s", want_help[k],
                  p.out);
  proc_free(&p);
  proc_free(&q);
  char dir[PATH_MAX];
  ck_assert_msg(!exists(wp(dir, "chain10-stability")), "--help wrote %s", dir);
  p = run_cdyn("list", "nosuch");
  ck_assert_msg(p.status == 2 && strstr(p.err, "nosuch"), "cdyn list nosuch: %d %s", p.status, p.err);
  proc_free(&p);

  p = run_cdyn("list");
  ck_assert_msg(p.status == 0, "cdyn list exited with %d: %s", p.status, p.err);
  ck_assert_uint_gt(cdyn_scheme_count(), 0);
  for (size_t i = 0; i < cdyn_scheme_count(); i++)
    ck_assert_msg(listed_in(p.out, "schemes", cdyn_scheme_name(i)), "cdyn list does not list scheme %s:\n%s",
                  cdyn_scheme_name(i), p.out);
  for (size_t i = 0; i < cdyn_activeset_count(); i++)
    ck_assert_msg(listed_in(p.out, "active-set algorithms", cdyn_activeset_name(i)),
                  "cdyn list does not list active-set algorithm %s:\n%s", cdyn_activeset_name(i), p.out);
  static const char *const exps[] = {"arm2-drift", "arm2-trajectory", "step-cost",   "convergence",
                                     "stability",  "bad-initial",     "bead-circle", "stiff-pendulum",
                                     "chain10-stability", "corner", "billiard", "active-set-census", "ccd-census"};
  for (size_t i = 0; i < sizeof exps / sizeof exps[0]; i++)
    ck_assert_msg(listed_in(p.out, "experiments", exps[i]), "cdyn list does not list experiment %s:\n%s",
                  exps[i], p.out);
  proc_free(&p);
}
END_TEST

/* ---- bad input ---------------------------------------------------------------------- */

typedef struct {
  const char *args[12];
  const char *names;   /* what stderr must mention */
  const char *outdir;  /* the --out directory, if any */
} bad_case;

/* Every one is refused before anything is written: the parameters against
   their table, scheme options on a scratch stepper, the experiment's own
   checks across parameters. */
static const bad_case bad_cases[] = {
  {{"run", "nope", "--out", "o1", NULL}, "nope", "o1"},
  {{"run", "arm2-drift", "--scheme", "nope", "--out", "o2", NULL}, "nope", "o2"},
  {{"run", "arm2-drift", "--h", "0", "--out", "o3", NULL}, "--h", "o3"},
  {{"run", "arm2-drift", "--h", "-1", "--out", "o4", NULL}, "--h", "o4"},
  {{"run", "arm2-drift", "--h", "nan", "--out", "o5", NULL}, "--h", "o5"},
  {{"run", "arm2-drift", "--steps", "0", "--out", "o6", NULL}, "--steps", "o6"},
  {{"run", "arm2-drift", "--companions", "nope", "--out", "o6b", NULL}, "no companion run 'nope' (all, none, or some of: baumgarte-a0b0)", "o6b"},
  {{"run", "arm2-drift", "--companions", "baumgarte-a0b0,baumgarte-a0b0", "--out", "o6c", NULL}, "named twice", "o6c"},
  {{"run", "arm2-drift", "--companions", "baumgarte-a0b0,", "--out", "o6d", NULL}, "an empty name", "o6d"},
  {{"run", "step-cost", "--companions", "implicit", "--out", "o6e", NULL}, "step-cost has no companion runs (all or none)", "o6e"},
  {{"run", "arm2-drift", "--set", "nokey=1", "--out", "o7", NULL}, "nokey", "o7"},
  {{"run", "arm2-drift", "--steps", "5", "--set", "alpha=abc", "--out", "o8", NULL}, "alpha = 'abc'", "o8"},
  {{"run", "arm2-drift", "--steps", "5", "--set", "mass=-1", "--out", "o9", NULL}, "mass = '-1'", "o9"},
  {{"run", "arm2-drift", "--steps", "5", "--set", "links=0", "--out", "o10", NULL}, "links = '0'", "o10"},
  {{"run", "chain-scale-stability", "--set", "links_min=20", "--set", "links_max=10", "--out", "o10b", NULL},
   "links_min = 20 is above links_max", "o10b"},
  {{"run", "chain-scale-stability", "--set", "links_min=1", "--set", "links_max=100000", "--out", "o10c", NULL},
   "more than 16 sizes", "o10c"},
  {{"run", "chain-scale-stability", "--h", "0.01", "--out", "o10d", NULL}, "--h", "o10d"},
  {{"run", "cloth-elongation", "--set", "snapshots=0.1,x", "--out", "o11a", NULL}, "snapshots", "o11a"},
  {{"run", "cloth-vs-implicit-ode", "--set", "grids=32,16", "--out", "o11b", NULL}, "grids", "o11b"},
  {{"run", "cloth-vs-implicit-ode", "--h", "0.01", "--out", "o11c", NULL}, "--h", "o11c"},
  {{"run", "cloth-vs-implicit-ode", "--set", "bw_cholmod_mode=dense", "--out", "o11h", NULL}, "bw_cholmod_mode",
   "o11h"},
  {{"run", "cloth-contact", "--set", "snapshots=x", "--out", "o11e", NULL}, "snapshots", "o11e"},
  {{"run", "collision-cost", "--set", "grids=1", "--out", "o11f", NULL}, "grids", "o11f"},
  {{"run", "collision-cost", "--steps", "5", "--out", "o11g", NULL}, "--steps", "o11g"},
  {{"run", "arm2-drift", "--scheme", "baraff-witkin", "--out", "o11d", NULL}, "pins only", "o11d"},
  /* Without its value --out must not fall back to ./arm2-drift. */
  {{"run", "arm2-drift", "--steps", "5", "--out", NULL}, "--out", "arm2-drift"},
  {{"run", "convergence", "--set", "levels=1", "--out", "o11", NULL}, "levels = '1'", "o11"},
  {{"run", "convergence", "--set", "levels=x", "--out", "o12", NULL}, "levels = 'x'", "o12"},
  {{"run", "convergence", "--set", "n0=2.5", "--out", "o13", NULL}, "n0 = '2.5'", "o13"},
  {{"run", "stability", "--set", "err_frac=-1", "--out", "o14", NULL}, "err_frac = '-1'", "o14"},
  {{"run", "stability", "--set", "energy_frac=0", "--out", "o15", NULL}, "energy_frac = '0'", "o15"},
  {{"run", "bead-circle", "--set", "theta0=4", "--out", "o16", NULL}, "theta0 = '4'", "o16"},
  {{"run", "stiff-pendulum", "--set", "damping=-1", "--out", "o18", NULL}, "damping = '-1'", "o18"},
  {{"run", "bad-initial", "--set", "levels=3", "--out", "o19", NULL}, "levels", "o19"},
  {{"run", "arm5-improved", "--set", "order_levels=1", "--out", "o20", NULL}, "order_levels = '1'", "o20"},
  {{"run", "arm5-improved", "--set", "diverge_frac=0", "--out", "o21", NULL}, "diverge_frac = '0'", "o21"},
  {{"run", "arm5-improved", "--set", "mass_heavy=-1", "--out", "o22", NULL}, "mass_heavy = '-1'", "o22"},
  /* 5 steps of 0.01 s are not 10 steps of the coarse 0.1 s. */
  {{"run", "arm5-improved", "--steps", "5", "--out", "o23", NULL}, "at least 10 steps", "o23"},
  {{"run", "arm5-baumgarte", "--set", "err_frac=0", "--out", "o24", NULL}, "err_frac = '0'", "o24"},
  {{"run", "arm5-baumgarte", "--set", "links=0", "--out", "o25", NULL}, "links = '0'", "o25"},
  {{"run", "arm5-improved", "--set", "h_coarse=0.01", "--out", "o36", NULL}, "h_coarse = 0.01", "o36"},
  {{"run", "arm5-improved", "--set", "mass_heavy=0.5", "--out", "o37", NULL}, "mass_heavy = 0.5", "o37"},
  {{"run", "arm5-baumgarte", "--set", "g=0", "--out", "o38", NULL}, "g = '0'", "o38"},
  {{"run", "arm5-baumgarte", "--set", "order_T=0.05", "--out", "o39", NULL}, "order_T = 0.05", "o39"},
  {{"run", "chain10-stability", "--set", "trials=-1", "--out", "o26", NULL}, "trials = '-1'", "o26"},
  {{"run", "chain10-stability", "--set", "trials=2.5", "--out", "o27", NULL}, "trials = '2.5'", "o27"},
  {{"run", "chain10-stability", "--set", "fail_tol=0", "--out", "o28", NULL}, "fail_tol = '0'", "o28"},
  {{"run", "chain10-stability", "--set", "fail_tol=-0.1", "--out", "o29", NULL}, "fail_tol = '-0.1'", "o29"},
  {{"run", "chain10-stability", "--set", "sawtooth=0", "--out", "o30", NULL}, "sawtooth = '0'", "o30"},
  {{"run", "chain10-stability", "--set", "sawtooth=90", "--out", "o31", NULL}, "sawtooth = '90'", "o31"},
  {{"run", "chain10-stability", "--set", "sawtooth=-30", "--out", "o32", NULL}, "sawtooth = '-30'", "o32"},
  {{"run", "chain10-stability", "--set", "perturb=-1e-3", "--out", "o33", NULL}, "perturb = '-1e-3'", "o33"},
  {{"run", "chain10-stability", "--set", "fail_tol=abc", "--out", "o34", NULL}, "fail_tol = 'abc'", "o34"},
  {{"run", "chain10-stability", "--steps", "3", "--out", "o35", NULL}, "--steps 3", "o35"},
  {{"run", "corner", "--set", "tau_over_h=-1", "--out", "o40", NULL}, "tau_over_h = '-1'", "o40"},
  {{"run", "corner", "--steps", "1", "--out", "o41", NULL}, "--steps 1", "o41"},
  {{"run", "active-set-census", "--set", "problems=0", "--out", "o42", NULL}, "problems = '0'", "o42"},
  {{"run", "active-set-census", "--set", "max_rows=17", "--out", "o43", NULL}, "max_rows = '17'", "o43"},
  {{"run", "active-set-census", "--set", "min_rows=5", "--set", "max_rows=4", "--out", "o54", NULL},
   "min_rows = 5 must not exceed max_rows = 4", "o54"},
  {{"run", "billiard", "--set", "radius=0", "--out", "o44", NULL}, "radius = '0'", "o44"},
  {{"run", "billiard", "--set", "mass=-0.17", "--out", "o45", NULL}, "mass = '-0.17'", "o45"},
  {{"run", "billiard", "--set", "restitution=1.5", "--out", "o46", NULL}, "restitution = '1.5'", "o46"},
  {{"run", "billiard", "--set", "restitution_low=-0.5", "--out", "o47", NULL}, "restitution_low = '-0.5'", "o47"},
  {{"run", "billiard", "--set", "tilt=-1", "--out", "o48", NULL}, "tilt = '-1'", "o48"},
  {{"run", "billiard", "--set", "tau=-0.01", "--out", "o49", NULL}, "tau = '-0.01'", "o49"},
  {{"run", "billiard", "--set", "rack_gap=-1", "--out", "o50", NULL}, "rack_gap = '-1'", "o50"},
  {{"run", "billiard", "--set", "algorithms=nope", "--out", "o51", NULL}, "unknown active-set algorithm 'nope'", "o51"},
  {{"run", "billiard", "--set", "snapshots=0.2,0.1", "--out", "o52", NULL}, "snapshots: '0.1' is not greater", "o52"},
  /* A scheme that cannot enforce the walls, asked for by name. */
  {{"run", "billiard", "--scheme", "implicit", "--out", "o53", NULL}, "implicit does not enforce inequality", "o53"},
  /* Scheme lists that name nothing, and parameters an experiment does not use. */
  {{"run", "arm2-drift", "--scheme", "", "--out", "o55", NULL}, "no scheme named", "o55"},
  {{"run", "arm2-drift", "--scheme", ",,,", "--out", "o56", NULL}, "no scheme named", "o56"},
  {{"run", "convergence", "--h", "0.01", "--out", "o57", NULL}, "does not use --h", "o57"},
  {{"run", "stability", "--steps", "10", "--out", "o58", NULL}, "does not use --steps", "o58"},
  {{"run", "active-set-census", "--scheme", "implicit", "--out", "o59", NULL}, "runs no schemes", "o59"},
  {{"run", "ccd-census", "--set", "random=0", "--set", "degenerate=0", "--out", "o74", NULL}, "no query", "o74"},
  {{"run", "ccd-census", "--set", "tol=0", "--out", "o75", NULL}, "tol = '0'", "o75"},
  {{"run", "ccd-census", "--set", "tol=0.75", "--out", "o76", NULL}, "tol = '0.75'", "o76"},
  {{"run", "ccd-census", "--set", "random=-1", "--out", "o77", NULL}, "random = '-1'", "o77"},
  {{"run", "ccd-census", "--h", "0.01", "--out", "o78", NULL}, "--h", "o78"},
  {{"run", "ccd-census", "--scheme", "implicit", "--out", "o79", NULL}, "runs no schemes", "o79"},
  /* Scheme options: of a scheme not in the run, unknown, out of range. */
  {{"run", "arm2-drift", "--set", "rattle.tol=1e-6", "--out", "o60", NULL}, "rattle is a scheme, but not in this run",
   "o60"},
  {{"run", "arm2-drift", "--set", "nosuch.tol=1", "--out", "o61", NULL}, "nosuch is not a scheme or run", "o61"},
  {{"run", "arm2-drift", "--set", "implicit.nosuch=1", "--out", "o62", NULL}, "implicit has no option 'nosuch'",
   "o62"},
  {{"run", "arm2-drift", "--set", "baumgarte.alpha=-1", "--out", "o63", NULL}, "--set baumgarte.alpha=-1", "o63"},
  {{"run", "arm2-drift", "--set", "tol=1e-6", "--out", "o64", NULL}, "no scheme of the run has such an option",
   "o64"},
  {{"run", "chain10-stability", "--set", "tol=-1", "--out", "o65", NULL}, "--set rattle.tol=-1", "o65"},
  {{"run", "arm2-drift", "--set", ".tol=1", "--out", "o66", NULL}, "expected SCHEME.KEY=VALUE", "o66"},
  /* Integers at and beyond the range of long, and numbers as text: refused,
     never clamped or overflowed into an allocation. */
  {{"run", "arm2-drift", "--steps", "9223372036854775807", "--out", "o67", NULL}, "--steps", "o67"},
  {{"run", "arm2-drift", "--steps", "99999999999999999999", "--out", "o68", NULL}, "--steps", "o68"},
  {{"run", "chain10-stability", "--steps", "1e20", "--out", "o69", NULL}, "--steps", "o69"},
  {{"run", "arm2-drift", "--h", "1e400", "--out", "o70", NULL}, "--h", "o70"},
  {{"run", "convergence", "--set", "n0=1e20", "--out", "o71", NULL}, "n0 = '1e20'", "o71"},
  {{"run", "chain10-stability", "--set", "trials=9223372036854775807", "--out", "o72", NULL}, "trials", "o72"},
  {{"run", "arm2-drift", "--steps", "-5", "--out", "o73", NULL}, "--steps", "o73"},
  /* Lists: an empty item, a bad number, an item too long for its slot. */
  {{"run", "cloth-contact", "--set", "snapshots=0.1 0.1", "--out", "o80", NULL}, "snapshots: '0.1' is not greater", "o80"},
  {{"run", "cloth-elongation", "--set", "snapshots=2,1", "--out", "o81", NULL}, "snapshots: '1' is not greater", "o81"},
  {{"run", "billiard", "--set", "snapshots=0.1,x", "--out", "o82", NULL}, "snapshots: 'x' is not a number", "o82"},
  {{"run", "cloth-elongation", "--set", "snapshots=0.1,-1", "--out", "o83", NULL}, "snapshots: '-1' is not a number",
   "o83"},
  {{"run", "billiard", "--set", "algorithms=lemke,,lemke", "--out", "o84", NULL}, "algorithms: an empty value", "o84"},
  {{"run", "billiard", "--set", "algorithms=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "--out", "o85", NULL},
   "is longer than 31 characters", "o85"},
};
#define NBAD (sizeof bad_cases / sizeof bad_cases[0])

START_TEST(test_bad_input)
{
  for (size_t k = 0; k < NBAD; k++) {
    const bad_case *c = &bad_cases[k];
    proc p = run_argv(c->args);
    ck_assert_msg(p.status != 0 && p.status < 128, "case %zu (%s): exit status %d", k + 1, c->names, p.status);
    ck_assert_msg(*p.err, "case %zu (%s): nothing on stderr", k + 1, c->names);
    ck_assert_msg(strstr(p.err, c->names), "case %zu: stderr does not mention '%s':\n%s", k + 1, c->names, p.err);
    proc_free(&p);
    char dir[PATH_MAX];
    wp(dir, "%s", c->outdir);
    ck_assert_msg(!exists(dir), "case %zu (%s): %s created before the input was checked", k + 1, c->names, dir);
  }
  /* Nothing at all was written in the work directory but the captured
     output. */
  dirlist l = list_dir(wd);
  for (size_t k = 0; k < l.n; k++)
    ck_assert_msg(!strcmp(l.name[k], ".stdout") || !strcmp(l.name[k], ".stderr"), "%s/%s written by a refused run",
                  wd, l.name[k]);
  dirlist_free(&l);
}
END_TEST

/* --out: an empty or absent directory, or --force on one holding only a
   cdyn run's files; a run that fails removes what it wrote. */
START_TEST(test_out_dir)
{
  char dir[PATH_MAX], path[PATH_MAX];
  run_ok("run", "arm2-drift", "--steps", "8", "--out", "a");
  proc p = run_cdyn("run", "arm2-drift", "--steps", "8", "--out", "a");
  ck_assert_msg(p.status == 1 && strstr(p.err, "not empty") && strstr(p.err, "--force"), "rerun into a: %d %s",
                p.status, p.err);
  proc_free(&p);
  /* --force clears it: a shorter run leaves nothing of the longer one. */
  run_ok("run", "arm2-drift", "--steps", "8", "--scheme", "implicit", "--out", "a", "--force");
  pathf(path, "%s/poststab.csv", wp(dir, "a"));
  ck_assert_msg(!exists(path), "--force left %s", path);
  /* A directory with a file of the user's is never cleared. */
  ck_assert_int_eq(mkdir(wp(dir, "mine"), 0777), 0);
  FILE *f = fopen(pathf(path, "%s/notes.txt", dir), "w");
  ck_assert_ptr_nonnull(f);
  fputs("keep me\n", f);
  fclose(f);
  p = run_cdyn("run", "arm2-drift", "--steps", "8", "--out", "mine", "--force");
  ck_assert_msg(p.status == 1 && strstr(p.err, "notes.txt"), "--force into mine: %d %s", p.status, p.err);
  proc_free(&p);
  ck_assert_msg(exists(path), "--force removed %s", path);
  /* A directory name the file system refuses: its reason is said. */
  char longname[320];
  memset(longname, 'n', 300);
  longname[300] = '\0';
  p = run_cdyn("run", "arm2-drift", "--steps", "8", "--out", longname);
  ck_assert_msg(p.status == 1 && strstr(p.err, "File name too long"), "--out of 300 bytes: %d %s", p.status, p.err);
  proc_free(&p);
  char toolong[3100];
  memset(toolong, 'x', 3050);
  toolong[3050] = '\0';
  p = run_cdyn("run", "arm2-drift", "--steps", "8", "--out", toolong);
  ck_assert_msg(p.status == 2 && strstr(p.err, "too long"), "--out of 3050 bytes: %d %s", p.status, p.err);
  proc_free(&p);
  /* --out into a file is refused. */
  p = run_cdyn("run", "arm2-drift", "--steps", "8", "--out", "mine/notes.txt");
  ck_assert_msg(p.status == 1 && strstr(p.err, "not a directory"), "--out a file: %d %s", p.status, p.err);
  proc_free(&p);
}
END_TEST

/*
 * The program pins OpenBLAS to one thread itself: the same command gives
 * the same bytes whatever OPENBLAS_NUM_THREADS says (billiard solves many
 * small dense problems, where a threaded BLAS would change the last bits).
 */
START_TEST(test_blas_threads)
{
  const char *old = getenv("OPENBLAS_NUM_THREADS");
  char saved[32];
  snprintf(saved, sizeof saved, "%s", old ? old : "1");
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  run_ok("run", "billiard", "--steps", "200", "--set", "algorithms=lcp,iterative", "--out", "a");
  setenv("OPENBLAS_NUM_THREADS", "2", 1);
  run_ok("run", "billiard", "--steps", "200", "--set", "algorithms=lcp,iterative", "--out", "b");
  unsetenv("OPENBLAS_NUM_THREADS");
  run_ok("run", "billiard", "--steps", "200", "--set", "algorithms=lcp,iterative", "--out", "c");
  setenv("OPENBLAS_NUM_THREADS", saved, 1);
  dirlist la = list_dir(wp((char[PATH_MAX]){0}, "a"));
  size_t ncsv = 0;
  for (size_t k = 0; k < la.n; k++) {
    if (!has_suffix(la.name[k], ".csv"))
      continue;
    ncsv++;
    for (int other = 0; other < 2; other++) {
      char pa[PATH_MAX], pb[PATH_MAX];
      size_t na, nb;
      char *a = slurp(wp(pa, "a/%s", la.name[k]), &na), *b = slurp(wp(pb, "%s/%s", other ? "c" : "b", la.name[k]), &nb);
      ck_assert_msg(a && b && na == nb && !memcmp(a, b, na), "%s differs with OPENBLAS_NUM_THREADS %s", la.name[k],
                    other ? "unset" : "2");
      free(a);
      free(b);
    }
  }
  ck_assert_uint_ge(ncsv, 8);
  dirlist_free(&la);
}
END_TEST

/*
 * No lost output.  The cdyn program runs with a write (or a rename) of its
 * files failing, as on a full disk, for every k-th one in turn
 * (tests/failwrite.c, preloaded).  Every such run must exit non-zero with
 * a message and leave nothing behind (the directory it created is gone);
 * the first k past the run's last write must be a complete run.
 */
#if defined(__SANITIZE_ADDRESS__)
#define FAILWRITE_CAN_RUN 0 /* AddressSanitizer must be the first library loaded */
#else
#define FAILWRITE_CAN_RUN 1
#endif

static void failing_writes(const char *var, const char *experiment)
{
  const char *lib = getenv("CDYN_FAILWRITE");
  long k;
  for (k = 1; k <= 2000; k++) {
    char n[32], dir[PATH_MAX];
    snprintf(n, sizeof n, "%ld", k);
    setenv("LD_PRELOAD", lib, 1);
    setenv(var, n, 1);
    proc p = run_cdyn("run", experiment, "--steps", "8", "--out", "w");
    unsetenv("LD_PRELOAD");
    unsetenv(var);
    wp(dir, "w");
    if (p.status == 0) {
      /* Past the last one: a complete run, which a later k repeats. */
      ck_assert_msg(k > 1, "%s: %s=1 did not fail the run", experiment, var);
      char path[PATH_MAX];
      pathf(path, "%s/run.meta.json", dir);
      ck_assert_msg(exists(path), "%s: exit 0 without run.meta.json", experiment);
      proc_free(&p);
      break;
    }
    ck_assert_msg(p.status == 1 && strstr(p.err, "No space left on device"),
                  "%s, %s=%ld: exit %d, stderr:\n%s", experiment, var, k, p.status, p.err);
    ck_assert_msg(!exists(dir), "%s, %s=%ld: a failed run left %s behind", experiment, var, k, dir);
    proc_free(&p);
  }
  ck_assert_msg(k > 3 && k <= 2000, "%s: %ld %s calls in a run?", experiment, k - 1, var);
  printf("# %s: each of %ld %s calls failed in turn\n", experiment, k - 1, var);
  char dir[PATH_MAX];
  remove_tree(wp(dir, "w"));
}

/* The report: every failure leaves neither DIR/claims.csv nor DIR/claims.md. */
static void failing_report(const char *var)
{
  const char *lib = getenv("CDYN_FAILWRITE");
  long k;
  char dir[PATH_MAX], csv[PATH_MAX], md[PATH_MAX];
  wp(dir, "rep");
  pathf(csv, "%s/claims.csv", dir);
  pathf(md, "%s/claims.md", dir);
  for (k = 1; k <= 50; k++) {
    char n[32];
    snprintf(n, sizeof n, "%ld", k);
    setenv("LD_PRELOAD", lib, 1);
    setenv(var, n, 1);
    proc p = run_cdyn("report", "rep");
    unsetenv("LD_PRELOAD");
    unsetenv(var);
    if (p.status == 0) {
      ck_assert_msg(exists(csv) && exists(md), "report exit 0 without its files");
      proc_free(&p);
      break;
    }
    ck_assert_msg(p.status == 1 && strstr(p.err, "No space left on device"), "report %s=%ld: %d %s", var, k,
                  p.status, p.err);
    ck_assert_msg(!exists(csv) && !exists(md), "report %s=%ld: a failed report left a file behind", var, k);
    check_no_temporaries(dir);
    proc_free(&p);
  }
  ck_assert_msg(k > 1 && k <= 50, "report: %ld %s calls?", k - 1, var);
  remove(csv);
  remove(md);
}

START_TEST(test_failed_writes)
{
  char rep[PATH_MAX];
  ck_assert_int_eq(mkdir(wp(rep, "rep"), 0777), 0);
  run_ok("run", "arm2-drift", "--steps", "8", "--out", "rep/a");
  failing_report("FAILOPEN_AT");
  failing_report("FAILCLOSE_AT");
  failing_report("FAILRENAME_AT");
  static const char *const ops[] = {"FAILOPEN_AT", "FAILCLOSE_AT", "FAILRENAME_AT"};
  for (int k = 0; k < 3; k++) {
    failing_writes(ops[k], "arm2-drift");
    failing_writes(ops[k], "bead-circle");
  }
}
END_TEST

/* ---- the claims report ---------------------------------------------------------- */

/* Read DIR/claims.csv: the header and one row per claim, in order; return
   the number of not-run rows.  `part` (may be NULL) is the arm2-drift
   claims.part.csv whose rows must reappear unchanged. */
static size_t check_claims_csv(const char *dir, const char *part)
{
  char path[PATH_MAX];
  pathf(path, "%s/claims.csv", dir);
  char *text = must_slurp(path);
  char *lines[64];
  size_t n = split_lines(path, text, lines, 64);
  ck_assert_msg(n == NCLAIMS + 1, "%s: %zu lines, expected a header and %zu claims", path, n, NCLAIMS);
  ck_assert_str_eq(lines[0], "id,experiment,measured,threshold,verdict,note");
  char *ptext = part ? must_slurp(part) : NULL;
  char *plines[8];
  size_t np = ptext ? split_lines(part, ptext, plines, 8) : 0;
  size_t notrun = 0;
  for (size_t k = 0; k < NCLAIMS; k++) {
    char *f[8];
    int nf = split_csv(lines[k + 1], f, 8);
    ck_assert_msg(nf == 6, "%s: row %zu has %d fields", path, k + 1, nf);
    ck_assert_msg(!strcmp(f[0], claim_id(k)), "%s: row %zu is %s, expected %s", path, k + 1, f[0], claim_id(k));
    char *pf[8] = {NULL};
    for (size_t j = 0; j < np; j++) {
      size_t len = strlen(claim_id(k));
      if (!strncmp(plines[j], claim_id(k), len) && plines[j][len] == ',') {
        ck_assert_int_eq(split_csv(plines[j], pf, 8), 6);
        break;
      }
    }
    const exp_claim_def *c = &exp_claim_defs[k];
    if (pf[0]) {
      ck_assert_str_eq(f[1], "arm2-drift");
      ck_assert_msg(is_verdict(f[4]), "%s: %s has verdict '%s'", path, f[0], f[4]);
      for (int i = 2; i < 6; i++)
        ck_assert_msg(!strcmp(f[i], pf[i]), "%s: %s field %d is '%s', the experiment wrote '%s'", path, f[0], i + 1,
                      f[i], pf[i]);
    } else {
      /* Not run: its experiment and rule (if it has them), nothing measured. */
      char rule[1024] = "";
      if (c->experiment)
        exp_rule_text(c, rule, sizeof rule);
      ck_assert_msg(!strcmp(f[4], "not-run") && !strcmp(f[1], c->experiment ? c->experiment : "") && !*f[2] &&
                      !strcmp(f[3], rule),
                    "%s: %s is '%s' from '%s' (threshold '%s'), but no run judged it", path, f[0], f[4], f[1], f[3]);
      notrun++;
    }
  }
  free(ptext);
  free(text);
  return notrun;
}

static void check_claims_md(const char *dir, size_t notrun)
{
  char path[PATH_MAX];
  pathf(path, "%s/claims.md", dir);
  char *md = must_slurp(path);
  for (size_t k = 0; k < NCLAIMS; k++) {
    char id[128];
    snprintf(id, sizeof id, "`%s`", claim_id(k));
    ck_assert_msg(strstr(md, id) != NULL, "%s does not mention %s", path, id);
  }
  char tally[64];
  snprintf(tally, sizeof tally, "%zu not run", notrun);
  ck_assert_msg(strstr(md, tally) != NULL, "%s does not say '%s'", path, tally);
  free(md);
}

START_TEST(test_report)
{
  char dir[PATH_MAX], part[PATH_MAX];
  ck_assert_int_eq(mkdir(wp(dir, "r"), 0777), 0);
  /* The report finds runs by their metadata, whatever the directory is
     called; a directory without a complete run is not one. */
  run_ok("run", "arm2-drift", "--steps", "40", "--out", "r/some-name");
  ck_assert_int_eq(mkdir(wp(part, "r/not-a-run"), 0777), 0);
  FILE *f = fopen(wp(part, "r/not-a-run/claims.part.csv"), "w");
  ck_assert_ptr_nonnull(f);
  fputs("arm2.poststab_deviates,arm2-trajectory,1,x,holds,forged\n", f);
  fclose(f);
  wp(part, "r/some-name/claims.part.csv");
  ck_assert_msg(exists(part), "%s not written", part);
  run_ok("report", "r");
  size_t notrun = check_claims_csv(dir, part);
  ck_assert_uint_eq(notrun, NCLAIMS - 3);
  check_claims_md(dir, notrun);
  check_no_temporaries(dir);
  /* Each claim's rule, sub-measures and reason are in the Markdown. */
  char path[PATH_MAX];
  char *md = must_slurp(pathf(path, "%s/claims.md", dir));
  for (size_t k = 0; k < NCLAIMS; k++)
    if (exp_claim_defs[k].reason)
      ck_assert_msg(strstr(md, exp_claim_defs[k].reason) != NULL, "%s lacks the reason of %s", path, claim_id(k));
  /* What the run took: recorded by cdyn run (one line of run.meta.json),
     and the report's last table, one row per run and the sum. */
  char *meta = must_slurp(wp(part, "r/some-name/run.meta.json"));
  const char *res = strstr(meta, "\"resources\": {");
  double wall = NAN, user = NAN, sys = NAN, rss = NAN;
  ck_assert_msg(res && sscanf(res, "\"resources\": {\"wall_s\": %lf, \"cpu_user_s\": %lf, \"cpu_sys_s\": %lf, "
                                   "\"max_rss_mib\": %lf}", &wall, &user, &sys, &rss) == 4,
                "run.meta.json without its resources:\n%s", meta);
  ck_assert_msg(wall >= 0 && wall < 600 && user >= 0 && sys >= 0 && user + sys < 600 && rss > 0 && rss < 1e5,
                "resources: wall %g s, user %g s, sys %g s, largest resident set %g MiB", wall, user, sys, rss);
  free(meta);
  const char *took = strstr(md, "\n## What the runs took\n");
  ck_assert_msg(took && strstr(took, "| `arm2-drift` | ") && strstr(took, "| all 1 (sum; largest) | "),
                "%s lacks the table of what the run took", path);
  free(md);

  /* Two runs of one experiment: the report cannot choose, and says so. */
  run_ok("run", "arm2-drift", "--steps", "40", "--out", "r/again");
  proc p = run_cdyn("report", "r");
  ck_assert_msg(p.status == 1 && strstr(p.err, "two runs of arm2-drift"), "report of two runs: %d %s", p.status,
                p.err);
  proc_free(&p);

  /* Nothing measured: every claim is listed, as not run, and no run took
     anything. */
  ck_assert_int_eq(mkdir(wp(dir, "empty"), 0777), 0);
  run_ok("report", "empty");
  ck_assert_uint_eq(check_claims_csv(dir, NULL), NCLAIMS);
  check_claims_md(dir, NCLAIMS);
  md = must_slurp(pathf(path, "%s/claims.md", dir));
  ck_assert_msg(!strstr(md, "## What the runs took"), "%s has a table of runs, with none", path);
  free(md);
}
END_TEST

/* Does `word` occur in text as a word of its own (not inside "nano",
   "resonance")? */
static int has_word(const char *text, const char *word)
{
  size_t n = strlen(word);
  for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
    int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
    int after = isalnum((unsigned char)p[n]) || p[n] == '_';
    if (!before && !after)
      return 1;
  }
  return 0;
}

/* The measured cell of claim `id`'s row in the summary table of claims.md,
   into buf. */
static void summary_cell(const char *md, const char *id, int cell, char *buf, size_t len)
{
  char head[160];
  snprintf(head, sizeof head, "\n| `%s` | ", id);
  const char *p = strstr(md, head);
  ck_assert_msg(p != NULL, "claims.md has no summary row for %s", id);
  p += 3; /* at "`id`" */
  for (int k = 0; k < cell; k++) {
    p = strstr(p, " | ");
    ck_assert_msg(p != NULL, "claims.md: the row of %s has fewer than %d cells", id, cell + 1);
    p += 3;
  }
  const char *end = strstr(p, " | ");
  ck_assert_msg(end != NULL && (size_t)(end - p) < len, "claims.md: the row of %s is cut", id);
  memcpy(buf, p, (size_t)(end - p));
  buf[end - p] = '\0';
}

/* What claims.md says about runs with failed and unbounded measures:
   words, never "nan"; every measured value with its sub-measure and unit,
   the same in the claim's section as in the table; each paper's title at
   its first citation; the same bytes from a second report. */
START_TEST(test_report_words)
{
  char dir[PATH_MAX], path[PATH_MAX];
  ck_assert_int_eq(mkdir(wp(dir, "w"), 0777), 0);
  /* With e_n > 1e-9 m a failure, implicit fails every run (its decay is
     undefined) and post-stabilisation none (no failure step). */
  run_ok("run", "chain10-stability", "--steps", "200", "--set", "trials=2", "--set", "fail_tol=1e-9", "--out",
         "w/chain");
  /* A run whose measure is infinite: bad-initial's settle_steps when
     e_n never settles (written by hand; the report reads any complete
     run's rows). */
  ck_assert_int_eq(mkdir(wp(path, "w/bad"), 0777), 0);
  FILE *f = fopen(wp(path, "w/bad/run.meta.json"), "w");
  ck_assert_ptr_nonnull(f);
  fputs("{\n  \"run_of\": \"bad-initial\",\n  \"complete\": true\n}\n", f);
  fclose(f);
  char rule[1024];
  exp_rule_text(exp_claim_find("implicit.bad_initial"), rule, sizeof rule);
  f = fopen(wp(path, "w/bad/claims.part.csv"), "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "implicit.bad_initial,bad-initial,inf,\"%s\",does-not-hold,written by the test\n", rule);
  fclose(f);
  run_ok("report", "w");
  char *md = must_slurp(pathf(path, "%s/claims.md", dir));
  ck_assert_msg(!has_word(md, "nan") && !has_word(md, "-nan") && !has_word(md, "NaN"), "%s says nan:\n%s", path, md);
  /* The measures behind it are NaN and infinite in claims.csv (the
     machine-readable table keeps the numbers). */
  char *csv = must_slurp(pathf(path, "%s/claims.csv", dir));
  ck_assert_msg(strstr(csv, "\nchain10.implicit_stable,chain10-stability,nan,") != NULL, "claims.csv:\n%s", csv);
  ck_assert_msg(strstr(csv, "\nimplicit.bad_initial,bad-initial,inf,") != NULL, "claims.csv:\n%s", csv);
  free(csv);

  char cell[512], want[1024];
  summary_cell(md, "chain10.implicit_stable", 3, cell, sizeof cell);
  ck_assert_str_eq(cell, "`decay` [1]: undefined (a run failed)");
  summary_cell(md, "implicit.bad_initial", 3, cell, sizeof cell);
  ck_assert_str_eq(cell, "`settle_steps` [steps]: never settles");
  summary_cell(md, "chain10.poststab_fails", 3, cell, sizeof cell);
  ck_assert_str_eq(cell, "`failed_fraction` = 0 [1]");
  summary_cell(md, "chain10.poststab_fails", 5, cell, sizeof cell);
  ck_assert_msg(strstr(cell, "failure step min/q1/median/q3/max none (no run failed)") != NULL, "note: %s", cell);

  for (size_t k = 0; k < NCLAIMS; k++) {
    const exp_claim_def *c = &exp_claim_defs[k];
    if (!c->experiment)
      continue;
    const exp_submeasure *s = NULL;
    for (size_t j = 0; j < exp_claim_nsub(c); j++)
      if (!strcmp(c->m[j].name, c->measured))
        s = &c->m[j];
    ck_assert_msg(s != NULL, "%s measures '%s', which is not a sub-measure of its rule", c->id, c->measured);
    /* The name and the unit of the measured sub-measure, judged or not. */
    summary_cell(md, c->id, 3, cell, sizeof cell);
    snprintf(want, sizeof want, "`%s`", s->name);
    ck_assert_msg(!strncmp(cell, want, strlen(want)), "%s: measured cell '%s' does not name %s", c->id, cell, want);
    snprintf(want, sizeof want, " [%s]", s->unit);
    ck_assert_msg(strstr(cell, want) != NULL, "%s: measured cell '%s' lacks the unit%s", c->id, cell, want);
    /* The claim's section says the same as its row. */
    char verdict[64], sect[160];
    summary_cell(md, c->id, 2, verdict, sizeof verdict);
    snprintf(sect, sizeof sect, "\n### `%s` (", c->id);
    const char *sec = strstr(md, sect);
    ck_assert_msg(sec != NULL, "claims.md has no section for %s", c->id);
    snprintf(want, sizeof want, "Verdict: %s; measured: %s.\n", verdict, cell);
    const char *hit = strstr(sec, want), *next = strstr(sec + 1, "\n### ");
    ck_assert_msg(hit && (!next || hit < next), "the section of %s lacks '%s'", c->id, want);
  }

  /* Each paper: its first citation carries its title, later ones do not
     repeat it. */
  static const char *const papers[5] = {"000", "001", "002", "003", "004"};
  static const char *const title[5] = {"*Improved Implicit Constraint Enforcement*",
                                       "*Implicit Constraint Enforcement*", "*Constrained Dynamics*",
                                       "*The art to keep in touch*", "*Constraints*"};
  for (int k = 0; k < 5; k++) {
    const char *p = md;
    while ((p = strstr(p, papers[k])) && ((p > md && isalnum((unsigned char)p[-1])) || isalnum((unsigned char)p[3])))
      p++;
    ck_assert_msg(p != NULL, "claims.md never cites %s", papers[k]);
    const char *close = strchr(p, ')');
    const char *t = strstr(p, title[k]);
    ck_assert_msg(!strncmp(p + 3, " (", 2) && t && close && t < close,
                  "the first citation of %s is not followed by its title %s: %.120s", papers[k], title[k], p);
    ck_assert_msg(strstr(t + 1, title[k]) == NULL, "%s is cited with its title twice", papers[k]);
  }

  /* Deterministic: the same runs give the same bytes. */
  run_ok("report", "w");
  char *again = must_slurp(pathf(path, "%s/claims.md", dir));
  ck_assert_msg(!strcmp(md, again), "a second report of the same runs differs");
  free(again);
  free(md);
}
END_TEST

/* Is `id` a claim of the table? */
static int known_claim(const char *id) { return exp_claim_find(id) != NULL; }

/* The claims the new experiments judge are in the report's list. */
START_TEST(test_new_claims_listed)
{
  static const char *const ids[] = {"implicit.large_steps",        "implicit.bad_initial",
                                    "bead.drift_without_feedback", "bead.feedback_holds",
                                    "spring.stiff_needs_small_h",  "pbd.soft_with_few_iterations",
                                    "improved.small_extra_cost"};
  char dir[PATH_MAX], path[PATH_MAX];
  ck_assert_int_eq(mkdir(wp(dir, "empty"), 0777), 0);
  run_ok("report", "empty");
  pathf(path, "%s/claims.csv", dir);
  char *text = must_slurp(path);
  for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
    char row[128];
    snprintf(row, sizeof row, "\n%s,", ids[k]);
    ck_assert_msg(strstr(text, row) != NULL, "%s does not list the claim %s", path, ids[k]);
    ck_assert_msg(known_claim(ids[k]), "claim_ids[] lacks %s", ids[k]);
  }
  free(text);
}
END_TEST

/* ---- the command line's conventions (doc/cli.md) ------------------------------------------ */

/* A usage error: status 2, nothing on stdout, and on stderr exactly two
   lines: the error, then `try`. */
static void check_usage_error(const proc *p, const char *what, const char *try_line)
{
  ck_assert_msg(p->status == 2, "%s: status %d, stderr:\n%s", what, p->status, p->err);
  ck_assert_msg(!*p->out, "%s: printed on stdout:\n%s", what, p->out);
  const char *nl = strchr(p->err, '\n');
  ck_assert_msg(nl && nl > p->err, "%s: no error line:\n%s", what, p->err);
  char want[128];
  snprintf(want, sizeof want, "%s\n", try_line);
  ck_assert_msg(!strcmp(nl + 1, want), "%s: stderr is not one line and '%s':\n%s", what, try_line, p->err);
}

/* --opt=value is --opt value, in every command; a flag refuses a value. */
START_TEST(test_gnu_options)
{
  char a[PATH_MAX], b[PATH_MAX];
  run_ok("run", "arm2-drift", "--steps=8", "--h=0.01", "--scheme=implicit", "--set=alpha=3", "--out=eq");
  run_ok("run", "arm2-drift", "--steps", "8", "--h", "0.01", "--scheme", "implicit", "--set", "alpha=3", "--out", "sp");
  char *x = must_slurp(wp(a, "eq/implicit.csv")), *y = must_slurp(wp(b, "sp/implicit.csv"));
  ck_assert_msg(!strcmp(x, y), "--opt=value and --opt value gave different runs");
  free(x);
  free(y);
  /* The metadata record the command as given. */
  x = must_slurp(wp(a, "eq/implicit.meta.json"));
  ck_assert_msg(strstr(x, "--steps=8 --h=0.01") != NULL, "the command line is not recorded as given:\n%s", x);
  free(x);
  /* sweep, collect, export, list. */
  run_ok("sweep", "arm2-drift", "--out=sw", "--h=0.01,0.02", "--steps=5", "--scheme=implicit", "--grid=alpha=1,2");
  x = must_slurp(wp(a, "sw/points.csv"));
  ck_assert_msg(strstr(x, "0.02") && strstr(x, ",2"), "sweep --h=/--grid= points:\n%s", x);
  free(x);
  proc p = run_cdyn("collect", "sw", "--file=implicit.csv");
  ck_assert_msg(p.status == 1 && strstr(p.err, "implicit.csv") && strstr(p.err, "not complete"),
                "collect --file= of a sweep not run: %d %s", p.status, p.err);
  proc_free(&p);
  run_ok("export", "arm2-drift", "--out=ex", "--steps=5", "--scheme=implicit");
  ck_assert_msg(exists(wp(a, "ex/index.csv")), "export --out= wrote no %s", a);
  /* A value that looks like an option is left alone after its option. */
  p = run_cdyn("run", "arm2-drift", "--set", "--h=1", "--out", "o1");
  ck_assert_msg(p.status == 2 && strstr(p.err, "no parameter '--h'"), "--set --h=1: %d %s", p.status, p.err);
  proc_free(&p);
  /* A flag takes no value. */
  p = run_cdyn("run", "arm2-drift", "--force=yes", "--out", "o2");
  check_usage_error(&p, "--force=yes", "try 'cdyn run --help'");
  ck_assert_msg(strstr(p.err, "'--force' takes no value"), "--force=yes: %s", p.err);
  proc_free(&p);
  ck_assert_msg(!exists(wp(a, "o1")) && !exists(wp(b, "o2")), "a refused run wrote its directory");
}
END_TEST

typedef struct {
  const char *args[10];
  const char *try_line;
} usage_case;

/* Every command's usage errors: one line, then `try`, never the usage;
   and every command's --help: the usage on stdout, status 0. */
START_TEST(test_usage_errors)
{
  static const usage_case cases[] = {
    {{"frobnicate", NULL}, "try 'cdyn --help'"},
    {{"run", NULL}, "try 'cdyn run --help'"},
    {{"run", "arm2-drift", "--bogus", "x", NULL}, "try 'cdyn run --help'"},
    {{"run", "arm2-drift", "--bogus", NULL}, "try 'cdyn run --help'"},
    {{"run", "arm2-drift", "--h", NULL}, "try 'cdyn run --help'"},
    {{"run", "arm2-drift", "--h", "0", NULL}, "try 'cdyn run --help'"},
    {{"export", "arm2-drift", "--bogus", "x", NULL}, "try 'cdyn export --help'"},
    {{"export", NULL}, "try 'cdyn export --help'"},
    {{"sweep", "arm2-drift", "--out", "s", "--bogus", "x", NULL}, "try 'cdyn sweep --help'"},
    {{"sweep", NULL}, "try 'cdyn sweep --help'"},
    {{"collect", "d", "--bogus", NULL}, "try 'cdyn collect --help'"},
    {{"collect", NULL}, "try 'cdyn collect --help'"},
    {{"check", "--bogus", NULL}, "try 'cdyn check --help'"},
    {{"check", NULL}, "try 'cdyn check --help'"},
    {{"report", "--bogus", NULL}, "try 'cdyn report --help'"},
    {{"report", NULL}, "try 'cdyn report --help'"},
    {{"replay", "--bogus", NULL}, "try 'cdyn replay --help'"},
    {{"replay", NULL}, "try 'cdyn replay --help'"},
    {{"list", "--bogus", NULL}, "try 'cdyn list --help'"},
    {{"list", "a", "b", NULL}, "try 'cdyn list --help'"},
    {{"list", "--names", NULL}, "try 'cdyn list --help'"},
    {{"palette", "x", NULL}, "try 'cdyn palette --help'"},
    {{"plot", NULL}, "try 'cdyn plot --help'"},
    {{"plot", "d", "--bogus", NULL}, "try 'cdyn plot --help'"},
    {{"animate", NULL}, "try 'cdyn animate --help'"},
    {{"animate", "d", "--bogus", "1", NULL}, "try 'cdyn animate --help'"},
    {{"view", NULL}, "try 'cdyn view --help'"},
    {{"view", "d", "--bogus", NULL}, "try 'cdyn view --help'"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    proc p = run_argv(cases[k].args);
    char what[256] = "cdyn";
    for (const char *const *a = cases[k].args; *a; a++)
      snprintf(what + strlen(what), sizeof what - strlen(what), " %s", *a);
    check_usage_error(&p, what, cases[k].try_line);
    ck_assert_msg(!strstr(p.err, "usage:") || !strncmp(p.err, "usage:", 6), "%s printed the usage:\n%s", what, p.err);
    proc_free(&p);
  }
  /* No command at all: a short usage line and try. */
  proc p = run_argv((const char *const[]){NULL});
  ck_assert_msg(p.status == 2 && strstr(p.err, "try 'cdyn --help'") && strlen(p.err) < 100, "cdyn: %d %s", p.status,
                p.err);
  proc_free(&p);
  static const char *const commands[] = {"list",    "run",    "sweep",  "collect", "check", "export",
                                         "palette", "report", "replay", "plot",    "animate", "view"};
  for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
    p = run_cdyn(commands[k], "--help");
    ck_assert_msg(p.status == 0 && !*p.err && !strncmp(p.out, "usage: cdyn ", 12), "cdyn %s --help: %d\n%.300s%s",
                  commands[k], p.status, p.out, p.err);
    char word[64];
    snprintf(word, sizeof word, "cdyn %s", commands[k]);
    ck_assert_msg(strstr(p.out, word) != NULL, "cdyn %s --help does not show its usage:\n%.300s", commands[k], p.out);
    proc_free(&p);
  }
  p = run_cdyn("--help");
  ck_assert_msg(p.status == 0 && !*p.err && strstr(p.out, "Exit status"), "cdyn --help: %d %s", p.status, p.out);
  proc_free(&p);
}
END_TEST

typedef struct {
  const char *args[10];
  const char *suggestion; /* the word suggested; NULL: none */
} suggest_case;

/* An unknown word is answered with the nearest known one, when near. */
START_TEST(test_suggestions)
{
  static const suggest_case cases[] = {
    {{"lsit", NULL}, "list"},
    {{"sweeep", NULL}, "sweep"},
    {{"run", "arm2-drft", NULL}, "arm2-drift"},
    {{"run", "arm2-drift", "--scheme", "rattel", "--out", "o", NULL}, "rattle"},
    {{"run", "arm2-drift", "--scheme=implicit,rattel", "--out", "o", NULL}, "rattle"},
    {{"run", "arm2-drift", "--extra-schemes", "shkae", "--out", "o", NULL}, "shake"},
    {{"run", "arm2-drift", "--sceme", "rattle", "--out", "o", NULL}, "--scheme"},
    {{"run", "arm2-drift", "--sets", "alpha=1", "--out", "o", NULL}, "--set"},
    {{"run", "arm2-drift", "--set", "alpah=1", "--out", "o", NULL}, "alpha"},
    {{"run", "arm2-drift", "--set", "baumgarte.alpah=1", "--out", "o", NULL}, "alpha"},
    {{"run", "arm2-drift", "--set", "baumgrate.alpha=1", "--out", "o", NULL}, "baumgarte"},
    {{"run", "arm2-drift", "--scheme", "implicit", "--set", "solvr=lu", "--out", "o", NULL}, "solver"},
    {{"run", "billiard", "--set", "algorithms=platt,lpc", "--out", "o", NULL}, "lcp"},
    {{"export", "arm2-drfit", NULL}, "arm2-drift"},
    {{"sweep", "arm2-drift", "--out", "s", "--scheme", "rattel", NULL}, "rattle"},
    {{"sweep", "arm2-drift", "--otu", "s", NULL}, "--out"},
    {{"sweep", "arm2-drfit", "--out", "s", NULL}, "arm2-drift"},
    {{"collect", "d", "--flie", "x.csv", NULL}, "--file"},
    {{"animate", "d", "--max-frame", "5", NULL}, "--max-frames"},
    {{"view", "d", "--max-frame", "5", NULL}, "--max-frames"},
    {{"plot", "d", "--fromat", "pdf", NULL}, "--format"},
    {{"list", "schmes", NULL}, "schemes"},
    {{"list", "ratle", NULL}, "rattle"},
    {{"list", "--names", "experiment", NULL}, "experiments"},
    /* Nothing near: no suggestion. */
    {{"run", "zzzzzzzz", NULL}, NULL},
    {{"run", "arm2-drift", "--scheme", "q", "--out", "o", NULL}, NULL},
    {{"xq", NULL}, NULL},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    proc p = run_argv(cases[k].args);
    char what[256] = "cdyn", want[128];
    for (const char *const *a = cases[k].args; *a; a++)
      snprintf(what + strlen(what), sizeof what - strlen(what), " %s", *a);
    ck_assert_msg(p.status == 2, "%s: status %d: %s", what, p.status, p.err);
    if (cases[k].suggestion) {
      snprintf(want, sizeof want, "did you mean '%s'?", cases[k].suggestion);
      ck_assert_msg(strstr(p.err, want) != NULL, "%s: no \"%s\":\n%s", what, want, p.err);
    } else {
      ck_assert_msg(!strstr(p.err, "did you mean"), "%s: a suggestion of nothing near:\n%s", what, p.err);
    }
    proc_free(&p);
  }
  /* A scene file's keys and names, through the library's reader. */
  static const struct {
    const char *field, *suggestion;
  } scene_cases[] = {{"\"run\": {\"h\": 0.01, \"setps\": 5}", "steps"},
                     {"\"run\": {\"h\": 0.01, \"steps\": 5}, \"sheme\": \"implicit\"", "scheme"},
                     {"\"run\": {\"h\": 0.01, \"steps\": 5}, \"scheme\": \"rattel\"", "rattle"},
                     {"\"run\": {\"h\": 0.01, \"steps\": 5}, \"scheme\": {\"name\": \"shake\", \"options\": "
                      "{\"max_itre\": 5}}", "max_iter"}};
  for (size_t k = 0; k < sizeof scene_cases / sizeof scene_cases[0]; k++) {
    char path[PATH_MAX];
    FILE *f = fopen(wp(path, "s%zu.json", k), "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "{\"cdyn_scene\": 1, \"particles\": [{\"x\": [0, 0, 0]}, {\"x\": [1, 0, 0]}], \"pins\": [{\"i\": 0}],\n"
               " \"links\": [{\"i\": 0, \"j\": 1}], %s}\n", scene_cases[k].field);
    fclose(f);
    char name[32], want[128];
    snprintf(name, sizeof name, "s%zu.json", k);
    snprintf(want, sizeof want, "did you mean '%s'?", scene_cases[k].suggestion);
    proc p = run_cdyn("check", name);
    ck_assert_msg(p.status == 1 && strstr(p.err, want), "check %s: %d, no \"%s\":\n%s", scene_cases[k].field, p.status,
                  want, p.err);
    proc_free(&p);
    p = run_cdyn("run", "scene", name, "--out", "o");
    ck_assert_msg(p.status == 1 && strstr(p.err, want), "run scene %s: %d, no \"%s\":\n%s", scene_cases[k].field,
                  p.status, want, p.err);
    proc_free(&p);
  }
  char dir[PATH_MAX];
  ck_assert_msg(!exists(wp(dir, "o")) && !exists(wp(dir, "s")), "a refused command wrote its directory");
}
END_TEST

/* The same error, the same exit status, in every command. */
START_TEST(test_exit_statuses)
{
  char path[PATH_MAX];
  FILE *f = fopen(wp(path, "broken.json"), "w");
  ck_assert_ptr_nonnull(f);
  fputs("{\"cdyn_scene\": 1, \"particles\": [\n", f);
  fclose(f);
  static const struct {
    const char *args[8];
    int status;
  } cases[] = {
    /* An input file or directory missing: 1. */
    {{"check", "nosuch.json", NULL}, 1},
    {{"run", "scene", "nosuch.json", "--out", "o", NULL}, 1},
    {{"sweep", "scene", "nosuch.json", "--out", "s", NULL}, 1},
    {{"collect", "nosuch", NULL}, 1},
    {{"report", "nosuch", NULL}, 1},
    {{"replay", "nosuch", NULL}, 1},
    {{"plot", "nosuch", NULL}, 1},
    {{"animate", "nosuch", NULL}, 1},
    {{"view", "nosuch", NULL}, 1},
    /* An input file invalid: 1. */
    {{"check", "broken.json", NULL}, 1},
    {{"run", "scene", "broken.json", "--out", "o", NULL}, 1},
    {{"sweep", "scene", "broken.json", "--out", "s", NULL}, 1},
    /* An unknown experiment: 2. */
    {{"run", "nosuch", NULL}, 2},
    {{"export", "nosuch", NULL}, 2},
    {{"sweep", "nosuch", "--out", "s", NULL}, 2},
    {{"list", "nosuch", NULL}, 2},
    /* An unknown scheme: 2. */
    {{"run", "arm2-drift", "--scheme", "nosuch", "--out", "o", NULL}, 2},
    {{"export", "arm2-drift", "--scheme", "nosuch", "--out", "o", NULL}, 2},
    {{"sweep", "arm2-drift", "--scheme", "nosuch", "--out", "s", NULL}, 2},
    /* A missing argument: 2. */
    {{"run", "scene", NULL}, 2},
    {{"sweep", "scene", NULL}, 2},
    {{"check", NULL}, 2},
    {{"report", NULL}, 2},
    {{"replay", NULL}, 2},
    {{"collect", NULL}, 2},
    {{"export", NULL}, 2},
    {{"plot", NULL}, 2},
    {{"animate", NULL}, 2},
    {{"view", NULL}, 2},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    proc p = run_argv(cases[k].args);
    char what[256] = "cdyn";
    for (const char *const *a = cases[k].args; *a; a++)
      snprintf(what + strlen(what), sizeof what - strlen(what), " %s", *a);
    ck_assert_msg(p.status == cases[k].status, "%s: status %d, not %d:\n%s", what, p.status, cases[k].status, p.err);
    /* A usage error points to the usage; an error does not. */
    ck_assert_msg(*p.err && !strstr(p.err, "try 'cdyn") == (cases[k].status != 2), "%s: stderr:\n%s", what, p.err);
    proc_free(&p);
  }
  ck_assert_msg(!exists(wp(path, "o")) && !exists(wp(path, "s")), "a refused command wrote its directory");
}
END_TEST

/* A list longer than the longest accepted is refused with a message naming
   it, a usage error, never cut: an experiment's parameter, a scheme list,
   the lists of a sweep.  An empty item and a bad number too. */
START_TEST(test_long_lists)
{
  char path[PATH_MAX];
  size_t len = 70000;
  char *times = malloc(len + 32), *schemes = malloc(len + 32), *hs = malloc(len + 32), *grid = malloc(len + 32);
  ck_assert(times && schemes && hs && grid);
  strcpy(times, "snapshots=");
  strcpy(schemes, "");
  strcpy(hs, "");
  strcpy(grid, "alpha=");
  for (int k = 0; strlen(times) < len; k++)
    sprintf(times + strlen(times), "%s%d", k ? "," : "", k);
  for (int k = 0; strlen(schemes) < len; k++)
    sprintf(schemes + strlen(schemes), "%simplicit", k ? "," : "");
  for (int k = 0; strlen(hs) < len; k++)
    sprintf(hs + strlen(hs), "%s0.%d", k ? "," : "", k + 1);
  for (int k = 0; strlen(grid) < len; k++)
    sprintf(grid + strlen(grid), "%s%d", k ? "," : "", k);
  const struct {
    const char *const args[10];
    const char *names;
  } cases[] = {
    {{"run", "billiard", "--set", times, "--out", "o", NULL}, "snapshots: the list is longer than 65536 characters"},
    {{"run", "cloth-elongation", "--set", times, "--out", "o", NULL},
     "snapshots: the list is longer than 65536 characters"},
    {{"run", "arm2-drift", "--scheme", schemes, "--out", "o", NULL}, "--scheme: the list is longer than 65536"},
    {{"sweep", "arm2-drift", "--out", "s", "--h", hs, NULL}, "--h: the list is longer than 65536 characters"},
    {{"sweep", "arm2-drift", "--out", "s", "--scheme", schemes, NULL}, "--scheme: the list is longer than 65536"},
    {{"sweep", "arm2-drift", "--out", "s", "--grid", grid, NULL}, "--grid alpha: the list is longer than 65536"},
    {{"sweep", "arm2-drift", "--out", "s", "--grid", "alpha=1,,2", NULL}, "--grid alpha: an empty value"},
    {{"sweep", "arm2-drift", "--out", "s", "--h", "0.1,0.1", NULL}, "--h: '0.1' is given twice"},
    {{"run", "billiard", "--set", "snapshots=0.1,1e", "--out", "o", NULL}, "snapshots: '1e' is not a number"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    proc p = run_argv(cases[k].args);
    ck_assert_msg(p.status == 2, "case %zu: status %d:\n%.300s", k + 1, p.status, p.err);
    ck_assert_msg(strstr(p.err, cases[k].names), "case %zu: stderr does not say '%s':\n%.300s", k + 1, cases[k].names,
                  p.err);
    ck_assert_msg(strstr(p.err, "try 'cdyn"), "case %zu: a usage error without the pointer to the usage:\n%.300s",
                  k + 1, p.err);
    proc_free(&p);
  }
  ck_assert_msg(!exists(wp(path, "o")) && !exists(wp(path, "s")), "a refused command wrote its directory");
  free(times);
  free(schemes);
  free(hs);
  free(grid);
}
END_TEST

/* The offset of the first character of the column after `from` (the first
   non-space after a run of spaces), or -1. */
static int next_column(const char *line, int from)
{
  int k = from;
  while (line[k] && line[k] != ' ')
    k++;
  if (!line[k])
    return -1;
  while (line[k] == ' ')
    k++;
  return line[k] ? k : -1;
}

/* `cdyn list`: groups under headings, every row's columns at the same
   offsets within its group, as wide as the widest entry; `list GROUP` is
   that group; `list --names GROUP` its names. */
START_TEST(test_list_layout)
{
  static const char *const groups[] = {"schemes", "integrators", "solvers", "activesets", "constraints", "experiments"};
  enum { NG = sizeof groups / sizeof groups[0] };
  proc all = run_cdyn("list");
  ck_assert_msg(all.status == 0, "cdyn list: %d %s", all.status, all.err);
  char *text = strdup(all.out);
  ck_assert_ptr_nonnull(text);
  /* The groups: a heading, rows, an empty line. */
  char *sections[NG + 2];
  size_t nsec = 0;
  for (char *p = text; p && *p && nsec < NG + 2;) {
    sections[nsec++] = p;
    char *end = strstr(p, "\n\n");
    if (end) {
      end[1] = '\0';
      p = end + 2;
    } else {
      p = NULL;
    }
  }
  ck_assert_msg(nsec == NG + 1, "cdyn list: %zu sections, not %d groups and the manual:\n%s", nsec, NG, all.out);
  for (size_t g = 0; g < NG; g++) {
    char *sec = sections[g];
    proc one = run_cdyn("list", groups[g]);
    ck_assert_msg(one.status == 0 && !strcmp(one.out, sec), "cdyn list %s is not its group of cdyn list:\n%s\n---\n%s",
                  groups[g], one.out, sec);
    proc_free(&one);
    /* The rows: two spaces, a name, the columns. */
    char *lines[512];
    char *copy = strdup(sec);
    size_t n = split_lines(groups[g], copy, lines, 512);
    ck_assert_uint_gt(n, 2);
    ck_assert_msg(lines[0][0] != ' ', "%s: no heading: %s", groups[g], lines[0]);
    int col2 = -1, col3 = -1, eq = -1, min_gap = 1000;
    size_t rows = 0;
    proc names = run_cdyn("list", "--names", groups[g]);
    ck_assert_int_eq(names.status, 0);
    const char *np = names.out;
    for (size_t k = 1; k < n; k++) {
      const char *l = lines[k];
      if (!strncmp(l, "      ", 6)) { /* a scheme's option: its '=' aligned */
        const char *e = strstr(l, " = ");
        ck_assert_msg(e != NULL, "%s: option line without ' = ': %s", groups[g], l);
        if (eq < 0)
          eq = (int)(e - l);
        ck_assert_msg((int)(e - l) == eq || !strncmp(l + 6, "(no options", 11),
                      "%s: an option's '=' at %d, not %d: %s", groups[g], (int)(e - l), eq, l);
        continue;
      }
      if (!strncmp(l, "  (", 3))
        continue;
      ck_assert_msg(!strncmp(l, "  ", 2) && l[2] != ' ', "%s: not a row: '%s'", groups[g], l);
      rows++;
      size_t nl = strcspn(l + 2, " ");
      /* The row's name is the next of --names. */
      ck_assert_msg(!strncmp(np, l + 2, nl) && np[nl] == '\n', "%s: row %s is not the next of --names:\n%s", groups[g],
                    l, names.out);
      np += nl + 1;
      int c2 = next_column(l, 2);
      ck_assert_msg(c2 > 0, "%s: a row of one column: %s", groups[g], l);
      if (col2 < 0)
        col2 = c2;
      ck_assert_msg(c2 == col2, "%s: the second column at %d, not %d: '%s'", groups[g], c2, col2, l);
      if (c2 - 2 - (int)nl < min_gap)
        min_gap = c2 - 2 - (int)nl;
      if (!strcmp(groups[g], "schemes")) {
        /* The order ("order 1 (2 const F)"), then the description after two spaces. */
        const char *d = strstr(l + c2, "  ");
        ck_assert_ptr_nonnull(d);
        while (*d == ' ')
          d++;
        if (col3 < 0)
          col3 = (int)(d - l);
        ck_assert_msg((int)(d - l) == col3, "schemes: the third column at %d, not %d: '%s'", (int)(d - l), col3, l);
      }
    }
    ck_assert_msg(!*np, "%s: --names lists more than the rows: %s", groups[g], np);
    /* The widest name has the two spaces alone before the next column. */
    ck_assert_msg(min_gap == 2, "%s: the columns are not as wide as the widest entry (gap %d)", groups[g], min_gap);
    ck_assert_uint_gt(rows, 1);
    proc_free(&names);
    free(copy);
  }
  free(text);
  proc_free(&all);
  proc p = run_cdyn("list", "experiment");
  ck_assert_msg(p.status == 2 && strstr(p.err, "did you mean 'experiments'?"), "list experiment: %d %s", p.status,
                p.err);
  proc_free(&p);
}
END_TEST

/* The pager: through $PAGER when stdout is a terminal and the list longer
   than it; never when stdout is not a terminal. */
START_TEST(test_list_pager)
{
  char path[PATH_MAX];
  setenv("PAGER", "cat > paged.txt", 1);
  proc p = run_cdyn("list");
  ck_assert_int_eq(p.status, 0);
  ck_assert_msg(!exists(wp(path, "paged.txt")), "cdyn list to a file went through the pager");
  char *want = strdup(p.out);
  proc_free(&p);
  /* On a terminal of 24 rows. */
  int m = posix_openpt(O_RDWR | O_NOCTTY);
  ck_assert_msg(m >= 0 && !grantpt(m) && !unlockpt(m), "no pseudo-terminal");
  struct winsize ws = {.ws_row = 24, .ws_col = 80};
  ioctl(m, TIOCSWINSZ, &ws);
  const char *slave = ptsname(m);
  ck_assert_ptr_nonnull(slave);
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int s = open(slave, O_RDWR);
    if (s < 0 || dup2(s, STDOUT_FILENO) < 0 || chdir(wd))
      _exit(127);
    execl(getenv("CDYN_PROGRAM"), "cdyn", "list", (char *)NULL);
    _exit(127);
  }
  /* Whatever reaches the terminal is read (so that the child never
     blocks on a full terminal) until the child's side is closed. */
  char buf[4096];
  size_t shown = 0;
  ssize_t r;
  while ((r = read(m, buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))
    shown += r > 0 ? (size_t)r : 0;
  int st;
  while (waitpid(pid, &st, 0) < 0)
    ck_assert_int_eq(errno, EINTR);
  close(m);
  ck_assert_msg(shown == 0, "cdyn list on a terminal wrote %zu bytes to it past the pager", shown);
  unsetenv("PAGER");
  ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "cdyn list on a terminal: status %d", st);
  char *got = must_slurp(wp(path, "paged.txt"));
  ck_assert_msg(!strcmp(got, want), "the pager was not given the list:\n%s", got);
  free(got);
  free(want);
}
END_TEST

/* `cdyn run EXPERIMENT --help` lists that experiment's parameters alone. */
START_TEST(test_experiment_help)
{
  proc p = run_cdyn("run", "arm2-drift", "--help");
  ck_assert_msg(p.status == 0 && strstr(p.out, "    alpha ") && !strstr(p.out, "track_tol"),
                "run arm2-drift --help lists another experiment's parameter:\n%s", p.out);
  proc_free(&p);
  p = run_cdyn("run", "arm2-trajectory", "--help");
  ck_assert_msg(p.status == 0 && strstr(p.out, "    track_tol "), "run arm2-trajectory --help:\n%s", p.out);
  proc_free(&p);
  /* What --help does not list, --set refuses. */
  p = run_cdyn("run", "arm2-drift", "--set", "track_tol=0.2", "--out", "o");
  ck_assert_msg(p.status == 2 && strstr(p.err, "no parameter 'track_tol'"), "arm2-drift --set track_tol: %d %s",
                p.status, p.err);
  proc_free(&p);
  p = run_cdyn("sweep", "arm2-trajectory", "--out", "s", "--steps", "5", "--set", "track_tol=0.2");
  ck_assert_msg(p.status == 0, "arm2-trajectory --set track_tol: %d %s", p.status, p.err);
  proc_free(&p);
}
END_TEST

/* A tiny scene (a pendulum of 20 steps) for the tests below. */
static void write_pendulum(const char *name)
{
  char path[PATH_MAX];
  FILE *f = fopen(wp(path, "%s", name), "w");
  ck_assert_ptr_nonnull(f);
  fputs("{\"cdyn_scene\": 1, \"name\": \"pend\", \"gravity\": [0, -9.81, 0],\n"
        " \"particles\": [{\"x\": [0, 0, 0]}, {\"x\": [1, 0, 0], \"m\": 1}], \"pins\": [{\"i\": 0}],\n"
        " \"links\": [{\"i\": 0, \"j\": 1}], \"scheme\": \"implicit\", \"run\": {\"h\": 0.01, \"steps\": 20},\n"
        " \"record\": {\"every\": 1, \"positions\": true}}\n",
        f);
  fclose(f);
}

/* Every file of `dir` has mode `mode` (slurm.sh: `exec`). */
static void check_modes(const char *dir, mode_t mode, mode_t exec, size_t *count)
{
  dirlist l = list_dir(dir);
  for (size_t k = 0; k < l.n; k++) {
    char path[PATH_MAX];
    struct stat sb;
    pathf(path, "%s/%s", dir, l.name[k]);
    ck_assert_int_eq(lstat(path, &sb), 0);
    if (S_ISDIR(sb.st_mode)) {
      check_modes(path, mode, exec, count);
      continue;
    }
    mode_t want = !strcmp(l.name[k], "slurm.sh") ? exec : mode;
    ck_assert_msg((sb.st_mode & 07777) == want, "%s: mode %04o, not %04o", path, (unsigned)(sb.st_mode & 07777),
                  (unsigned)want);
    (*count)++;
  }
  dirlist_free(&l);
}

/* Every file the program writes has the mode the umask leaves of 0666
   (0777 for slurm.sh), the scene files of a scene run among them. */
START_TEST(test_file_modes)
{
  write_pendulum("pend.json");
  static const mode_t masks[] = {022, 077, 002};
  for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
    mode_t old = umask(masks[m]);
    char scene[32], exp[32], sw[32], ex[32], dir[PATH_MAX];
    snprintf(scene, sizeof scene, "scene%zu", m);
    snprintf(exp, sizeof exp, "exp%zu", m);
    snprintf(sw, sizeof sw, "sweep%zu", m);
    snprintf(ex, sizeof ex, "export%zu", m);
    run_ok("run", "scene", "pend.json", "--out", scene);
    run_ok("run", "arm2-drift", "--steps", "8", "--scheme", "implicit", "--out", exp);
    run_ok("sweep", "arm2-drift", "--steps", "5", "--h", "0.01,0.02", "--out", sw);
    run_ok("export", "arm2-drift", "--steps", "5", "--scheme", "implicit", "--out", ex);
    umask(old);
    size_t n = 0;
    check_modes(wp(dir, "%s", scene), 0666 & ~masks[m], 0777 & ~masks[m], &n);
    char path[PATH_MAX];
    ck_assert_msg(exists(pathf(path, "%s/pend-implicit.scene.json", dir)), "no %s", path);
    check_modes(wp(dir, "%s", exp), 0666 & ~masks[m], 0777 & ~masks[m], &n);
    check_modes(wp(dir, "%s", sw), 0666 & ~masks[m], 0777 & ~masks[m], &n);
    check_modes(wp(dir, "%s", ex), 0666 & ~masks[m], 0777 & ~masks[m], &n);
    ck_assert_uint_gt(n, 15);
  }
}
END_TEST

/* A scene run writes no claims.part.csv (it judges no claims), and cdyn
   report still reads a tree that holds one. */
START_TEST(test_scene_no_claims)
{
  char path[PATH_MAX];
  write_pendulum("pend.json");
  ck_assert_int_eq(mkdir(wp(path, "r"), 0777), 0);
  run_ok("run", "scene", "pend.json", "--out", "r/pend");
  run_ok("run", "arm2-drift", "--steps", "40", "--out", "r/arm2-drift");
  ck_assert_msg(!exists(wp(path, "r/pend/claims.part.csv")), "a scene run wrote %s", path);
  ck_assert_msg(exists(wp(path, "r/arm2-drift/claims.part.csv")), "an experiment's run wrote no %s", path);
  char *meta = must_slurp(wp(path, "r/pend/run.meta.json"));
  ck_assert_msg(strstr(meta, "\"claims\": null"), "a scene's run.meta.json names a claims file:\n%s", meta);
  free(meta);
  run_ok("report", "r");
  char *csv = must_slurp(wp(path, "r/claims.csv"));
  ck_assert_msg(strstr(csv, "arm2.poststab_to_zero,arm2-drift,") != NULL, "report lacks arm2-drift's claims:\n%s", csv);
  free(csv);
}
END_TEST

/* ---- the suite ----------------------------------------------------------------------------- */

int main(void)
{
  Suite *s = exp_suite("experiments_cli");
  add(s, "help_and_list", test_help_and_list);
  add(s, "bad_input", test_bad_input);
  add(s, "out_dir", test_out_dir);
  add(s, "blas_threads", test_blas_threads);
  /* A test that cannot run here is not added, and says why (it must not
     count as passed). */
  const char *fw = getenv("CDYN_FAILWRITE");
  if (FAILWRITE_CAN_RUN && fw && !access(fw, R_OK))
    add(s, "failed_writes", test_failed_writes);
  else
    printf("# SKIP failed_writes: %s\n", FAILWRITE_CAN_RUN ? "no libfailwrite.so (a build without shared libraries)"
                                                            : "AddressSanitizer must be the first library loaded");
  add(s, "gnu_options", test_gnu_options);
  add(s, "usage_errors", test_usage_errors);
  add(s, "suggestions", test_suggestions);
  add(s, "exit_statuses", test_exit_statuses);
  add(s, "long_lists", test_long_lists);
  add(s, "list_layout", test_list_layout);
  add(s, "list_pager", test_list_pager);
  add(s, "experiment_help", test_experiment_help);
  add(s, "file_modes", test_file_modes);
  add(s, "scene_no_claims", test_scene_no_claims);
  add(s, "report", test_report);
  add(s, "new_claims_listed", test_new_claims_listed);
  add(s, "report_words", test_report_words);
  return tu_run(s);
}
