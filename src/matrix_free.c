/* Generations 4-6 (modes hc, hpc, nhpc): CELF without the n x m matrix.
 *
 * Candidates are dealt to heaps in turn, one max-heap each.  Keys start as a
 * common upper bound, so every candidate is evaluated once before the first
 * pick: the whole team does that first, each thread evaluating its own
 * candidates, and the heaps start from those gains.  An evaluation visits
 * only the leaf clusters of fl_clusters whose bound (or estimated mass) is
 * not negligible beside eps times the last gain, and not most likely
 * covered (a coarse evaluation; the picks are evaluated finely, see
 * FL_TIE).  A round lets every heap
 * yield its `batch` best fresh entries (evaluated against the round's
 * coverage), merges them and commits them in order while each one's gain
 * is certified to be at most eps stale; the post-selection pass then
 * raises the coverage, measures each pick's true marginal gain, prunes and
 * refreshes the cluster summaries.  ub[j] keeps a certified upper bound on
 * each candidate's gain (evaluated part + bounds of what was skipped or
 * pruned), which gives the `bound` of the result after a final lazy
 * refinement of the k largest. */
#include <stdlib.h>
#include <stdint.h>
#include <limits.h>
#include <string.h>
#include <math.h>
#include "fl_solvers.h"
#include "fl_mf.h"
#include "fl_state.h"
#include "fl_omp.h"
#include "fl_kernel.h"

/* Largest batch whose floor batch_floor() finds (larger: no floor). */
#define FL_MAX_FLOOR 256
/* Relative margin on computed gains when they serve as upper bounds. */
#define FL_UB_SLACK 1e-12
/* Evaluations allowed to tighten the final bound: FL_REFINE_PER_PICK k +
 * FL_REFINE_EXTRA.  8 per pick since the first round's threshold is
 * eps times nearly its best gain (first_threshold): more candidates keep
 * the loose bounds of their first evaluation; on "large" (n = 30000) 4, 8
 * and 16 per pick gave bounds of 75580, 69085 and 61397 at 0.55, 0.56 and
 * 0.58 s. */
#define FL_REFINE_PER_PICK 8
#define FL_REFINE_EXTRA 64
/* Candidates posted per lane and group evaluation step (nhpc), and at
 * least FL_POST_MIN: 16 instead of 8 took 2% to 4% less time at two
 * threads (one group of two, which meets three times a step) on six
 * presets, about the same at one, for 0.1% more pairs (medians of 5
 * interleaved runs).  Each later step of a heap's refresh posts twice as
 * many, up to FL_POST_MAX (see post_cap). */
#define FL_POST_PER_LANE 2
#define FL_POST_MIN 16
#define FL_POST_MAX 64
/* With eps > 0 and nothing covered yet, the first evaluations skip the
 * clusters that later ones would skip at this many times their threshold
 * (since they visit the leaves whose ball holds the candidate instead of
 * testing bounds, only through the mass test: see plan in fl_clusters.c),
 * and key each candidate by its gain plus the mass estimate of the
 * clusters it skipped (fl_clusters_plan), which stands in for what they
 * would add.  Without the estimate, twice the threshold already left the
 * keys of some candidates so far below their gains that they were passed
 * over: 0.99874 of greedy's f(S) on "medium_cluster" (n = 30000).  With
 * it, 3 visited 7% to 28% fewer pairs (nhpc, one thread, the presets at
 * n = 12000 and 30000) and took 12% to 14% less time on "weak_cluster"
 * and "medium_cluster" (n = 12000 and 30000), 4% to 7% more on "medium"
 * and "large", whose first evaluations are cheap already (medians of 5
 * interleaved runs); f(S) was 0.99987 of greedy's on "strong_cluster" (n
 * = 12000) and equal to it on the others, and 6 instead of 9 of the 180
 * runs of bench-lowdim.R ended below 0.999 of greedy.  8 fell to 0.99702
 * on "heavy_skew" and 0.99604 near an 8-dimensional subspace. */
#define FL_FIRST_COARSE 3.0
/* Candidates whose exact gains set the first round's skip threshold, and
 * candidates whose bounds the final refinement tightens at once: the most
 * the whole team evaluates together (team_gains). */
#define FL_TEAM_BATCH 16
/* Relative margin by which the refinement's k largest keys must pass what
 * the bound may add before it is capped for the refinement to be skipped:
 * covers the rounding of the sums compared. */
#define FL_ROOM_MARGIN 1e-9
/* Candidates per parallel region of the first evaluations: the main thread
 * checks for an interrupt between regions. */
#define FL_FIRST_SLICE 8192
/* Clusters whose bound is below this fraction of the skip threshold are
 * still visited when the final bound is tightened. */
#define FL_REFINE_FRACTION 0.1
/* With eps > 0 a gain evaluation is coarse: it skips clusters, so it
 * falls short of the gain (by 0.05% to 0.7% on average, at most 4.5% to
 * 16%, on three benchmark presets and on points near a 3- or
 * 8-dimensional subspace), and two candidates whose gains differ by less
 * can be taken in the wrong order.  On points near a subspace such
 * near-ties decide greedy's path: nhpc ended up to 0.7% below greedy
 * there (inst/bench/bench-lowdim.R).  So (r->refine) a coarse gain g is
 * keyed g (1 + FL_TIE), and the candidate that leads a heap's fresh
 * entries (with several heaps, only where it can beat the lead of
 * take_lead()), and any later one that fl_mf_merge() would pick, is
 * evaluated finely first (see FL_FINE_FRACTION): the picks are
 * greedy's unless a gain falls short by more than FL_TIE.  Less was not
 * enough: the fine gain of one candidate then beat the coarse gains of
 * better ones that fell short by more ("large", n = 30000: 0.99989 of
 * greedy with 0.02, 1.00000 with 0.03 to 0.1; with 0.01, one of 30 runs
 * near a 3-dimensional subspace ended 0.18% below greedy).  0.05 visits
 * 2% to 8% more pairs than 0.02 on the presets at n = 12000. */
#define FL_TIE 0.05
/* A fine evaluation is a coarse one at this fraction of the skip
 * threshold, with its cold tests but the near-point one (FL_COLD_OWNER)
 * and no estimates in its gain: it skips the leaves bounded below it
 * (with a mass estimate below FL_EST_FRACTION of it), those beyond the
 * bisector and those whose gain estimate is below FL_GAIN_FRACTION of it;
 * pruned clients stay out, as in every key.  Visiting every leaf with a
 * positive bound instead, the fine evaluations took 4.5% ("heavy_skew")
 * to 28% ("weak_cluster") of the pairs nhpc visited at one thread (n =
 * 12000), about 7000 each on "medium_cluster".  With 0.01 nhpc visited 8%
 * ("medium_cluster", n = 30000) to 50% ("uniform") fewer pairs in all,
 * 22% on "weak_cluster", and ended within 0.00024 of its f(S) on the 13
 * presets ("weak_cluster", also hc and hpc at one thread); near 2- to
 * 4-dimensional subspaces (n = 2500, 36 runs) it visited 1% to 8% fewer
 * pairs, with the same f(S).  The near-point test too lost 0.57% there
 * (k = 20, "the relaxed defaults stay within 0.1% of greedy on
 * low-dimensional data" in the tests). */
#define FL_FINE_FRACTION 0.01

static int is_matrix_free(fl_mode mode)
{
  return mode == FL_MODE_HC || mode == FL_MODE_HPC || mode == FL_MODE_NHPC;
}

static int group_size(const fl_control *c)
{
  if (c->mode != FL_MODE_NHPC) return 1;
  int M = c->group_size < c->threads ? c->group_size : c->threads;
  return M < 1 ? 1 : M;
}

/* With several groups (threads, in hc and hpc), the candidates are dealt
 * to FL_HEAPS_PER_GROUP heaps per group, which the groups take in turn: a
 * round's CELF work is uneven across heaps (measured at n = 30000, hpc at
 * 2 threads: with one heap each, each thread waited a quarter of the
 * later rounds for the other; nhpc at 16 threads, four groups of four
 * with one heap each: a thread waited 42% to 47% of the refresh on
 * average, "large" and "medium_cluster"; inst/bench/results/device-*). */
#define FL_HEAPS_PER_GROUP 4

static int heap_count(const fl_control *c)
{
  int G = c->threads / group_size(c);
  return G > 1 ? FL_HEAPS_PER_GROUP * G : 1;
}

/* Candidates a leader posts at evaluation step `step` of a heap's
 * refresh: hc and hpc evaluate one at a time, as lazy greedy does; nhpc's
 * leaders post several, which keeps M > 1 lanes busy between barriers and,
 * at any M, lets the candidates posted together share the chunks they
 * visit in cache (eval_share), at the price of evaluating a few tops lazy
 * greedy might not have needed (on "large", n = 30000: 48347 evaluations
 * posting 8 against 48343 posting 1, as measured then; 51654 posting 16
 * against 51626 posting 8 later).  A round's chain of stale tops is a few
 * dozen long on "uniform" and hundreds on "weak_cluster" (n = 12000:
 * 15001 and 39724 evaluations over 100 rounds, 12000 of them the first),
 * so the posts double with each step, from 16 to FL_POST_MAX: against 16
 * at every step, nhpc at one thread took 3% to 7% less time on
 * "weak_cluster", "heavy_skew" and "large" (n = 30000) and as long on
 * "uniform", for 0.2% to 3.2% more pairs on the 13 presets; at two
 * threads 3% to 11% less on the presets at n = 30000.  64 at every step
 * made "uniform" 23% slower (47% more pairs).  (Heap 0's scratch holds
 * FL_TEAM_BATCH for team_gains(), and next_stale() used to post up to that
 * many from it: 16 in nhpc with one heap, and one hc or hpc heap out of 4
 * T posting 16 while the others posted 1.) */
static int post_cap(const fl_control *c, int step)
{
  if (c->mode != FL_MODE_NHPC) return 1;
  int per_lanes = FL_POST_PER_LANE * group_size(c);
  int cap = per_lanes > FL_POST_MIN ? per_lanes : FL_POST_MIN;
  for (; step > 0 && 2 * cap <= FL_POST_MAX; step--) cap *= 2;
  return cap;
}

/* The most candidates a leader posts at once. */
static int post_most(const fl_control *c)
{
  return post_cap(c, INT_MAX);
}

static int batch_size(const fl_control *c)
{
  int b = c->batch < c->k ? c->batch : c->k;
  return b < 1 ? 1 : b;
}

/* Doubles of each thread's records of the last two steps (balanced_cut):
 * share, seconds and work of its plans and of its client visits. */
#define FL_LANE_REC 3
enum { FL_PHASE_PLANS, FL_PHASE_VISITS };

static size_t lane_stride(void)
{
  return fl_thread_stride(4 * FL_LANE_REC, sizeof(double));
}

double fl_solve_bytes_matrix_free(const fl_problem *p, const fl_control *c)
{
  if (!is_matrix_free(c->mode)) return 0.0;
  double H = heap_count(c), b = batch_size(c), K = fl_clusters_max_leaves(p, c);
  double nchunks = (double) p->n / FL_CHUNK + K;
  return fl_clusters_bytes(p, c) + 17.0 * p->m + 16.0 * p->m
    + 16.0 * p->m + 12.0 * K   /* first_plan's */
    + (H * post_most(c) + (c->threads + 1.0) * FL_TEAM_BATCH) * (24.0 * nchunks + 65.0 + 4.0 * p->d)
    + H * (64.0 * b + 256.0)
    + b * (12.0 * nchunks + 9.0 * K + 40.0 + 4.0 * p->d) + 8.0 * K
    + c->threads * (10.0 * K + 512.0 + 8.0 * FL_MF_PAD + 8.0 * lane_stride()
                    + 12.0 * (post_most(c) + FL_TEAM_BATCH)
                    + 4.0 * FL_DOT_BATCH * (K + FL_COLS_PAD) + 64.0
                    + 8.0 * nchunks
                    + 4.0 * fl_thread_stride(1, sizeof(int))
                    + 8.0 * fl_thread_stride(2, sizeof(long long)));
}

/* Evaluation scratch for up to Q candidates at once. */
static int scratch_init(fl_mf_heap *s, size_t Q, size_t nch, size_t d)
{
  s->pending = malloc(Q * sizeof(fl_entry));
  s->left = malloc(Q * sizeof(double));
  s->guess = malloc(Q * sizeof(double));
  s->nitems = malloc(Q * sizeof(int));
  s->item_ch = malloc(Q * nch * sizeof(int));
  s->item_cum = malloc(Q * (nch + 1) * sizeof(int));
  s->partial = malloc(Q * nch * sizeof(double));
  s->slack = malloc(Q * nch * sizeof(double));
  s->fine = calloc(Q, 1);
  s->yo = malloc(Q * d * sizeof(float));
  s->cand = malloc(Q * sizeof(fl_cand));
  s->ahead = malloc(Q * sizeof(fl_entry));
  s->nahead = s->ahead_at = 0;
  return s->pending && s->left && s->guess && s->nitems && s->item_ch && s->item_cum &&
    s->partial && s->slack && s->fine && s->yo && s->cand && s->ahead ? FL_OK : FL_ERR_NOMEM;
}

static void scratch_free(fl_mf_heap *s, int count)
{
  if (s)
    for (int h = 0; h < count; h++) {
      free(s[h].pending); free(s[h].left); free(s[h].guess); free(s[h].nitems);
      free(s[h].item_ch); free(s[h].item_cum); free(s[h].partial); free(s[h].slack);
      free(s[h].fine); free(s[h].yo); free(s[h].cand); free(s[h].ahead);
    }
  free(s);
}

static void mf_free(fl_mf *r)
{
  scratch_free(r->hs, r->nheaps);
  scratch_free(r->ts, r->c->threads);
  free(r->heaps); free(r->bar); free(r->entries);
  free(r->fresh); free(r->nfresh); free(r->ub); free(r->fine_round);
  free(r->settle_round); free(r->chosen);
  free(r->merged); free(r->from); free(r->pick); free(r->pcand); free(r->pyo);
  free(r->skip); free(r->part); free(r->hwpick); free(r->distpick); free(r->tcount); free(r->lanes);
  free(r->teval); free(r->tpos); free(r->tdf); free(r->taken); free(r->claims);
  fl_clusters_free(&r->cl);
}

/* Ints of each thread's walk_chunks scratch (tpos): pos, stop and link per
 * posted candidate, then a bucket and a count of visits per chunk. */
static size_t tpos_size(const fl_mf *r)
{
  return 3 * (size_t) r->qmax + 2 * (size_t) (r->cl.nchunks > 0 ? r->cl.nchunks : 1);
}

/* Thread tid's tpos scratch. */
static int *thread_tpos(const fl_mf *r, int tid)
{
  return r->tpos + (size_t) tid * fl_thread_stride(tpos_size(r), sizeof(int));
}

/* Floats of each thread's distances to the centers (plan_batch). */
static size_t tdf_size(const fl_mf *r)
{
  return fl_thread_stride((size_t) FL_DOT_BATCH * r->cl.krow, sizeof(float));
}

static int mf_alloc(fl_mf *r)
{
  size_t H = (size_t) r->nheaps, b = (size_t) r->batch, K = (size_t) r->cl.K;
  size_t m = (size_t) r->cl.m, nch = (size_t) (r->cl.nchunks > 0 ? r->cl.nchunks : 1);
  size_t T = (size_t) r->c->threads;
  r->heaps = malloc(H * sizeof(fl_heap));
  r->hs = calloc(H, sizeof(fl_mf_heap));
  r->ts = calloc(T, sizeof(fl_mf_heap));
  r->bar = malloc(H * sizeof(fl_barrier));
  r->entries = malloc(m * sizeof(fl_entry));
  r->fresh = malloc(H * b * sizeof(fl_entry));
  r->nfresh = calloc(H, sizeof(int));
  r->ub = malloc(m * sizeof(double));
  r->fine_round = malloc(m * sizeof(int));
  r->settle_round = malloc(m * sizeof(int));
  r->chosen = calloc(m, 1);
  r->merged = malloc(H * b * sizeof(fl_entry));
  r->from = malloc(H * b * sizeof(int));
  r->pick = malloc(b * sizeof(int));
  r->pcand = malloc(b * sizeof(fl_cand));
  r->pyo = malloc(b * (size_t) r->cl.d * sizeof(float));
  r->skip = malloc(b * K);
  r->part = malloc(nch * b * sizeof(double));
  r->hwpick = malloc(b * K * sizeof(double));
  r->distpick = malloc(K * sizeof(double));
  r->tcount = calloc(T * FL_MF_PAD, sizeof(double));
  r->lanes = calloc(T * lane_stride(), sizeof(double));   /* 0: no records yet */
  r->taken = malloc(T * fl_thread_stride(1, sizeof(int)) * sizeof(int));
  r->claims = calloc(T * fl_thread_stride(2, sizeof(long long)), sizeof(long long));
  r->qmax = post_most(r->c) > FL_TEAM_BATCH ? post_most(r->c) : FL_TEAM_BATCH;
  r->tpos = malloc(T * fl_thread_stride(tpos_size(r), sizeof(int)) * sizeof(int));
  r->tdf = malloc(T * tdf_size(r) * sizeof(float));
  r->teval = calloc(T * fl_thread_stride(r->cl.krow + 4, sizeof(int)), sizeof(int));   /* padded: plan_one */
  if (!r->heaps || !r->hs || !r->ts || !r->bar || !r->entries || !r->fresh || !r->nfresh ||
      !r->ub || !r->fine_round || !r->settle_round || !r->chosen || !r->merged ||
      !r->from || !r->pick || !r->pcand || !r->pyo ||
      !r->skip || !r->part || !r->hwpick || !r->distpick || !r->tcount || !r->lanes ||
      !r->teval || !r->tpos || !r->tdf || !r->taken || !r->claims)
    return FL_ERR_NOMEM;
  for (size_t t = 0; t < T; t++) {   /* walk_chunks' buckets empty, pair_run's counts zero */
    int *bucket = thread_tpos(r, (int) t) + 3 * r->qmax;
    for (int ch = 0; ch < r->cl.nchunks; ch++) bucket[ch] = -1;
    memset(bucket + nch, 0, nch * sizeof(int));
  }
  for (size_t j = 0; j < m; j++) r->fine_round[j] = r->settle_round[j] = -1;
  r->refine = r->c->eps > 0;
  for (size_t h = 0; h < H; h++) {
    fl_barrier_init(&r->bar[h]);
    size_t Q = (size_t) post_most(r->c);
    if (h == 0 && Q < FL_TEAM_BATCH) Q = FL_TEAM_BATCH;   /* team_gains */
    if (scratch_init(&r->hs[h], Q, nch, (size_t) r->cl.d) != FL_OK) return FL_ERR_NOMEM;
  }
  for (size_t t = 0; t < T; t++)
    if (scratch_init(&r->ts[t], FL_TEAM_BATCH, nch, (size_t) r->cl.d) != FL_OK) return FL_ERR_NOMEM;
  return FL_OK;
}

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

static int chunk_pairs(const fl_chunk *c, int all)
{
  return all ? c->hi - c->lo : c->nact;
}

/* Plan posted candidate q, its distances to the centers df, with thread
 * tid's scratch: the bound on what it skips, and its work items, the
 * chunks of the clusters the plan visits in chunk order, with the client
 * visits before each. */
static void plan_one(fl_mf *r, fl_mf_heap *s, int q, float *df, int all, int tid)
{
  const fl_clusters *cl = &r->cl;
  int *eval = r->teval + tid * fl_thread_stride(cl->krow + 4, sizeof(int));
  int fine = s->fine[q], coarse = !fine && !all;
  /* estimates of what is skipped go into the keys of coarse evaluations
   * where fine ones check the picks (r->refine), and into the first ones;
   * none where the leaves are not judged by estimates */
  double *skipped = coarse && (r->guess || r->refine) && cl->estimates ? &s->guess[q] : NULL;
  s->guess[q] = 0.0;
  double thresh = fine ? FL_FINE_FRACTION * r->thresh : r->thresh;
  fl_cold cold = all || r->guess || !cl->estimates ? FL_COLD_NONE
    : fine ? FL_COLD_OWNER : FL_COLD_ALL;
  s->left[q] = fl_clusters_plan(cl, &s->cand[q], df, thresh, all, cold, eval, skipped);
  int *items = s->item_ch + (size_t) q * cl->nchunks, n = 0, nleaves;
  int *cum = s->item_cum + (size_t) q * (cl->nchunks + 1), visits = 0;
  const int *leaf = fl_clusters_visited(cl, eval, &nleaves);
  for (int t = 0; t < nleaves; t++)
    for (int ch = cl->first[leaf[t]]; ch < cl->first[leaf[t] + 1]; ch++) {
      int v = chunk_pairs(&cl->chunk[ch], all);   /* no branch: empty chunks are common */
      cum[n] = visits;
      items[n] = ch;
      n += v > 0;
      visits += v;
    }
  cum[n] = visits;
  s->nitems[q] = n;
}

/* Start loading the d doubles at row into the caches. */
static inline void prefetch_row(const double *row, int d)
{
#if defined(__GNUC__)
  const char *at = (const char *) row, *end = (const char *) (row + d);
  for (; at < end; at += FL_LINE) __builtin_prefetch(at);
  __builtin_prefetch(end - 1);
#else
  (void) row; (void) d;
#endif
}

/* Plan posted candidates q0..q1-1 (at most FL_DOT_BATCH), their
 * distances to the centers computed together. */
static void plan_batch(fl_mf *r, fl_mf_heap *s, int q0, int q1, int all, int tid)
{
  const fl_clusters *cl = &r->cl;
  const fl_cand *cand[FL_DOT_BATCH];
  float *df = r->tdf + (size_t) tid * tdf_size(r);
  /* The posted candidates' rows are seldom in the caches: 5% of nhpc's
   * perf samples on "weak_cluster" (n = 12000, one thread) were of
   * loading them in fl_clusters_offset, 1.2% with all their loads
   * started first. */
  for (int q = q0; q < q1; q++) prefetch_row(cl->y + (size_t) s->pending[q].idx * cl->d, cl->d);
  for (int q = q0; q < q1; q++) {
    const double *yc = cl->y + (size_t) s->pending[q].idx * cl->d;
    fl_clusters_offset(cl, yc, s->yo + (size_t) q * cl->d, &s->cand[q]);
    cand[q - q0] = &s->cand[q];
  }
  fl_clusters_distances(cl, q1 - q0, cand, df);
  for (int q = q0; q < q1; q++) plan_one(r, s, q, df + (size_t) (q - q0) * cl->krow, all, tid);
}

/* A group's evaluation step is shared out to its lanes in pairs (lanes
 * 2p and 2p + 1; the last one alone when M is odd).  Each pair takes one
 * run of the posted candidates to plan and, once the group has met, one
 * run of chunk ids to visit, cut at fractions [lo, hi) of the step's
 * plans and client visits that follow the lanes' speeds (balanced_cut);
 * adjacent pairs compute the cut between them by the same expression, so
 * the runs never overlap or leave a gap.  The two lanes of a pair work
 * each run from its two ends (fl_claim). */
typedef struct { double lo, hi; } fl_cut;
typedef struct { fl_cut plans, visits; } fl_share;
/* What a lane did in one phase of a step: its fraction of the step's
 * work, the seconds it took and the work (plans or client visits). */
typedef struct { double share, secs, work; } fl_lane_step;

/* The first lane of lane's pair, and the first lane after it. */
static int pair_front(int lane)
{
  return lane & ~1;
}

static int pair_next(int lane, int M)
{
  return (lane | 1) + 1 < M ? (lane | 1) + 1 : M;
}

/* The even runs of lane's pair in a group of M. */
static fl_share pair_even(int lane, int M)
{
  fl_cut c = { (double) pair_front(lane) / M, (double) pair_next(lane, M) / M };
  fl_share sh = { c, c };
  return sh;
}

/* The first of n items whose position is at least fraction f of the way. */
static int cut_at(double f, int n)
{
  return f >= 1.0 ? n : (int) (f * n);
}

/* The two lanes of a pair share a run of n units (candidates or chunk
 * ids) from its two ends: the front lane holds units [0, mine), the back
 * one [n - mine, n), each claiming more by an atomic add to the pair's
 * counter `taken` (units claimed in all, zero at the step's start) as it
 * reaches the end of what it holds: a fourth of what was left at its last
 * claim (a third left one lane a ninth of the step alone at its end), at
 * least 1/32 of the run and at least what it needs; 3 to 4 claims a lane
 * and phase.  The lane that runs slower, its vCPU
 * lent to another tenant for a while or its caches colder, so leaves more
 * to the other.  With the cut between the two lanes set ahead by their
 * speeds in the steps before instead, one lane finished its visits last
 * in 566 of 739 steps (nhpc, 2 threads, "large", n = 30000), and the
 * lanes waited for each other 9.9 ms in all at the step's two meetings
 * after their work (3 alternations, instrumented), 3.4 ms with the
 * claims, which also spare the pass over the items that cut the chunk
 * ids (2 ms a lane); the solves took 0.1019 s against 0.1033 (medians of
 * 16 alternations; "medium_cluster" 0.1611 and 0.1616, "strong_cluster"
 * 0.0987 and 0.0989). */
typedef long long fl_units;   /* client visits of a step pass 2^31 at n = 3.4e7 */
typedef struct {
  fl_units *taken;   /* the pair's counter; NULL for a lane alone */
  fl_units n, mine;
  fl_units seen;     /* units claimed in all after this lane's last claim */
} fl_claim;

static fl_claim claim_start(fl_units *taken, fl_units n)
{
  fl_claim c = { taken, n, taken ? 0 : n, 0 };
  return c;
}

/* The units this lane holds once it has claimed up to `need` of them
 * from its end, or more: fewer when the other lane holds the rest. */
static fl_units claim_upto(fl_claim *c, fl_units need)
{
  if (need > c->n) need = c->n;
  while (c->mine < need && c->seen < c->n) {
    fl_units want = (c->n - c->seen) / 4, before;
    if (want < c->n / 32) want = c->n / 32;
    if (want < need - c->mine) want = need - c->mine;
FL_OMP(atomic capture)
    { before = *c->taken; *c->taken += want; }
    c->seen = before + want;
    if (before < c->n) c->mine += c->n - before < want ? c->n - before : want;
  }
  return c->mine;
}

/* The counters of the pair whose front lane is thread tid, a cache line
 * apart from the others': plans [0] and chunk ids [1] claimed.  The
 * group's leader zeroes its pairs' before it posts a step, fl_mf_merge
 * thread 0's for fl_mf_post. */
static fl_units *pair_claims(const fl_mf *r, int tid)
{
  return r->claims + (size_t) tid * fl_thread_stride(2, sizeof(fl_units));
}

static void claims_reset(const fl_mf *r, int base, int M)
{
  for (int l = 0; l + 1 < M; l += 2) {   /* the pairs' fronts */
    fl_units *c = pair_claims(r, base + l);
    c[0] = c[1] = 0;
  }
}

/* Plan the posted candidates [lo, hi) this lane holds of its pair's run,
 * FL_DOT_BATCH at a time; returns how many it planned. */
static int plan_run(fl_mf *r, fl_mf_heap *s, int lo, int hi, fl_units *taken, int back,
                    int all, int tid)
{
  fl_claim claim = claim_start(taken, hi - lo);
  int done = 0;
  for (int u = 0;;) {
    int held = (int) claim_upto(&claim, u + 1);   /* a batch, or what is left */
    if (held <= u) break;
    int v = held < u + FL_DOT_BATCH ? held : u + FL_DOT_BATCH;
    plan_batch(r, s, back ? hi - v : lo + u, back ? hi - u : lo + v, all, tid);
    done += v - u;
    u = v;
  }
  return done;
}

/* Candidate q's first item in chunk ch or a later one. */
static int item_from(const fl_mf_heap *s, int q, int ch, int nchunks)
{
  const int *it = s->item_ch + (size_t) q * nchunks;
  int lo = 0, hi = s->nitems[q];
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (it[mid] < ch) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* A pair's run of chunk ids [lo, hi) for the visit fractions f of a
 * step: every chunk is read by one pair, with all the candidates that
 * visit it, as at one thread.  (Cutting each candidate's visits at the
 * fractions instead read 9% ("large", n = 30000) to 17%
 * ("medium_cluster") more chunks at 2 threads than at 1, in kernel calls
 * with fewer candidates each.)  count[] (nchunks, zero), the visits per
 * chunk of all the posted candidates, takes one pass over their items,
 * which each lane makes itself rather than meet once more; it is left
 * zero. */
typedef struct { int lo, hi; } fl_run;

/* The first chunk before which lie at least want of the visits counted. */
static int run_cut(const int *count, int first, int last, double want)
{
  double sum = 0.0;
  int ch = first;
  while (ch <= last && sum < want) sum += count[ch++];
  return ch;
}

static fl_run pair_run(const fl_mf_heap *s, int np, int nchunks, fl_cut f, int *count)
{
  fl_run run = { 0, nchunks };
  if (f.lo <= 0.0 && f.hi >= 1.0) return run;
  int first = nchunks, last = -1;
  double total = 0.0;
  for (int q = 0; q < np; q++) {
    const int *it = s->item_ch + (size_t) q * nchunks;
    const int *cum = s->item_cum + (size_t) q * (nchunks + 1), n = s->nitems[q];
    for (int t = 0; t < n; t++) count[it[t]] += cum[t + 1] - cum[t];
    if (n > 0 && it[0] < first) first = it[0];
    if (n > 0 && it[n - 1] > last) last = it[n - 1];
    total += cum[n];
  }
  if (f.lo > 0.0) run.lo = run_cut(count, first, last, f.lo * total);
  if (f.hi < 1.0) run.hi = run_cut(count, first, last, f.hi * total);
  if (last >= first) memset(count + first, 0, (size_t) (last - first + 1) * sizeof(int));
  return run;
}

/* The client visits of posted candidate q's item at. */
static int item_visits(const fl_mf_heap *s, int q, int at, int nchunks)
{
  const int *cum = s->item_cum + (size_t) q * (nchunks + 1);
  return cum[at + 1] - cum[at];
}

/* The chunk of posted candidate q's item at cursor at, -1 at stop. */
static int item_chunk(const fl_mf_heap *s, int q, int at, int stop, int nchunks)
{
  return at != stop ? s->item_ch[(size_t) q * nchunks + at] : -1;
}

/* The partial gains over chunk ch of nq posted candidates cand[], into
 * their items item[] (walk_chunks). */
static void chunk_share(const fl_clusters *cl, fl_mf_heap *s, int ch,
                        const fl_cand *const *cand, const size_t *item, int nq, int all)
{
  double gain[FL_DOT_BATCH], slack[FL_DOT_BATCH];
  fl_clusters_chunk_gains(cl, ch, nq, cand, all, gain, slack);
  for (int t = 0; t < nq; t++) {
    s->partial[item[t]] = gain[t];
    s->slack[item[t]] = slack[t];
  }
}

/* This lane's part of its pair's run of chunk ids: chunk by chunk across
 * the posted candidates (their lists of items are in chunk order, merged
 * here), from the run's front or its back, each chunk with all the
 * candidates that visit it: the candidates posted together are mostly
 * close to each other, so a chunk read once from memory serves several of
 * them (at n = 1e6 the clients no longer fit in the caches), up to
 * FL_DOT_BATCH in one kernel call that loads each coordinate of the chunk
 * once for all of them.  A candidate's partial gain over a chunk has the
 * same bits whichever others share the call.  Returns the client visits
 * of the posted candidates in all; *mine receives this lane's. */
static double walk_chunks(fl_mf *r, fl_mf_heap *s, int all, int tid, fl_run run,
                          fl_units *taken, int back, double *mine)
{
  const fl_clusters *cl = &r->cl;
  const int np = s->npend, nch = cl->nchunks;
  int *pos = thread_tpos(r, tid);
  int *stop = pos + r->qmax, *link = stop + r->qmax, *bucket = link + r->qmax;
  int first = INT_MAX, last = -1;   /* the run's first and last chunks visited */
  fl_units visits = 0;               /* client visits in the run */
  double total = 0.0;
  for (int q = 0; q < np; q++) {
    const int *it = s->item_ch + (size_t) q * nch;
    const int *cum = s->item_cum + (size_t) q * (nch + 1);
    int a = run.lo > 0 ? item_from(s, q, run.lo, nch) : 0;
    int b = run.hi < nch ? item_from(s, q, run.hi, nch) : s->nitems[q];
    pos[q] = back ? b - 1 : a;
    stop[q] = back ? a - 1 : b;
    if (a < b) {
      first = it[a] < first ? it[a] : first;
      last = it[b - 1] > last ? it[b - 1] : last;
    }
    visits += cum[b] - cum[a];
    total += cum[s->nitems[q]];
  }
  *mine = 0.0;
  if (last < first) return total;
  /* bucket[ch]: the candidates whose next item is chunk ch, linked by
   * link[] (-1 ends a list; every bucket is empty between calls).  Two
   * scans of the posted candidates for each chunk instead took 11% of
   * nhpc's time on "medium_cluster" (n = 12000, perf), these 8%.  Chunk
   * ch is u = dir (ch - base) from this lane's end of the run. */
  const int dir = back ? -1 : 1, base = back ? last : first;
  int far = -1;   /* the furthest chunk with a candidate, from the end */
  for (int q = 0; q < np; q++) {
    int ch = item_chunk(s, q, pos[q], stop[q], nch);
    if (ch < 0) continue;
    link[q] = bucket[ch];
    bucket[ch] = q;
    far = dir * (ch - base) > far ? dir * (ch - base) : far;
  }
  /* The claims count client visits: a chunk is this lane's when it holds
   * the chunk's first visit counted from the front. */
  fl_claim claim = claim_start(taken, visits);
  double pairs = 0.0;
  int u = 0;
  fl_units done = 0;   /* visits claimed from this lane's end before chunk u */
  for (; u <= far; u++) {
    const int ch = base + dir * u;
    if (bucket[ch] < 0) continue;
    if (taken) {
      fl_units here = 0;
      for (int q = bucket[ch]; q >= 0; q = link[q]) here += item_visits(s, q, pos[q], nch);
      if (claim_upto(&claim, done + here) <= (back ? done + here - 1 : done))
        break;   /* the rest is the other lane's */
      done += here;
    }
    const fl_cand *cand[FL_DOT_BATCH] = { NULL };
    size_t item[FL_DOT_BATCH];
    int nq = 0, nvisit = 0;
    for (int q = bucket[ch]; q >= 0;) {
      int after = link[q];
      nvisit++;
      cand[nq] = &s->cand[q];
      item[nq++] = (size_t) q * nch + pos[q];
      pos[q] += dir;
      int to = item_chunk(s, q, pos[q], stop[q], nch);   /* further on */
      if (to >= 0) {
        link[q] = bucket[to];
        bucket[to] = q;
        far = dir * (to - base) > far ? dir * (to - base) : far;
      }
      if (nq == FL_DOT_BATCH || after < 0) {
        chunk_share(cl, s, ch, cand, item, nq, all);
        nq = 0;
      }
      q = after;
    }
    bucket[ch] = -1;
    pairs += (double) chunk_pairs(&cl->chunk[ch], all) * nvisit;
  }
  for (; u <= far; u++) bucket[base + dir * u] = -1;
  r->tcount[(size_t) tid * FL_MF_PAD] += pairs;
  *mine = (double) (taken ? done : visits);
  return total;
}

/* This lane's part of the posted evaluations, its pair's runs in *sh:
 * its plans, then, after the group of M (bar; NULL for a group of one)
 * meets, its client visits.  rec, when not NULL, receives what it did in
 * each phase (FL_PHASE_PLANS, FL_PHASE_VISITS). */
static void eval_share(fl_mf *r, fl_mf_heap *s, int all, fl_share sh, int lane, int M,
                       fl_barrier *bar, int tid, fl_lane_step *rec)
{
  const int np = s->npend, back = lane & 1, alone = (lane | 1) >= M;
  fl_units *claims = alone ? NULL : pair_claims(r, tid - back);
  double start = rec ? fl_wtime() : 0.0;
  int plans = plan_run(r, s, cut_at(sh.plans.lo, np), cut_at(sh.plans.hi, np),
                       alone ? NULL : &claims[0], back, all, tid);
  if (rec) {
    fl_lane_step p = { np > 0 ? (double) plans / np : 0.0, fl_wtime() - start, plans };
    rec[FL_PHASE_PLANS] = p;
  }
  if (bar) fl_barrier_wait(bar, M);   /* plans written */
  if (rec) start = fl_wtime();
  int *count = thread_tpos(r, tid) + 3 * r->qmax + r->cl.nchunks;
  fl_run run = pair_run(s, np, r->cl.nchunks, sh.visits, count);
  double mine, total = walk_chunks(r, s, all, tid, run, alone ? NULL : &claims[1], back, &mine);
  if (rec) {
    fl_lane_step v = { total > 0.0 ? mine / total : 0.0, fl_wtime() - start, mine };
    rec[FL_PHASE_VISITS] = v;
  }
}

/* The posted evaluations by the calling thread alone. */
static void eval_alone(fl_mf *r, fl_mf_heap *s, int tid)
{
  eval_share(r, s, 0, pair_even(0, 1), 0, 1, NULL, tid, NULL);
}

/* Partial gains of posted candidate q added in chunk order: the same bits
 * for any lane count.  *ub receives an upper bound on its true gain. */
static double eval_total(const fl_mf_heap *s, const fl_clusters *cl, int q, double *ub)
{
  const double *partial = s->partial + (size_t) q * cl->nchunks;
  const double *slack = s->slack + (size_t) q * cl->nchunks;
  double g = 0.0, room = s->left[q];
  for (int t = 0; t < s->nitems[q]; t++) {
    g += partial[t];
    room += slack[t];
  }
  *ub = (g + room) * (1.0 + FL_UB_SLACK);
  return g;
}

/* Is heap entry e fresh with a coarse gain, keyed up by FL_TIE? */
static int coarse_fresh(const fl_mf *r, fl_entry e)
{
  return e.round == r->round && r->refine && r->fine_round[e.idx] != r->round &&
    r->settle_round[e.idx] != r->round;
}

/* The leader of a group of several lanes pops the tops the next step
 * will most likely post (up to `count`) while its lanes start on this
 * step, which they then share out so that the others take more of it
 * (fl_claim).  next_stale() takes the tops of these and of the heap in
 * the heap's order, which is total (fl_entry_before), and pushes back
 * those it leaves: it posts what it would have posted from the heap
 * alone. */
static void pop_ahead(fl_heap *hp, fl_mf_heap *s, int count)
{
  s->ahead_at = 0;
  for (s->nahead = 0; s->nahead < count && hp->size > 0; s->nahead++)
    s->ahead[s->nahead] = fl_heap_pop(hp);
}

/* The first of the tops popped ahead and the heap's, NULL when both are
 * empty; ahead_pop() takes it. */
static const fl_entry *ahead_top(const fl_heap *hp, const fl_mf_heap *s)
{
  const fl_entry *a = s->ahead_at < s->nahead ? &s->ahead[s->ahead_at] : NULL;
  if (hp->size == 0) return a;
  return a && fl_entry_before(*a, hp->a[0]) ? a : &hp->a[0];
}

static fl_entry ahead_pop(fl_heap *hp, fl_mf_heap *s)
{
  return ahead_top(hp, s) == &s->ahead[s->ahead_at] ? s->ahead[s->ahead_at++] : fl_heap_pop(hp);
}

/* Leader: move fresh tops to the fresh list and post up to post_cap()
 * stale tops for evaluation (popped into s->pending), the first of them
 * perhaps a top fresh with a coarse gain, to be evaluated finely
 * (s->fine).  Stops at a fresh top once something is posted, so the fresh
 * list always holds the heap's best.  Returns how many were posted (0: the
 * heap is done for this round). */
static int next_stale(fl_mf *r, int h, int steps_done)
{
  fl_heap *hp = &r->heaps[h];
  fl_mf_heap *s = &r->hs[h];
  s->npend = 0;
  const int cap = post_cap(r->c, steps_done);
  const fl_entry *top;
  while (s->npend < cap && r->nfresh[h] < r->quota && steps_done < r->steps &&
         (top = ahead_top(hp, s)) != NULL && top->key >= r->stop) {
    int fine = !r->first_phase && coarse_fresh(r, *top);
    if (fine && (r->nfresh[h] > 0 || top->key < r->lead)) {
      /* Only the leader of the fresh list is evaluated finely here, and
       * only if it can beat the lead: the others are rarely picks
       * (fl_mf_merge evaluates those that are), so their coarse gains
       * are keyed down again and the heap's order decides where they
       * stand. */
      fl_entry e = ahead_pop(hp, s);
      e.key /= 1.0 + FL_TIE;
      r->settle_round[e.idx] = r->round;
      fl_heap_push(hp, e);
      continue;
    }
    if (top->round == r->round) {
      if (s->npend > 0) break;
      if (!fine) {
        r->fresh[(size_t) h * r->batch + r->nfresh[h]++] = ahead_pop(hp, s);
        continue;
      }
    }
    s->fine[s->npend] = (unsigned char) fine;
    s->pending[s->npend++] = ahead_pop(hp, s);
  }
  for (; s->ahead_at < s->nahead; s->ahead_at++) fl_heap_push(hp, s->ahead[s->ahead_at]);
  s->nahead = s->ahead_at = 0;
  return s->npend;
}

/* Posted candidate q keyed by its evaluated gain (a coarse one raised by
 * FL_TIE), fresh in round `round`; its upper bound tightened. */
static fl_entry evaluated(fl_mf *r, const fl_mf_heap *s, int q, int round)
{
  fl_entry e = s->pending[q];
  double ub, g = eval_total(s, &r->cl, q, &ub) + s->guess[q];
  if (ub < r->ub[e.idx]) r->ub[e.idx] = ub;
  if (s->fine[q]) r->fine_round[e.idx] = round;
  else if (r->refine) g *= 1.0 + FL_TIE;
  e.key = g;
  e.round = round;
  return e;
}

static void finish_eval(fl_mf *r, int h, int tid)
{
  fl_mf_heap *s = &r->hs[h];
  for (int q = 0; q < s->npend; q++) fl_heap_push(&r->heaps[h], evaluated(r, s, q, r->round));
  r->tcount[(size_t) tid * FL_MF_PAD + 1] += s->npend;
}

/* The cuts between pairs of lanes follow the lanes' speeds: the vCPUs of
 * a shared machine run at speeds that differ by 10% to 100% for minutes
 * at a time (other tenants), and with even shares the lanes on faster
 * ones waited for the slowest at every step.  Every lane records, for the
 * plans and for the client visits, the share of the step it took, the
 * seconds it took them and the work in them; the next step moves each
 * lane's share FL_BALANCE_GAIN of the way to the one that would have made
 * the lanes finish together (share over seconds, normalised), unless the
 * step had less work than `least` (mostly the clock and the caches then),
 * and gives every lane at least FL_BALANCE_FLOOR / M; a pair's run is its
 * two lanes' shares.  The split changes no result: a candidate's plan and
 * partial gains have the same bits whichever lane makes them. */
#define FL_BALANCE_GAIN 0.5
#define FL_BALANCE_FLOOR 0.25
#define FL_BALANCE_PLANS 4       /* least plans per lane */
#define FL_BALANCE_VISITS 4096   /* least client visits per lane */

/* Thread tid's record of phase `phase` in the step of parity `parity`. */
static double *lane_rec(const fl_mf *r, int tid, int parity, int phase)
{
  return r->lanes + (size_t) tid * lane_stride() + (size_t) (2 * parity + phase) * FL_LANE_REC;
}

/* Where lane l's share of the group of M (threads base..base + M - 1)
 * starts, from their records of `phase` in slot `parity`: even until
 * every lane has one. */
static double balanced_cut(const fl_mf *r, int base, int M, int l, int phase, int parity,
                           double least)
{
  if (l <= 0) return 0.0;
  if (l >= M) return 1.0;
  double speed = 0.0, work = 0.0, below = 0.0, all = 0.0;
  for (int i = 0; i < M; i++) {
    const double *rec = lane_rec(r, base + i, parity, phase);
    if (rec[0] <= 0.0 || rec[1] <= 0.0) return (double) l / M;
    speed += rec[0] / rec[1];
    work += rec[2];
  }
  for (int i = 0; i < M; i++) {
    const double *rec = lane_rec(r, base + i, parity, phase);
    double g = work < least * M ? rec[0]
      : (1.0 - FL_BALANCE_GAIN) * rec[0] + FL_BALANCE_GAIN * rec[0] / rec[1] / speed;
    if (g < FL_BALANCE_FLOOR / M) g = FL_BALANCE_FLOOR / M;
    all += g;
    below += i < l ? g : 0.0;
  }
  return below / all;
}

/* The runs of the pair of lane (at thread tid) in its group of M. */
static fl_share pair_share(const fl_mf *r, int tid, int lane, int M, int parity)
{
  int base = tid - lane, front = pair_front(lane), next = pair_next(lane, M);
  fl_share sh = {
    { balanced_cut(r, base, M, front, FL_PHASE_PLANS, parity, FL_BALANCE_PLANS),
      balanced_cut(r, base, M, next, FL_PHASE_PLANS, parity, FL_BALANCE_PLANS) },
    { balanced_cut(r, base, M, front, FL_PHASE_VISITS, parity, FL_BALANCE_VISITS),
      balanced_cut(r, base, M, next, FL_PHASE_VISITS, parity, FL_BALANCE_VISITS) } };
  return sh;
}

/* This lane's record of a step into the slot the next step reads, while
 * the other lanes may still read this step's. */
static void note_lane(fl_mf *r, int tid, int parity, const fl_lane_step *step)
{
  for (int phase = FL_PHASE_PLANS; phase <= FL_PHASE_VISITS; phase++) {
    double *rec = lane_rec(r, tid, 1 - parity, phase);
    rec[0] = step[phase].share;
    rec[1] = step[phase].secs > 1e-9 ? step[phase].secs : 1e-9;
    rec[2] = step[phase].work;
  }
}

/* All threads of a group (M of them, this one at lane) refresh heap h:
 * pop and evaluate stale tops until it yields quota fresh entries, has
 * run `steps` evaluation steps, its top is keyed below stop, or it
 * empties.  *iter counts the group's evaluation steps (same on every
 * lane), whose parity selects the posted slot and the lanes' speeds
 * read. */
static void refresh_heap(fl_mf *r, int h, int lane, int M, fl_barrier *bar, int *iter)
{
  fl_mf_heap *s = &r->hs[h];
  int tid = fl_thread_id();
  for (int steps = 0;; steps++) {
    int slot = *iter & 1;
    if (lane == 0) {
      s->posted[slot] = next_stale(r, h, steps);
      claims_reset(r, tid, M);
    }
    fl_barrier_wait(bar, M);   /* candidates posted */
    if (s->posted[slot] == 0) break;
    (*iter)++;
    if (M > 1) {
      if (lane == 0) pop_ahead(&r->heaps[h], s, post_cap(r->c, steps + 1));
      int parity = *iter & 1;
      fl_lane_step step[2];
      eval_share(r, s, 0, pair_share(r, tid, lane, M, parity), lane, M, bar, tid, step);
      note_lane(r, tid, parity, step);
    } else {
      eval_alone(r, s, tid);
    }
    fl_barrier_wait(bar, M);   /* partial gains written */
    if (lane == 0) finish_eval(r, h, tid);
  }
}

/* The batch-th largest key of the heaps' fresh entries, -Inf if they are
 * fewer: no entry keyed below it can be among the round's picks. */
static double batch_floor(const fl_mf *r)
{
  double best[FL_MAX_FLOOR];
  int nb = 0, b = r->batch < FL_MAX_FLOOR ? r->batch : FL_MAX_FLOOR;
  for (int h = 0; h < r->nheaps; h++)
    for (int t = 0; t < r->nfresh[h]; t++) {
      double key = r->fresh[(size_t) h * r->batch + t].key;
      int at = nb < b ? nb++ : b;   /* keep the b largest, in decreasing order */
      for (; at > 0 && best[at - 1] < key; at--)
        if (at < b) best[at] = best[at - 1];
      if (at < b) best[at] = key;
    }
  return nb == b && b == r->batch ? best[b - 1] : -HUGE_VAL;
}

/* The next heap nobody has taken this phase (nheaps when none is left). */
static int take_heap(fl_mf *r)
{
  int h;
FL_OMP(atomic capture)
  h = r->next_heap++;
  return h < r->nheaps ? h : r->nheaps;
}

/* Group g refreshes heaps, one at a time, until none is left; the leader
 * takes each and tells its lanes through the group's slot. */
static void refresh_taken(fl_mf *r, int g, int lane, int M)
{
  fl_barrier *bar = M > 1 ? &r->bar[g] : NULL;
  int *slot = r->taken + (size_t) g * fl_thread_stride(1, sizeof(int)), iter = 0;
  for (;;) {
    if (lane == 0) *slot = take_heap(r);
    if (bar) fl_barrier_wait(bar, M);   /* heap taken */
    int h = *slot;
    if (h == r->nheaps) break;
    refresh_heap(r, h, lane, M, bar, &iter);
  }
}

/* Evaluation steps of a heap in the first phase, when a second follows.
 * The batch-th best of the fresh entries found so far is at most the
 * batch-th best of all, so it is still a safe stop for the second phase,
 * where the heaps whose CELF chain is long finish it, the groups sharing
 * them anew.
 * Without it, a thread waited a quarter of the first phase for the one
 * long chain of the round (hpc, "large", 2 threads: 0.013 to 0.023 s of
 * 0.05 to 0.06 s); with 16, hpc at 2 threads took 0.267 to 0.270 s
 * against 0.277 to 0.278 s (best of 3, 4 alternations) for 49470
 * evaluations instead of 49076 (8 and 32 steps: 49486 and 49221, no
 * faster).  nhpc's steps post several candidates each; at 8 and 16
 * threads 2 or 4 steps were no faster (inst/bench/results/device-variants.csv). */
#define FL_FIRST_PHASE_STEPS 16

/* The first phase's quota of fresh entries per heap. */
static int first_quota(const fl_mf *r)
{
  return (r->batch + r->nheaps - 1) / r->nheaps;
}

/* The evaluation steps a heap may take in a round's first refresh. */
static int first_steps(const fl_mf *r)
{
  return first_quota(r) < r->batch ? FL_FIRST_PHASE_STEPS : INT_MAX;
}

/* With several heaps, a heap whose best candidate is not the round's
 * pick would still evaluate finely every candidate whose raised coarse
 * gain passes its own leader's fine gain, and the best few of a heap are
 * often within FL_TIE of each other: hpc at 2 threads (8 heaps) evaluated
 * 12 finely a round where one heap evaluates 2 or 3 ("large" and
 * "medium_cluster", n = 30000).  Without fine evaluations (as before with
 * several heaps) the coarse ones could not drop the leaves of
 * FL_GUESS_GAIN_FRACTION and visited 1.6 to 2.3 times the pairs of one
 * heap on "medium_cluster" and "weak_cluster".  So the first phase
 * evaluates none finely; the whole team then evaluates the best of its
 * fresh entries finely (post_lead, take_lead), and the second phase only
 * the coarse gains raised above that lead, which the round's first pick
 * must reach.  hpc at 2 threads against no fine evaluations: 57.6 million
 * pairs instead of 87.4 and 20% less time on "medium_cluster", 26.7 and
 * 23.1 million instead of 26.3 and 22.8 and 7% and 4% more time on
 * "large" and "strong_cluster" (n = 30000, medians of 10 alternations;
 * hc: -19%, +3%, +3%); at n = 12000 "weak_cluster" 20.5 million instead of
 * 44.7, "medium_cluster" 11.8 instead of 20.9, "heavy_skew" -8%,
 * "mild_skew" -5%, "uniform" +36% (3.0 million at one thread), the others
 * -0.2% to +5%.  Is this the round's first phase without fine
 * evaluations? */
static int lead_phase(const fl_mf *r)
{
  return r->refine && r->nheaps > 1;
}

/* Does a second phase follow the first (for the batch floor, or the lead)? */
static int two_phases(const fl_mf *r)
{
  return first_quota(r) < r->batch || lead_phase(r);
}

/* Pool the heaps' fresh entries in greedy order (gain, lowest index). */
static int pool_fresh(fl_mf *r)
{
  int nm = 0, b = r->batch;
  for (int h = 0; h < r->nheaps; h++) {
    for (int t = 0; t < r->nfresh[h]; t++) {
      fl_entry e = r->fresh[(size_t) h * b + t];
      int at = nm++;
      /* insertion sort: at most nheaps x batch entries */
      for (; at > 0 && fl_entry_before(e, r->merged[at - 1]); at--) {
        r->merged[at] = r->merged[at - 1];
        r->from[at] = r->from[at - 1];
      }
      r->merged[at] = e;
      r->from[at] = h;
    }
    r->nfresh[h] = 0;
  }
  return nm;
}

/* Every thread of the team evaluates its share of the candidates posted
 * in heap 0's scratch (no heap is being refreshed).  Call from all threads
 * of a parallel region, and meet them before the partial gains are read. */
static void team_eval(fl_mf *r, int all)
{
  int M = fl_team_size(), lane = fl_thread_id();
  eval_share(r, &r->hs[0], all, pair_even(lane, M), lane, M, M > 1 ? &r->bar[0] : NULL, lane, NULL);
}

/* The first phase's fresh entries go back to their heaps, to be taken
 * again in the second phase, but for the best, which is posted to heap
 * 0's scratch to be evaluated finely by the team (team_eval); when its
 * gain is fine already it goes back too and is the lead. */
static void post_lead(fl_mf *r)
{
  fl_mf_heap *s = &r->hs[0];
  int nm = pool_fresh(r), post = nm > 0 && r->fine_round[r->merged[0].idx] != r->round;
  r->lead = nm > 0 ? r->merged[0].key : -HUGE_VAL;   /* take_lead replaces a coarse one */
  for (int q = post; q < nm; q++) fl_heap_push(&r->heaps[r->from[q]], r->merged[q]);
  s->npend = post;
  if (post) {
    s->pending[0] = r->merged[0];
    s->fine[0] = 1;
    claims_reset(r, 0, fl_team_size());
  }
}

/* The lead from the evaluation post_lead() posted, back in its heap; the
 * second phase's stop is at most the lead, so that it can be taken. */
static void take_lead(fl_mf *r)
{
  fl_mf_heap *s = &r->hs[0];
  if (s->npend > 0) {
    fl_entry lead = evaluated(r, s, 0, r->round);
    r->lead = lead.key;
    fl_heap_push(&r->heaps[r->from[0]], lead);
    r->tcount[(size_t) fl_thread_id() * FL_MF_PAD + 1] += 1;
  }
  if (r->stop > r->lead) r->stop = r->lead;
  r->first_phase = 0;
}

void fl_mf_refresh_heaps(fl_mf *r, int g, int lane, int M)
{
  if (g >= 0) refresh_taken(r, g, lane, M);
  if (two_phases(r)) {
FL_OMP(barrier)
FL_OMP(single)
    {
      r->stop = batch_floor(r);
      r->quota = r->batch;
      r->steps = INT_MAX;
      r->next_heap = 0;
      if (r->first_phase) post_lead(r);
    }
    if (r->first_phase) {
      if (r->hs[0].npend > 0) team_eval(r, 0);
FL_OMP(barrier)
FL_OMP(single)
      take_lead(r);
    }
    if (g >= 0) refresh_taken(r, g, lane, M);
  }
FL_OMP(barrier)
}

/* Upper bound on how much picks 0..npick-1 of the round (reaches
 * r->hwpick) can lower the gain of a candidate with reaches hw: a client
 * loses at most min(s_ic, s_ip) - m_i to pick p. */
static double overlap_bound(const fl_mf *r, const double *hw)
{
  const fl_clusters *cl = &r->cl;
  double loss = 0.0;
  for (int q = 0; q < r->npick; q++) {
    const double *hp = r->hwpick + (size_t) q * cl->K;
    for (int k = 0; k < cl->K; k++) {
      double reach = hw[k] < hp[k] ? hw[k] : hp[k];
      if (reach > cl->minact[k]) loss += cl->wact[k] * (reach - cl->minact[k]);
      if (reach > cl->minpr[k]) loss += cl->wpr[k] * (reach - cl->minpr[k]);
    }
  }
  return loss;
}

/* Entry e's gain from a fine evaluation, by the calling thread alone
 * (heap 0's scratch: no heap is being refreshed). */
static fl_entry fine_entry(fl_mf *r, fl_entry e)
{
  fl_mf_heap *s = &r->hs[0];
  int tid = fl_thread_id();
  s->pending[0] = e;
  s->fine[0] = 1;
  s->npend = 1;
  eval_alone(r, s, tid);
  r->tcount[(size_t) tid * FL_MF_PAD + 1] += 1;
  return evaluated(r, s, 0, r->round);
}

/* Commit pooled entries in order while the gain each was evaluated with
 * can have dropped by at most eps of it through the round's earlier picks
 * (with eps = 0: not at all, so the order is exactly greedy's); the rest
 * go back to their heaps, to be re-evaluated next round.  The overlap
 * bound is loose in high dimension: no round of hc, hpc or nhpc took a
 * second pick on the 13 benchmark presets (batch 5, 1 and 2 threads).
 * Without the test (the specification's batches), nhpc ended at 0.64
 * ("dense") to 0.97 ("uniform") of greedy's f(S) there; on "dense" half
 * of the later picks lay within 1.14 sigma of their round's first. */
void fl_mf_merge(fl_mf *r)
{
  int nm = pool_fresh(r), K = r->cl.K;
  int room = r->k - r->nselected, q = 0;
  claims_reset(r, 0, 2);   /* fl_mf_post's */
  r->npick = 0;
  r->again = 0;
  for (; q < nm && r->npick < r->batch && r->npick < room; q++) {
    int j = r->merged[q].idx;
    double *hw = r->hwpick + (size_t) r->npick * K;
    fl_cand *pc = &r->pcand[r->npick];
    fl_clusters_offset(&r->cl, r->cl.y + (size_t) j * r->cl.d, r->pyo + (size_t) r->npick * r->cl.d,
                       pc);
    fl_clusters_reach(&r->cl, pc, hw, r->distpick);
    if (r->npick > 0 && overlap_bound(r, hw) > r->c->eps * r->merged[q].key) break;
    if (r->refine && r->fine_round[j] != r->round) {
      /* a coarse gain: evaluated finely, it must still come before the
       * next entry (else it goes back, and without a pick the round runs
       * again) */
      r->merged[q] = fine_entry(r, r->merged[q]);
      if (q + 1 < nm && fl_entry_before(r->merged[q + 1], r->merged[q])) {
        r->again = r->npick == 0;
        break;
      }
    }
    r->pick[r->npick++] = j;
    r->chosen[j] = 1;
  }
  for (; q < nm; q++) {   /* back to their heaps, coarse gains keyed up again */
    fl_entry e = r->merged[q];
    if (r->refine && r->fine_round[e.idx] != r->round) e.key *= 1.0 + FL_TIE;
    fl_heap_push(&r->heaps[r->from[q]], e);
  }
  fl_clusters_skip_table(&r->cl, r->hwpick, r->npick, r->skip);
}

static double post_chunk(fl_mf *r, int ch, int cover, int summary, int tid)
{
  return fl_clusters_post_chunk(&r->cl, ch, r->pcand, r->npick, r->skip,
                                r->part + (size_t) ch * r->batch, cover, summary, tid);
}

/* The post-selection pass over the chunks.  With a team of two, the
 * threads take the chunk ids from the two ends (fl_claim, on the counters
 * of the pair at thread 0, which fl_mf_merge zeroes): as nhpc's front and
 * back lanes walk them (walk_chunks), so the coverage and clients each
 * thread writes here are mostly those it reads next, in its own caches,
 * where a dynamic schedule dealt them out at random.  nhpc at 2 threads
 * took 2.3%, 0.9% and 0.5% less time ("large", "medium_cluster",
 * "strong_cluster", n = 30000; medians of 16 alternations, faster in 12,
 * 11 and 9 of them). */
void fl_mf_post(fl_mf *r, int cover, int summary)
{
  int tid = fl_thread_id(), nch = r->cl.nchunks;
  double pairs = 0.0;
  if (fl_team_size() == 2) {   /* hc's two passes take a counter each */
    fl_claim claim = claim_start(&pair_claims(r, 0)[cover ? 0 : 1], nch);
    for (int u = 0;; u++) {
      if (claim_upto(&claim, u + 1) <= u) break;
      pairs += post_chunk(r, tid ? nch - 1 - u : u, cover, summary, tid);
    }
  } else {
FL_OMP(for schedule(dynamic, 4) nowait)
    for (int ch = 0; ch < nch; ch++) pairs += post_chunk(r, ch, cover, summary, tid);
  }
  r->tcount[(size_t) tid * FL_MF_PAD] += pairs;
}

/* Record the round's picks with their true marginal gains (chunk order). */
static double record_picks(fl_mf *r, fl_result *res)
{
  double last = 0.0;
  for (int q = 0; q < r->npick; q++) {
    double g = 0.0;
    for (int ch = 0; ch < r->cl.nchunks; ch++) g += r->part[(size_t) ch * r->batch + q];
    res->selected[res->nselected] = r->pick[q];
    res->gains[res->nselected] = g;
    res->nselected++;
    last = g;
  }
  r->nselected = res->nselected;
  return last;
}

/* Gains of the np <= FL_TEAM_BATCH candidates in r->hs[0].pending
 * against the current coverage, over all clients of the clusters whose
 * bound reaches thresh (all with a positive bound when thresh is 0: exact
 * gains), evaluated by the whole team as one group, and upper bounds
 * ub[q] on the true gains. */
static void team_gains(fl_mf *r, int np, double thresh, double *gain, double *ub)
{
  fl_mf_heap *s = &r->hs[0];
  double keep = r->thresh;
  r->thresh = thresh;
  s->npend = np;
  memset(s->fine, 0, (size_t) np);
  claims_reset(r, 0, r->c->threads);
FL_OMP(parallel num_threads(r->c->threads))
  team_eval(r, 1);
  r->thresh = keep;
  r->tcount[1] += np;
  for (int q = 0; q < np; q++) gain[q] = eval_total(s, &r->cl, q, &ub[q]);
}

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
static double refined_topk(fl_mf *r, double room)
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
    team_gains(r, np, FL_REFINE_FRACTION * r->thresh, gain, ub);
    for (int q = 0; q < np; q++) {
      fl_entry f = s->pending[q];
      f.key = ub[q] < f.key ? ub[q] : f.key;
      f.round = 1;
      fl_heap_push(&hp, f);
    }
  }
  return sum;
}

/* Open candidates, all keyed by the same bound, dealt to the nheaps heaps
 * in turn: heap h gets open candidates h, h + H, h + 2 H, ...  Rows of
 * real data come in runs (sorted, or cluster by cluster), so contiguous
 * blocks would give one heap the dense regions, most of the round's
 * evaluations and the other threads idle time.  Each heap's share is one
 * run of entries; first_gains() builds the heaps once the keys are gains.
 * Returns f(initial) + the k largest keys. */
static double setup_heaps(fl_mf *r, const fl_problem *p, int *open)
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
 * only on the data, never on the thread count.  It used to be the best of
 * 16 candidates spread through the heaps' storage: 0.28 to 0.54 of the
 * best gain on the benchmark presets ("large": 98.5 of 348.8), so the
 * first evaluations visited clusters the later rounds skip. */
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
  team_gains(r, ns, 0.0, gain, ub);
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
FL_OMP(parallel for num_threads(r->c->threads) schedule(dynamic, 256))
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
static int first_gains(fl_mf *r, int nopen, int covered)
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
FL_OMP(parallel for num_threads(r->c->threads) schedule(dynamic, 1))
    for (int at = lo; at < hi; at += FL_TEAM_BATCH) {
      int tid = fl_thread_id(), np = hi - at < FL_TEAM_BATCH ? hi - at : FL_TEAM_BATCH;
      fl_mf_heap *s = &r->ts[tid];
      for (int q = 0; q < np; q++) {
        s->pending[q] = r->entries[ord[at + q]];
        s->fine[q] = 0;
      }
      s->npend = np;
      eval_alone(r, s, tid);
      for (int q = 0; q < np; q++) r->entries[ord[at + q]] = evaluated(r, s, q, 0);
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

static void run_round(fl_mf *r)
{
  switch (r->c->mode) {
  case FL_MODE_HC: fl_round_hc(r); break;
  case FL_MODE_HPC: fl_round_hpc(r); break;
  default: fl_round_nhpc(r); break;
  }
}

static int solve_rounds(fl_mf *r, const fl_control *c, fl_result *res, double f)
{
  for (int round = 0; r->nselected < r->k; round += r->npick > 0) {
    if (fl_interrupted(c)) return FL_INTERRUPTED;
    r->round = round;
    r->quota = first_quota(r);
    r->steps = first_steps(r);
    r->stop = -HUGE_VAL;
    r->next_heap = 0;
    r->lead = -HUGE_VAL;
    r->first_phase = lead_phase(r);
    run_round(r);
    if (r->npick == 0) {
      if (r->again) continue;
      break;
    }
    fl_clusters_reduce(&r->cl);
    double last = record_picks(r, res);
    fl_clusters_own(&r->cl, r->pick, r->npick);
    for (int q = res->nselected - r->npick; q < res->nselected; q++) f += res->gains[q];
    /* skip clusters that cannot add eps of the gain the last pick made */
    r->thresh = c->eps * last;
    res->rounds = round + 1;
    fl_progress(c, round + 1, res->nselected, f);
  }
  return FL_OK;
}

int fl_solve_matrix_free(const fl_problem *p, const fl_control *c, fl_result *res)
{
  if (!is_matrix_free(c->mode) || !p->x || !p->y || p->d < 1) return FL_ERR_ARG;
  fl_mf r;
  memset(&r, 0, sizeof r);
  r.c = c;
  r.k = c->k;
  r.batch = batch_size(c);
  r.nheaps = heap_count(c);
  int status = fl_clusters_init(&r.cl, p, c, c->mode != FL_MODE_HC);
  if (status != FL_OK) return status;
  if (mf_alloc(&r) != FL_OK) {
    mf_free(&r);
    return FL_ERR_NOMEM;
  }
  int nopen;
  double bound0 = setup_heaps(&r, p, &nopen);
  status = first_gains(&r, nopen, p->ninitial > 0);
  if (status == FL_OK) status = solve_rounds(&r, c, res, fl_clusters_objective(&r.cl));
  res->objective = fl_clusters_objective(&r.cl);
  if (status == FL_OK) {
    /* what the bound may exceed f(S) by before fl_solve caps it (or
     * bound0 undercuts it) */
    double cap = fl_bound_cap(p);
    if (bound0 < cap) cap = bound0;
    double bound = res->objective + refined_topk(&r, cap - res->objective);
    res->bound = bound < bound0 ? bound : bound0;
    if (res->bound < res->objective) res->bound = res->objective;
  }
  res->pairs = r.cl.pairs;
  res->evaluations = 0.0;
  for (int t = 0; t < c->threads; t++) {
    res->pairs += r.tcount[(size_t) t * FL_MF_PAD];
    res->evaluations += r.tcount[(size_t) t * FL_MF_PAD + 1];
  }
  mf_free(&r);
  return status;
}
