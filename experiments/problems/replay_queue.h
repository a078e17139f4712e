/*
 * replay_queue.h: the exact replay of a run's steps (reference/ccd_replay.h)
 * on a thread of its own, beside the run.
 *
 * The run hands each step's path (its start, its cuts, its end: copied)
 * to the queue and goes on; one worker replays the paths in the order
 * given, each with the same workspace.  rq_flush waits until every path
 * handed over is replayed and gives their reports, in that order, to a
 * callback: the caller sums them exactly as it would have summed them
 * step by step, so what it writes does not depend on the thread (only the
 * time measured does: the worker's time in the replays).  The queue holds
 * `depth` paths; rq_push on a full queue returns RQ_FULL without taking
 * the path, and the caller flushes first.
 *
 * Nothing here calls the library: the worker runs only the reference
 * code, with its own workspace.
 */
#ifndef CDYN_EXPERIMENTS_REPLAY_QUEUE_H
#define CDYN_EXPERIMENTS_REPLAY_QUEUE_H

#include <stddef.h>

#include "ccd_replay.h"

typedef struct rq rq;

enum { RQ_OK = 0, RQ_FULL = 1, RQ_FAILED = -1 };

/* tri: 3 ntri particle indices (kept, not copied: they must outlive the
   queue); n3: doubles per state; pad: as ref_replay_path's.  NULL when
   out of memory or when the worker cannot be started. */
rq *rq_new(const size_t *tri, size_t ntri, size_t n3, double pad, size_t depth);
/* Wait for the worker to finish the paths handed over, and stop it. */
void rq_free(rq *q);
/* Hand over the path x[0 .. nx - 1] (nx >= 2), copied.  RQ_FULL: the
   queue holds depth paths; RQ_FAILED: out of memory. */
int rq_push(rq *q, const double *const *x, size_t nx);
/* Wait until every path handed over is replayed, then call fn(ctx, report,
   seconds) for each, in order (seconds: the worker's time in that
   replay).  RQ_FAILED when a replay failed (bad path, out of memory). */
int rq_flush(rq *q, void (*fn)(void *ctx, const ref_replay_report *rep, double seconds), void *ctx);
/* How the worker's replays met their pairs so far (ref_replay_ws_counts);
   0 each for a NULL queue.  Call it after rq_flush (the worker idle). */
void rq_counts(rq *q, size_t *builds, size_t *reuses, size_t *plain);

#endif
