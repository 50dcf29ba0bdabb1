/* Matrix-free client layout for modes hc, hpc and nhpc: the clients sorted
 * by k-means cluster, cut into chunks of at most FL_CHUNK clients, with the
 * coverage, per-chunk and per-cluster summaries, and the per-cluster upper
 * bounds on a candidate's gain that let whole clusters be skipped.
 *
 * The bounds use the leaves of a two-level k-means (see
 * fl_clusters_max_leaves).  Every gain is a sum of per-chunk partial sums (clients in layout order)
 * added in chunk order, so it has the same bits whichever thread computes
 * which chunk. */
#ifndef FL_CLUSTERS_H
#define FL_CLUSTERS_H

#include "facloc.h"
#include "fl_tune.h"   /* FL_CHUNK, FL_DOT_BATCH */

typedef struct {
  int lo, hi;     /* clients lo..hi-1 of the layout */
  int nact;       /* active (unpruned) clients are lo..lo+nact-1 */
  int cluster;
} fl_chunk;

/* Weight sums and coverage minima of active and pruned clients, and the
 * pruned clients' slack: the most they can add to any gain, sum w (1 - m). */
typedef struct {
  double wact, minact, wpr, minpr, slackpr;
} fl_summary;

typedef struct {
  int n, m, d, K, nchunks;
  int threads;             /* of the solve's regions (scratch is sized for the
                            * control's): 1 where n x m is too small for a team */
  double inv2s2, tau;
  int prune;               /* coverage pruning (hpc, nhpc) */
  const double *y;         /* candidates, m x d */
  double *xs;              /* n x d: clients in layout order */
  float *xf;               /* n x d, with eps > 0 (else NULL): clients - org in single
                            * precision, by coordinate within each chunk (chunk c's
                            * coordinate t at xf[lo d + t (hi - lo)]) */
  float *xn;               /* n, with xf: the squared norms of its clients, rounded once */
  double *ws;              /* n weights in layout order */
  double *cover;           /* n coverage in layout order */
  int K1;                  /* top-level clusters */
  double *top;             /* K1 x d: their centers */
  int *kbase;              /* K1 + 1: top cluster t's leaves are kbase[t]..kbase[t + 1] - 1 */
  double *mu, *rad;        /* K x d centers, K radii (enlarged: see fl_clusters_reach) */
  double *span;            /* K: bound on |client - org| over each leaf's clients */
  double *org;             /* d: the mean of the centers */
  float *muf;              /* d x K: centers - org in single precision, by coordinate */
  float *mun;              /* K: their squared norms, rounded once */
  int krow;                /* K rounded up to a multiple of FL_COLS_PAD */
  float *yf;               /* per thread, yf_stride: a point - org in single
                            * precision (d) and its distances to the centers (krow),
                            * then the plan's scratch: a candidate's squared and plain
                            * distances to the owners and their inverses (K each),
                            * and the gain estimates' terms (3 K) */
  size_t yf_stride;
  double *bounds;          /* per thread: the plan's bounds (krow) */
  int *listed;             /* per thread: the leaves whose gain it estimates (K) */
  double *rms2;            /* K: mean squared distance of the clients to the center */
  double *lnw, *lnw_all;   /* K: log weight of the active / of all clients */
  double *lnmin, *lnmin_all;   /* K: log coverage minimum of the active / of all clients */
  double *reach2;          /* K: 2 FL_COLD_SD sqrt(rms2 / d), see fl_clusters_plan */
  /* Each leaf's owner, the open facility nearest to its center (see
   * fl_clusters_own): */
  int *own;                /* K: its candidate index, -1 while none is open */
  double *side2;           /* K: (2 FL_COLD_SD times the leaf's spread across the bisector)^2 */
  double *side, *iside;    /* K each: its square root and the inverse of that */
  double *own2;            /* K: its squared distance to the center, HUGE_VAL while none */
  int *oslot;              /* K: its column in ownf */
  int nown;                /* distinct owners */
  int *slot;               /* m: each owner's column in ownf, -1 for the other
                            * candidates */
  float *ownf;             /* d x K: the distinct owners - org in single precision, by
                            * coordinate (stride K) */
  int *first;              /* K + 1: first chunk of each cluster */
  fl_chunk *chunk;
  fl_summary *csum;        /* per chunk */
  unsigned char *touched;  /* per chunk: summary made since fl_clusters_reduce() */
  /* Per cluster, K each (one block from wact): weight and coverage minimum
   * of the active clients, of the pruned ones and of all, by field so that
   * the plan's loop over the clusters vectorises. */
  double *wact, *minact, *wpr, *minpr, *wall, *minall;
  double *slackpr;         /* K: the pruned clients' slack, by leaf */
  double pruned;           /* their sum over the leaves: what the pruned clients can
                            * add at most to any candidate's gain */
  /* The per-cluster values fl_clusters_plan() reads, in single precision
   * (fl_cl_leaf_floats in cl_summaries.c; one block from radf, krow each, zeros
   * past K): the weights and radii rounded up and the coverage minima
   * down, so that its bounds stay bounds, the rest to nearest. */
  float *radf, *wactf, *minactf, *wprf, *minprf, *wallf, *minallf, *lnwf, *lnw_allf;
  float *lnminf, *lnmin_allf, *rms2f, *reach2f, *own2f, *side2f;
  double *scratch;         /* per thread: room to reorder one chunk */
  int estimates;           /* skip leaves by estimates too (see FL_MIXED_SHARE) */
  double pairs;            /* kernel evaluations of the set-up */
  int double_gains;        /* gains in double precision although xf is kept: the
                            * matrix-free modes' exact tail (fl_mf_rekey_from_bounds),
                            * where gains lie below single precision's resolution */
} fl_clusters;

/* Cluster and lay out the clients, open the initial facilities.  prune
 * turns on coverage pruning at c->tau.  On failure all is freed. */
int fl_clusters_init(fl_clusters *cl, const fl_problem *p, const fl_control *c, int prune);
void fl_clusters_free(fl_clusters *cl);
/* Most leaf clusters the layout can have (K): the `clusters` top-level
 * k-means clusters are each split into leaves of about 0.35 sqrt(n) clients. */
int fl_clusters_max_leaves(const fl_problem *p, const fl_control *c);
/* Bytes fl_clusters_init allocates. */
double fl_clusters_bytes(const fl_problem *p, const fl_control *c);

/* The leaf whose center is nearest to yc among the leaves of the top-level
 * cluster whose center is nearest (lowest index on ties); *d2 receives the
 * squared distance to that center. */
int fl_clusters_locate(const fl_clusters *cl, const double *yc, double *d2);
/* Note facilities idx[0..np-1] just opened: each becomes the owner of the
 * leaves whose centers it is nearer to than their owners (serial). */
void fl_clusters_own(fl_clusters *cl, const int *idx, int np);
/* est[L]: the estimate of fl_clusters_plan of the similarity mass of all
 * clients around the center of leaf L, for every leaf (K^2 distances, in
 * parallel). */
void fl_clusters_leaf_mass(const fl_clusters *cl, double *est);

/* A candidate as fl_clusters_distances, fl_clusters_plan and
 * fl_clusters_chunk_gains take it. */
typedef struct {
  const double *yc;   /* its row of y */
  const float *yo;    /* yc - org in single precision (d floats) */
  float yn2;          /* |yo|^2, rounded once */
  double ynorm;       /* |yc - org| */
} fl_cand;

/* hw[k]: an upper bound on the similarity of candidate cand (from
 * fl_clusters_offset) to any client of cluster k (the nearest point of the
 * cluster's ball); dist[k]: the distance of cand to the cluster's center,
 * in single precision (it only feeds estimates).  Call from at most one
 * thread per thread id. */
void fl_clusters_reach(const fl_clusters *cl, const fl_cand *cand, double *hw, double *dist);

/* Fill *cand for candidate yc, its offset into yo (d floats). */
void fl_clusters_offset(const fl_clusters *cl, const double *yc, float *yo, fl_cand *cand);
/* The distances in single precision of nq <= FL_DOT_BATCH candidates to
 * the leaves' centers, into df + q krow (krow floats each), as
 * fl_clusters_plan takes them. */
void fl_clusters_distances(const fl_clusters *cl, int nq, const fl_cand *const *cand,
                           float *df);
/* The tests by which a plan skips clusters most likely covered already. */
typedef enum {
  FL_COLD_NONE,    /* none: nothing covered yet, or an exact evaluation */
  FL_COLD_OWNER,   /* the bisector test and the gain estimate (fine evaluations) */
  FL_COLD_ALL      /* those and the near-point test (coarse evaluations) */
} fl_cold;

/* Decide which clusters a gain evaluation of candidate cand visits, from
 * its distances df to the centers (fl_clusters_distances, overwritten):
 * eval[k] = 1 for clusters whose bound on the gain (from the reach of
 * fl_clusters_reach) is positive and either at least thresh or, by the
 * estimate W exp(-(dist^2 + rms2) / 2 sigma^2) of their similarity mass (a
 * lower bound by Jensen's inequality, close to it in high dimension, where
 * the ball bounds are loose), at least FL_EST_FRACTION thresh.  With cold
 * tests (cold not FL_COLD_NONE, and thresh > 0), clusters cold for yc are
 * skipped too: those that lie beyond the bisector of yc and their owner by
 * FL_COLD_SD standard deviations (see FL_ISOTROPIC): the center is that
 * much nearer to the owner than to yc along the line joining them ((dist^2
 * - own2) / |yc - owner| at least sqrt(side2) / 2), with yc outside the
 * leaf's ball; and with FL_COLD_ALL those whose coverage minimum is at
 * least the similarity of yc to a point FL_COLD_SD standard deviations of
 * the cluster's spread nearer to yc than its typical client (squared
 * distance dist^2 + rms2 - reach2 dist, the near-point test), unless their
 * bound exceeds FL_DROP_CAP thresh, as for the gain estimate.  In high
 * dimension no client comes that near to yc, or crosses to its side of the
 * bisector, so every client is covered better than yc could cover it.
 * Last, with cold tests, clusters whose estimated gain is below
 * FL_GAIN_FRACTION thresh are skipped (an estimate; measured:
 * inst/bench/results/tunables.md, plan: the cold tests).  Returns an
 * upper bound on what the evaluation leaves out: the bounds of the
 * skipped clusters plus those of the pruned clients.  With all, the
 * evaluation will visit pruned clients too (thresh 0: an exact evaluation).
 * With skipped (non-NULL), *skipped receives an estimate of what the
 * clusters skipped would add to the gain, and the plan skips more: without
 * cold (no client covered yet), their mass estimate, with the mass test at
 * FL_GUESS_EST_FRACTION thresh and every leaf whose ball holds yc visited
 * instead of the bound test (see plan in cl_plan.c);
 * with cold tests, the gain estimates of those it drops, at
 * FL_GUESS_GAIN_FRACTION thresh.  Call from at most one thread per thread
 * id. */
double fl_clusters_plan(const fl_clusters *cl, const fl_cand *cand, float *df, double thresh,
                        int all, fl_cold cold, int *eval, double *skipped);

/* The clusters a plan visits (eval[k] != 0, eval padded with four zeros),
 * in order, into the calling thread's scratch (K ints, the one the plan
 * uses: read it before the thread's next plan); *n receives their count. */
const int *fl_clusters_visited(const fl_clusters *cl, const int *eval, int *n);

/* Partial gains gain[q] of nq <= FL_DOT_BATCH candidates over the active
 * clients of chunk ch (all clients when all != 0): in single precision,
 * as dot products, when cl->xf is set, each with slack[q], what the
 * rounding may have taken off it (0 in double precision), so the true
 * partial gain is at most the sum of the two. */
void fl_clusters_chunk_gains(const fl_clusters *cl, int ch, int nq, const fl_cand *const *cand,
                             int all, double *gain, double *slack);

/* The post-selection work on one chunk for npick new facilities pick[q]
 * (from fl_clusters_offset; skip[q * K + k] set when pick q cannot raise
 * any coverage in cluster k): with cover, raise the coverage and add pick
 * q's true marginal gain over this chunk (picks applied in order) to
 * part[q]; with summary, prune the clients covered above tau (when
 * pruning) and refresh the chunk summary.  Returns the kernel evaluations.
 * tid selects the reorder scratch. */
double fl_clusters_post_chunk(fl_clusters *cl, int ch, const fl_cand *pick, int npick,
                              const unsigned char *skip, double *part, int cover,
                              int summary, int tid);
/* skip table of fl_clusters_post_chunk from the picks' reaches hw
 * (npick x K, from fl_clusters_reach). */
void fl_clusters_skip_table(const fl_clusters *cl, const double *hw, int npick,
                            unsigned char *skip);
/* Cluster summaries from the chunk summaries (serial, in chunk order). */
void fl_clusters_reduce(fl_clusters *cl);
/* Every pruned client back in the evaluations, and tau halfway to 1, so
 * that fewer are pruned again (serial). */
void fl_clusters_readmit(fl_clusters *cl);
/* The leaves' moments that fl_chords_bound reads (cl_chords.c), per leaf
 * (krow floats each, zeros past K): V, the sum of v_i = w_i (1 - m_i) over
 * its clients; s2, their v-weighted mean squared distance to its center;
 * g, the distance of their v-weighted mean to the center; lift, what the
 * center's norm adds to the rounding of a distance to it (FL_DOT_LIFT). */
typedef struct {
  float *mass, *s2, *g, *lift;
} fl_chords;
int fl_chords_init(const fl_clusters *cl, fl_chords *ch);
void fl_chords_free(fl_chords *ch);
/* ub[q]: an upper bound on the similarity mass sum_i v_i s_i of candidate
 * idx[q] (a row of cl->y), q < count, by the leaves' chords (in parallel). */
int fl_chords_bound(const fl_clusters *cl, const fl_chords *ch, const int *idx, int count,
                    double *ub);
/* f(S) from the coverage, summed serially in layout order. */
double fl_clusters_objective(const fl_clusters *cl);

#endif
