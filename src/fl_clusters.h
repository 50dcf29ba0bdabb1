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

#define FL_CHUNK 64
/* A cluster is skipped only if its estimated mass is below this fraction
 * of the skip threshold (see fl_clusters_plan). */
#define FL_EST_FRACTION 0.01
/* The same fraction where the mass estimates of the skipped clusters are
 * added to the gain (the first evaluations, see FL_FIRST_COARSE in
 * mf_eval.c): a skipped cluster then costs only the error of its
 * estimate.  Against FL_EST_FRACTION, with the first evaluations' bound
 * test at the same threshold and Jensen's correction in the estimates,
 * 1 / 30 visited 29% fewer pairs on "weak_cluster", 8% and 11% fewer on
 * "medium_cluster" (n = 12000 and 30000), 4% on "heavy_skew", with the
 * same f(S) on the 13 presets; 1 / 10 too, 1 / 3 fell to 0.99514 of
 * greedy's on "heavy_skew".  Raising the bound test's threshold with it
 * (first evaluations at 6 instead of 3 times the skip threshold) fell to
 * 0.9956 there: the near clusters' estimates are the poor ones. */
#define FL_GUESS_EST_FRACTION (1.0 / 30)
/* A candidate's coarse evaluation skips a leaf when even a client that
 * stands this many standard deviations of the leaf's spread (per
 * coordinate, sqrt(rms2 / d)) closer to it than the leaf's typical client
 * would be covered already (see fl_clusters_plan).  After the first round,
 * 54% to 67% of the pairs nhpc visited on "weak_cluster" and
 * "medium_cluster" (n = 12000) gained nothing; 3 skips three quarters of
 * them and kept f(S) on the presets equal to greedy's (2 and 2.5 lost up
 * to 0.008%). */
#define FL_COLD_SD 3.0
/* The bisector test of fl_clusters_plan takes a leaf's spread across the
 * bisector to be sqrt(rms2 / d), that of a random direction, only where no
 * direction holds more than this many times that variance (the largest
 * eigenvalue of the leaf's covariance), and that largest spread elsewhere:
 * the line from a candidate to the owner runs along the directions where
 * the clients spread most.  The leaves of the clustered presets (n =
 * 12000) had 4.0 to 4.2 times as median, about what so few clients in 32
 * dimensions draw from a round cluster; those of points near a 2- to
 * 8-dimensional subspace (inst/bench/bench-lowdim.R) 9.3 to 15, and 7.5
 * or more in 95%.  With sqrt(rms2 / d) for every leaf, 18 of the 180 runs
 * of bench-lowdim.R ended below 0.999 of greedy's f(S), against 6 (the
 * same 6, with the same f(S)) before the bisector test and with it. */
#define FL_ISOTROPIC 6.0
/* Where more than FL_MIXED_SHARE of the leaves look like parts of several
 * of the data's clusters, the evaluations skip leaves by their bounds
 * alone (estimates 0 in fl_clusters): no skips by mass or gain estimates
 * and no estimates added to a key, no cold tests, and first evaluations at
 * the skip threshold itself (no FL_FIRST_COARSE, no visits by ball alone);
 * the mass test still adds visits.  The estimates and cold tests take a
 * leaf's clients for one normal spread.  A leaf looks so when it spreads
 * along some direction more than FL_MIXED_EXCESS times as much as an
 * isotropic sample of its size would at most (the edge of the
 * Marchenko-Pastur law, (1 + sqrt(d / m))^2 rms2 / d for m clients) and
 * two groups split along that direction explain more than FL_MIXED_SPLIT
 * of its variance there (split_share in cl_summaries.c: 0.64 for a normal
 * spread, 0.75 for a uniform one).  On the presets at n = 1000 and 2000,
 * whose 128 clusters have about as many clients as a leaf or fewer, the
 * estimates fell 8 to 19 times short of a leaf's similarity mass near a
 * candidate, whose key then stayed below its gain: 5 of their 40 runs (k
 * = 20 and 100; inst/bench/quality-sizes.sh) ended 0.13% to 0.27% below
 * greedy's f(S).  Such leaves made up 13% to 42% of the leaves there (10%
 * on "uniform" at n = 2000), 5% to 16% at n = 3000, at most 12.4% at
 * 5000, 8% on the 14 benchmark files and 8.2% on "small",
 * "medium_cluster" and "weak_cluster" at d = 64 and 128 (n = 4000 and
 * 12000; "heavy_skew" at d = 64, n = 4000: 11.5%), and at most 2% on
 * points near 2- to 16-dimensional subspaces (bench-lowdim.R's, n =
 * 6000), whose leaves are elongated but not split:
 * without the split test 32% to 98% of theirs counted, and they took 1.7
 * to 2.7 times the pairs for the same f(S).  With the bounds alone all 44
 * runs it changed (n = 1000 and 2000 but "uniform" at 2000, "heavy_skew"
 * and "mild_skew" at 3000, "heavy_skew" at 5000) matched greedy, at 1.9 to
 * 9.6 times the pairs (at most 0.06 s at one thread), and all 104 runs of
 * quality-sizes.sh ended within 0.1% of it; the 14 benchmark files, the
 * 180 runs of bench-lowdim.R and those 12 runs at d = 64 and 128 gave the
 * same pairs and f(S) as before. */
#define FL_MIXED_EXCESS 2.0
#define FL_MIXED_SPLIT 0.85
#define FL_MIXED_SHARE 0.12
/* A coarse evaluation also skips a leaf that it would visit, with the
 * candidate outside the leaf's ball and farther from its center than the
 * owner, when an estimate of the leaf's partial gain is below this fraction
 * of the skip threshold: a client gains at most s_c (1 - s_o / s_c) when
 * the owner's similarity s_o covers it, and s_o / s_c = exp(((dist^2 -
 * own2) - 2 p |yc - owner|) / 2 sigma^2) depends on the client only through
 * its offset p from the center along the line from the owner to the
 * candidate.  With p normal (the spread of FL_ISOTROPIC) and s_c at the
 * mass estimate's mean (Jensen's correction included), the expected gain
 * per unit of mass is phi(z) (R(z) - R(z + tau)), z = FL_COLD_SD (dist^2 -
 * own2) / (|yc - owner| sqrt(side2)), tau = the spread of log s_o / s_c, R
 * Mills' ratio (approximated).  After the first round, 41% to 51% of the
 * pairs nhpc visited on "weak_cluster", "medium_cluster" and "heavy_skew"
 * lay in leaves that gained nothing (n = 12000; "medium_cluster" at n =
 * 30000 too).  This fraction holds where the estimates of the leaves it
 * drops are not added to the gain: in the fine evaluations of FL_TIE in
 * mf_eval.c, and in the coarse ones of several heaps when those had
 * none (their picks taken by coarse gains), where with leaves of 0.35
 * sqrt(n) clients 0.003 left "hc" at two threads 0.99828 of greedy's f(S)
 * on "weak_cluster" (n = 12000; 0.99976 with the test off) and 0.001
 * 0.99963 or more on the 13 presets. */
#define FL_GAIN_FRACTION 0.001
/* The fraction where the estimates of the leaves dropped are added to the
 * gain (coarse evaluations: the picks are evaluated finely), so that a dropped leaf
 * costs only its estimate's error.  The estimates are high on the whole
 * (the leaves kept at 0.003, nhpc at one thread after the first round:
 * 0.24 and 0.53 of their estimates gained on "weak_cluster" and
 * "medium_cluster", n = 12000), which keeps a candidate's key from
 * falling below its gain.  Against 0.003 without the estimates, nhpc at
 * one thread visited 37% fewer pairs on "weak_cluster", 33% and 22% on
 * "medium_cluster" (n = 12000 and 30000), 4% on "heavy_skew" and
 * "medium", 1% to 5% on the other presets; f(S) the same on the 13
 * presets except "medium_cluster" (n = 12000), 0.99987 of greedy's
 * instead of 0.99994, and "weak_cluster", 1.00000 instead of 0.99997.
 * 0.03 visited 5% more pairs on "weak_cluster", 3% on "medium_cluster";
 * 0.3 1.5% fewer on "weak_cluster", the same elsewhere. */
#define FL_GUESS_GAIN_FRACTION 0.1

typedef struct {
  int lo, hi;     /* clients lo..hi-1 of the layout */
  int nact;       /* active (unpruned) clients are lo..lo+nact-1 */
  int cluster;
} fl_chunk;

/* Weight sums and coverage minima of active and pruned clients. */
typedef struct {
  double wact, minact, wpr, minpr;
} fl_summary;

typedef struct {
  int n, m, d, K, nchunks, threads;
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
  /* The per-cluster values fl_clusters_plan() reads, in single precision
   * (fl_cl_leaf_floats in cl_summaries.c; one block from radf, krow each, zeros
   * past K): the weights and radii rounded up and the coverage minima
   * down, so that its bounds stay bounds, the rest to nearest. */
  float *radf, *wactf, *minactf, *wprf, *minprf, *wallf, *minallf, *lnwf, *lnw_allf;
  float *lnminf, *lnmin_allf, *rms2f, *reach2f, *own2f, *side2f;
  double *scratch;         /* per thread: room to reorder one chunk */
  int estimates;           /* skip leaves by estimates too (see FL_MIXED_SHARE) */
  double pairs;            /* kernel evaluations of the set-up */
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

/* Most candidates fl_clusters_chunk_gains and fl_clusters_distances take at
 * once: the kernel (fl_gain_dot_f) computes the squared distances as |x|^2
 * + |y|^2 - 2 x.y, one multiply-add per coordinate, for four candidates
 * from one load of each coordinate of the clients.  Against the difference
 * form, one candidate at a time, four candidates over 64, 43 and 27 clients
 * in L1 (d = 32, AVX-512 Xeon, best of 5): 1.5, 1.6 and 2.0 instead of 2.3,
 * 2.4 and 3.0 ns a pair with 16-float vectors, 1.8, 2.2 and 2.7 instead of
 * 3.0, 3.3 and 3.4 with AVX2.  After the first round 3.9 candidates share a
 * chunk on average ("medium_cluster", n = 12000). */
#define FL_DOT_BATCH 4

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
 * distance dist^2 + rms2 - reach2 dist, the near-point test).  In high
 * dimension no client comes that near to yc, or crosses to its side of the
 * bisector, so every client is covered better than yc could cover it.
 * Last, with cold tests, clusters whose estimated gain is below
 * FL_GAIN_FRACTION thresh are skipped (an estimate).  After the first round,
 * the near-point test left 38% to 72% of the pairs nhpc visited on five presets
 * in leaves that gained nothing; with the bisector test nhpc visits 37%
 * fewer pairs on "weak_cluster", 27% and 30% fewer on "medium_cluster" (n =
 * 12000 and 30000), 2% to 6% fewer on "heavy_skew" and "large" (n = 30000).
 * Returns an upper bound on what the evaluation leaves out: the bounds of
 * the skipped clusters plus those of the pruned clients.  With all, the
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
/* f(S) from the coverage, summed serially in layout order. */
double fl_clusters_objective(const fl_clusters *cl);

#endif
