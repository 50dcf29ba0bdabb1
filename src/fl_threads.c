/* How many threads a parallel region gets: the one place that decides
 * (every num_threads() clause goes through fl_team() or fl_par_threads()).
 *
 * The solvers' results depend on the logical thread count their callers
 * pass (heaps, batches, epochs), never on the team that runs a region:
 * work inside a region is claimed dynamically and partial sums are added
 * in a fixed order.  So a region may run on fewer threads than asked with
 * the same answer, and runs on one while the processors are
 * oversubscribed.  Oversubscription is measured, not guessed: the calling
 * thread's run delay (the time it was ready to run but waited for a
 * processor, Linux's schedstat) over windows of FL_LOAD_WINDOW seconds.
 * A window in which it exceeds FL_LOAD_SHARE of the wall time holds
 * teams at one thread for `hold` seconds, doubling (up to FL_LOAD_HOLD_MAX)
 * each time a full team meets contention again, back to FL_LOAD_HOLD_MIN
 * once a full team runs a window without it.  A team of threads that
 * outnumber the free processors waits at every barrier for a thread the
 * system has paused, one time slice each (up to 24 times as long as one
 * thread, inst/bench/results/under-load.csv); one thread is never paused
 * for its team.  Without schedstat (other systems) teams keep their size. */
#include <stdio.h>
#include "fl_omp.h"
#include "fl_tune.h"

static struct {
  double start;     /* the window's start (fl_wtime), its run delay in ns */
  double delay;
  double until;     /* teams of one thread until then */
  double hold;      /* how long the next contended window holds them */
  int full;         /* a team of several threads ran in the window */
  int blind;        /* the system reports no run delay: teams keep their size */
  int policy;       /* FL_TEAM_AUTO, FL_TEAM_ONE or FL_TEAM_FULL */
  double windows, contended, shrunk, teams;   /* counts, for fl_team_counts() */
} load = { -1.0, 0.0, 0.0, FL_LOAD_HOLD_MIN, 0, 0, FL_TEAM_AUTO, 0.0, 0.0, 0.0, 0.0 };

int fl_num_procs(void)
{
  return fl_par_procs();
}

/* The calling thread's run delay in ns since it started, -1 where the
 * system does not report it. */
static double run_delay(void)
{
#ifdef __linux__
  FILE *f = fopen("/proc/thread-self/schedstat", "r");
  double cpu, wait;
  int ok = f && fscanf(f, "%lf %lf", &cpu, &wait) == 2;
  if (f) fclose(f);
  return ok ? wait : -1.0;
#else
  return -1.0;
#endif
}

/* Close the window if it is FL_LOAD_WINDOW long: judge it, open the next. */
static void judge_window(double now)
{
  if (load.blind || (load.start >= 0.0 && now - load.start < FL_LOAD_WINDOW)) return;
  double delay = run_delay();
  if (delay < 0.0) {   /* asked once, not at every region */
    load.blind = 1;
    return;
  }
  if (load.start >= 0.0) {
    int busy = (delay - load.delay) * 1e-9 > FL_LOAD_SHARE * (now - load.start);
    load.windows += 1.0;
    if (busy) {
      load.contended += 1.0;
      load.until = now + load.hold;
      if (load.full) load.hold = load.hold * 2.0 < FL_LOAD_HOLD_MAX ? load.hold * 2.0 : FL_LOAD_HOLD_MAX;
    } else if (load.full) {
      load.hold = FL_LOAD_HOLD_MIN;
    }
  }
  load.start = now;
  load.delay = delay;
  load.full = 0;
}

int fl_team(int threads)
{
  if (threads <= 1) return 1;
  if (fl_in_parallel()) return threads;
  if (load.policy != FL_TEAM_FULL) {
    double now = fl_wtime();
    judge_window(now);
    if (load.policy == FL_TEAM_ONE || now < load.until) {
      load.shrunk += 1.0;
      return 1;
    }
    load.full = 1;
  }
  load.teams += 1.0;
  return threads;
}

int fl_team_all(void)
{
  return load.policy == FL_TEAM_FULL;
}

void fl_team_policy(int policy)
{
  load.policy = policy;
  load.start = -1.0;
  load.until = 0.0;
  load.hold = FL_LOAD_HOLD_MIN;
}

void fl_team_counts(double *counts)
{
  counts[0] = load.windows;
  counts[1] = load.contended;
  counts[2] = load.shrunk;
  counts[3] = load.teams;
}
