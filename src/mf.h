/* The matrix-free CELF core that generations 4 to 6 (hc, hpc, nhpc)
 * share: its state, what a generation configures, and the units' entry
 * points.  Data flow of one solve (mf_solve.c): fl_clusters_init builds
 * the hierarchy (cl_layout.h); mf_alloc.c allocates; mf_first.c deals
 * the candidates to heaps and evaluates each once; then each round the
 * generation's round function (celf_hc.c, celf_hpc.c, celf_nhpc.c) runs
 * fl_mf_team_refresh (mf_heaps.c: lazy heaps, evaluations by mf_eval.c
 * shared out by mf_share.c), fl_mf_merge, fl_mf_post_start and fl_mf_post
 * (mf_select.c: commit the picks, update coverage, prune, refresh
 * summaries), with the regions and barriers between them; at the end
 * mf_bound.c tightens the certified bound. */
#ifndef FL_MF_H
#define FL_MF_H

#include <limits.h>
#include "cl_layout.h"
#include "celf_heap.h"
#include "fl_barrier.h"
#include "fl_omp.h"
#include "fl_tune.h"

/* Gains below this fraction of the first pick's are nil: the rounding of
 * a single-precision evaluation (about 2^-24 of the similarity mass it
 * adds) is larger. */
#define FL_ZERO_GAIN 1e-6

/* Relative margin on computed gains when they serve as upper bounds. */
#define FL_UB_SLACK 1e-12

/* s->fine of an evaluation without estimates (the loose contest). */
enum { FL_FINE_BOUNDS = 2 };

typedef struct fl_mf fl_mf;

/* What differs between the generations.  Each generation's file fills
 * one and hands it to fl_mf_solve(). */
typedef struct {
  int prune;       /* progressive coverage pruning: clients covered above
                    * tau leave later evaluations */
  int grouped;     /* threads in groups of group_size share each evaluation
                    * (else each thread is a group of one) */
  int post_many;   /* a group's leader posts several stale tops per step,
                    * doubling with each step (else one, as lazy greedy) */
  void (*round)(fl_mf *r);   /* one round: refresh, merge, post pass */
} fl_mf_config;

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

/* The two lanes of a pair share a run of n units (candidates or chunk
 * ids) from its two ends: the front lane holds units [0, mine), the back
 * one [n - mine, n), each claiming more by an atomic add to the pair's
 * counter `taken` (units claimed in all, zero at the step's start) as it
 * reaches the end of what it holds: a fourth of what was left at its last
 * claim (a third left one lane a ninth of the step alone at its end), at
 * least 1/32 of the run and at least what it needs; 3 to 4 claims a lane
 * and phase.  The lane that runs slower, its vCPU lent to another tenant
 * for a while or its caches colder, so leaves more to the other, where a
 * cut set ahead by the lanes' speeds in the steps before left one lane
 * waiting at most steps' ends. */
typedef long long fl_units;   /* client visits of a step pass 2^31 at n = 3.4e7 */
typedef struct {
  fl_units *taken;   /* the pair's counter; NULL for a lane alone */
  fl_units n, mine;
  fl_units seen;     /* units claimed in all after this lane's last claim */
} fl_claim;

/* Per-heap evaluation scratch, shared by the threads of the group working
 * on that heap, with room for Q candidates (fl_mf_post_most(),
 * FL_TEAM_BATCH for heap 0 and the per-thread scratch).  The leader posts
 * up to post_cap() of them at a time; the lanes plan them, then share out
 * their work items (the chunks each plan visits), in pairs: each pair
 * takes a run of the candidates and a run of chunk ids (fl_mf_eval_share), cut by the lanes' speeds (balanced_cut), and its two
 * lanes work each from its two ends (fl_claim).
 * posted is double-buffered by step parity, so the leader may post the
 * next step while followers still read the last. */
typedef struct {
  int posted[2];
  int npend;
  fl_entry *pending;   /* Q: the entries being evaluated */
  double *left;        /* Q: bound on what each evaluation skips */
  double *guess;       /* Q: its estimate, in the first evaluations (see FL_FIRST_COARSE) */
  int *nitems;         /* Q: work items of each */
  int *item_ch;        /* Q x nchunks: the chunks of candidate q's items */
  int *item_cum;       /* Q x (nchunks + 1): client visits before each item, and in all */
  double *partial;     /* Q x nchunks: partial gain of each item */
  double *slack;       /* Q x nchunks: its rounding allowance (fl_clusters_chunk_gains) */
  unsigned char *fine; /* Q: evaluate it finely (next_stale in mf_heaps.c); FL_FINE_BOUNDS:
                        * fine, but leaves skipped by their bounds alone at the
                        * coarse threshold, no estimates (mf_contest.c) */
  float *yo;           /* Q x d: each candidate - org (fl_clusters_offset) */
  fl_cand *cand;       /* Q: each candidate as the chunk gains take it */
  fl_entry *ahead;     /* Q: the heap's tops popped ahead of the next step
                        * (pop_ahead in mf_heaps.c), in pop order */
  int nahead, ahead_at;
} fl_mf_heap;

struct fl_mf {
  fl_clusters cl;
  const fl_control *c;
  const fl_mf_config *cfg;   /* what the generation sets */
  int k, batch, nheaps, round, nselected;
  int next_heap;         /* the next heap a group may take this phase */
  int *taken;            /* per group, a cache line apart: the heap its leader took */
  long long *claims;     /* per thread, a cache line apart: its pair's units claimed
                          * (fl_claim_upto) */
  int quota;             /* a heap's refresh stops at this many fresh entries, */
  int steps;             /* ... after this many evaluation steps, */
  double stop;           /* ... or at a top keyed below this */
  double lead;           /* coarse gains keyed below this are not evaluated
                          * finely (next_stale in mf_heaps.c) */
  int first_phase;       /* several heaps, no fine evaluations before the lead */
  double thresh;         /* clusters bounded below this are skipped */
  fl_heap *heaps;
  fl_mf_heap *hs;
  fl_mf_heap *ts;        /* per thread, FL_TEAM_BATCH: the first evaluations */
  fl_barrier *bar;       /* one per group (nhpc) */
  int nbar;              /* barriers initialised */
  fl_entry *entries;     /* heap storage, m */
  fl_entry *fresh;       /* nheaps x batch: fresh tops of the round */
  int *nfresh;
  double *ub;            /* m: upper bound on each candidate's gain */
  double *keys;          /* m: scratch of the online bound (mf_dual.c) */
  int *fine_round;       /* m: round of each candidate's last fine evaluation */
  int *settle_round;     /* m: round in which its coarse gain was last keyed down */
  unsigned char *checked; /* m: evaluated as a loose rival (mf_contest.c) since its
                           * last coarse evaluation */
  int refine;            /* fine evaluations of the picks (eps > 0) */
  double first_gain;     /* the first pick's gain, the largest of all */
  double loose_pairs;    /* kernel evaluations of the loose contests (mf_contest.c) */
  int exact_tail;        /* a pick of zero gain came up: keys from the bounds ub,
                          * evaluations exact from then on (mf_contest.c) */
  int again;             /* the round made no pick: its lead fell behind when
                          * evaluated finely in fl_mf_merge, and it runs again */
  int guess;             /* evaluations coarser, keys adding their guess (first_gains) */
  int deferred;          /* keyed by the chord bounds, candidates not yet evaluated
                          * wait for the first picks (fl_mf_deferred_gains) */
  double round_work;     /* the last round's kernel pairs plus the clients: what
                          * the next round's team is sized by (fl_mf_team) */
  unsigned char *chosen; /* m */
  fl_entry *merged;      /* nheaps x batch */
  int *from;             /* heap of each merged entry */
  int npick;
  int *pick;             /* batch */
  fl_cand *pcand;        /* batch: the picks, as fl_clusters_post_chunk takes them */
  float *pyo;            /* batch x d: their offsets (pcand[q].yo) */
  unsigned char *skip;   /* batch x K */
  double *part;          /* nchunks x batch */
  double *hwpick;        /* batch x K reaches of the picks */
  double *distpick;      /* K scratch */
  double *tcount;        /* per thread, padded: pairs, evaluations */
  double *lanes;         /* per thread, padded: its records of the last steps, by
                          * step parity (mf_share.c) */
  int *teval;            /* per thread, krow + 4 (zeros past K): a plan's clusters */
  int qmax;              /* most candidates evaluated together */
  int *tpos;             /* per thread, 3 qmax + 2 nchunks: walk_chunks' cursors
                          * and buckets, pair_run's counts of visits per chunk */
  float *tdf;            /* per thread: FL_DOT_BATCH candidates' distances to the
                          * centers (plan_batch) */
  double *post_work;     /* nchunks + 1: client visits of the post pass before
                          * each chunk, which cut it between pairs (fl_mf_post) */
};


/* Per-thread counters sit FL_MF_PAD doubles apart (own cache line). */
#define FL_MF_PAD 8

/* Threads per group. */
static inline int fl_mf_group_size(const fl_mf_config *g, const fl_control *c)
{
  if (!g->grouped) return 1;
  int M = c->group_size < c->threads ? c->group_size : c->threads;
  return M < 1 ? 1 : M;
}

/* One heap for one group; with several, FL_HEAPS_PER_GROUP per group,
 * taken in turn (a round's CELF work is uneven across heaps). */
static inline int fl_mf_heap_count(const fl_mf_config *g, const fl_control *c)
{
  int G = c->threads / fl_mf_group_size(g, c);
  return G > 1 ? FL_HEAPS_PER_GROUP * G : 1;
}

/* Candidates a leader posts at evaluation step `step` of a heap's
 * refresh: one, as lazy greedy does, or (post_many) several, which keeps
 * M > 1 lanes busy between barriers and lets the candidates posted
 * together share the chunks they visit in cache, at the price of
 * evaluating a few tops lazy greedy might not have needed.  A round's
 * chain of stale tops is a few dozen to hundreds long, so the posts
 * double with each step. */
static inline int fl_mf_post_cap(const fl_mf_config *g, const fl_control *c, int step)
{
  if (!g->post_many) return 1;
  int per_lanes = FL_POST_PER_LANE * fl_mf_group_size(g, c);
  int cap = per_lanes > FL_POST_MIN ? per_lanes : FL_POST_MIN;
  for (; step > 0 && 2 * cap <= FL_POST_MAX; step--) cap *= 2;
  return cap;
}

/* The most candidates a leader posts at once. */
static inline int fl_mf_post_most(const fl_mf_config *g, const fl_control *c)
{
  return fl_mf_post_cap(g, c, INT_MAX);
}

/* The team of a round's parallel region (one thread all along for a
 * problem too small for a team: fl_clusters.threads): fl_team()'s, or, in nhpc, one
 * thread where the last round's work could not pay for a team's
 * barriers (its groups meet three times per evaluation step, hc's and
 * hpc's teams three times a round).  The answer is the same either way. */
static inline int fl_mf_team(const fl_mf *r)
{
  return r->cfg->grouped ? fl_par_threads(r->cl.threads, r->round_work, FL_PAR_MIN_ROUND_WORK)
                         : fl_team(r->cl.threads);
}

static inline int fl_mf_batch_size(const fl_control *c)
{
  int b = c->batch < c->k ? c->batch : c->k;
  return b < 1 ? 1 : b;
}

/* Doubles of each thread's records of the last two steps (mf_share.c):
 * share, seconds and work of its plans and of its client visits. */
#define FL_LANE_REC 3
enum { FL_PHASE_PLANS, FL_PHASE_VISITS };

static inline size_t fl_mf_lane_stride(void)
{
  return fl_thread_stride(4 * FL_LANE_REC, sizeof(double));
}

/* Ints of each thread's walk_chunks scratch (tpos): pos, stop and link per
 * posted candidate, then a bucket and a count of visits per chunk. */
static inline size_t fl_mf_tpos_size(const fl_mf *r)
{
  return 3 * (size_t) r->qmax + 2 * (size_t) (r->cl.nchunks > 0 ? r->cl.nchunks : 1);
}

/* Thread tid's tpos scratch. */
static inline int *fl_mf_tpos(const fl_mf *r, int tid)
{
  return r->tpos + (size_t) tid * fl_thread_stride(fl_mf_tpos_size(r), sizeof(int));
}

/* Floats of each thread's distances to the centers (plan_batch). */
static inline size_t fl_mf_tdf_size(const fl_mf *r)
{
  return fl_thread_stride((size_t) FL_DOT_BATCH * r->cl.krow, sizeof(float));
}


/* The first lane of lane's pair, and the first lane after it. */
static inline int fl_pair_front(int lane)
{
  return lane & ~1;
}

static inline int fl_pair_next(int lane, int M)
{
  return (lane | 1) + 1 < M ? (lane | 1) + 1 : M;
}

/* The first of n items whose position is at least fraction f of the way. */
static inline int fl_cut_at(double f, int n)
{
  return f >= 1.0 ? n : (int) (f * n);
}

static inline fl_claim fl_claim_start(fl_units *taken, fl_units n)
{
  fl_claim c = { taken, n, taken ? 0 : n, 0 };
  return c;
}

/* The units this lane holds once it has claimed up to `need` of them
 * from its end, or more: fewer when the other lane holds the rest. */
static inline fl_units fl_claim_upto(fl_claim *c, fl_units need)
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
 * group's leader zeroes its pairs' before it posts a step,
 * fl_mf_post_start the team's for fl_mf_post. */
static inline fl_units *fl_pair_claims(const fl_mf *r, int tid)
{
  return r->claims + (size_t) tid * fl_thread_stride(2, sizeof(fl_units));
}

/* mf_share.c: how lanes share a step's work */
fl_share fl_pair_even(int lane, int M);
fl_share fl_pair_share(const fl_mf *r, int tid, int lane, int M, int parity);
void fl_claims_reset(const fl_mf *r, int base, int M);
void fl_note_lane(fl_mf *r, int tid, int parity, const fl_lane_step *step);

/* mf_alloc.c */
int fl_mf_alloc(fl_mf *r);
void fl_mf_free(fl_mf *r);
double fl_mf_bytes(const fl_problem *p, const fl_control *c, const fl_mf_config *g);

/* mf_eval.c: gain evaluations of posted candidates */
void fl_mf_eval_share(fl_mf *r, fl_mf_heap *s, int all, fl_share sh, int lane, int M,
                      fl_barrier *bar, int tid, fl_lane_step *rec);
void fl_mf_eval_alone(fl_mf *r, fl_mf_heap *s, int tid);
fl_entry fl_mf_evaluated(fl_mf *r, const fl_mf_heap *s, int q, int round);
void fl_mf_team_eval(fl_mf *r, int all);
void fl_mf_team_gains(fl_mf *r, int np, double thresh, double *gain, double *ub);

/* mf_first.c: the heaps and every candidate's first evaluation */
double fl_mf_setup_heaps(fl_mf *r, const fl_problem *p, int *open);
int fl_mf_first_gains(fl_mf *r, int nopen, int covered);
int fl_mf_deferred_gains(fl_mf *r, int round);

/* mf_heaps.c */
void fl_mf_round_start(fl_mf *r, int round);
/* Every heap entry stale, its key raised by `raise` or (bounds) set to its
 * certified bound; heaps rebuilt (serial). */
void fl_mf_stale_keys(fl_mf *r, double raise, int bounds);
int fl_mf_pool_fresh(fl_mf *r);
/* A team phase: every thread of a parallel region calls it.  The team
 * refreshes every heap, its groups taking heaps in turn, the M threads of
 * group g (this one at lane) sharing each heap's evaluations and meeting
 * at the group's barrier; g < 0: a thread in no group, which only meets
 * the team.  With H heaps, first up to ceil(batch / H) fresh entries
 * each, in at most FL_FIRST_PHASE_STEPS steps; then (several heaps, or a
 * quota below the batch) the team meets, one thread sets the second
 * phase, the team evaluates the first phase's best finely (with eps > 0
 * and several heaps) and meets twice more, and the heaps whose tops can
 * still beat the batch-th best fresh entry found go on to batch.  The
 * caller meets the team before it reads the fresh entries. */
void fl_mf_team_refresh(fl_mf *r, int g, int lane, int M);

/* mf_select.c */
/* Pick the round's facilities from the heaps' fresh entries (serial). */
void fl_mf_merge(fl_mf *r);
/* Ready a post-selection pass: its pairs' claims zeroed, its chunk ids
 * cut by their work (serial, before every pass). */
void fl_mf_post_start(fl_mf *r);
/* Post-selection pass over the chunks, shared by every thread of a
 * parallel region (or run serially) without a barrier: the coverage
 * (cover) and the cluster summaries (summary). */
void fl_mf_post(fl_mf *r, int cover, int summary);
double fl_mf_record_picks(fl_mf *r, fl_result *res);

/* mf_contest.c: may merged entry q (fine, the round's next pick) be
 * committed?  Before the round's first pick, the loose rivals are
 * evaluated without estimates; then the candidates keyed within
 * FL_CONTEST eps of its gain whose bound reaches it are evaluated exactly
 * with it (the round's first pick; for a later one, any such candidate
 * defers it to the next round): FL_DEFER when one of them gains more,
 * the pick then keyed by its exact gain; FL_ZERO_GAIN_PICK when the
 * pick's gain is nil (FL_ZERO_GAIN of the first pick's), for the caller
 * to call fl_mf_rekey_from_bounds() once the round's entries are back in
 * their heaps. */
typedef enum { FL_COMMIT, FL_DEFER, FL_ZERO_GAIN_PICK } fl_verdict;
fl_verdict fl_mf_contest(fl_mf *r, int q, int nm);
/* Every key set to its certified bound (stale), evaluations exact and in
 * double precision from then on (r->exact_tail). */
void fl_mf_rekey_from_bounds(fl_mf *r);

/* mf_bound.c */
double fl_mf_refined_topk(fl_mf *r, double budget, int *evaluated);
/* Kernel evaluations of the solve so far, over the threads. */
double fl_mf_pairs(const fl_mf *r);

/* mf_dual.c: the online bound after the picks so far (fl_trace), and the
 * LP dual of the final set (fl_certify_dual; uses ub and the layout's
 * coverage, which it leaves changed) */
void fl_mf_online(fl_mf *r, fl_result *res, double f);
int fl_mf_certify(fl_mf *r, const fl_problem *p, const fl_control *c, fl_result *res);

/* mf_solve.c: the driver every generation calls */
int fl_mf_solve(const fl_problem *p, const fl_control *c, const fl_mf_config *g,
                fl_result *res);

#endif
