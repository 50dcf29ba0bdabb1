/* The LP-dual certificate of the matrix-free modes (fl_dual.h): an
 * oracle on the cluster layout, and the online bound of each round.
 *
 * The oracle computes c_j(u) = sum_i a_i max(0, w_ij - u_i) exactly, in
 * double precision with fl_rbf_rows (a run of a leaf's clients against
 * one candidate, (x - y)^2 term by term), over the clients in layout
 * order, but
 * skips a whole leaf when its ball proves w_ij <= u_i for each of its
 * clients: the similarity of j to the nearest point of the ball (its
 * radius enlarged for rounding, the gap shrunk by a relative margin) is
 * at most the leaf's smallest u_i.  Skipped pairs add nothing to the sum,
 * so the value is the exact one (up to the rounding of the sum), for any
 * u, and B stays a bound however the minimisation moves u.  Each
 * candidate is summed by one thread in leaf order: the same bits for any
 * number of threads. */
#include <math.h>
#include <stdlib.h>
#include "fl_mf.h"
#include "fl_certify.h"
#include "fl_kernel.h"

/* Relative margin of the ball test against rounding of the distance. */
#define FL_DUAL_BALL_MARGIN 1e-9

typedef struct {
  const fl_clusters *cl;
  double *umin;        /* FL_DUAL_TRIALS x K: each leaf's smallest u_i */
} mf_oracle;

/* An upper bound on the similarity of candidate yc to any client of leaf
 * L (the nearest point of its ball). */
static double leaf_reach(const fl_clusters *cl, const double *yc, int L)
{
  double dist = sqrt(fl_sqdist(yc, cl->mu + (size_t) L * cl->d, cl->d));
  double gap = dist - cl->rad[L] - FL_DUAL_BALL_MARGIN * (dist + cl->rad[L]);
  return gap <= 0.0 ? HUGE_VAL : exp(-gap * gap * cl->inv2s2) * (1.0 + FL_DUAL_BALL_MARGIN);
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

static int mf_values(fl_dual_oracle *o, const int *js, int cnt, const double *const *u, int nu,
                     double *c)
{
  mf_oracle *e = o->ctx;
  const fl_clusters *cl = e->cl;
  const int K = cl->K, d = cl->d;
  for (int q = 0; q < nu; q++) leaf_minima(cl, u[q], e->umin + (size_t) q * K);
FL_OMP(parallel for num_threads(cl->threads) schedule(dynamic, 1))
  for (int r = 0; r < cnt; r++) {
    const double *yc = cl->y + (size_t) js[r] * d;
    double acc[FL_DUAL_TRIALS] = { 0.0 };
    for (int L = 0; L < K; L++) {
      double hw = leaf_reach(cl, yc, L);
      int need = 0;
      for (int q = 0; q < nu; q++) need |= hw > e->umin[(size_t) q * K + L];
      if (!need) continue;
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
    for (int q = 0; q < nu; q++) c[(size_t) q * cnt + r] = acc[q];
  }
  return FL_OK;
}

static int mf_top_two(fl_dual_oracle *o, const int *js, int cnt, const double *t, double *m1,
                      double *m2)
{
  mf_oracle *e = o->ctx;
  const fl_clusters *cl = e->cl;
  const int d = cl->d;
  leaf_minima(cl, t, e->umin);
FL_OMP(parallel for num_threads(cl->threads) schedule(dynamic, 1))
  for (int L = 0; L < cl->K; L++) {
    int lo, hi;
    leaf_range(cl, L, &lo, &hi);
    for (int r = 0; r < cnt; r++) {
      const double *yc = cl->y + (size_t) js[r] * d;
      if (!(leaf_reach(cl, yc, L) > e->umin[L])) continue;
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
  mf_oracle e = { cl, malloc((size_t) FL_DUAL_TRIALS * (size_t) cl->K * sizeof(double)) };
  double *lo = p->ninitial ? malloc((size_t) cl->n * sizeof(double)) : NULL;
  unsigned char *skip = p->ninitial ? calloc((size_t) cl->m, 1) : NULL;
  int status = FL_ERR_NOMEM;
  if (e.umin && (!p->ninitial || (lo && skip))) {
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
    dp.threads = cl->threads;
    dp.prune = FL_DUAL_MF_PRUNE;
    fl_dual_oracle o = { &e, mf_values, mf_top_two, 0.0, 0.0 };
    status = fl_certify_dual(&dp, &o, cl->cover, r->ub, c, res);
  }
  free(e.umin); free(lo); free(skip);
  return status;
}

int fl_mf_dual_values(const fl_problem *p, const fl_control *c, const int *sel, int nsel,
                      double alpha, double *out)
{
  fl_clusters cl;
  int status = fl_clusters_init(&cl, p, c, 0);
  if (status != FL_OK) return status;
  mf_oracle e = { &cl, malloc((size_t) cl.K * sizeof(double)) };
  double *u = malloc((size_t) cl.n * sizeof(double));
  int *js = malloc((size_t) cl.m * sizeof(int));
  status = e.umin && u && js ? FL_OK : FL_ERR_NOMEM;
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
  free(e.umin); free(u); free(js);
  fl_clusters_free(&cl);
  return status;
}
