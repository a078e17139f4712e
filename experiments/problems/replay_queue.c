/*
 * replay_queue.c: see replay_queue.h.  A ring of `depth` slots, each a
 * path (its states copied) and, once replayed, its report; `pushed`
 * paths handed over, `done` replayed (in order, by the one worker),
 * `taken` given back by rq_flush: taken <= done <= pushed <= taken +
 * depth.  One mutex and two condition variables (work for the worker,
 * progress for rq_flush); C11 threads.
 */
#define _POSIX_C_SOURCE 200809L
#include "replay_queue.h"

#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include <time.h>

typedef struct {
  double *x; /* nx states of n3 */
  size_t nx, cap;
  ref_replay_report rep;
  double seconds;
  int rc;
} slot;

struct rq {
  const size_t *tri;
  size_t ntri, n3, depth;
  double pad;
  slot *s;
  size_t pushed, done, taken;
  int stop;
  mtx_t mu;
  cnd_t work, progress;
  thrd_t worker;
  ref_replay_ws *ws;
};

static double seconds_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int run(void *arg)
{
  rq *q = arg;
  const double **st = NULL;
  size_t stcap = 0;
  mtx_lock(&q->mu);
  for (;;) {
    while (!q->stop && q->done == q->pushed)
      cnd_wait(&q->work, &q->mu);
    if (q->done == q->pushed) /* stopped, and nothing left */
      break;
    slot *sl = &q->s[q->done % q->depth];
    mtx_unlock(&q->mu);
    /* The slot is the worker's until done moves past it. */
    sl->rc = 0;
    if (sl->nx > stcap) {
      const double **n = realloc(st, sl->nx * sizeof *n);
      if (!n)
        sl->rc = -1;
      else
        st = n, stcap = sl->nx;
    }
    if (!sl->rc) {
      for (size_t j = 0; j < sl->nx; j++)
        st[j] = sl->x + j * q->n3;
      double t0 = seconds_now();
      sl->rc = ref_replay_path_ws(q->ws, q->tri, q->ntri, st, sl->nx, q->pad, &sl->rep);
      sl->seconds = seconds_now() - t0;
    }
    mtx_lock(&q->mu);
    q->done++;
    cnd_signal(&q->progress);
  }
  mtx_unlock(&q->mu);
  free(st);
  return 0;
}

rq *rq_new(const size_t *tri, size_t ntri, size_t n3, double pad, size_t depth)
{
  if (!tri || !ntri || !n3 || !depth)
    return NULL;
  rq *q = calloc(1, sizeof *q);
  if (!q)
    return NULL;
  q->tri = tri, q->ntri = ntri, q->n3 = n3, q->depth = depth, q->pad = pad;
  q->s = calloc(depth, sizeof *q->s);
  q->ws = ref_replay_ws_new();
  if (!q->s || !q->ws) {
    free(q->s);
    ref_replay_ws_free(q->ws);
    free(q);
    return NULL;
  }
  int m = mtx_init(&q->mu, mtx_plain) == thrd_success, w = m && cnd_init(&q->work) == thrd_success,
      p = w && cnd_init(&q->progress) == thrd_success;
  if (!p || thrd_create(&q->worker, run, q) != thrd_success) {
    if (p)
      cnd_destroy(&q->progress);
    if (w)
      cnd_destroy(&q->work);
    if (m)
      mtx_destroy(&q->mu);
    free(q->s);
    ref_replay_ws_free(q->ws);
    free(q);
    return NULL;
  }
  return q;
}

void rq_free(rq *q)
{
  if (!q)
    return;
  mtx_lock(&q->mu);
  q->stop = 1;
  cnd_signal(&q->work);
  mtx_unlock(&q->mu);
  thrd_join(q->worker, NULL);
  cnd_destroy(&q->progress);
  cnd_destroy(&q->work);
  mtx_destroy(&q->mu);
  for (size_t i = 0; i < q->depth; i++)
    free(q->s[i].x);
  free(q->s);
  ref_replay_ws_free(q->ws);
  free(q);
}

int rq_push(rq *q, const double *const *x, size_t nx)
{
  if (!q || !x || nx < 2)
    return RQ_FAILED;
  mtx_lock(&q->mu);
  int full = q->pushed - q->taken == q->depth;
  mtx_unlock(&q->mu);
  if (full)
    return RQ_FULL;
  /* The slot at pushed is free (taken, or never used): the worker reads it
     only once pushed moves past it. */
  slot *sl = &q->s[q->pushed % q->depth];
  if (nx > sl->cap) {
    double *n = realloc(sl->x, nx * q->n3 * sizeof *n);
    if (!n)
      return RQ_FAILED;
    sl->x = n, sl->cap = nx;
  }
  for (size_t j = 0; j < nx; j++) {
    if (!x[j])
      return RQ_FAILED;
    memcpy(sl->x + j * q->n3, x[j], q->n3 * sizeof(double));
  }
  sl->nx = nx;
  mtx_lock(&q->mu);
  q->pushed++;
  cnd_signal(&q->work);
  mtx_unlock(&q->mu);
  return RQ_OK;
}

int rq_flush(rq *q, void (*fn)(void *ctx, const ref_replay_report *rep, double seconds), void *ctx)
{
  if (!q)
    return RQ_FAILED;
  mtx_lock(&q->mu);
  while (q->done != q->pushed)
    cnd_wait(&q->progress, &q->mu);
  size_t from = q->taken, to = q->pushed;
  mtx_unlock(&q->mu);
  int rc = RQ_OK;
  for (size_t i = from; i < to; i++) {
    const slot *sl = &q->s[i % q->depth];
    if (sl->rc)
      rc = RQ_FAILED;
    else if (fn)
      fn(ctx, &sl->rep, sl->seconds);
  }
  mtx_lock(&q->mu);
  q->taken = to;
  mtx_unlock(&q->mu);
  return rc;
}

void rq_counts(rq *q, size_t *builds, size_t *reuses, size_t *plain)
{
  if (!q) {
    ref_replay_ws_counts(NULL, builds, reuses, plain);
    return;
  }
  mtx_lock(&q->mu);
  ref_replay_ws_counts(q->ws, builds, reuses, plain);
  mtx_unlock(&q->mu);
}
