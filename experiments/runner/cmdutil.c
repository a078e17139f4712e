/*
 * cmdutil.c: what the cdyn program's commands share (cmdutil.h): text
 * that grows, atomic files, reading a file, output directories and their
 * walks, JSON and CSV quoting.
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

#include "runner/cmdutil.h"

/* ---- text ------------------------------------------------------------------------------- */

void exp_text_add(exp_text *b, const char *s, size_t n)
{
  if (b->failed)
    return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
      cap *= 2;
    char *p = realloc(b->s, cap);
    if (!p) {
      b->failed = 1;
      return;
    }
    b->s = p;
    b->cap = cap;
  }
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = '\0';
}

void exp_text_puts(exp_text *b, const char *s) { exp_text_add(b, s, strlen(s)); }
void exp_text_putc(exp_text *b, char c) { exp_text_add(b, &c, 1); }

void exp_text_printf(exp_text *b, const char *fmt, ...)
{
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) {
    b->failed = 1;
    return;
  }
  if ((size_t)n < sizeof buf) {
    exp_text_add(b, buf, (size_t)n);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) {
    b->failed = 1;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  exp_text_add(b, big, (size_t)n);
  free(big);
}

void exp_text_clear(exp_text *b)
{
  b->len = 0;
  if (b->s)
    b->s[0] = '\0';
}

void exp_text_free(exp_text *b)
{
  free(b->s);
  memset(b, 0, sizeof *b);
}

void exp_text_shell(exp_text *b, const char *s)
{
  static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-";
  if (*s && strspn(s, safe) == strlen(s)) {
    exp_text_puts(b, s);
    return;
  }
  exp_text_putc(b, '\'');
  for (; *s; s++)
    if (*s == '\'')
      exp_text_puts(b, "'\\''");
    else
      exp_text_putc(b, *s);
  exp_text_putc(b, '\'');
}

int exp_vcomplain(const char *who, int rc, const char *fmt, va_list ap)
{
  fprintf(stderr, "%s: ", who);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  return rc;
}

int exp_complain(const char *who, int rc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  exp_vcomplain(who, rc, fmt, ap);
  va_end(ap);
  return rc;
}

int exp_ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), l = strlen(suffix);
  return n >= l && !strcmp(s + n - l, suffix);
}

int exp_str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void exp_strv_free(char **v, int n)
{
  for (int k = 0; v && k < n; k++)
    free(v[k]);
  free(v);
}

/* A shell word for printing (a static buffer: one use at a time). */
const char *exp_shell_word(const char *s)
{
  static exp_text b;
  exp_text_clear(&b);
  exp_text_shell(&b, s);
  return b.failed ? s : b.s;
}

int exp_has_control(const char *s)
{
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f)
      return 1;
  return 0;
}

void exp_json_str(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

void exp_csv_field(FILE *f, const char *s)
{
  if (!strpbrk(s, ",\"\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* ---- command-line conventions ------------------------------------------------------------- */

void exp_near_init(exp_near *n, const char *word)
{
  n->word = word;
  n->best = NULL;
  n->dist = (size_t)-1;
}

void exp_near_try(exp_near *n, const char *candidate)
{
  if (!candidate || !n->word)
    return;
  size_t d = cdyn_word_distance(n->word, candidate);
  if (d < n->dist) {
    n->dist = d;
    n->best = candidate;
  }
}

void exp_near_list(exp_near *n, const char *const *candidates)
{
  for (; candidates && *candidates; candidates++)
    exp_near_try(n, *candidates);
}

const char *exp_near_best(const exp_near *n)
{
  if (!n->best || !cdyn_word_near(n->word, n->dist))
    return NULL;
  return n->best;
}

const char *exp_near_hint(const exp_near *n)
{
  static char buf[160];
  const char *best = exp_near_best(n);
  if (!best)
    return "";
  snprintf(buf, sizeof buf, "; did you mean '%.100s'?", best);
  return buf;
}

int exp_unknown_option(const char *who, const char *a, const char *const *options)
{
  exp_near near;
  exp_near_init(&near, a);
  exp_near_list(&near, options);
  fprintf(stderr, "%s: unknown option '%s'%s\n", who, a, exp_near_hint(&near));
  return 2;
}

static int in_list(const char *const *list, const char *s, size_t len)
{
  for (; list && *list; list++)
    if (strlen(*list) == len && !strncmp(*list, s, len))
      return 1;
  return 0;
}

int exp_split_long_options(int *argc, char ***argv, int first, const char *const *value_options,
                           const char *const *flags)
{
  char **v = *argv;
  int n = *argc, extra = 0;
  for (int k = first; k < n; k++) {
    const char *a = v[k];
    if (in_list(value_options, a, strlen(a))) {
      k++; /* its value, whatever it looks like */
      continue;
    }
    const char *eq = strncmp(a, "--", 2) ? NULL : strchr(a, '=');
    if (!eq)
      continue;
    if (in_list(flags, a, (size_t)(eq - a))) {
      fprintf(stderr, "cdyn: option '%.*s' takes no value\n", (int)(eq - a), a);
      return 2;
    }
    extra++;
  }
  if (!extra)
    return 0;
  char **w = malloc(((size_t)n + (size_t)extra + 1) * sizeof *w);
  if (!w) {
    fprintf(stderr, "cdyn: out of memory\n");
    return 1;
  }
  int m = 0;
  for (int k = 0; k < n; k++) {
    char *a = v[k];
    if (k >= first && in_list(value_options, a, strlen(a)) && k + 1 < n) {
      w[m++] = a;
      w[m++] = v[++k];
      continue;
    }
    char *eq = k < first || strncmp(a, "--", 2) ? NULL : strchr(a, '=');
    if (eq) {
      /* The word's '=' becomes the end of the option's name. */
      *eq = '\0';
      w[m++] = a;
      w[m++] = eq + 1;
    } else {
      w[m++] = a;
    }
  }
  w[m] = NULL;
  *argc = m;
  *argv = w;
  return 0;
}

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
