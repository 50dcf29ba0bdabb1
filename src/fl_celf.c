#include <stdlib.h>
#include "fl_celf.h"
#include "fl_omp.h"

int fl_celf_initial_gains(fl_state *s, fl_entry *entries)
{
  int nopen = 0;
  for (int j = 0; j < s->p.m; j++)
    if (!s->chosen[j]) entries[nopen++].idx = j;
FL_OMP(parallel for num_threads(s->threads) schedule(dynamic, 64))
  for (int t = 0; t < nopen; t++) {
    entries[t].key = fl_gain(&s->p, entries[t].idx, s->cover);
    entries[t].round = 0;
  }
  s->evaluations += nopen;
  return nopen;
}

double fl_celf_topk(fl_heap **heaps, int nheaps, int k)
{
  int total = 0;
  for (int h = 0; h < nheaps; h++) total += heaps[h]->size;
  double *keys = malloc((size_t) (total > 0 ? total : 1) * sizeof(double));
  double sum = 0.0;
  if (!keys) {
    for (int h = 0; h < nheaps; h++)
      for (int t = 0; t < heaps[h]->size; t++) sum += heaps[h]->a[t].key;
    return sum;
  }
  int c = 0;
  for (int h = 0; h < nheaps; h++)
    for (int t = 0; t < heaps[h]->size; t++) keys[c++] = heaps[h]->a[t].key;
  sum = fl_topk_sum(keys, total, k);
  free(keys);
  return sum;
}

double fl_celf_bound_initial(const fl_state *s, const fl_entry *entries, int count, int k)
{
  fl_heap view = { (fl_entry *) entries, count };
  fl_heap *one[1] = { &view };
  return fl_state_objective(s) + fl_celf_topk(one, 1, k);
}

void fl_celf_refresh_tops(fl_state *s, fl_heap *h, int k, int fresh)
{
  /* The heap's entries 0..size - 1, its counted tops size..all - 1: a
   * count takes the slot its pop freed, a stale top's push refills it. */
  const int all = h->size;
  int counted = 0;
  while (counted < k && h->size > 0) {
    fl_entry e = fl_heap_pop(h);
    if (e.round == fresh) {
      h->a[h->size] = e;
      counted++;
      continue;
    }
    e.key = fl_gain(&s->p, e.idx, s->cover);
    e.round = fresh;
    s->evaluations += 1.0;
    fl_heap_push(h, e);
  }
  while (h->size < all) fl_heap_push(h, h->a[h->size]);
}

void fl_celf_finish(fl_state *s, fl_heap **heaps, int nheaps, double bound0,
                    int k, fl_result *res)
{
  res->objective = fl_state_objective(s);
  double bound = res->objective + fl_celf_topk(heaps, nheaps, k);
  res->bound = bound < bound0 ? bound : bound0;
  if (res->bound < res->objective) res->bound = res->objective;
  res->evaluations = s->evaluations;
  res->pairs = s->pairs;
  res->rounds = res->nselected;
}
