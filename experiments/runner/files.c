/*
 * files.c: atomic files, reading a file, output directories and their
 * walks (files.h).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cdyn/error.h>
#include "runner/files.h"
#include "runner/text.h"

/* ---- files ------------------------------------------------------------------------------- */

int exp_afile_open(exp_afile *a, const char *dir, const char *name, int executable)
{
  memset(a, 0, sizeof *a);
  snprintf(a->path, sizeof a->path, "%s/%s", dir, name);
  snprintf(a->tmp, sizeof a->tmp, "%s/.%s.tmp", dir, name);
  a->f = fopen(a->tmp, "w");
  if (!a->f)
    return cdyn_error(CDYN_EIO, "cannot write %s: %s", a->tmp, strerror(errno));
  if (executable) {
    /* What open(path, ..., 0777) would give: every permission the umask
       leaves. */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fileno(a->f), 0777 & ~mask)) {
      int e = errno;
      fclose(a->f);
      a->f = NULL;
      remove(a->tmp);
      return cdyn_error(CDYN_EIO, "cannot make %s executable: %s", a->tmp, strerror(e));
    }
  }
  return CDYN_OK;
}

int exp_afile_flush(exp_afile *a)
{
  errno = 0;
  if (!a->f || fflush(a->f) || ferror(a->f))
    return cdyn_error(CDYN_EIO, "error writing %s: %s", a->tmp, errno ? strerror(errno) : "write error");
  return CDYN_OK;
}

int exp_afile_close(exp_afile *a, int ok)
{
  if (!a->f)
    return ok ? cdyn_error(CDYN_EIO, "%s was not opened", a->tmp) : CDYN_OK;
  errno = 0;
  int bad = ferror(a->f);
  bad |= fclose(a->f);
  a->f = NULL;
  int rc = CDYN_OK;
  if (ok && bad)
    rc = cdyn_error(CDYN_EIO, "error writing %s: %s", a->tmp, errno ? strerror(errno) : "write error");
  else if (ok && rename(a->tmp, a->path))
    rc = cdyn_error(CDYN_EIO, "cannot rename %s to %s: %s", a->tmp, a->path, strerror(errno));
  if (!ok || rc)
    remove(a->tmp);
  return ok ? rc : CDYN_OK;
}

int exp_afile_create(exp_afile *a, const char *who, const char *dir, const char *name, int executable)
{
  return exp_afile_open(a, dir, name, executable) ? exp_complain(who, 1, "%s", cdyn_errmsg()) : 0;
}

int exp_afile_finish(exp_afile *a, const char *who, int ok)
{
  return exp_afile_close(a, ok) ? exp_complain(who, 1, "%s", cdyn_errmsg()) : 0;
}

int exp_is_regular(const char *path)
{
  struct stat sb;
  return !stat(path, &sb) && S_ISREG(sb.st_mode);
}

char *exp_read_file(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  exp_text b = {0};
  char buf[8192];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    exp_text_add(&b, buf, n);
  int bad = ferror(f) || b.failed;
  fclose(f);
  if (bad) {
    exp_text_free(&b);
    errno = EIO;
    return NULL;
  }
  if (!b.s && !(b.s = calloc(1, 1)))
    return NULL;
  if (len)
    *len = b.len;
  return b.s;
}

char *exp_find_program(const char *name)
{
  const char *path = getenv("PATH");
  if (!path || !*path)
    path = "/usr/bin:/bin";
  for (;;) {
    size_t len = strcspn(path, ":");
    size_t n = len + strlen(name) + 3;
    char *cand = malloc(n);
    if (!cand)
      return NULL;
    snprintf(cand, n, "%.*s/%s", (int)(len ? len : 1), len ? path : ".", name);
    if (exp_is_regular(cand) && !access(cand, X_OK))
      return cand;
    free(cand);
    if (!path[len])
      return NULL;
    path += len + 1;
  }
}

/* ---- output directories --------------------------------------------------------------------- */

int exp_dir_empty(const char *dir)
{
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  struct dirent *ent;
  int empty = 1;
  while ((ent = readdir(d)))
    if (strcmp(ent->d_name, ".") && strcmp(ent->d_name, ".."))
      empty = 0;
  closedir(d);
  return empty;
}

int exp_output_name(const char *name)
{
  static const char *const suffixes[] = {".csv", ".json", ".md", ".tmp", ".log", ".pdf", ".png", ".gif", ".mp4"};
  if (!strcmp(name, "done") || !strcmp(name, "view.html")) /* view.html: cdyn view's page */
    return 1;
  size_t n = strlen(name);
  for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
    size_t s = strlen(suffixes[k]);
    if (n > s && !strcmp(name + n - s, suffixes[k]))
      return 1;
  }
  return 0;
}

int exp_walk_dir(const char *who, const char *dir, exp_walk_fn fn, void *ctx)
{
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "%s: cannot read %s: %s\n", who, dir, strerror(errno));
    return 1;
  }
  struct dirent *ent;
  int rc = 0;
  while (!rc && (ent = readdir(d))) {
    if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, ".."))
      continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
    struct stat sb;
    rc = fn(ctx, path, ent->d_name, lstat(path, &sb) ? NULL : &sb);
  }
  closedir(d);
  return rc;
}

/* What exp_clear_dir's walk needs. */
typedef struct {
  const char *who, *dir, *why;
  int check_only;
} clear_walk;

static int clear_entry(void *ctx, const char *path, const char *name, const struct stat *sb)
{
  const clear_walk *w = ctx;
  if (!sb || !S_ISREG(sb->st_mode) || !exp_output_name(name)) {
    if (w->why)
      fprintf(stderr, "%s: %s holds %s, which no cdyn run writes: %s\n", w->who, w->dir, name, w->why);
    return 1;
  }
  if (!w->check_only && remove(path)) {
    fprintf(stderr, "%s: cannot remove %s: %s\n", w->who, path, strerror(errno));
    return 1;
  }
  return 0;
}

int exp_clear_dir(const char *who, const char *dir, int check_only, const char *why)
{
  clear_walk w = {who, dir, why, check_only};
  return exp_walk_dir(who, dir, clear_entry, &w);
}

int exp_prepare_outdir(const char *who, const char *dir, int force, int *created, exp_clear_fn clear)
{
  *created = 0;
  struct stat sb;
  if (stat(dir, &sb)) {
    if (errno != ENOENT || mkdir(dir, 0777)) {
      fprintf(stderr, "%s: cannot create %s: %s\n", who, dir, strerror(errno));
      return 1;
    }
    *created = 1;
    return 0;
  }
  if (!S_ISDIR(sb.st_mode)) {
    fprintf(stderr, "%s: %s exists and is not a directory\n", who, dir);
    return 1;
  }
  if (exp_dir_empty(dir))
    return 0;
  if (!force) {
    fprintf(stderr, "%s: %s is not empty; choose another --out, or add --force to clear it\n", who, dir);
    return 1;
  }
  if (clear(who, dir, 1, "--force clears only a directory of cdyn output; remove it yourself"))
    return 1;
  return clear(who, dir, 0, NULL);
}
