/* The LP-dual certificate of the matrix-free modes (dual.h): an
 * oracle on the cluster layout, and the online bound of each round.
 *
 * The oracle computes c_j(u) = sum_i a_i max(0, w_ij - u_i) over the
 * clients in layout order, in double precision: for a block of
 * candidates at once by the tiled kernel (|y|^2 + |x|^2 - 2 y.x over the
 * packed clients, each similarity lifted by that kernel's rounding margin,
 * tile_lift), or candidate by candidate by fl_rbf_rows ((x - y)^2 term by
 * term) where the clients cannot be packed.  It skips a whole leaf when
 * its ball proves w_ij <= u_i for each of its clients: the similarity of
 * j to the nearest point of the ball (its radius enlarged for rounding,
 * the gap shrunk by a relative margin) is at most the leaf's smallest
 * u_i.  Skipped pairs add nothing to the sum and computed ones are at
 * least the true ones, so the value is an upper bound on c_j(u) (up to
 * the rounding of the sum), for any u, and B stays a bound however the
 * minimisation moves u.  Each candidate is summed by one thread in leaf
 * order: the same bits for any number of threads. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mf.h"
#include "dual_certify.h"
#include "exact_state.h"
#include "kernel.h"

/* Relative margin of the ball test against rounding of the distance. */
#define FL_DUAL_BALL_MARGIN 1e-9

typedef struct {
  const fl_clusters *cl;
  double *umin;        /* FL_DUAL_TRIALS x K: each leaf's smallest u_i */
  double *xmax;        /* K: the leaf's exponent limit (leaf_limits) */
  fl_tiles tiles;      /* the clients in layout order packed for the tiled
                        * kernel, clients' and candidates' squared norms */
  double *span;        /* K: the farthest a leaf's client lies from tiles.org */
  int tiled;           /* 0 (a norm overflowed, or no room): fl_rbf_rows */
} mf_oracle;

/* Does candidate yc's similarity to the nearest point of leaf L's ball
 * (an upper bound on its similarity to any client there) reach above u
 * for some u whose exponent limit xmax is given (leaf_limits)?  In
 * exponents, so no exp() a leaf and candidate. */
static int leaf_needed(const fl_clusters *cl, const double *yc, int L, double xmax)
{
  double dist = sqrt(fl_sqdist(yc, cl->mu + (size_t) L * cl->d, cl->d));
  double gap = dist - cl->rad[L] - FL_DUAL_BALL_MARGIN * (dist + cl->rad[L]);
  return gap <= 0.0 || gap * gap * cl->inv2s2 < xmax;
}

/* xmax[L]: exp(-x) (1 + margin) > umin[q][L] for some q < nu exactly when
 * x < log1p(margin) - log(umin): the largest such limit, raised by the
 * margin again so that the rounding of log() never skips a leaf the test
 * on similarities would visit. */
static void leaf_limits(const fl_clusters *cl, const double *umin, int nu, double *xmax)
{
  for (int L = 0; L < cl->K; L++) {
    double x = -HUGE_VAL;
    for (int q = 0; q < nu; q++) {
      double u = umin[(size_t) q * cl->K + L];
      double lim = u <= 0.0 ? HUGE_VAL : log1p(FL_DUAL_BALL_MARGIN) - log(u);
      x = lim > x ? lim : x;
    }
    xmax[L] = x + FL_DUAL_BALL_MARGIN * (fabs(x) + 1.0);
  }
}

/* The clients of leaf L are lo..hi - 1 of the layout. */
static void leaf_range(const fl_clusters *cl, int L, int *lo, int *hi)
{
  *lo = cl->chunk[cl->first[L]].lo;
  *hi = cl->first[L + 1] > cl->first[L] ? cl->chunk[cl->first[L + 1] - 1].hi : *lo;
}

static void leaf_minima(const fl_clusters *cl, const double *u, double *umin)
{
FL_OMP(parallel for num_threads(fl_par_threads(cl->threads, cl->n, FL_PAR_MIN_CLIENTS)) schedule(static))
  for (int L = 0; L < cl->K; L++) {
    int lo, hi;
    leaf_range(cl, L, &lo, &hi);
    double m = HUGE_VAL;
    for (int i = lo; i < hi; i++) m = u[i] < m ? u[i] : m;
    umin[L] = m;
  }
}

/* The oracle on cl for up to `trials` points u at once: FL_ERR_NOMEM
 * without room for its leaf tables.  The layout's clients are packed for
 * fl_rbf_tile(); without the room for them, or where a squared norm
 * overflows, the oracle keeps to fl_rbf_rows(). */
static int oracle_init(mf_oracle *e, const fl_clusters *cl, int trials)
{
  fl_problem view = { 0 };   /* the layout's clients, the candidates */
  view.x = cl->xs;
  view.y = cl->y;
  view.n = cl->n;
  view.m = cl->m;
  view.d = cl->d;
  memset(&e->tiles, 0, sizeof e->tiles);
  e->cl = cl;
  e->umin = malloc((size_t) trials * (size_t) cl->K * sizeof(double));
  e->xmax = malloc((size_t) cl->K * sizeof(double));
  e->span = malloc((size_t) cl->K * sizeof(double));
  if (!e->umin || !e->xmax || !e->span) return FL_ERR_NOMEM;
  e->tiled = fl_tiles_init(&e->tiles, &view, cl->threads, 0) == FL_OK && !e->tiles.direct;
  for (int L = 0; e->tiled && L < cl->K; L++)
    e->span[L] = sqrt(fl_sqdist(cl->mu + (size_t) L * cl->d, e->tiles.org, cl->d)) + cl->rad[L];
  return FL_OK;
}

static void oracle_free(mf_oracle *e)
{
  free(e->umin); free(e->xmax); free(e->span);
  fl_tiles_free(&e->tiles);
}

/* 1 + eta: the tiled kernel's |y|^2 + |x|^2 - 2 y.x about org is within
 * (d + 8) u (A + B)^2 of the true squared distance (A, B the client's and
 * the candidate's distances to org, A at most the leaf's span; the
 * analysis of cl_post.c's rounding_allowance in double precision), and
 * its exp() within 1 ulp, so each true similarity is at most the computed
 * one times this: the oracle's values stay upper bounds. */
static double tile_lift(const fl_clusters *cl, double span, double ynorm)
{
  double x = (cl->d + 8.0) * 0.5 * DBL_EPSILON * (span + ynorm) * (span + ynorm) * cl->inv2s2
    + 2.0 * DBL_EPSILON;
  return 1.0 + (x < 1.0 ? x * (1.0 + x) : expm1(x));
}

/* Per thread: the rows, packing, norms and similarities of a block of
 * candidates, and which of them visit the leaf at hand. */
typedef struct {
  double *ys, *yp, *yn, *sim;
  int *sel;
} tile_scratch;

static int scratch_init(tile_scratch *t, int mc, int d)
{
  t->ys = malloc((size_t) mc * d * sizeof(double));
  t->yp = malloc(fl_tile_packed(mc, d) * sizeof(double));
  t->yn = malloc((size_t) mc * sizeof(double));
  t->sim = malloc((size_t) mc * FL_TILE_CLIENTS * sizeof(double));
  t->sel = malloc((size_t) mc * sizeof(int));
  return t->ys && t->yp && t->yn && t->sim && t->sel;
}

static void scratch_free(tile_scratch *t)
{
  free(t->ys); free(t->yp); free(t->yn); free(t->sim); free(t->sel);
}

/* acc[r * FL_DUAL_TRIALS + q] += the part of c_{js[r]}(u[q]) over leaf L
 * of the ns candidates t->sel[] of the block (their rows packed in t), by
 * the tiled kernel: each candidate's sum in client order, as the rows
 * path sums it. */
static void leaf_tiles(const mf_oracle *e, int L, int ns, tile_scratch *t,
                       const double *const *u, int nu, double *acc)
{
  const fl_clusters *cl = e->cl;
  const int d = cl->d, width = fl_tile_width();
  int lo, hi;
  leaf_range(cl, L, &lo, &hi);
  double lift[FL_TILE_LEAF_MAX_ROWS];   /* ns <= fl_tile_leaf_candidates() */
  for (int s = 0; s < ns; s++) lift[s] = tile_lift(cl, e->span[L], sqrt(t->yn[s]));
  for (int i0 = lo - lo % width; i0 < hi; i0 += FL_TILE_CLIENTS) {
    int nc = hi - i0 < FL_TILE_CLIENTS ? hi - i0 : FL_TILE_CLIENTS, from = lo > i0 ? lo : i0;
    fl_rbf_tile(t->yp, t->yn, ns, e->tiles.xp + (size_t) i0 * d, e->tiles.xn + i0, nc, d,
                cl->inv2s2, 0, t->sim, FL_TILE_CLIENTS);
    for (int s = 0; s < ns; s++) {
      const double *w = t->sim + (size_t) s * FL_TILE_CLIENTS - i0;
      double *a = acc + (size_t) t->sel[s] * FL_DUAL_TRIALS;
      for (int i = from; i < i0 + nc; i++)
        for (int q = 0; q < nu; q++) a[q] += cl->ws[i] * fl_positive(w[i] * lift[s] - u[q][i]);
    }
  }
}

/* c_j(u[q]) of the mc candidates js[0..mc-1] into acc, leaf by leaf: the
 * candidates whose ball test needs a leaf, packed, against its clients. */
static void block_values(const mf_oracle *e, const int *js, int mc, const double *const *u,
                         int nu, tile_scratch *t, double *acc)
{
  const fl_clusters *cl = e->cl;
  const int d = cl->d;
  for (size_t v = 0; v < (size_t) mc * FL_DUAL_TRIALS; v++) acc[v] = 0.0;
  for (int L = 0; L < cl->K; L++) {
    int ns = 0;
    for (int r = 0; r < mc; r++) {
      const double *yc = cl->y + (size_t) js[r] * d;
      if (leaf_needed(cl, yc, L, e->xmax[L])) {
        memcpy(t->ys + (size_t) ns * d, yc, (size_t) d * sizeof(double));
        t->yn[ns] = e->tiles.yn[js[r]];
        t->sel[ns++] = r;
      }
    }
    if (ns == 0) continue;
    fl_tile_pack_candidates(t->ys, ns, d, e->tiles.org, t->yp);
    leaf_tiles(e, L, ns, t, u, nu, acc);
  }
}

/* c_j(u[q]) of candidate yc by fl_rbf_rows() (no packed clients). */
static void rows_values(const mf_oracle *e, const double *yc, const double *const *u, int nu,
                        double *acc)
{
  const fl_clusters *cl = e->cl;
  const int K = cl->K, d = cl->d;
  for (int q = 0; q < nu; q++) acc[q] = 0.0;
  for (int L = 0; L < K; L++) {
    if (!leaf_needed(cl, yc, L, e->xmax[L])) continue;
    int lo, hi;
    leaf_range(cl, L, &lo, &hi);
    for (int i0 = lo; i0 < hi; i0 += FL_DUAL_ROWS) {
      double w[FL_DUAL_ROWS];
      int nb = hi - i0 < FL_DUAL_ROWS ? hi - i0 : FL_DUAL_ROWS;
      fl_rbf_rows(cl->xs + (size_t) i0 * d, nb, yc, d, cl->inv2s2, w);
      for (int t = 0; t < nb; t++)
        for (int q = 0; q < nu; q++) acc[q] += cl->ws[i0 + t] * fl_positive(w[t] - u[q][i0 + t]);
    }
  }
}

/* The oracle's values: blocks of candidates by the tiled kernel, one
 * block a task (each candidate summed by one thread in leaf order: the
 * same bits for any number of threads), or candidate by candidate by the
 * rows kernel. */
static int mf_values(fl_dual_oracle *o, const int *js, int cnt, const double *const *u, int nu,
                     double *c)
{
  mf_oracle *e = o->ctx;
  const fl_clusters *cl = e->cl;
  const int mc = fl_tile_leaf_candidates(cl->d), nb = (cnt + mc - 1) / mc;
  int failed = 0;
  for (int q = 0; q < nu; q++) leaf_minima(cl, u[q], e->umin + (size_t) q * cl->K);
  leaf_limits(cl, e->umin, nu, e->xmax);
FL_OMP(parallel num_threads(fl_team(cl->threads)))
  {
    tile_scratch t;
    double *acc = malloc((size_t) mc * FL_DUAL_TRIALS * sizeof(double));
    int ok = scratch_init(&t, mc, cl->d) && acc;
    if (!ok) fl_atomic_write(&failed, 1);
FL_OMP(for schedule(dynamic, 1))
    for (int b = 0; b < nb; b++) {
      int j0 = b * mc, cnt_b = cnt - j0 < mc ? cnt - j0 : mc;
      if (!ok) continue;
      if (e->tiled) block_values(e, js + j0, cnt_b, u, nu, &t, acc);
      else
        for (int r = 0; r < cnt_b; r++)
          rows_values(e, cl->y + (size_t) js[j0 + r] * cl->d, u, nu, acc + (size_t) r * FL_DUAL_TRIALS);
      for (int r = 0; r < cnt_b; r++)
        for (int q = 0; q < nu; q++) c[(size_t) q * cnt + j0 + r] = acc[(size_t) r * FL_DUAL_TRIALS + q];
    }
    scratch_free(&t);
    free(acc);
  }
  return failed ? FL_ERR_NOMEM : FL_OK;
}

static int mf_top_two(fl_dual_oracle *o, const int *js, int cnt, const double *t, double *m1,
                      double *m2)
{
  mf_oracle *e = o->ctx;
  const fl_clusters *cl = e->cl;
  const int d = cl->d;
  leaf_minima(cl, t, e->umin);
  leaf_limits(cl, e->umin, 1, e->xmax);
FL_OMP(parallel for num_threads(fl_team(cl->threads)) schedule(dynamic, 1))
  for (int L = 0; L < cl->K; L++) {
    int lo, hi;
    leaf_range(cl, L, &lo, &hi);
    for (int r = 0; r < cnt; r++) {
      const double *yc = cl->y + (size_t) js[r] * d;
      if (!leaf_needed(cl, yc, L, e->xmax[L])) continue;
      for (int i0 = lo; i0 < hi; i0 += FL_DUAL_ROWS) {
        double w[FL_DUAL_ROWS];
        int nb = hi - i0 < FL_DUAL_ROWS ? hi - i0 : FL_DUAL_ROWS;
        fl_rbf_rows(cl->xs + (size_t) i0 * d, nb, yc, d, cl->inv2s2, w);
        for (int t = 0; t < nb; t++) fl_keep_two(w[t], m1 + i0 + t, m2 + i0 + t);
      }
    }
  }
  return FL_OK;
}

/* The initial facilities' coverage in layout order. */
static void initial_cover(const fl_clusters *cl, const fl_problem *p, double *lo)
{
FL_OMP(parallel for num_threads(fl_par_threads(cl->threads, cl->n, FL_PAR_MIN_CLIENTS)) schedule(static))
  for (int i = 0; i < cl->n; i++) {
    double m = 0.0;
    for (int t = 0; t < p->ninitial; t++) {
      double w = fl_rbf(cl->xs + (size_t) i * cl->d, p->y + (size_t) p->initial[t] * cl->d,
                        cl->d, cl->inv2s2);
      m = w > m ? w : m;
    }
    lo[i] = m;
  }
}

void fl_mf_online(fl_mf *r, fl_result *res, double f)
{
  int c = 0;
  for (int j = 0; j < r->cl.m; j++)
    if (!r->chosen[j]) r->keys[c++] = r->ub[j];
  fl_trace(res, r->nselected, f + fl_topk_sum(r->keys, c, r->k));
}

int fl_mf_certify(fl_mf *r, const fl_problem *p, const fl_control *c, fl_result *res)
{
  if (c->certify == 0) return FL_OK;   /* the bounds the solve holds */
  fl_clusters *cl = &r->cl;
  mf_oracle e;
  int ready = oracle_init(&e, cl, FL_DUAL_TRIALS) == FL_OK;
  double *lo = p->ninitial ? malloc((size_t) cl->n * sizeof(double)) : NULL;
  unsigned char *skip = p->ninitial ? calloc((size_t) cl->m, 1) : NULL;
  int status = FL_ERR_NOMEM;
  if (ready && (!p->ninitial || (lo && skip))) {
    if (lo) initial_cover(cl, p, lo);
    /* u >= lo, whatever the rounding of the layout's coverage */
    for (int i = 0; lo && i < cl->n; i++) if (lo[i] > cl->cover[i]) cl->cover[i] = lo[i];
    for (int t = 0; t < p->ninitial; t++) skip[p->initial[t]] = 1;
    /* the keys left bound the final gains; the picks gain nothing */
    for (int j = 0; j < cl->m; j++) if (r->chosen[j]) r->ub[j] = 0.0;
    fl_dual_problem dp = { 0 };
    dp.n = cl->n;
    dp.m = cl->m;
    dp.k = fl_bound_k(c, res);
    dp.weight = cl->ws;
    dp.lo = lo;
    dp.skip = skip;
    dp.threads = c->threads;   /* batches of the thread count asked for; teams: cl->threads */
    dp.prune = FL_DUAL_MF_PRUNE;
    fl_dual_oracle o = { &e, mf_values, mf_top_two, 0.0, 0.0 };
    status = fl_certify_dual(&dp, &o, cl->cover, r->ub, c, res);
  }
  oracle_free(&e);
  free(lo); free(skip);
  return status;
}

int fl_mf_dual_values(const fl_problem *p, const fl_control *c, const int *sel, int nsel,
                      double alpha, double *out)
{
  fl_clusters cl;
  int status = fl_clusters_init(&cl, p, c, 0);
  if (status != FL_OK) return status;
  mf_oracle e;
  int ready = oracle_init(&e, &cl, 1) == FL_OK;
  double *u = malloc((size_t) cl.n * sizeof(double));
  int *js = malloc((size_t) cl.m * sizeof(int));
  status = ready && u && js ? FL_OK : FL_ERR_NOMEM;
  if (status == FL_OK) {
    for (int i = 0; i < cl.n; i++) {
      double m = 0.0;
      for (int t = 0; t < nsel; t++) {
        double w = fl_rbf(cl.xs + (size_t) i * cl.d, cl.y + (size_t) sel[t] * cl.d, cl.d,
                          cl.inv2s2);
        m = w > m ? w : m;
      }
      u[i] = alpha * m;
    }
    for (int j = 0; j < cl.m; j++) js[j] = j;
    const double *pts[1] = { u };
    fl_dual_oracle o = { &e, mf_values, mf_top_two, 0.0, 0.0 };
    status = mf_values(&o, js, cl.m, pts, 1, out);
  }
  oracle_free(&e);
  free(u); free(js);
  fl_clusters_free(&cl);
  return status;
}
