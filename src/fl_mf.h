/* The CELF machinery the matrix-free solvers hc, hpc and nhpc share
 * (matrix_free.c): heaps over disjoint blocks of candidates, lazy gain
 * evaluations on the cluster layout, the merge of a round's picks, the
 * post-selection pass and the certified bound.  Each solver file only
 * decides how threads run a round. */
#ifndef FL_MF_H
#define FL_MF_H

#include "fl_clusters.h"
#include "fl_heap.h"
#include "fl_barrier.h"

/* Per-heap evaluation scratch, shared by the threads of the group working
 * on that heap, with room for Q candidates (post_most() in matrix_free.c,
 * FL_TEAM_BATCH for heap 0 and the per-thread scratch).  The leader posts
 * up to post_cap() of them at a time; the lanes plan them, then share out
 * their work items (the chunks each plan visits), in pairs: each pair
 * takes a run of the candidates and a run of chunk ids (eval_share in
 * matrix_free.c), cut by the lanes' speeds (balanced_cut), and its two
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
  unsigned char *fine; /* Q: evaluate it finely (see next_stale in matrix_free.c) */
  float *yo;           /* Q x d: each candidate - org (fl_clusters_offset) */
  fl_cand *cand;       /* Q: each candidate as the chunk gains take it */
  fl_entry *ahead;     /* Q: the heap's tops popped ahead of the next step
                        * (pop_ahead in matrix_free.c), in pop order */
  int nahead, ahead_at;
} fl_mf_heap;

typedef struct {
  fl_clusters cl;
  const fl_control *c;
  int k, batch, nheaps, round, nselected;
  int next_heap;         /* the next heap a group may take this phase */
  int *taken;            /* per group, a cache line apart: the heap its leader took */
  long long *claims;     /* per thread, a cache line apart: its pair's units claimed
                          * (claim_upto in matrix_free.c) */
  int quota;             /* a heap's refresh stops at this many fresh entries, */
  int steps;             /* ... after this many evaluation steps, */
  double stop;           /* ... or at a top keyed below this */
  double lead;           /* coarse gains keyed below this are not evaluated
                          * finely (see next_stale in matrix_free.c) */
  int first_phase;       /* several heaps, no fine evaluations before the lead */
  double thresh;         /* clusters bounded below this are skipped */
  fl_heap *heaps;
  fl_mf_heap *hs;
  fl_mf_heap *ts;        /* per thread, FL_TEAM_BATCH: the first evaluations */
  fl_barrier *bar;       /* one per group (nhpc) */
  fl_entry *entries;     /* heap storage, m */
  fl_entry *fresh;       /* nheaps x batch: fresh tops of the round */
  int *nfresh;
  double *ub;            /* m: upper bound on each candidate's gain */
  int *fine_round;       /* m: round of each candidate's last fine evaluation */
  int *settle_round;     /* m: round in which its coarse gain was last keyed down */
  int refine;            /* fine evaluations of the picks (eps > 0) */
  int again;             /* the round made no pick: its lead fell behind when
                          * evaluated finely in fl_mf_merge, and it runs again */
  int guess;             /* evaluations coarser, keys adding their guess (first_gains) */
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
                          * step parity (see balanced_cut in matrix_free.c) */
  int *teval;            /* per thread, krow + 4 (zeros past K): a plan's clusters */
  int qmax;              /* most candidates evaluated together */
  int *tpos;             /* per thread, 3 qmax + 2 nchunks: walk_chunks' cursors
                          * and buckets, pair_run's counts of visits per chunk */
  float *tdf;            /* per thread: FL_DOT_BATCH candidates' distances to the
                          * centers (plan_batch) */
} fl_mf;

/* Per-thread counters sit FL_MF_PAD doubles apart (own cache line). */
#define FL_MF_PAD 8

/* The team refreshes every heap, its groups taking heaps in turn, the M
 * threads of group g (this one at lane) sharing each heap's evaluations;
 * g < 0: a thread in no group, which only meets the team.  Call from
 * every thread of a parallel region (orphaned barriers; hc and hpc: each
 * thread a group of one).  With H heaps, first up to ceil(batch / H)
 * fresh entries each, in at most FL_FIRST_PHASE_STEPS steps; then the
 * heaps whose tops can still beat the batch-th best fresh entry found go
 * on to batch.  Ends with the team met. */
void fl_mf_refresh_heaps(fl_mf *r, int g, int lane, int M);
/* Pick the round's facilities from the heaps' fresh entries (serial). */
void fl_mf_merge(fl_mf *r);
/* Post-selection pass over the chunks: an orphaned omp for, to be called
 * by every thread of a parallel region (or serially). */
void fl_mf_post(fl_mf *r, int cover, int summary);

/* One round of each solver: refresh the heaps, merge, post pass. */
void fl_round_hc(fl_mf *r);
void fl_round_hpc(fl_mf *r);
void fl_round_nhpc(fl_mf *r);

#endif
