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

/* Spins, each with a pause, before yielding the core: with more threads
 * than free cores the thread we wait for may need our core to arrive.  A
 * group's lanes wait a few microseconds at every step while their leader
 * works the heap; without pauses the spins end too soon, and nearly every
 * wait ends in sched_yield(), a system call, which is dear on a VM. */
#define FL_SPIN_BEFORE_YIELD 1024

void fl_barrier_init(fl_barrier *b)
{
  b->count = 0;
  b->sense = 0;
}

#ifdef _OPENMP
/* Tell the core we spin: it then runs the loop slowly, sparing power and
 * the memory bus. */
static inline void cpu_pause(void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_ia32_pause();
#elif defined(__GNUC__) && defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static void relax(int *spins)
{
  if (++*spins < FL_SPIN_BEFORE_YIELD) {
    cpu_pause();
    return;
  }
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
