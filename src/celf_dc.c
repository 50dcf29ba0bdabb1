/* Generation 3 (mode dc): distributed CELF.  Candidates are split into one
 * contiguous block per thread, each with a private heap; per round every heap
 * lazily refreshes its own top, and the best of the tops (gain, then lowest
 * index) is the global winner, exactly as sequential greedy would pick it. */
#include <stdlib.h>
#include "exact_state.h"
#include "celf_heap.h"
#include "fl_omp.h"
#include "fl_tune.h"
#include "celf_common.h"

/* Refresh heap h until its top is fresh for this round. */
static double refresh_top(fl_state *s, fl_heap *h, int round)
{
  double evaluations = 0.0;
  while (h->size > 0 && h->a[0].round != round) {
    fl_entry e = fl_heap_pop(h);
    e.key = fl_state_gain(s, e.idx);
    e.round = round;
    evaluations += 1.0;
    fl_heap_push(h, e);
  }
  return evaluations;
}

int fl_solve_dc(const fl_problem *p, const fl_control *c, fl_result *res)
{
  fl_state s;
  if (fl_state_init(&s, p, c->threads, fl_matrix_of(c)) != FL_OK) return FL_ERR_NOMEM;
  int nheaps = c->threads;
  fl_entry *entries = malloc((size_t) p->m * sizeof(fl_entry));
  fl_heap *heaps = malloc((size_t) nheaps * sizeof(fl_heap));
  fl_heap **hp = malloc((size_t) nheaps * sizeof(fl_heap *));
  double *keys = malloc((size_t) p->m * sizeof(double));
  if (!entries || !heaps || !hp || !keys) {
    free(entries); free(heaps); free(hp); free(keys); fl_state_free(&s);
    return FL_ERR_NOMEM;
  }
  int nopen = fl_celf_initial_gains(&s, entries);
  /* entries are in candidate order, so blocks of them are blocks of candidates */
  for (int t = 0; t < nheaps; t++) {
    int lo = (int) ((long long) nopen * t / nheaps);
    int hi = (int) ((long long) nopen * (t + 1) / nheaps);
    fl_heap_build(&heaps[t], entries + lo, hi - lo);
    hp[t] = &heaps[t];
  }
  int status = FL_OK;
  /* Evaluations of the last round, which predict this one's: most rounds
   * refresh a few tops, too little work to wake the team for (the heaps
   * are refreshed the same, in any order, by any number of threads). */
  double last = nheaps;
  for (int round = 0; round < c->k; round++) {
    if (fl_interrupted(c)) { status = FL_INTERRUPTED; break; }
    if (fl_reached(c, fl_state_objective(&s))) break;
    double evaluations = 0.0;
    int team = fl_par_threads(nheaps, last * fl_gain_pairs(p), FL_PAR_MIN_PAIRS);
    (void) team;
    /* Heaps are handed out by a loop, not by thread id, so every heap is
     * served even if the runtime grants fewer threads than asked. */
FL_OMP(parallel for num_threads(team) schedule(static, 1) reduction(+:evaluations))
    for (int t = 0; t < nheaps; t++) evaluations += refresh_top(&s, &heaps[t], round);
    s.evaluations += evaluations;
    last = evaluations;
    int owner = -1;
    for (int t = 0; t < nheaps; t++)
      if (heaps[t].size > 0 &&
          (owner < 0 || fl_entry_before(heaps[t].a[0], heaps[owner].a[0])))
        owner = t;
    if (owner < 0) break;
    /* every top is fresh: the round's keys are the same on every run */
    if (fl_celf_traced(round, c->k)) fl_celf_round(&s, hp, nheaps, NULL, c->k, round, keys, res);
    fl_entry win = fl_heap_pop(&heaps[owner]);
    fl_state_select(&s, win.idx, win.key, res);
    fl_progress(c, round + 1, res->nselected, fl_state_objective(&s));
  }
  status = fl_celf_finish(&s, hp, nheaps, c, keys, status, res);
  free(entries); free(heaps); free(hp); free(keys);
  fl_state_free(&s);
  return status;
}
