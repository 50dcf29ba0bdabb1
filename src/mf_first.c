/* Before the first pick: the candidates dealt to heaps, the first
 * round's skip threshold, and every open candidate's first evaluation,
 * which round 0 would make anyway (all keys start as the same bound). */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <limits.h>
#include "mf.h"
#include "exact_state.h"

/* The clients' room, sum_i w_i (1 - m_i): what any gain is at most. */
static double clients_room(const fl_clusters *cl)
{
  double room = 0.0;
  for (int i = 0; i < cl->n; i++) room += cl->ws[i] * (1.0 - cl->cover[i]);
  return room;
}

/* Every open candidate starts with the same valid key, the room: the
 * ball bounds are too loose in high dimension to spare any candidate its
 * first evaluation (the chord bounds replace it where they pay, see
 * first_sample). */
static void initial_keys(fl_mf *r, int nopen)
{
  const double room = clients_room(&r->cl) * (1.0 + FL_UB_SLACK);
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
 * d2[t] locate open candidate list[t] (fl_clusters_locate).  The choice depends
 * only on the data, never on the thread count.  A threshold from
 * candidates spread at random is far below the best gain, and the first
 * evaluations would visit clusters the later rounds skip. */
static int first_threshold(fl_mf *r, fl_entry *const *list, int nopen, const int *leaf,
                           const double *d2)
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
    if (at < 0 || d2[t] < d2[at] || (d2[t] == d2[at] && list[t]->idx < list[at]->idx))
      near[k] = t;
  }
  int ns = 0;
  while (ns < FL_TEAM_BATCH) {   /* the heaviest leaves with a candidate, in turn */
    int best = -1;
    for (int k = 0; k < K; k++)
      if (near[k] >= 0 && (best < 0 || est[k] > est[best])) best = k;
    if (best < 0) break;
    r->hs[0].pending[ns++].idx = list[near[best]]->idx;
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

/* leaf[t], d2[t]: where open candidate list[t] lies (fl_clusters_locate),
 * and its order of evaluation (locality_order), NULL on failure. */
static int *locate_all(const fl_mf *r, fl_entry *const *list, int n, int *leaf, double *d2)
{
  const fl_clusters *cl = &r->cl;
FL_OMP(parallel for num_threads(fl_team(cl->threads)) schedule(dynamic, 256))
  for (int t = 0; t < n; t++)
    leaf[t] = fl_clusters_locate(cl, cl->y + (size_t) list[t]->idx * cl->d, &d2[t]);
  return locality_order(r, n, leaf);
}

/* The order of evaluation of entries list[0..n-1] (*ord, NULL on
 * failure), and with threshold, the first round's (first_threshold). */
static int first_plan(fl_mf *r, fl_entry *const *list, int n, int threshold, int **ord)
{
  int *leaf = malloc((size_t) (n > 0 ? n : 1) * sizeof(int));
  double *d2 = malloc((size_t) (n > 0 ? n : 1) * sizeof(double));
  int status = leaf && d2 ? FL_OK : FL_ERR_NOMEM;
  *ord = status == FL_OK ? locate_all(r, list, n, leaf, d2) : NULL;
  if (status == FL_OK && !*ord) status = FL_ERR_NOMEM;
  if (status == FL_OK && threshold) status = first_threshold(r, list, n, leaf, d2);
  free(leaf); free(d2);
  return status;
}

/* Evaluate entries list[ord[0..n-1]] in that order, FL_TEAM_BATCH at a
 * time per thread, each thread its own batches (so the threads never
 * wait for each other, where nhpc's lanes would meet at barriers for
 * every few candidates), against the present coverage; each keyed fresh
 * for round `round`.  The main thread checks for an interrupt between
 * slices. */
static int evaluate_each(fl_mf *r, fl_entry *const *list, const int *ord, int n, int round)
{
  for (int lo = 0; lo < n; lo += FL_FIRST_SLICE) {
    if (lo > 0 && fl_interrupted(r->c)) return FL_INTERRUPTED;
    int hi = n - lo < FL_FIRST_SLICE ? n : lo + FL_FIRST_SLICE;
FL_OMP(parallel for num_threads(fl_team(r->cl.threads)) schedule(dynamic, 1))
    for (int at = lo; at < hi; at += FL_TEAM_BATCH) {
      int tid = fl_thread_id(), np = hi - at < FL_TEAM_BATCH ? hi - at : FL_TEAM_BATCH;
      fl_mf_heap *s = &r->ts[tid];
      for (int q = 0; q < np; q++) {
        s->pending[q] = *list[ord[at + q]];
        s->fine[q] = 0;
      }
      s->npend = np;
      fl_mf_eval_alone(r, s, tid);
      for (int q = 0; q < np; q++) *list[ord[at + q]] = fl_mf_evaluated(r, s, q, round);
      r->tcount[(size_t) tid * FL_MF_PAD + 1] += np;
    }
  }
  return FL_OK;
}

/* Heap h: the h-th run of the nopen entries. */
static void build_heaps(fl_mf *r, int nopen)
{
  for (int h = 0, at = 0, H = r->nheaps; h < H; h++) {
    int size = nopen / H + (h < nopen % H);
    fl_heap_build(&r->heaps[h], r->entries + at, size);
    at += size;
  }
}

/* Key the open candidates r->entries[t], t = from, from + step, ... <
 * nopen, by their chord bounds (each at most its present key, the common
 * bound), stale (round -1), noted in r->ub; *reach counts those at least
 * best.  idx and ub: scratch of nopen / step + 1. */
static int chord_keys(fl_mf *r, const fl_chords *ch, int nopen, int from, int step,
                      double best, int *idx, double *ub, int *reach)
{
  int count = 0;
  for (int t = from; t < nopen; t += step) idx[count++] = r->entries[t].idx;
  int status = fl_chords_bound(&r->cl, ch, idx, count, ub);
  for (int q = 0; q < count && status == FL_OK; q++) {
    fl_entry *en = &r->entries[from + q * step];
    double key = ub[q] * (1.0 + FL_UB_SLACK);
    if (key < en->key) en->key = key;
    en->round = -1;
    r->ub[en->idx] = en->key;
    *reach += en->key >= best;
  }
  return status;
}

/* Will the first pick cover at least FL_LAZY_COVER of the clients' room,
 * sum_i w_i (1 - m_i)?  Its gain is at least the best that
 * first_threshold found.  Then its coverage changes the gains of most
 * candidates, and their first evaluations would serve little beyond it. */
static int first_takes_most(const fl_mf *r)
{
  return r->thresh / r->c->eps >= FL_LAZY_COVER * clients_room(&r->cl);
}

/* ord[0..n-1] reordered stably: the positions t of every step-th entry
 * (t % step == 0) first; returns their count. */
static int sample_first(int *ord, int n, int step)
{
  int *tmp = malloc((size_t) (n > 0 ? n : 1) * sizeof(int)), ns = 0, at;
  if (!tmp) return -1;
  for (int i = 0; i < n; i++) ns += ord[i] % step == 0;
  at = ns;
  for (int i = 0, s = 0; i < n; i++) {
    if (ord[i] % step == 0) tmp[s++] = ord[i];
    else tmp[at++] = ord[i];
  }
  memcpy(ord, tmp, (size_t) n * sizeof(int));
  free(tmp);
  return ns;
}

/* The first evaluations of every FL_LAZY_SAMPLE-th open candidate
 * (ord[0..ns-1] after sample_first), and whether the chord bounds spare
 * the others theirs (*lazy; then the others are keyed by them).  Only
 * candidates bounded above `best`, a gain found already, can be the
 * first pick; each would be evaluated through the heaps with nothing
 * covered, at up to n pairs, where a first evaluation costs what the
 * sample's did (coarser, FL_FIRST_COARSE).  So the bounds are taken
 * where the candidates they leave cost at most FL_LAZY_SHARE of the
 * first evaluations, by the sample's counts. */
static int first_sample(fl_mf *r, fl_entry *const *list, const int *ord, int ns, int nopen,
                        double best, int *lazy)
{
  const int S = FL_LAZY_SAMPLE, most = nopen / S + 1;
  fl_chords ch;
  int *idx = malloc((size_t) most * sizeof(int));
  double *ub = malloc((size_t) most * sizeof(double));
  int status = idx && ub ? fl_chords_init(&r->cl, &ch) : FL_ERR_NOMEM, reach = 0;
  *lazy = 0;
  if (status == FL_OK) {
    status = chord_keys(r, &ch, nopen, 0, S, best, idx, ub, &reach);
    double pairs = fl_mf_pairs(r);
    if (status == FL_OK) status = evaluate_each(r, list, ord, ns, 0);
    double first = (fl_mf_pairs(r) - pairs) / (ns > 0 ? ns : 1);
    if (status == FL_OK && (double) reach * r->cl.n <= FL_LAZY_SHARE * ns * first) {
      for (int from = 1; from < S && status == FL_OK; from++)
        status = chord_keys(r, &ch, nopen, from, S, best, idx, ub, &reach);
      *lazy = status == FL_OK;
    }
    fl_chords_free(&ch);
  }
  free(idx); free(ub);
  return status;
}

/* The first evaluation of every open candidate, which round 0 would make
 * anyway (all keys are the same bound, above every gain), coarser when
 * nothing is covered (covered 0: no initial facilities; see
 * FL_FIRST_COARSE), in locality_order(), against the initial coverage.
 * The results are those of evaluating them in round 0, in any order.  The
 * heaps then start from these gains, fresh for round 0.  Where nothing is
 * covered, the first pick will take most of the room (first_takes_most)
 * and the chord bounds spare most of the cost (first_sample, against the
 * best gain that first_threshold found), the heaps start from those
 * bounds instead, stale: round 0 evaluates only the tops it needs, and
 * the rest wait for the coverage of its picks (fl_mf_deferred_gains),
 * which changes their gains anyway where the kernel is wide. */
int fl_mf_first_gains(fl_mf *r, int nopen, int covered)
{
  fl_entry **list = malloc((size_t) (nopen > 0 ? nopen : 1) * sizeof(fl_entry *));
  int *ord = NULL, status = list ? FL_OK : FL_ERR_NOMEM, lazy = 0, done = 0;
  for (int t = 0; t < nopen && list; t++) list[t] = &r->entries[t];
  if (status == FL_OK) status = first_plan(r, list, nopen, 1, &ord);
  const double thresh = r->thresh;
  const int bounds = !covered && r->c->eps > 0 && thresh > 0 && first_takes_most(r);
  r->guess = r->c->eps > 0 && !covered && r->cl.estimates;
  if (r->guess) r->thresh *= FL_FIRST_COARSE;
  if (status == FL_OK && bounds) {
    done = sample_first(ord, nopen, FL_LAZY_SAMPLE);
    if (done < 0) status = FL_ERR_NOMEM;
    else status = first_sample(r, list, ord, done, nopen, thresh / r->c->eps, &lazy);
  }
  if (status == FL_OK && !lazy) status = evaluate_each(r, list, ord + done, nopen - done, 0);
  r->thresh = thresh;
  r->guess = 0;
  free(list);
  free(ord);
  r->deferred = lazy;
  if (status == FL_OK) build_heaps(r, nopen);
  return status;
}

/* After the first round's picks, when its keys were the chord bounds:
 * every candidate not evaluated yet, evaluated against the new coverage
 * as fl_mf_first_gains evaluates (each thread its own batches, neighbours
 * together), fresh for the next round, and each heap rebuilt.  Only these:
 * a candidate evaluated in round 0 keeps its key, which estimates may
 * have set low for a far outlier, until the round protocol's contests
 * reach it (re-evaluating them all here lost 0.5% on heavy tails,
 * test-kernel-width.R). */
int fl_mf_deferred_gains(fl_mf *r, int round)
{
  int n = 0, *ord = NULL;
  fl_entry **list = malloc((size_t) (r->cl.m > 0 ? r->cl.m : 1) * sizeof(fl_entry *));
  int status = list ? FL_OK : FL_ERR_NOMEM;
  r->deferred = 0;
  for (int h = 0; h < r->nheaps && list; h++)
    for (int i = 0; i < r->heaps[h].size; i++)
      if (r->heaps[h].a[i].round < 0) list[n++] = &r->heaps[h].a[i];
  if (status == FL_OK) status = first_plan(r, list, n, 0, &ord);
  if (status == FL_OK) status = evaluate_each(r, list, ord, n, round);
  free(ord); free(list);
  if (status == FL_OK)
    for (int h = 0; h < r->nheaps; h++) fl_heap_build(&r->heaps[h], r->heaps[h].a, r->heaps[h].size);
  return status;
}
