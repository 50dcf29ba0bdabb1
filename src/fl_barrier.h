/* Sense-reversing barrier for a small group of threads (mode nhpc).  The
 * count and the sense live on separate cache lines so that arriving threads
 * (writing count) do not disturb the waiting ones (reading sense).  A wait
 * that lasts sleeps: on a futex on Linux, on a condition variable on other
 * POSIX systems (or where FL_BARRIER_CONDVAR is defined, to test that
 * path); elsewhere (Windows) it keeps yielding its core. */
#ifndef FL_BARRIER_H
#define FL_BARRIER_H

#include "fl_omp.h"   /* FL_LINE */

#if defined(__linux__) && !defined(FL_BARRIER_CONDVAR)
#define FL_BARRIER_FUTEX 1
#define FL_BARRIER_CONDVAR 0
#elif !defined(_WIN32)
#undef FL_BARRIER_CONDVAR
#define FL_BARRIER_FUTEX 0
#define FL_BARRIER_CONDVAR 1
#else
#define FL_BARRIER_FUTEX 0
#define FL_BARRIER_CONDVAR 0
#endif

#if FL_HAVE_OMP && FL_BARRIER_CONDVAR
#include <pthread.h>
#endif

typedef struct {
  int count;
  char pad1[FL_LINE - sizeof(int)];
  int sense;       /* a futex word on Linux */
  int sleepers;    /* threads asleep or about to be: the releaser wakes them */
  char pad2[FL_LINE - 2 * sizeof(int)];
#if FL_HAVE_OMP && FL_BARRIER_CONDVAR
  pthread_mutex_t mutex;
  pthread_cond_t cond;
#endif
} fl_barrier;

void fl_barrier_init(fl_barrier *b);
void fl_barrier_destroy(fl_barrier *b);
/* Wait until nthreads threads of the group have arrived.  Every arrival
 * and release is a seq_cst atomic (a full flush), so writes made before the
 * barrier are visible to every thread of the group after it. */
void fl_barrier_wait(fl_barrier *b, int nthreads);

#endif
