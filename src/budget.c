/* Budgeted selection (any exact mode with a cost per candidate): the pair of
 * lazy greedy algorithms of Leskovec et al. (KDD 2007).  The unit-cost pass
 * picks the affordable candidate of largest gain, the cost-benefit pass the
 * one of largest gain / cost; each stops when nothing affordable adds
 * anything or k are picked, and the better of the two is returned (the
 * unit-cost one on ties).  Their better reaches (1 - 1/e) / 2 of the best
 * selection within the budget.
 *
 * Both passes are CELF: stale keys are upper bounds on the current gain (or
 * gain / cost) by submodularity, so only the heap top is recomputed, and the
 * result is that of the plain rule with ties to the lowest index.  A
 * candidate that does not fit the remaining budget never will again, so it
 * is dropped when it reaches the top.  Threads share the first gains and
 * the coverage updates; the answer does not depend on their number. */
#include <stdlib.h>
#include <string.h>
#include "exact_state.h"
#include "celf_heap.h"
#include "celf_common.h"
#include "dual_certify.h"
#include "fl_solvers.h"
#include "fl_omp.h"

typedef struct {
  int *selected;
  double *gains;
  int nselected;
} pick_list;

/* One lazy pass from the starting coverage of s; first[] holds the exact
 * gains of every candidate at the start (entries of fl_celf_initial_gains). */
static int lazy_pass(fl_state *s, const fl_control *c, const fl_entry *first,
                     int nopen, int ratio, fl_entry *heap_space, fl_result *res)
{
  const double *cost = s->p.cost;
  int count = 0;
  for (int t = 0; t < nopen; t++) {
    fl_entry e = first[t];
    if (cost[e.idx] > s->p.budget) continue;
    if (ratio) e.key /= cost[e.idx];
    heap_space[count++] = e;
  }
  fl_heap h;
  fl_heap_build(&h, heap_space, count);
  double left = s->p.budget;
  int round = 0;
  while (res->nselected < c->k && h.size > 0) {
    if (fl_interrupted(c)) return FL_INTERRUPTED;
    fl_entry top = fl_heap_pop(&h);
    if (cost[top.idx] > left) continue;
    if (top.round != round) {
      double g = fl_state_gain(s, top.idx);
      s->evaluations += 1.0;
      top.key = ratio ? g / cost[top.idx] : g;
      top.round = round;
      fl_heap_push(&h, top);
      continue;
    }
    if (!(top.key > 0.0)) break;               /* nothing adds anything */
    double g = top.key;
    if (ratio) {          /* the exact gain, not gain / cost * cost */
      g = fl_state_gain(s, top.idx);
      s->evaluations += 1.0;
    }
    fl_state_select(s, top.idx, g, res);
    left -= cost[top.idx];
    round++;
    fl_progress(c, round, res->nselected, fl_state_objective(s));
  }
  return FL_OK;
}

int fl_solve_budget(const fl_problem *p, const fl_control *c, fl_result *res)
{
  fl_state uc, cb;
  if (fl_state_init(&uc, p, c->threads, fl_matrix_of(c)) != FL_OK) return FL_ERR_NOMEM;
  /* the second pass shares the first's matrix (uc.p) */
  if (fl_state_init(&cb, &uc.p, c->threads, 0) != FL_OK) {
    fl_state_free(&uc);
    return FL_ERR_NOMEM;
  }
  size_t m = (size_t) p->m, k = (size_t) c->k;
  fl_entry *first = malloc(m * sizeof(fl_entry));
  fl_entry *space = malloc(m * sizeof(fl_entry));
  int *sel = malloc(k * sizeof(int));
  double *gain = malloc(k * sizeof(double));
  int status = FL_ERR_NOMEM;
  if (first && space && sel && gain) {
    int nopen = fl_celf_initial_gains(&uc, first);
    fl_result r_cb = *res;
    r_cb.selected = sel;
    r_cb.gains = gain;
    status = lazy_pass(&uc, c, first, nopen, 0, space, res);
    if (status == FL_OK) status = lazy_pass(&cb, c, first, nopen, 1, space, &r_cb);
    fl_state *win = &uc;
    res->budget_rule = FL_RULE_UNIT_COST;
    if (status == FL_OK && fl_state_objective(&cb) > fl_state_objective(&uc)) {
      memcpy(res->selected, sel, (size_t) r_cb.nselected * sizeof(int));
      memcpy(res->gains, gain, (size_t) r_cb.nselected * sizeof(double));
      res->nselected = r_cb.nselected;
      res->budget_rule = FL_RULE_COST_BENEFIT;
      win = &cb;
    }
    win->evaluations = uc.evaluations + cb.evaluations;
    res->objective = fl_state_objective(win);
    /* OPT <= f(S) + the largest sum of gains w.r.t. S that fits the
     * budget, at most their fractional knapsack (Leskovec et al. 2007,
     * Theorem 4): the LP dual's value at the coverage of S, which its
     * steps lower */
    if (status == FL_OK) status = fl_certify(win, c, NULL, res);
    res->evaluations = win->evaluations;
    res->pairs = uc.pairs + cb.pairs;
    res->rounds = res->nselected;
  }
  free(first); free(space); free(sel); free(gain);
  fl_state_free(&cb);
  fl_state_free(&uc);
  return status;
}

double fl_budget_bytes(const fl_problem *p, const fl_control *c)
{
  /* second coverage and chosen flags, two entry arrays */
  return 8.0 * p->n + p->m + 2.0 * 16.0 * p->m + 12.0 * c->k;
}
