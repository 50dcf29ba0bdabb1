#include <math.h>
#include <stdlib.h>
#include "celf_common.h"
#include "dual_certify.h"
#include "fl_omp.h"
#include "fl_tune.h"

int fl_celf_initial_gains(fl_state *s, fl_entry *entries)
{
  int nopen = 0;
  for (int j = 0; j < s->p.m; j++)
    if (!s->chosen[j]) entries[nopen++].idx = j;
FL_OMP(parallel for num_threads(fl_par_threads(s->threads, nopen * fl_gain_pairs(&s->p), FL_PAR_MIN_PAIRS)) schedule(dynamic, 64))
  for (int t = 0; t < nopen; t++) {
    entries[t].key = fl_state_gain(s, entries[t].idx);
    entries[t].round = 0;
  }
  s->evaluations += nopen;
  return nopen;
}

/* The k largest keys of the heaps and of *extra, summed largest first, by
 * a best-first walk: a child is never above its parent, so a frontier of
 * nodes (entries of a heap `front`: key, the heap as idx, the node as
 * round; extra as heap nheaps) yields the keys in decreasing order in k
 * steps, without reading the others.  Equal keys are equal values, so the
 * sum has the bits of fl_topk_sum()'s sort.  NaN without memory. */
static double walk_topk(fl_heap **heaps, int nheaps, const fl_entry *extra, int k)
{
  fl_entry *space = malloc(sizeof(fl_entry) * ((size_t) nheaps + 2 * (size_t) k + 2));
  if (!space) return NAN;
  fl_heap front;
  fl_heap_build(&front, space, 0);
  for (int h = 0; h < nheaps; h++)
    if (heaps[h]->size > 0) fl_heap_push(&front, (fl_entry) { heaps[h]->a[0].key, h, 0 });
  if (extra) fl_heap_push(&front, (fl_entry) { extra->key, nheaps, 0 });
  double sum = 0.0;
  for (int t = 0; t < k && front.size > 0; t++) {
    fl_entry top = fl_heap_pop(&front);
    sum += top.key;
    if (top.idx == nheaps) continue;
    const fl_heap *h = heaps[top.idx];
    for (long long child = 2LL * top.round + 1; child <= 2LL * top.round + 2; child++)
      if (child < h->size) fl_heap_push(&front, (fl_entry) { h->a[child].key, top.idx, (int) child });
  }
  free(space);
  return sum;
}

double fl_celf_topk(fl_heap **heaps, int nheaps, const fl_entry *extra, int k, double *keys)
{
  double sum = walk_topk(heaps, nheaps, extra, k);
  if (!isnan(sum)) return sum;
  int c = 0;
  for (int h = 0; h < nheaps; h++)
    for (int t = 0; t < heaps[h]->size; t++) keys[c++] = heaps[h]->a[t].key;
  if (extra) keys[c++] = extra->key;
  return fl_topk_sum(keys, c, k);
}

int fl_celf_traced(int t, int k)
{
  int every = (k + FL_TRACE_ROUNDS - 1) / FL_TRACE_ROUNDS;
  return t % every == 0;
}

void fl_celf_round(const fl_state *s, fl_heap **heaps, int nheaps, const fl_entry *extra,
                   int k, int t, double *keys, fl_result *res)
{
  fl_trace(res, t, fl_state_objective(s) + fl_celf_topk(heaps, nheaps, extra, k, keys));
}

int fl_celf_finish(fl_state *s, fl_heap **heaps, int nheaps, const fl_control *c,
                   double *keys, int status, fl_result *res)
{
  res->objective = fl_state_objective(s);
  res->evaluations = s->evaluations;
  res->pairs = s->pairs;
  res->rounds = res->nselected;
  if (status != FL_OK) return status;
  fl_celf_round(s, heaps, nheaps, NULL, fl_bound_k(c, res), res->nselected, keys, res);
  /* the keys left are upper bounds on the final gains */
  for (int j = 0; j < s->p.m; j++) keys[j] = s->chosen[j] ? 0.0 : INFINITY;
  for (int h = 0; h < nheaps; h++)
    for (int t = 0; t < heaps[h]->size; t++) keys[heaps[h]->a[t].idx] = heaps[h]->a[t].key;
  return fl_certify(s, c, keys, res);
}
