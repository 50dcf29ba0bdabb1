/* Where the exact modes' LP dual starts: B at the coverage of a prefix S_t
 * of the picks, the online bound of round t with exact gains, where it
 * is below B at the final coverage (inst/bench/results/dual-starts.csv:
 * under a narrow kernel the picks after round t leave most gains nearly
 * as large as they were; at sigma = 20 on four presets, n = 4000, the
 * best prefix gives objective / B 0.72 to 0.95 where the final coverage
 * gives 0.52 to 0.76).  The prefixes tried are t = nsel / 2, nsel / 4,
 * ..., FL_DUAL_TRIALS a pass over the candidates (the points a step
 * evaluates together), the next pass halving on while the last pass's
 * shortest prefix was the best: they depend on the picks alone, so the
 * start is the same for any number of threads. */
#include <stdlib.h>
#include <string.h>
#include "dual_start.h"
#include "exact_state.h"
#include "fl_tune.h"

typedef struct {
  int *js;           /* the open candidates */
  int nopen;
  double *us;        /* FL_DUAL_TRIALS x n: the prefixes' coverage */
  double *vals;      /* FL_DUAL_TRIALS x nopen: c_j there */
  double *scratch;   /* nopen */
} grid_space;

static void grid_free(grid_space *g)
{
  free(g->js); free(g->us); free(g->vals); free(g->scratch);
}

static int grid_init(grid_space *g, const fl_dual_problem *dp)
{
  size_t n = (size_t) dp->n, m = (size_t) dp->m;
  g->js = malloc(m * sizeof(int));
  g->us = malloc(FL_DUAL_TRIALS * n * sizeof(double));
  g->vals = malloc(FL_DUAL_TRIALS * m * sizeof(double));
  g->scratch = malloc(m * sizeof(double));
  if (!g->js || !g->us || !g->vals || !g->scratch) return FL_ERR_NOMEM;
  for (int j = 0; j < dp->m; j++)
    if (!(dp->skip && dp->skip[j])) g->js[g->nopen++] = j;
  return FL_OK;
}

/* us[q] = the coverage of the first ts[q] picks (ts decreasing), from lo. */
static void prefix_covers(const fl_dual_problem *dp, const fl_problem *p, const int *sel,
                          const int *ts, int nu, int threads, double *us)
{
  size_t n = (size_t) dp->n;
  double *cover = us + (size_t) (nu - 1) * n;
  if (dp->lo) memcpy(cover, dp->lo, n * sizeof(double));
  else memset(cover, 0, n * sizeof(double));
  int done = 0;
  for (int q = nu - 1; q >= 0; q--) {
    double *u = us + (size_t) q * n;
    if (u != cover) memcpy(u, cover, n * sizeof(double));
    for (; done < ts[q]; done++) fl_cover_add(p, sel[done], u, threads);
    cover = u;
  }
}

int fl_dual_prefix_start(const fl_dual_problem *dp, fl_dual_oracle *o, const fl_problem *p,
                         const int *sel, int nsel, double b_final, int threads, double **u,
                         double **ub)
{
  *u = *ub = NULL;
  grid_space g = { 0 };
  double *best_u = malloc((size_t) dp->n * sizeof(double));
  double *best_ub = calloc((size_t) dp->m, sizeof(double));
  int status = best_u && best_ub ? grid_init(&g, dp) : FL_ERR_NOMEM;
  double best = b_final;
  int best_t = -1;
  for (int hi = nsel; status == FL_OK;) {
    int ts[FL_DUAL_TRIALS], nu = 0;
    for (int t = hi / 2; t >= 1 && nu < FL_DUAL_TRIALS; t /= 2) ts[nu++] = t;
    if (nu == 0) break;
    prefix_covers(dp, p, sel, ts, nu, threads, g.us);
    const double *pts[FL_DUAL_TRIALS];
    for (int q = 0; q < nu; q++) pts[q] = g.us + (size_t) q * dp->n;
    status = o->values(o, g.js, g.nopen, pts, nu, g.vals);
    o->evaluations += g.nopen;
    for (int q = 0; q < nu && status == FL_OK; q++) {
      const double *v = g.vals + (size_t) q * g.nopen;
      memcpy(g.scratch, v, (size_t) g.nopen * sizeof(double));
      double b = fl_dual_weighted_sum(dp, pts[q]) + fl_topk_sum(g.scratch, g.nopen, dp->k);
      if (!(b < best)) continue;
      best = b;
      best_t = ts[q];
      memcpy(best_u, pts[q], (size_t) dp->n * sizeof(double));
      for (int r = 0; r < g.nopen; r++) best_ub[g.js[r]] = v[r];
    }
    if (best_t != ts[nu - 1]) break;   /* the shortest prefix was not the best */
    hi = ts[nu - 1];
  }
  if (status == FL_OK && best_t >= 0) {
    *u = best_u;
    *ub = best_ub;
  } else {
    free(best_u);
    free(best_ub);
  }
  grid_free(&g);
  return status;
}
