#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE   /* syscall() */
#elif !defined(_POSIX_C_SOURCE) && !defined(_WIN32)
#define _POSIX_C_SOURCE 200112L
#endif
#include "fl_barrier.h"
#include "fl_omp.h"
#include "fl_tune.h"
#if FL_HAVE_OMP
#ifdef _WIN32
#include <windows.h>
#else
#include <sched.h>
#endif
#if FL_BARRIER_FUTEX
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#endif

/* A wait spins (FL_BARRIER_SPINS pauses), then yields the core
 * (FL_BARRIER_YIELDS times), then sleeps until the last thread arrives.
 * Idle, a group's lanes wait a few microseconds at every step while their
 * leader works the heap, and the spins cover that.  With more threads
 * than free cores (other programs, or forked workers of the same solve)
 * the thread we wait for may need our core: yielding alone is not enough
 * on Linux (the scheduler may give the core straight back), so the wait
 * ends asleep, its core free for the thread it waits for. */

void fl_barrier_init(fl_barrier *b)
{
  b->count = 0;
  b->sense = 0;
  b->sleepers = 0;
#if FL_HAVE_OMP && FL_BARRIER_CONDVAR
  pthread_mutex_init(&b->mutex, NULL);
  pthread_cond_init(&b->cond, NULL);
#endif
}

void fl_barrier_destroy(fl_barrier *b)
{
#if FL_HAVE_OMP && FL_BARRIER_CONDVAR
  pthread_mutex_destroy(&b->mutex);
  pthread_cond_destroy(&b->cond);
#else
  (void) b;
#endif
}

#if FL_HAVE_OMP
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

static void yield_core(void)
{
#ifdef _WIN32
  SwitchToThread();
#else
  sched_yield();
#endif
}

static int sense_of(fl_barrier *b)
{
  return fl_atomic_read(&b->sense);
}

/* Sleep until the sense leaves `old`.  The sleeper counts itself before
 * its last look at the sense, and the releaser flips the sense before it
 * reads the count (both seq_cst): either the sleeper sees the new sense or
 * the releaser sees a sleeper and wakes it. */
static void sleep_while(fl_barrier *b, int old)
{
  fl_atomic_add(&b->sleepers, 1);
#if FL_BARRIER_FUTEX
  while (sense_of(b) == old)   /* the kernel sleeps only while it is old */
    syscall(SYS_futex, &b->sense, FUTEX_WAIT_PRIVATE, old, NULL, NULL, 0);
#elif FL_BARRIER_CONDVAR
  pthread_mutex_lock(&b->mutex);
  while (sense_of(b) == old) pthread_cond_wait(&b->cond, &b->mutex);
  pthread_mutex_unlock(&b->mutex);
#else
  while (sense_of(b) == old) yield_core();
#endif
  fl_atomic_add(&b->sleepers, -1);
}

static void wake_sleepers(fl_barrier *b)
{
  if (fl_atomic_read(&b->sleepers) == 0) return;
#if FL_BARRIER_FUTEX
  syscall(SYS_futex, &b->sense, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#elif FL_BARRIER_CONDVAR
  /* Under the mutex: a sleeper between its look and its wait holds it. */
  pthread_mutex_lock(&b->mutex);
  pthread_cond_broadcast(&b->cond);
  pthread_mutex_unlock(&b->mutex);
#endif
}

static void wait_release(fl_barrier *b, int release)
{
  for (int spins = 0; spins < FL_BARRIER_SPINS; spins++) {
    if (sense_of(b) == release) return;
    cpu_pause();
  }
  for (int yields = 0; yields < FL_BARRIER_YIELDS; yields++) {
    if (sense_of(b) == release) return;
    yield_core();
  }
  sleep_while(b, !release);
}
#endif

void fl_barrier_wait(fl_barrier *b, int nthreads)
{
  if (nthreads <= 1) return;
#if FL_HAVE_OMP
  /* The sense cannot flip before this thread arrives, so reading it first
   * tells which value releases this episode. */
  int release = !sense_of(b);
  if (fl_atomic_inc_fetch(&b->count) == nthreads) {
    fl_atomic_write(&b->count, 0);
    fl_atomic_write(&b->sense, release);
    wake_sleepers(b);
  } else {
    wait_release(b, release);
  }
  fl_flush();
#else
  (void) b;
#endif
}
