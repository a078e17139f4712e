/*
 * bench/common.c: what the sections of cdyn-bench share (common.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "common.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <lapacke.h>

#include "config.h"
#ifdef HAVE_SUITESPARSE_CHOLMOD_H
#include <suitesparse/cholmod.h>
#else
#include <cholmod.h>
#endif

#ifdef HAVE_ODE
#include "peer_ode.h"
#endif

int bench_build_system(const bench_problem *p, const cdyn_constraint_type *pinned, cdyn_system **out)
{
  cdyn_system *s = NULL;
  int rc = cdyn_system_new(&s, p->n);
  for (size_t i = 0; !rc && i < p->n; i++) {
    if (!(rc = cdyn_system_set_mass(s, i, p->mass[i])) && !(rc = cdyn_system_set_position(s, i, p->x0 + 3 * i)))
      rc = cdyn_system_set_velocity(s, i, p->v0 + 3 * i);
  }
  if (!rc)
    rc = cdyn_system_set_gravity(s, p->g);
  for (size_t k = 0; !rc && k < p->links; k++) {
    if (p->b[k] >= 0) {
      rc = cdyn_system_add_distance(s, (size_t)p->a[k], (size_t)p->b[k], p->len[k], NULL);
    } else {
      size_t i = (size_t)p->a[k];
      double par[4] = {p->pin[3 * k], p->pin[3 * k + 1], p->pin[3 * k + 2], p->len[k]};
      rc = pinned ? cdyn_system_add_constraint(s, pinned, &i, par, NULL)
                  : cdyn_system_add_constraint_named(s, "sphere", &i, par, NULL);
    }
  }
  if (rc) {
    cdyn_system_free(s);
    return rc;
  }
  *out = s;
  return 0;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *x, int n)
{
  qsort(x, (size_t)n, sizeof *x, cmp_double);
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

int bench_in_list(const char *list, const char *name)
{
  size_t n = strlen(name);
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    if (len == n && !strncmp(p, name, n))
      return 1;
    p += len + (p[len] == ',');
  }
  return 0;
}

const char *bench_status_name(int rc)
{
  static const char *const neg[] = {"CDYN_OK", "CDYN_EINVAL", "CDYN_ENOMEM", "CDYN_ENONFINITE", "CDYN_EUNKNOWN",
                                    "CDYN_EDEGENERATE", "CDYN_ESTALE", "CDYN_ECALLBACK", "CDYN_EIO", "CDYN_ESOLVE",
                                    "CDYN_EDIVERGED", "CDYN_EINFEASIBLE", "CDYN_EUNVERIFIED"};
  if (rc == CDYN_NOCONV)
    return "CDYN_NOCONV";
  if (rc <= 0 && -rc < (int)(sizeof neg / sizeof neg[0]))
    return neg[-rc];
  return "an unknown status";
}

static const char *blas_config(void)
{
  char *(*get)(void);
  *(void **)&get = dlsym(RTLD_DEFAULT, "openblas_get_config");
  return get ? get() : "unknown (not OpenBLAS)";
}

static void cpu_model(char *buf, size_t len)
{
  snprintf(buf, len, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return;
  char line[512];
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "model name", 10)) {
      char *c = strchr(line, ':');
      if (c) {
        c += 2;
        c[strcspn(c, "\n")] = 0;
        snprintf(buf, len, "%s", c);
      }
      break;
    }
  fclose(f);
}

FILE *bench_open_tmp(const char *dir, const char *name, char *tmp, char *final, size_t len)
{
  snprintf(final, len, "%s/%s", dir, name);
  snprintf(tmp, len, "%s/.%s.tmp", dir, name);
  return fopen(tmp, "w");
}

int bench_close_tmp(FILE *f, const char *tmp, const char *final)
{
  int bad = ferror(f);
  if (fclose(f) || bad || rename(tmp, final)) {
    remove(tmp);
    fprintf(stderr, "cdyn-bench: cannot write %s\n", final);
    return -1;
  }
  return 0;
}

void bench_meta_begin(FILE *f, int argc, char **argv)
{
  struct utsname u;
  uname(&u);
  char cpu[256], cmd[2048] = "";
  cpu_model(cpu, sizeof cpu);
  for (int i = 0; i < argc; i++) {
    strncat(cmd, argv[i], sizeof cmd - strlen(cmd) - 2);
    if (i + 1 < argc)
      strncat(cmd, " ", sizeof cmd - strlen(cmd) - 1);
  }
  char date[64];
  time_t t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
  fprintf(f, "{\n  \"program\": \"cdyn-bench\",\n  \"cdyn_version\": ");
  exp_json_str(f, cdyn_version());
  fprintf(f, ",\n  \"command\": ");
  exp_json_str(f, cmd);
  fprintf(f, ",\n  \"date_utc\": \"%s\",\n  \"machine\": {\"system\": ", date);
  exp_json_str(f, u.sysname);
  fprintf(f, ", \"release\": ");
  exp_json_str(f, u.release);
  fprintf(f, ", \"arch\": ");
  exp_json_str(f, u.machine);
  fprintf(f, ", \"cpu\": ");
  exp_json_str(f, cpu);
  fprintf(f, ", \"online_cpus\": %ld},\n  \"compiler\": ", sysconf(_SC_NPROCESSORS_ONLN));
#if defined(__clang__)
  exp_json_str(f, "clang " __clang_version__);
#elif defined(__GNUC__)
  exp_json_str(f, "gcc " __VERSION__);
#elif defined(__VERSION__)
  exp_json_str(f, __VERSION__);
#else
  exp_json_str(f, "unknown");
#endif
  lapack_int lv[3] = {0, 0, 0};
  LAPACKE_ilaver(&lv[0], &lv[1], &lv[2]);
  fprintf(f, ",\n  \"blas\": ");
  exp_json_str(f, blas_config());
  fprintf(f, ",\n  \"blas_threads\": 1,\n  \"lapack\": \"%d.%d.%d\",\n  \"cholmod\": \"%d.%d.%d\",\n  \"ode\": ", (int)lv[0],
          (int)lv[1], (int)lv[2], CHOLMOD_MAIN_VERSION, CHOLMOD_SUB_VERSION, CHOLMOD_SUBSUB_VERSION);
#ifdef HAVE_ODE
  exp_json_str(f, peer_ode_version());
#else
  fprintf(f, "null");
#endif
}
