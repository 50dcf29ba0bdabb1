/* The certified bound of the matrix-free modes: f(S) plus the k largest
 * upper bounds on the open candidates' gains, the largest refined lazily
 * by fresh evaluations against the final coverage. */
#include <stdlib.h>
#include <string.h>
#include "mf.h"

/* Kernel evaluations of the solve so far, over the threads. */
double fl_mf_pairs(const fl_mf *r)
{
  double pairs = 0.0;
  for (int t = 0; t < r->c->threads; t++) pairs += r->tcount[(size_t) t * FL_MF_PAD];
  return pairs;
}

/* Sum of the k largest upper bounds on the open candidates' gains, CELF
 * style: the largest stale ones are evaluated exactly against the final
 * coverage (thresh 0: every leaf that can add anything, plus the pruned
 * clients' slack) and pushed back, until the k largest keys are fresh or
 * the evaluations have taken `budget` kernel evaluations.  Stale tops are
 * evaluated FL_TEAM_BATCH at a time, and a fresh top is counted only when
 * no batch is out of the heap, so every counted key is at least every key
 * left: they are the k largest.  Once all k are fresh, f(S) plus their
 * sum is the online bound of the final set with exact gains.  The fresh
 * keys replace r->ub (the LP dual starts from them).  *evaluated receives
 * the evaluations made. */
double fl_mf_refined_topk(fl_mf *r, double budget, int *evaluated)
{
  int nopen = 0;
  for (int j = 0; j < r->cl.m; j++)
    if (!r->chosen[j]) {
      fl_entry e = { r->ub[j], j, 0 };
      r->entries[nopen++] = e;
    }
  fl_heap hp;
  fl_heap_build(&hp, r->entries, nopen);
  fl_mf_heap *s = &r->hs[0];
  double gain[FL_TEAM_BATCH], ub[FL_TEAM_BATCH];
  double sum = 0.0, start = fl_mf_pairs(r);
  int counted = 0, spent = 0;
  *evaluated = 0;
  while (counted < r->k && hp.size > 0) {
    fl_entry e = fl_heap_pop(&hp);
    if (e.round == 1 || spent) {
      sum += e.key;
      counted++;
      continue;
    }
    int np = 0;
    s->pending[np++] = e;
    while (np < FL_TEAM_BATCH && hp.size > 0 && hp.a[0].round == 0)
      s->pending[np++] = fl_heap_pop(&hp);
    *evaluated += np;
    fl_mf_team_gains(r, np, 0.0, gain, ub);
    spent = fl_mf_pairs(r) - start >= budget;
    for (int q = 0; q < np; q++) {
      fl_entry f = s->pending[q];
      f.key = ub[q] < f.key ? ub[q] : f.key;
      f.round = 1;
      r->ub[f.idx] = f.key;
      fl_heap_push(&hp, f);
    }
  }
  return sum;
}
