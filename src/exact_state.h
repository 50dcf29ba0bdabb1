/* What every solver shares: coverage, the chosen set, the similarity view,
 * result bookkeeping and the upper bound on the optimum. */
#ifndef FL_STATE_H
#define FL_STATE_H

#include "facloc.h"

/* The clients a candidate may still improve (exact_gain.c): entries
 * first.. of the state's live_client (ascending) and live_value (their
 * similarities to the candidate). */
typedef struct {
  int first, count;
  int kept;              /* 0 until the list is kept: the column is scanned */
  int scans;             /* gains taken by a scan of the column */
} fl_live;

typedef struct {
  fl_problem p;          /* what gains are computed on (W when built) */
  double *W;             /* owned n x m similarity matrix, or NULL */
  float *Wf;             /* or the same in single precision, each value rounded up */
  double *cover;         /* n: coverage m_i = max_{j in S} s_ij */
  unsigned char *chosen; /* m: 1 once selected (or initially open) */
  int threads;
  double evaluations;
  double pairs;          /* kernel evaluations */
  fl_live *live;         /* m: each candidate's live clients, or NULL */
  int *live_client;      /* the lists' entries, live_cap of them */
  double *live_value;
  int live_cap, live_used;
  int *scratch_client;   /* n entries a thread: a column's live clients, packed */
  double *scratch_value;
} fl_state;

/* What fl_state_init() builds from points: nothing, W, or Wf.  Wf takes
 * half the memory; from the float tiles (kernel.h, fl_rbf_tile_f), rounded
 * up, it gives every set an f(S) at least the true one, so every upper
 * bound computed on it bounds the true optimum. */
enum { FL_NO_MATRIX = 0, FL_MATRIX = 1, FL_MATRIX_SINGLE = 2 };
static inline int fl_matrix_of(const fl_control *c)
{
  return c->single ? FL_MATRIX_SINGLE : FL_MATRIX;
}
/* Is the similarity held (a dense matrix of either precision, or sparse
 * columns) rather than computed from points? */
static inline int fl_held(const fl_problem *p)
{
  return p->sim || p->simf || p->sp_p;
}

/* matrix: one of the above, for modes g, c, dc (from points only).  On
 * failure all is freed and FL_ERR_NOMEM returned. */
int fl_state_init(fl_state *s, const fl_problem *p, int threads, int matrix);
void fl_state_free(fl_state *s);

/* Exact marginal gain of candidate j, summed in client order so every mode
 * gets the same bits for the same coverage. */
double fl_gain(const fl_problem *p, int j, const double *cover);
/* Lists of live clients for a dense matrix (else nothing): then
 * fl_state_gain() gives fl_gain()'s bits at the coverage, reading only the
 * clients candidate j may still improve once few are left.  Without the
 * memory it is fl_gain().  A candidate's list is its own: one thread at a
 * time may take its gain. */
void fl_live_init(fl_state *s);
void fl_live_free(fl_state *s);
double fl_state_gain(fl_state *s, int j);
/* For a solver that computes its columns itself (celf_stream.c): the
 * lists' block alone, at most `bytes` of it and no more than
 * fl_live_init() takes (FL_OK or FL_ERR_NOMEM, nothing then allocated);
 * j keeps the live clients of its column given (ascending, with their
 * similarities) if they are at most 1 / FL_LIVE_SHARE of the clients
 * and the block has room; the gain of a j that kept its list. */
int fl_live_init_pool(fl_state *s, double bytes);
void fl_live_keep(fl_state *s, int j, const int *client, const double *value, int count);
double fl_live_gain(fl_state *s, int j);
/* Most bytes of the lists and the threads' scratch (for the matrix in
 * single precision with single). */
double fl_live_bytes(const fl_problem *p, int single, int threads);
/* The live clients of a column (col[i] > cover[i]) written to client and
 * value in client order, n entries of room; returns their count. */
int fl_live_pack(const double *col, const double *cover, int n, int *client, double *value);
int fl_live_pack_f(const float *col, const double *cover, int n, int *client, double *value);
/* Similarities one fl_gain() reads on average: what it costs. */
double fl_gain_pairs(const fl_problem *p);
/* Similarity of client i to candidate j (points or dense view). */
double fl_sim(const fl_problem *p, int i, int j);

/* What the tiled kernel needs of points: the origin org (the clients'
 * mean), the clients' and candidates' squared norms about it (yn == xn
 * when they are the same points) and the clients packed (kernel.h), in
 * double (xp) or with single in float (xpf, the Gaussian kernel's
 * single-precision tiles), made by threads; on failure FL_ERR_NOMEM with
 * nothing allocated. */
typedef struct {
  double *xn, *yn, *xp, *org;
  float *xpf;
  int cosine;   /* 0 (fl_tiles_init): the Gaussian kernel; 1: cosine */
  int direct;   /* a squared norm overflowed (coordinates past 1e154): every
                 * pair by its differences, as fl_rbf() */
} fl_tiles;
int fl_tiles_init(fl_tiles *t, const fl_problem *p, int threads, int single);
void fl_tiles_free(fl_tiles *t);
/* Bytes of a block of mc candidates packed for t. */
size_t fl_tiles_packed_bytes(const fl_tiles *t, int mc, int d);
/* Packs the block of mc candidates from j0 into yp
 * (fl_tiles_packed_bytes()), for fl_tiles_block(). */
void fl_tiles_pack(const fl_tiles *t, const fl_problem *p, int j0, int mc, void *yp);
/* out[a * ldo + i] = similarity of client i0 + i to candidate j0 + a, a <
 * mc, i < nc, by the tiled kernel: the exact modes' matrix and the
 * exhaustive pass.  yp the block packed by fl_tiles_pack(), i0 a multiple
 * of the clients' panel width (fl_tile_width(), fl_tile_width_f()). */
void fl_tiles_block(const fl_tiles *t, const fl_problem *p, int j0, int mc, const void *yp,
                    double *out, size_t ldo, int i0, int nc);

/* W (n x m, column per candidate) = the similarities of the points by
 * the tiled kernel, a block of candidates per task: the Gaussian kernel
 * (the exact modes' matrix), or with cosine the cosine where positive of
 * rows of unit length (kernel = "cosine").  Given Wf instead of W (NULL),
 * each value rounded up to single precision. */
int fl_similarity_fill(const fl_problem *p, int threads, int cosine, double *W, float *Wf);

/* f(S) of the initial facilities and the nsel candidates sel of points
 * in double precision by the tiled kernel: the bits a double matrix gives,
 * for the solves that held a single-precision one. */
int fl_objective_tiled(const fl_problem *p, const int *sel, int nsel, int threads,
                       double *value);
/* Its working memory for up to k candidates besides the initial ones. */
double fl_objective_tiled_bytes(const fl_problem *p, int k, int threads);

/* cover = max(cover, column j) (parallel for dense columns of many clients). */
void fl_cover_add(const fl_problem *p, int j, double *cover, int threads);
/* Commit candidate j: coverage update (parallel), record in res. */
void fl_state_select(fl_state *s, int j, double gain, fl_result *res);
/* Only its record: chosen, and the pick and its gain in res (for a solver
 * that raised the coverage itself). */
void fl_state_record(fl_state *s, int j, double gain, fl_result *res);
/* f(S) from the coverage, summed serially so it never depends on threads. */
double fl_state_objective(const fl_state *s);

/* Sum of the k largest of v[0..n-1] (reorders v).  With v upper bounds on
 * marginal gains w.r.t. any set S: OPT <= f(S) + fl_topk_sum. */
double fl_topk_sum(double *v, int n, int k);

/* A bound valid for S_t, the set after t picks: res->bound_online keeps
 * the smallest, res->trace_bound[t] (when kept) the smallest so far. */
void fl_trace(fl_result *res, int t, double bound);

/* Interrupt and progress callbacks; safe when unset. */
int fl_interrupted(const fl_control *c);
/* Has f(S) = f reached the coverage target (never without one)? */
int fl_reached(const fl_control *c, double f);
/* The k of the final bound: with a target, the number selected, so the
 * bound is for sets of the size returned. */
int fl_bound_k(const fl_control *c, const fl_result *res);
void fl_progress(const fl_control *c, int round, int nsel, double objective);

/* Bytes of the dense n x m matrix, in single precision with single. */
double fl_matrix_bytes(const fl_problem *p, int single);
/* The cap fl_solve() puts on the bound of points' problems: the clients'
 * total weight, which no f(S) exceeds. */
double fl_bound_cap(const fl_problem *p);

#endif
