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

/* Sum of the k largest upper bounds on the open candidates' gains, the
 * largest ones lazily replaced by the tighter bounds of a fresh evaluation
 * against the final coverage (exact gains when eps = 0), within a budget.
 * Unrefined tops are refined FL_TEAM_BATCH at a time, and a refined top
 * is counted only when no batch is out of the heap, so every counted key
 * is at least every key left: they are the k largest.  No refinement when
 * the sum would stay at least room, past which the bound is capped. */
double fl_mf_refined_topk(fl_mf *r, double room)
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
  int budget = FL_REFINE_PER_PICK * r->k + FL_REFINE_EXTRA, counted = 0;
  double sum = 0.0, top;
  if (refine_futile(&hp, r->k, budget, room, &top)) return top;
  while (counted < r->k && hp.size > 0) {
    fl_entry e = fl_heap_pop(&hp);
    if (e.round == 1 || budget == 0) {
      sum += e.key;
      counted++;
      continue;
    }
    int np = 0;
    s->pending[np++] = e;
    while (np < FL_TEAM_BATCH && np < budget && hp.size > 0 && hp.a[0].round == 0)
      s->pending[np++] = fl_heap_pop(&hp);
    budget -= np;
    fl_mf_team_gains(r, np, FL_REFINE_FRACTION * r->thresh, gain, ub);
    for (int q = 0; q < np; q++) {
      fl_entry f = s->pending[q];
      f.key = ub[q] < f.key ? ub[q] : f.key;
      f.round = 1;
      fl_heap_push(&hp, f);
    }
  }
  return sum;
}
