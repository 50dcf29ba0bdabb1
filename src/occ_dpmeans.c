/* DP-means (Kulis and Jordan, 2012), serial and OCC: minimise
 * sum_i ||x_i - mu_{z_i}||^2 + lambda^2 K.  A point whose squared distance to
 * every center exceeds lambda^2 opens a cluster at itself; otherwise it joins
 * the nearest.  Means are recomputed after each pass and empty clusters
 * dropped, so the objective never increases. */
#include <stdlib.h>
#include <string.h>
#include "occ_common.h"
#include "fl_kernel.h"

typedef struct {
  occ_assign a;
  int *zprev;
} dp_state;

static int dp_propose(void *st, int i, int slot)
{
  occ_assign *a = &((dp_state *) st)->a;
  occ_assign_old(a, i, slot);
  return a->sd[slot] > a->lambda2;
}

static int dp_validate(void *st, int i, int slot)
{
  occ_assign *a = &((dp_state *) st)->a;
  if (occ_assign_new(a, i, slot) <= a->lambda2) return 0;
  return occ_assign_open(a, i) ? -1 : 1;
}

/* Per cluster: count, then the d coordinate sums. */
static void dp_sums(void *ctx, int lo, int hi, double *out)
{
  occ_assign *a = ctx;
  const int d = a->d;
  for (int i = lo; i < hi; i++) {
    double *o = out + (size_t) a->z[i] * (d + 1);
    const double *xi = a->x + (size_t) i * d;
    o[0] += 1.0;
    for (int t = 0; t < d; t++) o[1 + t] += xi[t];
  }
}

static void dp_cost(void *ctx, int lo, int hi, double *out)
{
  occ_assign *a = ctx;
  double s = out[0];
  for (int i = lo; i < hi; i++)
    s += fl_sqdist(a->x + (size_t) i * a->d, a->c.v + (size_t) a->z[i] * a->d, a->d);
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

void occ_dp_relabel(int *z, int *zprev, int n, const int *newid, int threads)
{
  (void) threads;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) if(n >= OCC_PAR_MIN) schedule(static)
#endif
  for (int i = 0; i < n; i++) z[i] = zprev[i] = newid[z[i]];
}

int occ_dp_changed(const int *z, const int *zprev, int n, int threads)
{
  int ch = 0;
  (void) threads;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) if(n >= OCC_PAR_MIN) reduction(+:ch) schedule(static)
#endif
  for (int i = 0; i < n; i++) ch += z[i] != zprev[i];
  return ch;
}

/* Means of the non-empty clusters, renumbered in order; z follows. */
static int dp_update_means(dp_state *st, const occ_setup *s)
{
  occ_assign *a = &st->a;
  const int d = a->d, K = a->c.k;
  double *sums = malloc((size_t) K * (d + 1) * sizeof(double) + 1);
  int *newid = malloc((size_t) K * sizeof(int) + 1);
  int status = (sums && newid) ? occ_shard_sum(s, dp_sums, a, K * (d + 1), sums)
                               : FL_ERR_NOMEM;
  if (status == FL_OK) {
    a->c.k = occ_dp_means(sums, K, d, a->c.v, newid);
    occ_dp_relabel(a->z, st->zprev, a->n, newid, s->threads);
  }
  free(sums);
  free(newid);
  return status;
}

static int dp_end_pass(void *ptr, const occ_setup *s, double *objective,
                       int *changed)
{
  dp_state *st = ptr;
  *changed = occ_dp_changed(st->a.z, st->zprev, st->a.n, s->threads);
  int status = dp_update_means(st, s);
  double cost = 0.0;
  if (status == FL_OK) status = occ_shard_sum(s, dp_cost, &st->a, 1, &cost);
  *objective = cost + st->a.lambda2 * st->a.c.k;
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
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) if(n >= OCC_PAR_MIN) schedule(static)
#endif
  for (int i = 0; i < n; i++) {
    int best = -1;
    double bd = HUGE_VAL;
    occ_nearest(x + (size_t) i * d, centers, d, 0, k, &best, &bd);
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
  dp_state st = { occ_assign_view(x, d, m, lambda, centers, k, z, sd), NULL };
  occ_propose_rows(dp_propose, &st, lo, hi, occ_assign_begin(&st.a), threads, flag);
}

int occ_dp_validate_list(const double *xp, int np, int d, double lambda,
                         occ_centers *c, int *z, double *sd, int *accepted)
{
  dp_state st = { occ_assign_view(xp, d, np, lambda, c->v, c->k, z, sd), NULL };
  st.a.c = *c;
  int status = occ_validate_list(dp_validate, &st, np, accepted);
  *c = st.a.c;
  return status;
}

void occ_dp_catch_up_rows(const double *x, int d, int m, int lo, int hi,
                          const double *centers, int kfix, double lambda, int *z,
                          double *sd, const int *outcome, int before)
{
  dp_state st = { occ_assign_view(x, d, m, lambda, centers, kfix, z, sd), NULL };
  occ_catch_up_rows(dp_validate, occ_assign_limit, &st, lo, hi, outcome, kfix, before);
}

void occ_dp_block_sums(const double *x, int d, int m, int *z, int k, double *out)
{
  occ_assign a = occ_assign_view(x, d, m, 0.0, NULL, k, z, NULL);
  memset(out, 0, (size_t) k * (d + 1) * sizeof(double));
  dp_sums(&a, 0, m, out);
}

double occ_dp_block_cost(const double *x, int d, int m, int *z,
                         const double *centers, int k)
{
  occ_assign a = occ_assign_view(x, d, m, 0.0, centers, k, z, NULL);
  double cost = 0.0;
  dp_cost(&a, 0, m, &cost);
  return cost;
}
