/* DP-means (Kulis and Jordan, 2012), serial and OCC: minimise
 * sum_i ||x_i - mu_{z_i}||^2 + lambda^2 K.  A point whose squared distance to
 * every center exceeds lambda^2 opens a cluster at itself; otherwise it joins
 * the nearest.  Means are recomputed after each pass and empty clusters
 * dropped, so the objective never increases. */
#include <stdlib.h>
#include <string.h>
#include "occ_common.h"
#include "kernel.h"

typedef struct {
  occ_assign a;
  int *zprev;
  const int *newid;   /* end of pass: new number of each cluster, -1 dropped */
} dp_state;

/* A point no center is nearer than HUGE_VAL to (none yet, or every
 * distance overflowed) has no cluster to join: it opens one whatever
 * lambda is, so no point is left in cluster -1, which the tallies would
 * index with. */
static int dp_propose(void *st, int i, int slot)
{
  occ_assign *a = &((dp_state *) st)->a;
  occ_assign_old(a, i, slot);
  return a->z[i] < 0 || a->sd[slot] > a->lambda2;
}

static int dp_validate(void *st, int i, int slot)
{
  occ_assign *a = &((dp_state *) st)->a;
  if (occ_assign_new(a, i, slot) <= a->lambda2 && a->z[i] >= 0) return 0;
  return occ_assign_open(a, i) ? -1 : 1;
}

/* The end of a pass takes two parallel regions: tally (the sums for the
 * new means and the count of changed assignments), then relabel_cost (the
 * new numbering and the cost under the new means). */

/* Per cluster: count, then the d coordinate sums; last, the rows whose
 * cluster changed in the pass. */
static void dp_tally(void *ctx, int lo, int hi, double *out)
{
  const dp_state *st = ctx;
  const occ_assign *a = &st->a;
  const int d = a->d;
  double changed = 0.0;
  for (int i = lo; i < hi; i++) {
    double *o = out + (size_t) a->z[i] * (d + 1);
    const double *xi = a->x + (size_t) i * d;
    o[0] += 1.0;
    for (int t = 0; t < d; t++) o[1 + t] += xi[t];
    changed += a->z[i] != st->zprev[i];
  }
  out[(size_t) a->c.k * (d + 1)] += changed;
}

/* Renumber rows [lo, hi) (z and zprev) and add their cost under the new
 * centers. */
static void dp_relabel_cost(void *ctx, int lo, int hi, double *out)
{
  const dp_state *st = ctx;
  const occ_assign *a = &st->a;
  double s = out[0];
  for (int i = lo; i < hi; i++) {
    int k = a->z[i] = st->zprev[i] = st->newid[a->z[i]];
    s += fl_sqdist(a->x + (size_t) i * a->d, a->c.v + (size_t) k * a->d, a->d);
  }
  out[0] = s;
}

int occ_dp_means(const double *sums, int K, int d, double *centers, int *newid)
{
  int kept = 0;
  for (int k = 0; k < K; k++) {
    const double *o = sums + (size_t) k * (d + 1);
    newid[k] = o[0] > 0 ? kept : -1;
    if (o[0] > 0) {
      for (int t = 0; t < d; t++) centers[(size_t) kept * d + t] = o[1 + t] / o[0];
      kept++;
    }
  }
  return kept;
}

static int dp_end_pass(void *ptr, const occ_setup *s, double *objective,
                       int *changed)
{
  dp_state *st = ptr;
  occ_assign *a = &st->a;
  const int d = a->d, K = a->c.k;
  size_t len = (size_t) K * (d + 1) + 1;
  double *sums = malloc(len * sizeof(double));
  int *newid = malloc((size_t) K * sizeof(int) + 1);
  int status = (sums && newid) ? occ_shard_sum(s, dp_tally, st, len, sums)
                               : FL_ERR_NOMEM;
  double cost = 0.0;
  if (status == FL_OK) {
    *changed = (int) sums[len - 1];
    a->c.k = occ_dp_means(sums, K, d, a->c.v, newid);
    st->newid = newid;
    status = occ_shard_sum(s, dp_relabel_cost, st, 1, &cost);
  }
  *objective = cost + a->lambda2 * a->c.k;
  free(sums);
  free(newid);
  return status;
}

int occ_dpmeans(const occ_setup *s, double lambda, int *cluster,
                occ_centers *centers, occ_trace *tr)
{
  dp_state st;
  memset(tr, 0, sizeof *tr);
  int status = occ_assign_init(&st.a, s, lambda);
  if (status) return status;
  st.zprev = malloc((size_t) s->n * sizeof(int));
  st.newid = NULL;
  if (!st.zprev) {
    occ_assign_free(&st.a);
    return FL_ERR_NOMEM;
  }
  for (int i = 0; i < s->n; i++) st.zprev[i] = -1;
  occ_alg alg = { &st, sizeof(double), occ_assign_begin, dp_propose, dp_validate,
                  dp_end_pass };
  status = occ_assign_run(s, &alg, &st.a, tr, cluster, centers);
  free(st.zprev);
  return status;
}

void occ_predict_nearest(const double *x, int n, int d, const double *centers,
                         int k, int threads, int *cluster, double *dist)
{
  (void) threads;
FL_OMP(parallel for num_threads(fl_par_threads(threads, n, FL_PAR_MIN_CLIENTS)) schedule(static))
  for (int i = 0; i < n; i++) {
    /* the first center to start with: a point whose distances all
     * overflow ties them and gets the lowest index, not -1 */
    int best = k > 0 ? 0 : -1;
    double bd = k > 0 ? fl_sqdist(x + (size_t) i * d, centers, d) : HUGE_VAL;
    occ_nearest(x + (size_t) i * d, centers, d, 1, k, &best, &bd);
    cluster[i] = best;
    dist[i] = bd;
  }
}

/* Distributed steps: a worker holds a block of rows (x, z, zprev), the
 * caller the centers; each step is the threaded run's code on that block. */
void occ_dp_propose_rows(const double *x, int d, int m, int lo, int hi,
                         const double *centers, int k, double lambda,
                         int threads, int *z, double *sd, char *flag)
{
  dp_state st = { occ_assign_view(x, d, m, lambda, centers, k, z, sd), NULL, NULL };
  occ_propose_rows(dp_propose, &st, lo, hi, occ_assign_begin(&st.a), threads, flag);
}

int occ_dp_validate_list(const double *xp, int np, int d, double lambda,
                         occ_centers *c, int *z, double *sd, int *accepted)
{
  dp_state st = { occ_assign_view(xp, d, np, lambda, c->v, c->k, z, sd), NULL, NULL };
  st.a.c = *c;
  int status = occ_validate_list(dp_validate, &st, np, accepted);
  *c = st.a.c;
  return status;
}

void occ_dp_catch_up_rows(const double *x, int d, int m, int lo, int hi,
                          const double *centers, int kfix, double lambda, int *z,
                          double *sd, const int *outcome, int before)
{
  dp_state st = { occ_assign_view(x, d, m, lambda, centers, kfix, z, sd), NULL, NULL };
  occ_catch_up_rows(dp_validate, occ_assign_limit, &st, lo, hi, outcome, kfix, before);
}

int occ_dp_block_tally(const double *x, int d, int m, int *z, int *zprev, int k,
                       double *out)
{
  dp_state st = { occ_assign_view(x, d, m, 0.0, NULL, k, z, NULL), zprev, NULL };
  size_t len = (size_t) k * (d + 1) + 1;
  memset(out, 0, len * sizeof(double));
  dp_tally(&st, 0, m, out);
  return (int) out[len - 1];
}

double occ_dp_block_relabel_cost(const double *x, int d, int m, int *z, int *zprev,
                                 const int *newid, const double *centers, int k)
{
  dp_state st = { occ_assign_view(x, d, m, 0.0, centers, k, z, NULL), zprev, newid };
  double cost = 0.0;
  dp_relabel_cost(&st, 0, m, &cost);
  return cost;
}
