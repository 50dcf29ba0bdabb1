/* The hierarchy of the matrix-free modes: a two-level k-means (top
 * clusters, each split into leaves), the clients laid out leaf by leaf in
 * chunks, and fl_clusters_init, which builds it all with its summaries
 * and opens the initial facilities. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <float.h>
#include <stdint.h>
#include "cl_internal.h"
#include "fl_memory.h"
#include "kmeans.h"

/* Clients per leaf cluster (see FL_LEAF_SCALE): small leaves have tighter
 * balls and sharper estimates, but every evaluation pays one distance per
 * leaf besides the clients it visits, and small chunks cost more per
 * pair. */
static int leaf_size(int n)
{
  int s = (int) (FL_LEAF_SCALE * sqrt((double) n));
  return s < FL_LEAF_MIN ? FL_LEAF_MIN : s;
}

/* A top-level cluster of size clients is split into this many leaves. */
static int leaves_of(int size, int leaf)
{
  if (size == 0) return 0;
  int K2 = (size + leaf / 2) / leaf;
  if (K2 > FL_MAX_LEAVES) K2 = FL_MAX_LEAVES;
  return K2 < 1 ? 1 : K2;
}

static int top_clusters(const fl_problem *p, const fl_control *c)
{
  int K1 = c->clusters < p->n ? c->clusters : p->n;
  return K1 < 1 ? 1 : K1;
}


int fl_clusters_max_leaves(const fl_problem *p, const fl_control *c)
{
  const int top = top_clusters(p, c);
  const int K = top + p->n / leaf_size(p->n) + 1;
  const long long most = (long long) FL_MAX_LEAVES * top;   /* may pass an int */
  return K < most ? K : (int) most;
}

double fl_clusters_bytes(const fl_problem *p, const fl_control *c)
{
  double n = p->n, d = p->d, K = fl_clusters_max_leaves(p, c);
  double nchunks = n / FL_CHUNK + K;
  return (c->eps > 0 ? 12.0 : 8.0) * n * d    /* xs, xf */
    + (c->eps > 0 ? 4.0 * (n + FL_COLS_PAD) : 0.0)   /* xn */
    + 16.0 * (n + FL_COLS_PAD) + 20.0 * n     /* ws, cover; k-means scratch, bounds */
    + 136.0 * d * (top_clusters(p, c) + c->threads * FL_MAX_LEAVES)   /* center sums */
    + 8.0 * K * (d + 4) + 4.0 * (K + 1) + 148.0 * K + 4.0 * FL_LEAF_FLOATS * FL_COLS_PAD
    + (8.0 * d + 12.0) * (top_clusters(p, c) + 1)
    + 4.0 * K * d + 8.0 * d + 4.0 * (K + FL_COLS_PAD)   /* muf, org, mun */
    + 4.0 * c->threads * (d + 7.0 * K + 48) + 12.0 * c->threads * (K + 16)   /* scratch */
    + 4.0 * K * d + 44.0 * K + 4.0 * p->m   /* the owners */
    + nchunks * (16.0 + 32.0 + 1.0)
    + 8.0 * c->threads * ((double) FL_CHUNK * (d + 2) + 16)
    + fl_kmeans_bytes(p->n, p->d, c->threads);
}

void fl_clusters_free(fl_clusters *cl)
{
  free(cl->xs); free(cl->xf); free(cl->xn); free(cl->ws); free(cl->cover);
  free(cl->top); free(cl->kbase);
  free(cl->mu); free(cl->rad); free(cl->span); free(cl->first);
  free(cl->org); free(cl->muf); free(cl->mun); free(cl->yf); free(cl->bounds); free(cl->listed);
  free(cl->rms2); free(cl->lnw); free(cl->lnw_all); free(cl->lnmin); free(cl->reach2);
  free(cl->own); free(cl->side2); free(cl->own2); free(cl->oslot); free(cl->ownf);
  free(cl->chunk); free(cl->csum); free(cl->touched); free(cl->slot);
  free(cl->wact); free(cl->radf); free(cl->scratch);
  memset(cl, 0, sizeof *cl);
}

/* Clients sorted by cluster (stable), radii, and the chunk table. */
static int layout(fl_clusters *cl, const fl_problem *p, const int *assign)
{
  int n = cl->n, d = cl->d, K = cl->K;
  int *start = calloc((size_t) K + 1, sizeof(int));
  if (!start) return FL_ERR_NOMEM;
  for (int i = 0; i < n; i++) start[assign[i] + 1]++;
  for (int k = 0; k < K; k++) start[k + 1] += start[k];
  int nchunks = 0;
  for (int k = 0; k < K; k++) nchunks += (start[k + 1] - start[k] + FL_CHUNK - 1) / FL_CHUNK;
  cl->nchunks = nchunks;
  cl->chunk = malloc((size_t) (nchunks > 0 ? nchunks : 1) * sizeof(fl_chunk));
  cl->csum = malloc((size_t) (nchunks > 0 ? nchunks : 1) * sizeof(fl_summary));
  cl->touched = calloc((size_t) (nchunks > 0 ? nchunks : 1), 1);
  int *pos = malloc((size_t) K * sizeof(int));
  if (!cl->chunk || !cl->csum || !cl->touched || !pos) {
    free(start); free(pos);
    return FL_ERR_NOMEM;
  }
  memcpy(pos, start, (size_t) K * sizeof(int));
  for (int i = 0; i < n; i++) {
    int at = pos[assign[i]]++;
    memcpy(cl->xs + (size_t) at * d, p->x + (size_t) i * d, (size_t) d * sizeof(double));
    cl->ws[at] = p->weight ? p->weight[i] : 1.0;
  }
  int ch = 0;
  for (int k = 0; k < K; k++) {
    cl->first[k] = ch;
    double r2 = 0.0, sum2 = 0.0;
    for (int i = start[k]; i < start[k + 1]; i++) {
      double d2 = fl_sqdist(cl->xs + (size_t) i * d, cl->mu + (size_t) k * d, d);
      if (d2 > r2) r2 = d2;
      sum2 += d2;
    }
    cl->rad[k] = sqrt(r2) * (1.0 + FL_RAD_SLACK);
    cl->rms2[k] = start[k + 1] > start[k] ? sum2 / (start[k + 1] - start[k]) : 0.0;
    cl->reach2[k] = 2.0 * FL_COLD_SD * sqrt(cl->rms2[k] / d);
    cl->own[k] = -1;
    cl->own2[k] = HUGE_VAL;
    for (int lo = start[k]; lo < start[k + 1]; lo += FL_CHUNK, ch++) {
      cl->chunk[ch].lo = lo;
      cl->chunk[ch].hi = lo + FL_CHUNK < start[k + 1] ? lo + FL_CHUNK : start[k + 1];
      cl->chunk[ch].nact = cl->chunk[ch].hi - lo;
      cl->chunk[ch].cluster = k;
    }
  }
  cl->first[K] = ch;
  free(start); free(pos);
  return FL_OK;
}

typedef struct { int size, t; } fl_sized;

static int larger_first(const void *a, const void *b)
{
  const fl_sized *u = a, *v = b;
  if (u->size != v->size) return u->size > v->size ? -1 : 1;
  return u->t < v->t ? -1 : u->t > v->t;
}

/* The clusters whose sizes start[] gives, largest first: splitting one
 * costs about its size squared, so the threads taking them in this order
 * finish together (measured: inst/bench/results/tunables.md,
 * largest_first). */
static void largest_first(const int *start, int K1, fl_sized *order)
{
  for (int t = 0; t < K1; t++) {
    order[t].size = start[t + 1] - start[t];
    order[t].t = t;
  }
  qsort(order, (size_t) K1, sizeof(fl_sized), larger_first);
}

/* Two-level k-means: K1 = clusters top-level clusters, each split by
 * k-means into leaves of about leaf_size() clients.  Fills assign (leaf of
 * each client), cl->top, cl->kbase, cl->mu and cl->K.  cl->xs serves as
 * scratch. */
static int build_leaves(fl_clusters *cl, const fl_problem *p, const fl_control *c,
                        int *assign)
{
  int n = cl->n, d = cl->d, K1 = cl->K1, leaf = leaf_size(n);
  int *start = calloc((size_t) K1 + 1, sizeof(int));
  int *who = malloc((size_t) n * sizeof(int));
  int *sub = malloc((size_t) n * sizeof(int));
  fl_sized *order = malloc((size_t) K1 * sizeof(fl_sized));
  int status = FL_ERR_NOMEM;
  if (start && who && sub && order &&
      fl_kmeans(p->x, n, d, K1, c->seed, cl->threads, assign, cl->top) == FL_OK) {
    for (int i = 0; i < n; i++) start[assign[i] + 1]++;
    for (int t = 0; t < K1; t++) start[t + 1] += start[t];
    for (int i = 0; i < n; i++) {   /* stable: who[] in client order per cluster */
      int at = start[assign[i]]++;
      who[at] = i;
      memcpy(cl->xs + (size_t) at * d, p->x + (size_t) i * d, (size_t) d * sizeof(double));
    }
    for (int t = K1; t > 0; t--) start[t] = start[t - 1];
    start[0] = 0;
    /* leaves per cluster first, so the clusters can be split in parallel
     * (each split is serial and depends only on its cluster) */
    int *base = cl->kbase;
    cl->K = 0;
    for (int t = 0; t < K1; t++) {
      base[t] = cl->K;
      cl->K += leaves_of(start[t + 1] - start[t], leaf);
    }
    base[K1] = cl->K;
    int failed = 0;
    largest_first(start, K1, order);
FL_OMP(parallel for num_threads(fl_team(cl->threads)) schedule(dynamic, 1) reduction(|:failed))
    for (int o = 0; o < K1; o++) {
      int t = order[o].t, size = start[t + 1] - start[t];
      if (size == 0) continue;
      failed |= fl_kmeans(cl->xs + (size_t) start[t] * d, size, d, leaves_of(size, leaf),
                          c->seed + (unsigned) t, 1, sub + start[t],
                          cl->mu + (size_t) base[t] * d) != FL_OK;
      for (int i = start[t]; i < start[t + 1]; i++) assign[who[i]] = base[t] + sub[i];
    }
    status = failed ? FL_ERR_NOMEM : FL_OK;
  }
  free(start); free(who); free(sub); free(order);
  return status;
}

int fl_clusters_locate(const fl_clusters *cl, const double *yc, double *d2)
{
  int t = fl_nearest_row(cl->top, cl->K1, yc, cl->d, NULL), lo = cl->kbase[t];
  int cnt = cl->kbase[t + 1] - lo;
  if (cnt > 0) return lo + fl_nearest_row(cl->mu + (size_t) lo * cl->d, cnt, yc, cl->d, d2);
  *d2 = fl_sqdist(cl->mu, yc, cl->d);
  return 0;
}

/* Every array of cl, for n clients, d coordinates and at most K leaves
 * (the per-leaf blocks carved into their fields); whether all were
 * allocated (fl_clusters_free frees them either way). */
static int alloc_arrays(fl_clusters *cl, const fl_problem *p, const fl_control *c, size_t n,
                        size_t d, size_t K)
{
  cl->xs = fl_alloc_large(n * d, sizeof(double), 0);
  cl->xf = c->eps > 0 ? fl_alloc_large(n * d + FL_COLS_PAD, sizeof(float), 1) : NULL;   /* padded */
  cl->xn = c->eps > 0 ? calloc(n + FL_COLS_PAD, sizeof(float)) : NULL;
  cl->ws = calloc(n + FL_COLS_PAD, sizeof(double));      /* padded (fl_gain_dot_f) */
  cl->cover = calloc(n + FL_COLS_PAD, sizeof(double));
  cl->top = malloc((size_t) cl->K1 * d * sizeof(double));
  cl->kbase = malloc(((size_t) cl->K1 + 1) * sizeof(int));
  cl->mu = malloc(K * d * sizeof(double));
  cl->rad = malloc(K * sizeof(double));
  cl->span = malloc(K * sizeof(double));
  cl->rms2 = malloc(K * sizeof(double));
  cl->lnw = malloc(K * sizeof(double));
  cl->lnw_all = malloc(K * sizeof(double));
  cl->lnmin = malloc(2 * K * sizeof(double));
  cl->reach2 = malloc(K * sizeof(double));
  cl->first = malloc((K + 1) * sizeof(int));
  cl->wact = malloc(7 * K * sizeof(double));
  cl->krow = padded_leaves((int) K);
  /* zeros past K: the plan's loop runs over whole vectors (see plan) */
  cl->radf = calloc(FL_LEAF_FLOATS * (size_t) cl->krow, sizeof(float));
  cl->org = malloc(d * sizeof(double));
  cl->muf = calloc(K * d + FL_COLS_PAD, sizeof(float));   /* padded */
  cl->mun = calloc(K + FL_COLS_PAD, sizeof(float));   /* padded */
  cl->own = malloc(2 * K * sizeof(int));   /* and, after it, the distinct owners */
  cl->own2 = malloc(K * sizeof(double));
  cl->side2 = malloc(3 * K * sizeof(double));   /* and side, iside after it */
  cl->oslot = calloc(cl->krow, sizeof(int));   /* zeros past K, as radf's */
  cl->slot = malloc((size_t) p->m * sizeof(int));
  if (cl->slot)
    for (int j = 0; j < p->m; j++) cl->slot[j] = -1;
  cl->ownf = calloc(K * d + FL_COLS_PAD, sizeof(float));   /* padded */
  cl->yf_stride = fl_thread_stride(d + cl->krow + 6 * K, sizeof(float));
  cl->yf = malloc(c->threads * cl->yf_stride * sizeof(float));
  cl->bounds = malloc(c->threads * fl_thread_stride(cl->krow, sizeof(double)) * sizeof(double));
  cl->listed = malloc(c->threads * fl_thread_stride(K, sizeof(int)) * sizeof(int));
  cl->scratch = malloc(c->threads * fl_thread_stride((size_t) FL_CHUNK * (d + 2), sizeof(double)) *
                      sizeof(double));
  if (cl->wact) {
    cl->minact = cl->wact + K; cl->wpr = cl->wact + 2 * K; cl->minpr = cl->wact + 3 * K;
    cl->wall = cl->wact + 4 * K; cl->minall = cl->wact + 5 * K;
    cl->slackpr = cl->wact + 6 * K;
  }
  if (cl->lnmin) cl->lnmin_all = cl->lnmin + K;
  if (cl->radf) {
    float **f[FL_LEAF_FLOATS - 1] = { &cl->wactf, &cl->minactf, &cl->wprf, &cl->minprf,
                                      &cl->wallf, &cl->minallf, &cl->lnwf, &cl->lnw_allf,
                                      &cl->lnminf, &cl->lnmin_allf, &cl->rms2f, &cl->reach2f,
                                      &cl->own2f, &cl->side2f };
    for (int a = 0; a < FL_LEAF_FLOATS - 1; a++) *f[a] = cl->radf + (size_t) (a + 1) * cl->krow;
  }
  if (cl->side2) {
    cl->side = cl->side2 + K;
    cl->iside = cl->side + K;
  }
  return cl->xs && ((cl->xf && cl->xn) || c->eps <= 0) && cl->ws && cl->cover && cl->top &&
    cl->kbase && cl->mu && cl->rad && cl->span && cl->rms2 && cl->lnw && cl->lnw_all &&
    cl->lnmin && cl->reach2 && cl->own && cl->side2 && cl->own2 && cl->oslot && cl->slot &&
    cl->ownf &&
    cl->first && cl->wact && cl->radf && cl->org && cl->muf && cl->mun && cl->yf && cl->bounds &&
    cl->listed && cl->scratch;
}

/* Run the post-selection work on every chunk (parallel over chunks). */
static double post_all(fl_clusters *cl, const fl_cand *pick, int npick,
                       const unsigned char *skip, int cover, int summary)
{
  double pairs = 0.0;
FL_OMP(parallel for num_threads(fl_team(cl->threads)) schedule(dynamic, 8) reduction(+:pairs))
  for (int ch = 0; ch < cl->nchunks; ch++)
    pairs += fl_clusters_post_chunk(cl, ch, pick, npick, skip, NULL, cover, summary,
                                    fl_thread_id());
  return pairs;
}

/* Coverage of the initial facilities, then summaries (and pruning): the
 * set-up calls down into cl_post.c, cl_plan.c and cl_summaries.c, none of
 * which calls back. */
static int open_initial(fl_clusters *cl, const fl_problem *p)
{
  fl_cand pick[FL_INIT_BATCH];
  unsigned char *skip = malloc((size_t) FL_INIT_BATCH * cl->K);
  double *hw = malloc((size_t) (FL_INIT_BATCH + 1) * cl->K * sizeof(double));
  float *yo = malloc((size_t) FL_INIT_BATCH * cl->d * sizeof(float));
  if (!skip || !hw || !yo) { free(skip); free(hw); free(yo); return FL_ERR_NOMEM; }
  double *d2 = hw + (size_t) FL_INIT_BATCH * cl->K;
  cl->pairs += post_all(cl, NULL, 0, NULL, 0, 1);
  fl_clusters_reduce(cl);
  for (int t0 = 0; t0 < p->ninitial; t0 += FL_INIT_BATCH) {
    int np = p->ninitial - t0 < FL_INIT_BATCH ? p->ninitial - t0 : FL_INIT_BATCH;
    for (int q = 0; q < np; q++) {
      fl_clusters_offset(cl, cl->y + (size_t) p->initial[t0 + q] * cl->d, yo + (size_t) q * cl->d,
                         &pick[q]);
      fl_clusters_reach(cl, &pick[q], hw + (size_t) q * cl->K, d2);
    }
    fl_clusters_skip_table(cl, hw, np, skip);
    cl->pairs += post_all(cl, pick, np, skip, 1, 1);
    fl_clusters_reduce(cl);
    fl_clusters_own(cl, p->initial + t0, np);
  }
  free(skip); free(hw); free(yo);
  return FL_OK;
}

int fl_clusters_init(fl_clusters *cl, const fl_problem *p, const fl_control *c, int prune)
{
  memset(cl, 0, sizeof *cl);
  cl->n = p->n; cl->m = p->m; cl->d = p->d;
  /* a problem whose exhaustive pass is too small for a team never starts one */
  cl->threads = fl_par_size(c->threads, (double) p->n * p->m, FL_PAR_MIN_PAIRS);
  cl->inv2s2 = p->inv2s2;
  cl->tau = c->tau;
  cl->prune = prune && c->tau < 1.0 && c->eps > 0;   /* see FL_PRUNE_SHARE */
  cl->y = p->y;
  cl->K1 = top_clusters(p, c);
  size_t n = (size_t) p->n, d = (size_t) p->d, K = (size_t) fl_clusters_max_leaves(p, c);
  int allocated = alloc_arrays(cl, p, c, n, d, K);
  int *assign = malloc(n * sizeof(int));
  int status = FL_ERR_NOMEM;
  if (allocated && assign &&
      build_leaves(cl, p, c, assign) == FL_OK && layout(cl, p, assign) == FL_OK) {
    fl_cl_bisector_spreads(cl);
    fl_cl_single_precision_centers(cl);
    if (cl->xf) fl_cl_single_precision_chunks(cl);
    status = open_initial(cl, p);
  }
  free(assign);
  if (status != FL_OK) fl_clusters_free(cl);
  return status;
}
