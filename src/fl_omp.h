/* OpenMP guards: the core builds and runs (serially) without OpenMP. */
#ifndef FL_OMP_H
#define FL_OMP_H

#include <stddef.h>

/* Elements of size bytes (a divisor of FL_LINE) from one thread's scratch
 * to the next's, for count each: whole cache lines and one more, so no
 * two threads ever write to the same line, whatever the alignment of the
 * allocation (two threads' scratch sharing a line halved the speed of
 * k-means at two threads). */
#define FL_LINE 64
static inline size_t fl_thread_stride(size_t count, size_t size)
{
  size_t per_line = FL_LINE / size;
  return (count + per_line - 1) / per_line * per_line + per_line;
}

/* The only file that names OpenMP (tools/check-conventions.sh): others
 * test FL_HAVE_OMP, write FL_OMP(...) and call the helpers below. */
#ifdef _OPENMP
#define FL_HAVE_OMP 1
#include <omp.h>
/* FL_OMP(parallel for ...) is #pragma omp parallel for ... with OpenMP
 * and nothing without it. */
#define FL_PRAGMA(...) _Pragma(#__VA_ARGS__)
#define FL_OMP(...) FL_PRAGMA(omp __VA_ARGS__)
#define FL_SIMD FL_PRAGMA(omp simd)
#define FL_SIMD_SUM(...) FL_PRAGMA(omp simd reduction(+:__VA_ARGS__))
static inline int fl_thread_id(void) { return omp_get_thread_num(); }
static inline int fl_team_size(void) { return omp_get_num_threads(); }
static inline double fl_wtime(void) { return omp_get_wtime(); }
typedef omp_lock_t fl_lock;
static inline void fl_lock_init(fl_lock *l) { omp_init_lock(l); }
static inline void fl_lock_destroy(fl_lock *l) { omp_destroy_lock(l); }
static inline void fl_lock_set(fl_lock *l) { omp_set_lock(l); }
static inline void fl_lock_unset(fl_lock *l) { omp_unset_lock(l); }
static inline int fl_par_procs(void) { return omp_get_num_procs(); }
static inline int fl_in_parallel(void) { return omp_in_parallel(); }
#else
#define FL_HAVE_OMP 0
#define FL_OMP(...)
#define FL_SIMD
#define FL_SIMD_SUM(...)
static inline int fl_thread_id(void) { return 0; }
static inline int fl_team_size(void) { return 1; }
static inline double fl_wtime(void) { return 0.0; }
typedef int fl_lock;
static inline void fl_lock_init(fl_lock *l) { *l = 0; }
static inline void fl_lock_destroy(fl_lock *l) { (void) l; }
static inline void fl_lock_set(fl_lock *l) { (void) l; }
static inline void fl_lock_unset(fl_lock *l) { (void) l; }
static inline int fl_par_procs(void) { return 1; }
static inline int fl_in_parallel(void) { return 0; }
#endif

/* Sequentially consistent atomics on an int shared by a team (each a full
 * flush), plain accesses without OpenMP. */
static inline int fl_atomic_read(int *p)
{
  int v;
  FL_OMP(atomic read seq_cst)
  v = *p;
  return v;
}
static inline void fl_atomic_write(int *p, int v)
{
  FL_OMP(atomic write seq_cst)
  *p = (int) v;   /* the cast: GCC 12 calls v "set but not used" without it */
}
static inline void fl_atomic_add(int *p, int delta)
{
  FL_OMP(atomic update seq_cst)
  *p += delta;
}
/* *p += delta, returning the new value. */
static inline int fl_atomic_add_fetch(int *p, int delta)
{
  int v;
  FL_OMP(atomic capture seq_cst)
  v = *p += delta;
  return v;
}
/* ++*p, returning the new value. */
static inline int fl_atomic_inc_fetch(int *p)
{
  int v;
  FL_OMP(atomic capture seq_cst)
  v = ++*p;
  return v;
}
static inline void fl_flush(void)
{
  FL_OMP(flush)
}

/* Loops whose iterations are independent of each other (no result
 * depends on which thread takes which) are scheduled dynamically: the
 * vCPUs of a shared machine run at different speeds for minutes at a
 * time (see mf_share.c), and with static halves the faster thread waits
 * for the slower one. */

/* fl_threads.c: the team of a parallel region for a solve of `threads`
 * (logical) threads: `threads`, or one while the processors are
 * oversubscribed; the answer is the same.  Call outside parallel regions
 * (inside, it returns `threads` and measures nothing). */
int fl_team(int threads);
/* FL_TEAM_AUTO measures the load; FL_TEAM_ONE runs every team on one
 * thread; FL_TEAM_FULL gives every region the threads asked for, loaded
 * or not and below the work cut-offs too (tests, and harnesses
 * exercising teams). */
enum { FL_TEAM_AUTO = 0, FL_TEAM_ONE = 1, FL_TEAM_FULL = 2 };
void fl_team_policy(int policy);
/* Since the process started: windows judged, of them contended, teams
 * shrunk to one thread by the load, and teams of several threads asked
 * for (counts[0..3]). */
void fl_team_counts(double *counts);

/* Is the policy FL_TEAM_FULL: teams of every size asked for, below the
 * work cut-offs too (the fuzz harness, and tests of the team's answer)? */
int fl_team_all(void);

/* The threads for a loop of `work` units: one below `least` (a cut-off
 * of fl_tune.h), where a parallel region costs more than it saves, else
 * fl_team(threads).  A region costs a team even when it runs on one
 * thread, so callers with a serial path take it when this is 1.
 * fl_par_size() is the same without the load: the threads of a whole
 * solve, one for a problem too small to ever pay for a team. */
static inline int fl_par_size(int threads, double work, double least)
{
  return work >= least || fl_team_all() ? threads : 1;
}
static inline int fl_par_threads(int threads, double work, double least)
{
  return fl_team(fl_par_size(threads, work, least));
}

/* Processors this process may run on (its affinity mask), 1 without OpenMP. */
int fl_num_procs(void);

#endif
