/* Before the first pick: the candidates dealt to heaps, the first
 * round's skip threshold, and every open candidate's first evaluation,
 * which round 0 would make anyway (all keys start as the same bound). */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <limits.h>
#include "mf.h"
#include "exact_state.h"

/* Every open candidate starts with the same valid key, sum_i w_i (1 - m_i):
 * the cluster bounds are too loose in high dimension to spare any
 * candidate its first evaluation, so they would only cost m K distances. */
static void initial_keys(fl_mf *r, int nopen)
{
  const fl_clusters *cl = &r->cl;
  double room = 0.0;
  for (int i = 0; i < cl->n; i++) room += cl->ws[i] * (1.0 - cl->cover[i]);
  room *= 1.0 + FL_UB_SLACK;
  for (int t = 0; t < nopen; t++) {
    r->entries[t].key = room;
    r->entries[t].round = -1;
    r->ub[r->entries[t].idx] = room;
  }
}

/* Open candidates, all keyed by the same bound, dealt to the nheaps heaps
 * in turn: heap h gets open candidates h, h + H, h + 2 H, ...  Rows of
 * real data come in runs (sorted, or cluster by cluster), so contiguous
 * blocks would give one heap the dense regions, most of the round's
 * evaluations and the other threads idle time.  Each heap's share is one
 * run of entries; fl_mf_first_gains() builds the heaps once the keys are gains.
 * Returns f(initial) + the k largest keys. */
double fl_mf_setup_heaps(fl_mf *r, const fl_problem *p, int *open)
{
  for (int t = 0; t < p->ninitial; t++) r->chosen[p->initial[t]] = 1;
  int nopen = 0;
  for (int j = 0; j < p->m; j++) nopen += !r->chosen[j];
  int H = r->nheaps, t = 0;
  for (int j = 0; j < p->m; j++)
    if (!r->chosen[j]) {
      int h = t % H;   /* heap h's block follows those of heaps 0..h-1 */
      int base = h * (nopen / H) + (h < nopen % H ? h : nopen % H);
      r->entries[base + t / H].idx = j;
      t++;
    }
  initial_keys(r, nopen);
  *open = nopen;
  double *keys = malloc((size_t) (nopen > 0 ? nopen : 1) * sizeof(double));
  double top = 0.0;
  if (keys) {
    for (int t = 0; t < nopen; t++) keys[t] = r->entries[t].key;
    top = fl_topk_sum(keys, nopen, r->k);
    free(keys);
  } else {
    for (int t = 0; t < nopen; t++) top += r->entries[t].key;
  }
  return fl_clusters_objective(&r->cl) + top;
}

/* The first round's skip threshold, eps times a lower bound on its best
 * gain: the largest exact gain of the open candidates nearest to the
 * centers of the FL_TEAM_BATCH leaves with the largest estimated mass
 * around them (where the best gain lies, on clustered data).  leaf[t] and
 * d2[t] locate open candidate t (fl_clusters_locate).  The choice depends
 * only on the data, never on the thread count.  A threshold from
 * candidates spread at random is far below the best gain, and the first
 * evaluations would visit clusters the later rounds skip. */
static int first_threshold(fl_mf *r, int nopen, const int *leaf, const double *d2)
{
  const int K = r->cl.K;
  r->thresh = 0.0;
  if (r->c->eps <= 0 || nopen == 0) return FL_OK;
  double *est = malloc((size_t) K * sizeof(double));
  int *near = malloc((size_t) K * sizeof(int));
  if (!est || !near) {
    free(est); free(near);
    return FL_ERR_NOMEM;
  }
  fl_clusters_leaf_mass(&r->cl, est);
  for (int k = 0; k < K; k++) near[k] = -1;
  for (int t = 0; t < nopen; t++) {   /* nearest open candidate, lowest index on ties */
    int k = leaf[t], at = near[k];
    if (at < 0 || d2[t] < d2[at] || (d2[t] == d2[at] && r->entries[t].idx < r->entries[at].idx))
      near[k] = t;
  }
  int ns = 0;
  while (ns < FL_TEAM_BATCH) {   /* the heaviest leaves with a candidate, in turn */
    int best = -1;
    for (int k = 0; k < K; k++)
      if (near[k] >= 0 && (best < 0 || est[k] > est[best])) best = k;
    if (best < 0) break;
    r->hs[0].pending[ns++].idx = r->entries[near[best]].idx;
    near[best] = -1;
  }
  free(est); free(near);
  double gain[FL_TEAM_BATCH], ub[FL_TEAM_BATCH], top = 0.0;
  fl_mf_team_gains(r, ns, 0.0, gain, ub);
  for (int q = 0; q < ns; q++)
    if (gain[q] > top) top = gain[q];
  r->thresh = r->c->eps * top;
  return FL_OK;
}

/* Positions 0..nopen-1 of r->entries ordered by leaf[] (stable), NULL
 * when out of memory: candidates evaluated together then visit mostly the
 * same chunks, so a chunk read once from memory serves them all from the
 * L1 cache (see walk_chunks).  The order depends only on the data, not on
 * the thread count. */
static int *locality_order(const fl_mf *r, int nopen, const int *leaf)
{
  int *ord = malloc((size_t) (nopen > 0 ? nopen : 1) * sizeof(int));
  int *start = calloc((size_t) r->cl.K + 1, sizeof(int));
  if (!ord || !start) {
    free(ord); free(start);
    return NULL;
  }
  for (int t = 0; t < nopen; t++) start[leaf[t] + 1]++;
  for (int k = 0; k < r->cl.K; k++) start[k + 1] += start[k];
  for (int t = 0; t < nopen; t++) ord[start[leaf[t]]++] = t;
  free(start);
  return ord;
}

/* The first round's threshold and the order of the first evaluations,
 * from the leaf nearest to each open candidate; *ord NULL on failure. */
static int first_plan(fl_mf *r, int nopen, int **ord)
{
  const fl_clusters *cl = &r->cl;
  int *leaf = malloc((size_t) (nopen > 0 ? nopen : 1) * sizeof(int));
  double *d2 = malloc((size_t) (nopen > 0 ? nopen : 1) * sizeof(double));
  *ord = NULL;
  if (!leaf || !d2) {
    free(leaf); free(d2);
    return FL_ERR_NOMEM;
  }
FL_OMP(parallel for num_threads(fl_team(r->cl.threads)) schedule(dynamic, 256))
  for (int t = 0; t < nopen; t++)
    leaf[t] = fl_clusters_locate(cl, cl->y + (size_t) r->entries[t].idx * cl->d, &d2[t]);
  int status = first_threshold(r, nopen, leaf, d2);
  if (status == FL_OK) {
    *ord = locality_order(r, nopen, leaf);
    if (!*ord) status = FL_ERR_NOMEM;
  }
  free(leaf); free(d2);
  return status;
}

/* The first evaluation of every open candidate, which round 0 would make
 * anyway (all keys are the same bound, above every gain), coarser when
 * nothing is covered (covered 0: no initial facilities; see
 * FL_FIRST_COARSE): each thread
 * evaluates FL_TEAM_BATCH candidates at a time, neighbours in
 * locality_order(), against the initial coverage, so the threads never
 * wait for each other, where nhpc's lanes would meet at barriers for every
 * few candidates.  The results are those of evaluating them in round 0, in
 * any order.  The heaps then start from these gains, fresh for round 0. */
int fl_mf_first_gains(fl_mf *r, int nopen, int covered)
{
  int *ord, status = first_plan(r, nopen, &ord);
  if (status != FL_OK) return status;
  const double thresh = r->thresh;
  r->guess = r->c->eps > 0 && !covered && r->cl.estimates;
  if (r->guess) r->thresh *= FL_FIRST_COARSE;
  for (int lo = 0; lo < nopen; lo += FL_FIRST_SLICE) {
    if (lo > 0 && fl_interrupted(r->c)) {
      status = FL_INTERRUPTED;
      break;
    }
    int hi = nopen - lo < FL_FIRST_SLICE ? nopen : lo + FL_FIRST_SLICE;
FL_OMP(parallel for num_threads(fl_team(r->cl.threads)) schedule(dynamic, 1))
    for (int at = lo; at < hi; at += FL_TEAM_BATCH) {
      int tid = fl_thread_id(), np = hi - at < FL_TEAM_BATCH ? hi - at : FL_TEAM_BATCH;
      fl_mf_heap *s = &r->ts[tid];
      for (int q = 0; q < np; q++) {
        s->pending[q] = r->entries[ord[at + q]];
        s->fine[q] = 0;
      }
      s->npend = np;
      fl_mf_eval_alone(r, s, tid);
      for (int q = 0; q < np; q++) r->entries[ord[at + q]] = fl_mf_evaluated(r, s, q, 0);
      r->tcount[(size_t) tid * FL_MF_PAD + 1] += np;
    }
  }
  free(ord);
  r->thresh = thresh;
  r->guess = 0;
  if (status != FL_OK) return status;
  for (int h = 0, at = 0, H = r->nheaps; h < H; h++) {   /* heap h: the h-th run */
    int size = nopen / H + (h < nopen % H);
    fl_heap_build(&r->heaps[h], r->entries + at, size);
    at += size;
  }
  return FL_OK;
}
