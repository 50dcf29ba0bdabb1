/*
 * ThreadSanitizer test of the package's barrier (src/fl_barrier.c), run by
 * `make barrier-tsan` (GNUmakefile) on its futex and condition-variable
 * paths, at the default spin budget and at one so small that nearly every
 * wait sleeps.
 *
 *   barrier-tsan T [ROUNDS]
 *
 * T threads (plain pthreads, no OpenMP team) each run ROUNDS (20000) rounds
 * of: write its own slot of a shared array with the round number (a plain
 * store), fl_barrier_wait(), read every other thread's slot (plain loads)
 * and check that each holds this round's number, fl_barrier_wait() again.
 * A slot behind the round means the barrier let a thread through before
 * every thread arrived, or did not make the writes before it visible; a
 * slot ahead of it means a thread left the second wait early.  Under
 * -fsanitize=thread either also shows as a data race on the slots, since
 * the slots are plain memory whose only ordering is the barrier's.
 *
 * Exit status 0 when every check held, 1 at the first mismatch (printed),
 * 2 on bad arguments; ThreadSanitizer's own exit code (66 under
 * `make barrier-tsan`) on any report.  A barrier that hangs is ended by
 * SIGALRM after BARRIER_TSAN_TIMEOUT seconds.
 *
 * The barrier is built with OpenMP (-fopenmp) because its atomics are
 * OpenMP atomics (fl_omp.h: `omp atomic ... seq_cst`, which GCC emits as
 * __atomic builtins that ThreadSanitizer models); without OpenMP
 * fl_barrier_wait() returns at once (a serial build has one thread).  No
 * OpenMP region runs here, so libgomp, which is not instrumented, never
 * starts a thread.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include "fl_barrier.h"
#include "fl_tune.h"

#if !FL_HAVE_OMP
#error "fl_barrier_wait() is a no-op without OpenMP: build with -fopenmp"
#endif

#ifndef BARRIER_TSAN_TIMEOUT
#define BARRIER_TSAN_TIMEOUT 300
#endif
#define MAX_THREADS 64

static fl_barrier bar;
static int nthreads;
static long rounds;
static long slot[MAX_THREADS];      /* plain memory: ordered by the barrier only */

static void *worker(void *arg)
{
  int me = (int) (size_t) arg;
  for (long r = 1; r <= rounds; r++) {
    slot[me] = r;
    fl_barrier_wait(&bar, nthreads);
    for (int j = 0; j < nthreads; j++) {
      long seen = slot[j];
      if (seen != r) {
        /* End here: a barrier that let threads through unevenly usually
         * deadlocks them a few rounds later. */
        fprintf(stderr, "barrier-tsan: MISMATCH in round %ld: thread %d read slot %d = %ld "
                "(%d threads, spins %d)\n", r, me, j, seen, nthreads, FL_BARRIER_SPINS);
        fflush(stderr);
        _exit(1);
      }
    }
    fl_barrier_wait(&bar, nthreads);
  }
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: barrier-tsan THREADS [ROUNDS]\n");
    return 2;
  }
  nthreads = atoi(argv[1]);
  rounds = argc > 2 ? atol(argv[2]) : 20000;
  if (nthreads < 2 || nthreads > MAX_THREADS || rounds < 1) {
    fprintf(stderr, "barrier-tsan: THREADS in 2..%d, ROUNDS at least 1\n", MAX_THREADS);
    return 2;
  }
  alarm(BARRIER_TSAN_TIMEOUT);

  struct timeval t0, t1;
  gettimeofday(&t0, NULL);
  fl_barrier_init(&bar);
  pthread_t tid[MAX_THREADS];
  for (int t = 0; t < nthreads; t++)
    if (pthread_create(&tid[t], NULL, worker, (void *) (size_t) t) != 0) {
      fprintf(stderr, "barrier-tsan: pthread_create failed\n");
      return 2;
    }
  for (int t = 0; t < nthreads; t++) pthread_join(tid[t], NULL);
  fl_barrier_destroy(&bar);
  gettimeofday(&t1, NULL);

  /* Voluntary context switches: mostly waits that slept (a futex wait,
   * the condition variable's included; a yield is involuntary). */
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("barrier-tsan: %s, spins %d, yields %d, %d threads, %ld rounds "
         "(%ld waits each): no mismatch, %ld voluntary context switches, %.2f s\n",
         FL_BARRIER_FUTEX ? "futex" : FL_BARRIER_CONDVAR ? "condvar" : "yield",
         FL_BARRIER_SPINS, FL_BARRIER_YIELDS, nthreads, rounds, 2 * rounds,
         ru.ru_nvcsw, (t1.tv_sec - t0.tv_sec) + 1e-6 * (t1.tv_usec - t0.tv_usec));
  return 0;
}
