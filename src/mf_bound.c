/* The certified bound of the matrix-free modes: f(S) plus the k largest
 * upper bounds on the open candidates' gains, the largest refined lazily
 * by fresh evaluations against the final coverage. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <limits.h>
#include "fl_mf.h"

/* Relative margin by which the refinement's k largest keys must pass what
 * the bound may add before it is capped for the refinement to be skipped:
 * covers the rounding of the sums compared. */
#define FL_ROOM_MARGIN 1e-9

/* Would the k largest keys of hp still sum to room or more once at most
 * budget of them are refined (made smaller)?  At least k of the budget + k
 * largest keep their keys, each at least the (budget + k)-th largest, so
 * they would when k times that key reaches room.  *top receives the sum of
 * the k largest keys; hp keeps its entries (and so its order of pops). */
static int refine_futile(fl_heap *hp, int k, int budget, double room, double *top)
{
  int n = budget + k;
  if (n > hp->size) return 0;
  double sum = 0.0, last = 0.0;
  for (int t = 0; t < n; t++) {
    fl_entry e = fl_heap_pop(hp);
    hp->a[hp->size] = e;   /* kept in the slot its pop freed */
    if (t < k) sum += e.key;
    last = e.key;
  }
  for (int t = 0; t < n; t++) fl_heap_push(hp, hp->a[hp->size]);
  *top = sum;
  return k * last >= room * (1.0 + FL_ROOM_MARGIN);
}

/* Sum of the k largest upper bounds on the open candidates' gains, CELF
 * style: the largest stale ones are evaluated exactly against the final
 * coverage (thresh 0: every leaf that can add anything, plus the pruned
 * clients' slack) and pushed back, until the k largest keys are fresh or
 * `budget` evaluations are spent.  Stale tops are evaluated FL_TEAM_BATCH
 * at a time, and a fresh top is counted only when no batch is out of the
 * heap, so every counted key is at least every key left: they are the k
 * largest.  Once all k are fresh, f(S) plus their sum is the online bound
 * of the final set with exact gains.  The fresh keys replace r->ub (the
 * LP dual starts from them).  *evaluated receives the evaluations made.
 * No refinement when the sum would stay at least room, past which the
 * bound is capped. */
double fl_mf_refined_topk(fl_mf *r, double room, int budget, int *evaluated)
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
  int counted = 0;
  double sum = 0.0, top;
  *evaluated = 0;
  if (refine_futile(&hp, r->k, budget, room, &top)) return top;
  while (counted < r->k && hp.size > 0) {
    fl_entry e = fl_heap_pop(&hp);
    if (e.round == 1 || *evaluated >= budget) {
      sum += e.key;
      counted++;
      continue;
    }
    int np = 0;
    s->pending[np++] = e;
    while (np < FL_TEAM_BATCH && *evaluated + np < budget && hp.size > 0 &&
           hp.a[0].round == 0)
      s->pending[np++] = fl_heap_pop(&hp);
    *evaluated += np;
    fl_mf_team_gains(r, np, 0.0, gain, ub);
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
