/*
 * Optimistic concurrency control (OCC) for DP-means, online facility
 * location and BP-means: the pieces the three algorithms share.
 *
 * A run makes passes over the n points (row-major, n x d).  Epoch t of the
 * OCC engine holds the P b consecutive rows from t P b; worker p proposes
 * the b of them from t P b + p b against the state known at the epoch's
 * start (in parallel), and the main thread then validates the epoch in row
 * order: the proposals, and once one is accepted the later non-proposers
 * too, against what was accepted before them.  The serial engine visits
 * the points one at a time in a given order, which is the same propose +
 * validate with an epoch of one point, so both share every floating-point
 * operation, and an OCC pass equals the serial pass in row order.
 *
 * End-of-pass sums (means, Z'Z, costs) are taken per summation shard in row
 * order and combined in shard order; shard p holds worker p's rows (its b
 * rows of every epoch), so a result does not depend on the number of
 * threads, a cluster worker holding those rows sums them the same way, and
 * a replay with the same shards gives the same bits.
 */
#ifndef OCC_COMMON_H
#define OCC_COMMON_H

#include "facloc.h"
#include "fl_omp.h"
#include "fl_tune.h"

/* Centers (DP-means, OFL) or features (BP-means): k rows of d, growable. */
typedef struct {
  double *v;
  int k, cap, d;
} occ_centers;

int occ_centers_init(occ_centers *c, int d, int cap);
int occ_centers_push(occ_centers *c, const double *x);
void occ_centers_free(occ_centers *c);

/* Nearest of centers [from, to) to x, continuing a running minimum: strict
 * comparison keeps the lowest index on ties whatever the split. */
void occ_nearest(const double *x, const double *centers, int d, int from,
                 int to, int *best, double *bestd);

/* Grow *p (elements of size elt) to hold at least need; FL_ERR_NOMEM. */
int occ_grow(void **p, int *cap, int need, size_t elt);

/* Wall-clock seconds (OpenMP timer when available). */
double occ_now(void);

/* How a run is organised. */
typedef struct {
  int n, d;
  const double *x;        /* n x d, row-major */
  int serial;             /* 1: serial engine, 0: OCC epochs */
  int workers, batch;     /* P and b of the OCC engine */
  const int *order;       /* serial: n x norder 0-based (column per pass,
                             the last reused), NULL for 0..n-1 */
  int norder;
  int shards;             /* summation shards (OCC: = workers), each
                             taking its blocks of `batch` rows in turn */
  int threads, max_iter;
  fl_interrupt_fn interrupted;
  void *callback_ctx;
} occ_setup;


/* An algorithm plugged into the engine. */
typedef struct {
  void *st;
  size_t slot_bytes;    /* per-proposal scratch it keeps (see occ_slots) */
  /* Before each epoch (main thread): freeze what proposals may read;
   * returns the work of one proposal (coordinates times centers). */
  double (*begin_epoch)(void *st);
  /* Any thread: 1 if point i proposes; slot is its place in the epoch. */
  int (*propose)(void *st, int i, int slot);
  /* Main thread, validation order: 1 accepted, 0 rejected, -1 no memory. */
  int (*validate)(void *st, int i, int slot);
  /* Main thread after a pass: update the model, set the objective and
   * whether the pass changed anything; returns an FL_* status. */
  int (*end_pass)(void *st, const occ_setup *s, double *objective, int *changed);
} occ_alg;

/* What a run reports; arrays owned here, freed by occ_trace_free. */
typedef struct {
  int iterations, converged;
  double *objective;                /* per pass */
  int nepochs, cap_epochs;
  int *ep_iter, *ep_proposed, *ep_accepted;
  double *ep_seconds;
  int nprop, cap_prop;
  int *prop;                        /* proposers, validation order */
  int *prop_pass;                   /* the pass of each (0-based) */
  int cap_obj;
} occ_trace;

/* Slots of per-proposal scratch (slot_bytes each) an algorithm allocates:
 * the points of the epochs the engine may propose at once. */
int occ_slots(const occ_setup *s, size_t slot_bytes);

/* Run passes until a pass changes nothing or max_iter.  FL_* status. */
int occ_run(const occ_setup *s, const occ_alg *a, occ_trace *tr);
void occ_trace_free(occ_trace *tr);

/* Helpers for end_pass: per-shard partials in row order, combined in shard
 * order.  part(ctx, lo, hi, out) adds rows [lo, hi) to len running sums. */
typedef void (*occ_part_fn)(void *ctx, int lo, int hi, double *out);
int occ_shard_sum(const occ_setup *s, occ_part_fn part, void *ctx, size_t len,
                  double *out);

/* Nearest-center assignment shared by DP-means and OFL: proposals search
 * the centers frozen at the epoch's start, validation the ones accepted
 * since, so the two searches together are the serial search. */
typedef struct {
  const double *x;
  int n, d;
  double lambda2;
  occ_centers c;
  int kfix;          /* centers proposals may read */
  int *z;            /* assignment of every point, 0-based */
  double *sd;        /* per slot: squared distance to z */
} occ_assign;

int occ_assign_init(occ_assign *a, const occ_setup *s, double lambda);
void occ_assign_free(occ_assign *a);
double occ_assign_begin(void *st);
/* Nearest frozen center of point i into z[i] and sd[slot]. */
void occ_assign_old(occ_assign *a, int i, int slot);
/* Continue with the centers accepted since; returns the squared distance. */
double occ_assign_new(occ_assign *a, int i, int slot);
/* Open a center at point i (validation only). */
int occ_assign_open(occ_assign *a, int i);
/* occ_run of an algorithm whose state starts with *a; on FL_OK z goes to
 * cluster and the centers to *centers, otherwise tr is freed.  Frees *a. */
int occ_assign_run(const occ_setup *s, const occ_alg *alg, occ_assign *a,
                   occ_trace *tr, int *cluster, occ_centers *centers);
/* A block's assignment state over caller-owned arrays (distributed steps);
 * centers are only read unless the caller installs its own occ_centers. */
occ_assign occ_assign_view(const double *x, int d, int m, double lambda,
                           const double *centers, int k, int *z, double *sd);

/* Cholesky solve of G a = b for a symmetric positive semi-definite k x k G
 * and k x d right-hand side b (row-major); a zero pivot sets its unknown to
 * zero, which still solves consistent normal equations.  b is overwritten
 * by a; G is destroyed. */
void occ_psd_solve(double *G, double *b, int k, int d);

/* Entry points.  cluster: n ints (0-based), caller-owned; centers, features
 * and Z are allocated here and owned by the caller on FL_OK (free with
 * occ_centers_free / free); on failure nothing leaks. */
int occ_dpmeans(const occ_setup *s, double lambda, int *cluster,
                occ_centers *centers, occ_trace *tr);
/* u: one uniform per point; facility: point index of each center. */
int occ_ofl(const occ_setup *s, double lambda, const double *u, int *cluster,
            double *cost, occ_centers *centers, int **facility, occ_trace *tr);
/* Z: n x zcap bytes row-major (first features->k columns used). */
int occ_bpmeans(const occ_setup *s, double lambda, unsigned char **Z,
                int *zcap, occ_centers *features, occ_trace *tr);

/* Distributed steps (R's parallel clusters): a worker holds m rows x of a
 * block with their state, the caller the model.  Each step runs the same
 * code as the threaded engine, so a distributed run has the same bits. */
/* The loops of those steps: propose rows [lo, hi) of a block (slot and
 * flag i - lo; work: of one proposal, as begin_epoch returns it), and
 * validate proposals 0..np-1 in order (slot j), stopping with FL_ERR_NOMEM
 * when validate runs out of memory. */
void occ_propose_rows(int (*propose)(void *, int, int), void *st, int lo,
                      int hi, double work, int threads, char *flag);
int occ_validate_list(int (*validate)(void *, int, int), void *st, int np,
                      int *accepted);
/* A block's non-proposers of rows [lo, hi) (slot i - lo) catch up with the
 * centers (features) accepted before them in their epoch: the `before`
 * accepted ahead of the block, then one more after each of its accepted
 * proposers (outcome per row: OCC_QUIET, OCC_ACCEPTED or OCC_REJECTED).
 * The model holds centers [0, kfix) and the epoch's new ones after them;
 * limit(st, k) lets validate read the first k. */
enum { OCC_QUIET = 0, OCC_ACCEPTED = 1, OCC_REJECTED = 2 };
void occ_catch_up_rows(int (*validate)(void *, int, int),
                       void (*limit)(void *, int), void *st, int lo, int hi,
                       const int *outcome, int kfix, int before);
void occ_assign_limit(void *st, int k);
void occ_dp_catch_up_rows(const double *x, int d, int m, int lo, int hi,
                          const double *centers, int kfix, double lambda, int *z,
                          double *sd, const int *outcome, int before);
void occ_ofl_catch_up_rows(const double *x, int d, int m, int lo, int hi,
                           const double *centers, int kfix, double lambda,
                           const double *u, double *cost, int *z, double *sd,
                           const int *outcome, int before);
void occ_bp_catch_up_rows(const double *x, int d, int m, int lo, int hi,
                          const double *A, int kfix, double lambda,
                          unsigned char *Z, int zcap, char *chg, double *res,
                          const int *outcome, int before);
void occ_dp_propose_rows(const double *x, int d, int m, int lo, int hi,
                         const double *centers, int k, double lambda,
                         int threads, int *z, double *sd, char *flag);
int occ_dp_validate_list(const double *xp, int np, int d, double lambda,
                         occ_centers *c, int *z, double *sd, int *accepted);
/* The block's end-of-pass partials: per cluster the count and the d
 * coordinate sums, then the count of changed rows (out: k (d + 1) + 1
 * values); returns that count. */
int occ_dp_block_tally(const double *x, int d, int m, int *z, int *zprev, int k,
                       double *out);
int occ_dp_means(const double *sums, int K, int d, double *centers, int *newid);
/* Renumber the block's rows by newid and return their cost under the new
 * centers (k of them). */
double occ_dp_block_relabel_cost(const double *x, int d, int m, int *z, int *zprev,
                                 const int *newid, const double *centers, int k);
void occ_ofl_propose_rows(const double *x, int d, int m, int lo, int hi,
                          const double *centers, int k, double lambda,
                          const double *u, double *cost, int threads, int *z,
                          double *sd, char *flag);
int occ_ofl_validate_list(const double *xp, int np, int d, double lambda,
                          const double *u, double *cost, occ_centers *c, int *z,
                          double *sd, int *accepted);
double occ_ofl_block_cost(const double *cost, int m);
void occ_bp_propose_rows(const double *x, int d, int m, int lo, int hi,
                         const double *A, int k, double lambda,
                         unsigned char *Z, unsigned char *Zp, int zcap,
                         char *chg, int threads, double *res, char *flag);
/* BP-means proposal scratch: residual, d doubles of scratch, and the
 * residual's squared norm as the sweep tracks it. */
#define OCC_BP_SLOT(d) (2 * (size_t) (d) + 1)
int occ_bp_validate_list(double *res, int np, int d, double lambda,
                         occ_centers *A, unsigned char **Zout, int *zcap,
                         int *accepted);
void occ_bp_block_gram(const double *x, int d, int m, unsigned char *Z, int zcap,
                       int k, double *out);
double occ_bp_block_cost(const double *x, int d, int m, unsigned char *Z, int zcap,
                         const double *A, int k);
/* Keep the used features (diag of G > 0): compacts G (K x K) and B (K x d)
 * to the kept ones, fills keep, returns their number. */
int occ_bp_keep(double *G, double *B, int K, int d, int *keep);
/* Z keeps columns keep[0..kept) (the others zeroed); Zp = Z. */
void occ_bp_compact(unsigned char *Z, unsigned char *Zp, int n, int zcap,
                    const int *keep, int kept, int K, int threads);
int occ_bp_changed(const char *chg, int n, int threads);

/* Prediction for new points (threads over points). */
void occ_predict_nearest(const double *x, int n, int d, const double *centers,
                         int k, int threads, int *cluster, double *dist);
int occ_predict_features(const double *x, int n, int d, const double *A,
                         int k, int threads, unsigned char *Z, double *cost);

#endif
