/* Generation 2 (mode c): CELF on one heap shared by all threads under a
 * lock.  Threads race to pop the top; a stale top is recomputed outside the
 * lock and pushed back.  A fresh top wins the round only once no popped entry
 * is still being recomputed, since such an entry may outrank it: this keeps
 * the answer equal to sequential greedy for any number of threads. */
#include <stdlib.h>
#include "exact_state.h"
#include "celf_heap.h"
#include "fl_omp.h"
#include "fl_tune.h"
#include "celf_common.h"

/* One round: returns the winning entry (idx -1 when the heap is empty). */
static fl_entry shared_round(fl_state *s, fl_heap *h, fl_lock *lock, int round)
{
  fl_entry winner = { 0.0, -1, -1 };
  int in_flight = 0, done = 0;
  double evaluations = 0.0;
FL_OMP(parallel num_threads(fl_par_threads(s->threads, (double) s->p.n * s->p.m, FL_PAR_MIN_PAIRS)) reduction(+:evaluations))
  {
    for (;;) {
      fl_entry job = { 0.0, -1, -1 };
      int stop = 0;
      fl_lock_set(lock);
      if (done || h->size == 0) {
        stop = 1;
      } else if (h->a[0].round == round) {
        if (in_flight == 0) {
          winner = fl_heap_pop(h);
          done = 1;
          stop = 1;
        }
      } else {
        job = fl_heap_pop(h);
        in_flight++;
      }
      fl_lock_unset(lock);
      if (stop) break;
      if (job.idx < 0) continue;      /* a fresh top waits for in-flight work */
      job.key = fl_state_gain(s, job.idx);
      job.round = round;
      evaluations += 1.0;
      fl_lock_set(lock);
      fl_heap_push(h, job);
      in_flight--;
      fl_lock_unset(lock);
    }
  }
  s->evaluations += evaluations;
  return winner;
}

int fl_solve_c(const fl_problem *p, const fl_control *c, fl_result *res)
{
  fl_state s;
  if (fl_state_init(&s, p, c->threads, fl_matrix_of(c)) != FL_OK) return FL_ERR_NOMEM;
  fl_entry *entries = malloc((size_t) p->m * sizeof(fl_entry));
  double *keys = malloc((size_t) p->m * sizeof(double));
  if (!entries || !keys) { free(entries); free(keys); fl_state_free(&s); return FL_ERR_NOMEM; }
  fl_heap h;
  fl_heap *heaps[1] = { &h };
  int nopen = fl_celf_initial_gains(&s, entries);
  fl_heap_build(&h, entries, nopen);
  /* Only the first round's keys make a bound: later, which tops the
   * racing threads evaluated beyond the winner, and hence the keys left,
   * vary from run to run, and the bound must not. */
  fl_celf_round(&s, heaps, 1, NULL, c->k, 0, keys, res);
  fl_lock lock;
  fl_lock_init(&lock);
  int status = FL_OK;
  for (int round = 0; round < c->k && h.size > 0; round++) {
    if (fl_interrupted(c)) { status = FL_INTERRUPTED; break; }
    if (fl_reached(c, fl_state_objective(&s))) break;
    fl_entry win = shared_round(&s, &h, &lock, round);
    if (win.idx < 0) break;
    fl_state_select(&s, win.idx, win.key, res);
    fl_progress(c, round + 1, res->nselected, fl_state_objective(&s));
  }
  fl_lock_destroy(&lock);
  status = fl_celf_finish(&s, heaps, 1, c, keys, status, res);
  free(entries); free(keys);
  fl_state_free(&s);
  return status;
}
