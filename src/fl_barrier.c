#if !defined(_POSIX_C_SOURCE) && !defined(_WIN32)
#define _POSIX_C_SOURCE 200112L
#endif
#include "fl_barrier.h"
#include "fl_omp.h"
#ifdef _OPENMP
#ifdef _WIN32
#include <windows.h>
#else
#include <sched.h>
#endif
#endif

/* Spins this many times before yielding the core: a group of M threads
 * normally meets within a few hundred nanoseconds, but with more threads
 * than free cores the thread we wait for may need our core to arrive. */
#define FL_SPIN_BEFORE_YIELD 256

void fl_barrier_init(fl_barrier *b)
{
  b->count = 0;
  b->sense = 0;
}

#ifdef _OPENMP
static void relax(int *spins)
{
  if (++*spins < FL_SPIN_BEFORE_YIELD) return;
  *spins = 0;
#ifdef _WIN32
  SwitchToThread();
#else
  sched_yield();
#endif
}
#endif

void fl_barrier_wait(fl_barrier *b, int nthreads)
{
  if (nthreads <= 1) return;
#ifdef _OPENMP
  int sense, arrived;
  /* The sense cannot flip before this thread arrives, so reading it first
   * tells which value releases this episode. */
#pragma omp atomic read seq_cst
  sense = b->sense;
  int release = !sense;
#pragma omp atomic capture seq_cst
  arrived = ++b->count;
  if (arrived == nthreads) {
#pragma omp atomic write seq_cst
    b->count = 0;
#pragma omp atomic write seq_cst
    b->sense = release;
  } else {
    int spins = 0, now;
    for (;;) {
#pragma omp atomic read seq_cst
      now = b->sense;
      if (now == release) break;
      relax(&spins);
    }
  }
#pragma omp flush
#else
  (void) b;
#endif
}
