#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <float.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "fl_clusters.h"
#include "fl_memory.h"
#include "fl_kernel.h"
#include "fl_omp.h"
#include "kmeans.h"
#if FL_WIDE
#include <immintrin.h>
#endif

/* Leaves per top-level cluster at most: past this, leaves are finer than
 * the structure the bounds can use and every evaluation pays one distance
 * per leaf (n = 1e6 would otherwise have 4000 leaves). */
#define FL_MAX_LEAVES 64
/* The per-cluster arrays kept in single precision (radf to side2f in
 * fl_clusters.h). */
#define FL_LEAF_FLOATS 15
/* Initial facilities are opened this many at a time. */
#define FL_INIT_BATCH 16

/* Safety margins that keep the cluster bounds above the kernel values as
 * computed in floating point (rounding in distances and exp()). */
#define FL_RAD_SLACK 1e-9
#define FL_SIM_SLACK 1e-12
/* Relative margin for the double-precision similarities' rounding (their
 * distance and exp()), far above it, where a single-precision bound on
 * them must not fall below (may_raise). */
#define FL_RAISE_SLACK 1e-9
/* Twice the unit roundoff of single precision, 2^-23 (see fl_clusters_reach). */
#define FL_F32_EPS 1.1920928955078125e-07
#define FL_SQRT_HALF_PI 1.2533141373155003
#define FL_INV_SQRT_2PI 0.3989422804014327
/* The distances to the centers are computed in single precision as
 * |A|^2 + |B|^2 - 2 A.B, A = center - org and B = yc - org, four
 * candidates at a time, at a quarter of the cost of the differences, one
 * candidate at a time: every evaluation needs all K of them, more than
 * the clients it visits.  As for the clients (rounding_allowance()), the
 * true squared distance of the rounded A' and B' is at least the computed
 * one less delta = (d + 5) u (|A| + |B|)^2, u = 2^-24, so their distance
 * is at least the square root of the computed one less sqrt(delta); that
 * square root is within u of the computed one relatively, and the rounding
 * of A and B moves the distance by at most u (|A| + |B|).  So the
 * distance is at least the computed one times 1 - u, less FL_DOT_LIFT(d)
 * (|A| + |B|); the radii hold the |A| part, the lift of plan() and
 * fl_clusters_reach() the |B| part, and FL_REACH_SHRINK, 1 - 2 u, the
 * factor. */
#define FL_DOT_LIFT(d) ((sqrt(((d) + 5.0) * 0.5 * FL_F32_EPS) + 0.5 * FL_F32_EPS) * \
                        (1.0 + FL_RAD_SLACK))
#define FL_REACH_SHRINK (1.0 - FL_F32_EPS)
/* Caps and floors that keep drop_estimated()'s arithmetic finite. */
#define FL_Z_MAX 1e6
#define FL_TINY_DIST 1e-30

/* Clients per leaf cluster, about 0.35 sqrt(n) (at least 8): small leaves
 * have tighter balls and sharper estimates, but every evaluation pays one
 * distance per leaf besides the clients it visits, and small chunks cost
 * more per pair.  Against sqrt(n) / 4, 0.35 sqrt(n) took 3% to 16% less
 * time on seven presets (n = 12000 and 30000, nhpc at one thread, medians
 * of 5 interleaved runs; 0.3 about half as much), and f(S) stayed as it
 * was but on "heavy_skew" (0.99967 of greedy's instead of 0.99992),
 * "medium_cluster" (n = 12000, 0.99994 instead of 1) and "weak_cluster"
 * (0.99997 instead of 1.00001); bench-lowdim.R visited 8%
 * more pairs and ended 4 instead of 6 of its 180 runs below 0.999 of
 * greedy, none below 0.9983.  0.4 fell to 0.99916 on "heavy_skew". */
static int leaf_size(int n)
{
  int s = (int) (0.35 * sqrt((double) n));
  return s < 8 ? 8 : s;
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

/* K leaves rounded up to whole blocks of FL_COLS_PAD, the vectors' widths
 * in floats. */
static int padded_leaves(int K)
{
  return (K + FL_COLS_PAD - 1) / FL_COLS_PAD * FL_COLS_PAD;
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
    + 8.0 * K * (d + 4) + 4.0 * (K + 1) + 140.0 * K + 4.0 * FL_LEAF_FLOATS * FL_COLS_PAD
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

/* Power iterations for the largest eigenvalue of a leaf's covariance:
 * from the farthest client's direction, 3 steps gave the same f(S) as 8
 * and 30 on the 13 presets and as 30 in bench-lowdim.R, for 0.1% to 0.9%
 * fewer pairs than 8 (leaves judged isotropic by the lower estimate) and
 * a third of the time (8 took 1.5% to 3% of nhpc's time on "medium" and
 * "large"). */
#define FL_POWER_STEPS 3

/* Steps of split_share's one-dimensional two-means after the first split
 * at the mean: on 64 data sets (the presets at n = 1000 to 5000, the 14
 * benchmark files, 10 of bench-lowdim.R's) 4 steps counted within 4 leaves
 * of 8 steps as mixed (FL_MIXED_SHARE), 1 step up to 9 fewer. */
#define FL_SPLIT_STEPS 4

/* (x - mu) . dir over d coordinates. */
static inline double offset_along(const double *x, const double *mu, const double *dir, int d)
{
  double p = 0.0;
  for (int t = 0; t < d; t++) p += (x[t] - mu[t]) * dir[t];
  return p;
}

/* The largest variance of clients lo..hi-1 (layout order, as rows of xs)
 * along any direction, less than it at most (power iteration from the
 * offset of the client farthest from the center mu, whose variance along
 * it would be a lower bound too); v and u: d doubles of scratch. */
static double largest_variance(const fl_clusters *cl, int lo, int hi, const double *mu,
                               double *v, double *u)
{
  const int d = cl->d;
  double far = -1.0, lambda = 0.0;
  for (int i = lo; i < hi; i++) {
    double d2 = fl_sqdist(cl->xs + (size_t) i * d, mu, d);
    if (d2 > far) {
      far = d2;
      for (int t = 0; t < d; t++) v[t] = cl->xs[(size_t) i * d + t] - mu[t];
    }
  }
  for (int step = 0; step < FL_POWER_STEPS && far > 0; step++) {
    double n2 = 0.0;
    for (int t = 0; t < d; t++) n2 += v[t] * v[t];
    double norm = sqrt(n2);
    if (norm == 0) break;
    for (int t = 0; t < d; t++) { v[t] /= norm; u[t] = 0.0; }
    lambda = 0.0;
    for (int i = lo; i < hi; i++) {
      const double *x = cl->xs + (size_t) i * d;
      double proj = offset_along(x, mu, v, d);
      lambda += proj * proj;
      for (int t = 0; t < d; t++) u[t] += proj * (x[t] - mu[t]);
    }
    lambda /= hi - lo;
    memcpy(v, u, (size_t) d * sizeof(double));
  }
  return lambda;
}

/* The share of the variance of clients lo..hi-1 (offsets from mu) along
 * direction dir (d doubles, any length) that two groups split at a
 * threshold explain, by a one-dimensional two-means from the mean in
 * FL_SPLIT_STEPS steps: about 0.64 for a normal spread, 0.75 for a uniform
 * one, near 1 for two separate groups.  The projections are recomputed at
 * each step (no scratch): the leaves it is called for are few (see
 * FL_MIXED_SHARE). */
static double split_share(const fl_clusters *cl, int lo, int hi, const double *mu,
                          const double *dir)
{
  double cut = -HUGE_VAL, share = 0.0;
  for (int step = 0; step <= FL_SPLIT_STEPS; step++) {
    double s[2] = { 0.0, 0.0 }, n[2] = { 0.0, 0.0 }, sq = 0.0;
    for (int i = lo; i < hi; i++) {
      double p = offset_along(cl->xs + (size_t) i * cl->d, mu, dir, cl->d);
      int side = p >= cut;
      s[side] += p;
      n[side] += 1.0;
      sq += p * p;
    }
    double total = sq - (s[0] + s[1]) * (s[0] + s[1]) / (n[0] + n[1]);
    if (n[0] > 0 && n[1] > 0 && total > 0) {
      double gap = s[0] / n[0] - s[1] / n[1];
      share = n[0] * n[1] / (n[0] + n[1]) * gap * gap / total;
      cut = 0.5 * (s[0] / n[0] + s[1] / n[1]);
    } else {
      cut = (s[0] + s[1]) / (n[0] + n[1]);   /* the first step (or no spread): the mean */
    }
  }
  return share;
}

/* side2[] for every leaf (see FL_ISOTROPIC), each from its own clients,
 * and whether the leaves are to be judged by estimates (see
 * FL_MIXED_SHARE). */
static void bisector_spreads(fl_clusters *cl)
{
  const int d = cl->d;
  double *scratch = cl->scratch;
  int mixed = 0;
FL_OMP(parallel for num_threads(cl->threads) schedule(dynamic, 8) reduction(+:mixed))
  for (int k = 0; k < cl->K; k++) {
    double *v = scratch + fl_thread_id() * fl_thread_stride((size_t) FL_CHUNK * (d + 2), sizeof(double));
    int f = cl->first[k], e = cl->first[k + 1];
    double iso = cl->rms2[k] / d, spread2 = iso;
    if (e > f && cl->chunk[e - 1].hi - cl->chunk[f].lo > 1) {
      int lo = cl->chunk[f].lo, hi = cl->chunk[e - 1].hi;
      double top = largest_variance(cl, lo, hi, cl->mu + (size_t) k * d, v, v + d);
      if (top > FL_ISOTROPIC * iso) spread2 = top;
      double edge = 1.0 + sqrt((double) d / (hi - lo));
      mixed += top > FL_MIXED_EXCESS * edge * edge * iso &&
        split_share(cl, lo, hi, cl->mu + (size_t) k * d, v) > FL_MIXED_SPLIT;
    }
    cl->side2[k] = 4.0 * FL_COLD_SD * FL_COLD_SD * spread2;
    cl->side[k] = sqrt(cl->side2[k]);
    cl->iside[k] = 1.0 / (cl->side[k] + FL_TINY_DIST);
  }
  cl->estimates = mixed <= FL_MIXED_SHARE * cl->K;
}

/* The centers for fl_clusters_distances(), with their squared norms
 * (rounded once), each radius enlarged by the rounding allowance of its
 * center there, and the spans. */
static void single_precision_centers(fl_clusters *cl)
{
  const int K = cl->K, d = cl->d;
  fl_centers_cols_f(cl->mu, K, d, cl->org, cl->muf);
  for (int k = 0; k < K; k++) {
    double norm2 = 0.0, norm2f = 0.0;
    for (int t = 0; t < d; t++) {
      double a = cl->mu[(size_t) k * d + t] - cl->org[t], af = cl->muf[(size_t) t * K + k];
      norm2 += a * a;
      norm2f += af * af;
    }
    cl->mun[k] = (float) norm2f;
    double center = sqrt(norm2) * (1.0 + FL_RAD_SLACK);
    cl->rad[k] += FL_DOT_LIFT(d) * center;
    cl->span[k] = center + cl->rad[k];
  }
}

/* Chunk ch's block of cl->xf from its rows of cl->xs. */
static void single_precision_chunk(fl_clusters *cl, int ch)
{
  const fl_chunk *c = &cl->chunk[ch];
  const int d = cl->d, cnt = c->hi - c->lo;
  float *xf = cl->xf + (size_t) c->lo * d;
  for (int i = 0; i < cnt; i++) {
    const double *x = cl->xs + (size_t) (c->lo + i) * d;
    double norm2 = 0.0;
    for (int t = 0; t < d; t++) {
      float a = (float) (x[t] - cl->org[t]);
      xf[(size_t) t * cnt + i] = a;
      norm2 += (double) a * a;
    }
    cl->xn[c->lo + i] = (float) norm2;
  }
}

static void single_precision_chunks(fl_clusters *cl)
{
FL_OMP(parallel for num_threads(cl->threads) schedule(dynamic, 16))
  for (int ch = 0; ch < cl->nchunks; ch++) single_precision_chunk(cl, ch);
}

/* v >= 0 in single precision, at least v (dir = 1) or at most v (dir =
 * -1): moved by 2^-23 of it before the rounding to nearest, which moves a
 * normal float by at most 2^-24 of it.  Below the normal floats it is
 * FLT_MIN (dir = 1) or 0 (dir = -1, and 0 for v = 0): never a subnormal
 * float, whose arithmetic is slow.  Moving every value by the smallest
 * subnormal float instead gave the zero weights and coverage minima of
 * most leaves subnormal floats, and nhpc at one thread took 23% longer on
 * "weak_cluster" (n = 12000). */
static inline float float_toward(double v, int dir)
{
  float f = (float) (v * (1.0 + dir * 0x1p-23));
  if (f >= FLT_MIN) return f;
  return dir > 0 && v > 0 ? FLT_MIN : 0.0f;
}

/* Leaf k's values in single precision for fl_clusters_plan(), from the
 * doubles; after every change of those (fl_clusters_reduce; own2f also in
 * fl_clusters_own). */
static void leaf_floats(fl_clusters *cl, int k)
{
  cl->radf[k] = float_toward(cl->rad[k], 1);
  cl->wactf[k] = float_toward(cl->wact[k], 1);
  cl->wprf[k] = float_toward(cl->wpr[k], 1);
  cl->wallf[k] = float_toward(cl->wall[k], 1);
  cl->minactf[k] = float_toward(cl->minact[k], -1);
  cl->minprf[k] = float_toward(cl->minpr[k], -1);
  cl->minallf[k] = float_toward(cl->minall[k], -1);
  cl->lnwf[k] = (float) cl->lnw[k];
  cl->lnw_allf[k] = (float) cl->lnw_all[k];
  cl->lnminf[k] = (float) cl->lnmin[k];
  cl->lnmin_allf[k] = (float) cl->lnmin_all[k];
  cl->rms2f[k] = (float) cl->rms2[k];
  cl->reach2f[k] = (float) cl->reach2[k];
  cl->own2f[k] = (float) cl->own2[k];
  cl->side2f[k] = (float) cl->side2[k];
}

void fl_clusters_own(fl_clusters *cl, const int *idx, int np)
{
  const int K = cl->K, d = cl->d;
  for (int q = 0; q < np; q++) {
    const double *yp = cl->y + (size_t) idx[q] * d;
    for (int k = 0; k < K; k++) {
      double d2 = fl_sqdist(cl->mu + (size_t) k * d, yp, d);
      if (d2 < cl->own2[k]) {
        cl->own2[k] = d2;
        cl->own[k] = idx[q];
      }
    }
  }
  /* the owners' columns in the order of their first leaves (each column's
   * distances are computed apart, so the order changes none of them), not
   * sorted by index with qsort() and bsearch(): this function then took
   * 3.1 to 4.5 ms of nhpc's solve on "large" (n = 30000, one thread), now
   * 0.8 to 1.6 ms */
  int *owners = cl->own + K;
  cl->nown = 0;
  for (int k = 0; k < K; k++) {
    int o = cl->own[k];
    if (o >= 0 && cl->slot[o] < 0) {
      cl->slot[o] = cl->nown;
      owners[cl->nown++] = o;
    }
    cl->oslot[k] = o >= 0 ? cl->slot[o] : 0;
    cl->own2f[k] = (float) cl->own2[k];
  }
  for (int s = 0; s < cl->nown; s++) {
    const double *yp = cl->y + (size_t) owners[s] * d;
    for (int t = 0; t < d; t++) cl->ownf[(size_t) t * K + s] = (float) (yp[t] - cl->org[t]);
    cl->slot[owners[s]] = -1;
  }
}

/* Run the post-selection work on every chunk (parallel over chunks). */
static double post_all(fl_clusters *cl, const fl_cand *pick, int npick,
                       const unsigned char *skip, int cover, int summary)
{
  double pairs = 0.0;
FL_OMP(parallel for num_threads(cl->threads) schedule(dynamic, 8) reduction(+:pairs))
  for (int ch = 0; ch < cl->nchunks; ch++)
    pairs += fl_clusters_post_chunk(cl, ch, pick, npick, skip, NULL, cover, summary,
                                    fl_thread_id());
  return pairs;
}

/* Coverage of the initial facilities, then summaries (and pruning). */
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

typedef struct { int size, t; } fl_sized;

static int larger_first(const void *a, const void *b)
{
  const fl_sized *u = a, *v = b;
  if (u->size != v->size) return u->size > v->size ? -1 : 1;
  return u->t < v->t ? -1 : u->t > v->t;
}

/* The clusters whose sizes start[] gives, largest first: splitting one
 * costs about its size squared, so the threads taking them in this order
 * finish together ("large", n = 30000: 0.036 s at one thread; at two,
 * 0.0193 to 0.0208 s in index order, 0.0179 to 0.0187 s so). */
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
      fl_kmeans(p->x, n, d, K1, c->seed, c->threads, assign, cl->top) == FL_OK) {
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
FL_OMP(parallel for num_threads(c->threads) schedule(dynamic, 1) reduction(|:failed))
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

int fl_clusters_init(fl_clusters *cl, const fl_problem *p, const fl_control *c, int prune)
{
  memset(cl, 0, sizeof *cl);
  cl->n = p->n; cl->m = p->m; cl->d = p->d;
  cl->threads = c->threads;
  cl->inv2s2 = p->inv2s2;
  cl->tau = c->tau;
  cl->prune = prune && c->tau < 1.0;
  cl->y = p->y;
  cl->K1 = top_clusters(p, c);
  size_t n = (size_t) p->n, d = (size_t) p->d, K = (size_t) fl_clusters_max_leaves(p, c);
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
  cl->wact = malloc(6 * K * sizeof(double));
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
  int *assign = malloc(n * sizeof(int));
  int status = FL_ERR_NOMEM;
  if (cl->xs && ((cl->xf && cl->xn) || c->eps <= 0) && cl->ws && cl->cover && cl->top &&
      cl->kbase && cl->mu && cl->rad && cl->span && cl->rms2 && cl->lnw && cl->lnw_all &&
      cl->lnmin && cl->reach2 && cl->own && cl->side2 && cl->own2 && cl->oslot && cl->slot &&
      cl->ownf &&
      cl->first && cl->wact && cl->radf && cl->org && cl->muf && cl->mun && cl->yf && cl->bounds &&
      cl->listed && cl->scratch && assign &&
      build_leaves(cl, p, c, assign) == FL_OK && layout(cl, p, assign) == FL_OK) {
    bisector_spreads(cl);
    single_precision_centers(cl);
    if (cl->xf) single_precision_chunks(cl);
    status = open_initial(cl, p);
  }
  free(assign);
  if (status != FL_OK) fl_clusters_free(cl);
  return status;
}

/* fl_positive() in single precision. */
static inline float positive_f(float v)
{
  return 0.5f * (v + fabsf(v));
}

#if FL_WIDE
/* sqrtf_in_place() sixteen at a time. */
static FL_WIDE_TARGET __attribute__((noinline)) void sqrtf_wide(float *v, int n)
{
  int i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(v + i, _mm512_sqrt_ps(_mm512_loadu_ps(v + i)));
  for (; i < n; i++) v[i] = sqrtf(v[i]);
}
#endif

/* v[i] = sqrt(v[i]) for n values >= 0.  sqrtf() may set errno, so under
 * R's flags (no -fno-math-errno) a loop over it never vectorises: SSE
 * takes four at a time where it is there (every x86-64), AVX-512 sixteen
 * (square roots are correctly rounded: the same values), which took the
 * square roots from 3.2% to 1.0% of the perf samples on "weak_cluster" (n
 * = 12000, one thread). */
static void sqrtf_in_place(float *v, int n)
{
#if FL_WIDE
  if (fl_wide_vectors()) {
    sqrtf_wide(v, n);
    return;
  }
#endif
  int i = 0;
#ifdef __SSE2__
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(v + i, _mm_sqrt_ps(_mm_loadu_ps(v + i)));
#endif
  for (; i < n; i++) v[i] = sqrtf(v[i]);
}


void fl_clusters_distances(const fl_clusters *cl, int nq, const fl_cand *const *cand,
                           float *df)
{
  const float *y[FL_DOT_BATCH];
  float yn[FL_DOT_BATCH];
  for (int q = 0; q < nq; q++) {
    y[q] = cand[q]->yo;
    yn[q] = cand[q]->yn2;
  }
  fl_sqdist_dot_f(cl->muf, cl->K, cl->K, nq, y, yn, cl->mun, cl->d, df, (size_t) cl->krow);
  sqrtf_in_place(df, nq * cl->krow);
}

/* The thread's scratch for the plan (6 K floats, see owner_distances and
 * drop_estimated). */
static float *plan_scratch(const fl_clusters *cl)
{
  return cl->yf + (size_t) fl_thread_id() * cl->yf_stride + cl->d + cl->krow;
}

/* The distances of cand to the centers, in the thread's scratch. */
static float *cand_distances(const fl_clusters *cl, const fl_cand *cand)
{
  float *df = cl->yf + (size_t) fl_thread_id() * cl->yf_stride + cl->d;
  fl_clusters_distances(cl, 1, &cand, df);
  return df;
}

/* The distances of yc to the centers in the thread's scratch, and *cand
 * for it, its offset there too. */
static float *point_distances(const fl_clusters *cl, const double *yc, fl_cand *cand)
{
  fl_clusters_offset(cl, yc, cl->yf + (size_t) fl_thread_id() * cl->yf_stride, cand);
  return cand_distances(cl, cand);
}

/* The squared distances of a candidate to the owners (single precision,
 * estimates only), into the first K floats of the plan's scratch ps
 * (column 0 is 0 while there is no owner: unowned leaves have own2 =
 * HUGE_VAL), then the distances and their inverses. */
static const float *owner_distances(const fl_clusters *cl, const fl_cand *cand, float *ps)
{
  float *cp2 = ps, *cp = cp2 + cl->K, *icp = cp + cl->K;
  cp2[0] = 0.0f;
  fl_sqdist_cols_f(cl->ownf, cl->K, cl->nown, cand->yo, cl->d, cp2);
  int n = cl->nown > 0 ? cl->nown : 1;
  memcpy(cp, cp2, (size_t) n * sizeof(float));
  sqrtf_in_place(cp, n);
  for (int s = 0; s < n; s++) icp[s] = 1.0f / (cp[s] + FL_TINY_DIST);
  return cp2;
}

/* An upper bound on exp(-x) for x >= 0 without exp(), in single
 * precision: 1 over the degree-6 Taylor polynomial of exp(x), which is
 * below exp(x), times 1 + FL_SIM_SLACK + 2^-18.  Within 1% of exp(-x) up
 * to x = 2.3 (the bounds that matter) and vectorisable, sixteen a vector
 * with AVX-512.  The 24 roundings of the polynomial (all its terms
 * positive), those of its coefficients and the division move it by less
 * than 1.5e-6 relatively; 2^-18 is 3.8e-6. */
static inline float exp_neg_upper(float x)
{
  const float lift = (float) ((1.0 + FL_SIM_SLACK) * (1.0 + 0x1p-18));
  float p = 1.0f + x * (1.0f / 6.0f);
  p = 1.0f + x * (1.0f / 5.0f) * p;
  p = 1.0f + x * 0.25f * p;
  p = 1.0f + x * (1.0f / 3.0f) * p;
  p = 1.0f + x * 0.5f * p;
  p = 1.0f + x * p;
  return lift / p;
}

/* The terms of ball_reach() for a candidate at |yc - org| = ynorm.  The
 * distance to a ball is at least the computed distance to its center
 * times FL_REACH_SHRINK, less the lift and the radius (see FL_DOT_LIFT);
 * here the shrink is taken below (1 - 2^-22) FL_REACH_SHRINK and the lift
 * above its value, so that their product and sum round to at most and at
 * least the exact ones, and the exponent's scale 2^-21 below, for the two
 * roundings of gap^2 scale. */
typedef struct { float lift, shrink, scale; } fl_reach_terms;

static fl_reach_terms reach_terms(const fl_clusters *cl, double ynorm)
{
  fl_reach_terms t = {
    float_toward(FL_DOT_LIFT(cl->d) * ynorm, 1), (float) (FL_REACH_SHRINK * (1.0 - 0x1p-22)),
    (float) ((1.0 - FL_RAD_SLACK) * cl->inv2s2 * (1.0 - 0x1p-21))
  };
  return t;
}

/* The bound on the similarity to any client of a ball of radius rad (from
 * cl->radf, rounded up) whose center is at computed distance dist: each
 * side of the gap's difference is off by at most 2^-24 of it, so 2^-21 of
 * their sum more keeps the gap below the exact one. */
static inline float ball_reach(float dist, float rad, fl_reach_terms t)
{
  float near_side = dist * t.shrink, far_side = t.lift + rad;
  float gap = positive_f(near_side - far_side - 0x1p-21f * (near_side + far_side));
  return exp_neg_upper(gap * gap * t.scale);
}

FL_CLONES void fl_clusters_reach(const fl_clusters *cl, const fl_cand *cand, double *hw,
                                 double *dist)
{
  const float *df = cand_distances(cl, cand), *rad = cl->radf;
  const fl_reach_terms t = reach_terms(cl, cand->ynorm);
  FL_SIMD
  for (int k = 0; k < cl->K; k++) {
    dist[k] = df[k];
    hw[k] = ball_reach(df[k], rad[k], t);
  }
}

/* Minus the log of the mass estimate per unit weight of a leaf at
 * distance dist with mean squared spread rms2 (see skipped_mass). */
static inline FL_INLINE double mass_exponent(const fl_clusters *cl, double dist, double rms2)
{
  const double inv2s2 = cl->inv2s2;
  return (dist * dist + rms2) * inv2s2 - 2.0 * inv2s2 * inv2s2 / cl->d * dist * dist * rms2;
}

/* The mass estimate of fl_clusters_plan, w exp(-(dist^2 + rms2) / 2
 * sigma^2) times Jensen's correction exp(dist^2 rms2 / (2 d sigma^4)) (the
 * mean of exp(dist p / sigma^2) over offsets p along the line to the
 * candidate, normal with the variance rms2 / d of a random direction),
 * summed over the leaves it skips (eval), from their distances df
 * (overwritten: the exponents, 1e9 more for the leaves visited, whose
 * terms exp() then takes below 1e-37). */
static inline double skipped_mass(const fl_clusters *cl, float *df, const int *eval,
                                  const double *w)
{
  FL_SIMD
  for (int k = 0; k < cl->K; k++)
    df[k] = (float) (fl_positive(mass_exponent(cl, df[k], cl->rms2[k])) + 1e9 * eval[k]);
  fl_expf_neg_array(df, cl->K);
  double mass = 0.0;
  FL_SIMD_SUM(mass)
  for (int k = 0; k < cl->K; k++) mass += w[k] * df[k];
  return mass;
}

/* Whether drop_estimated() estimates leaf l: the plan visits it (eval),
 * with the candidate (distances df) outside its ball and not nearer to its
 * center than the owner. */
static inline FL_INLINE int estimated(const fl_clusters *cl, const float *df, const int *eval,
                                      int l)
{
  double dist = df[l];
  return eval[l] & (dist * dist >= cl->own2[l]) & (dist > cl->rad[l]);
}

/* The visited leaves (eval[l] != 0), or with estimate those of them that
 * drop_estimated() estimates, into idx, in order; returns their count. */
static inline FL_INLINE int list_leaves(const fl_clusters *cl, const float *df,
                                        const int *eval, int estimate, int *idx)
{
  int n = 0;
  for (int k = 0; k < cl->K; k += 4) {
    uint64_t word[2];   /* most leaves are not visited: four flags at a time */
    memcpy(word, eval + k, sizeof word);
    if ((word[0] | word[1]) == 0) continue;
    for (int l = k; l < k + 4 && l < cl->K; l++) {
      idx[n] = l;
      n += estimate ? estimated(cl, df, eval, l) : eval[l] != 0;
    }
  }
  return n;
}

#if FL_WIDE
/* Leaves k .. k + 15 whose bit is set in m appended to idx after its n
 * entries, packed by a compress in a register (compressing into memory is
 * microcoded on Zen 4) and stored whole: the count never passes the
 * leaves seen, so the store stays within idx's K entries.  Returns the new
 * count. */
static inline FL_WIDE_TARGET int append_leaves(int *idx, int n, __mmask16 m, int k)
{
  const __m512i step = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m512i at = _mm512_add_epi32(step, _mm512_set1_epi32(k));
  _mm512_storeu_si512((void *) (idx + n), _mm512_maskz_compress_epi32(m, at));
  return n + __builtin_popcount(m);
}

/* The leaves k .. k + 15 with eval[k] != 0, as a mask. */
static inline FL_WIDE_TARGET __mmask16 flagged_leaves(const int *eval, int k)
{
  __m512i ev = _mm512_loadu_si512((const void *) (eval + k));
  return _mm512_test_epi32_mask(ev, ev);
}

/* list_leaves() with estimate, sixteen leaves at a time (append_leaves).  The scalar
 * loop took a fifth of
 * the plan's perf samples on "weak_cluster" (n = 12000, one thread), whose
 * plans visit most leaves before this test: the plan and its list took
 * 24% of the solve's samples before, 21% after.  Not inlined: its
 * caller's other version is compiled for older CPUs. */
static FL_WIDE_TARGET __attribute__((noinline)) int list_estimated_wide(const fl_clusters *cl,
                                                                        const float *df,
                                                                        const int *eval,
                                                                        int *idx)
{
  const int K = cl->K;
  int n = 0, k = 0;
  for (; k + 16 <= K; k += 16) {
    __mmask16 m = flagged_leaves(eval, k);
    if (m == 0) continue;
    __m512 f = _mm512_loadu_ps(df + k);
    __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(f));
    __m512d hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f), 1)));
    __mmask8 m0 = _mm512_cmp_pd_mask(_mm512_mul_pd(lo, lo), _mm512_loadu_pd(cl->own2 + k), _CMP_GE_OQ) &
      _mm512_cmp_pd_mask(lo, _mm512_loadu_pd(cl->rad + k), _CMP_GT_OQ);
    __mmask8 m1 = _mm512_cmp_pd_mask(_mm512_mul_pd(hi, hi), _mm512_loadu_pd(cl->own2 + k + 8), _CMP_GE_OQ) &
      _mm512_cmp_pd_mask(hi, _mm512_loadu_pd(cl->rad + k + 8), _CMP_GT_OQ);
    n = append_leaves(idx, n, m & (__mmask16) (m0 | ((unsigned) m1 << 8)), k);
  }
  for (; k < K; k++) {
    idx[n] = k;
    n += estimated(cl, df, eval, k);
  }
  return n;
}
#endif

/* The thread's scratch of K ints for lists of leaves. */
static int *leaf_list(const fl_clusters *cl)
{
  return cl->listed + (size_t) fl_thread_id() * fl_thread_stride(cl->K, sizeof(int));
}

#if FL_WIDE
/* The leaves k with eval[k] != 0 into idx, sixteen at a time; returns
 * their count. */
static FL_WIDE_TARGET __attribute__((noinline)) int list_visited_wide(int K, const int *eval,
                                                                      int *idx)
{
  int n = 0, k = 0;
  for (; k + 16 <= K; k += 16) n = append_leaves(idx, n, flagged_leaves(eval, k), k);
  for (; k < K; k++) {
    idx[n] = k;
    n += eval[k] != 0;
  }
  return n;
}
#endif

/* The visited leaves with a scan of the flags, four at a time (most leaves
 * are skipped), and a compress sixteen at a time where there is AVX-512:
 * the plan's items (plan_one in matrix_free.c), built by scanning the
 * chunks of every four leaves with one visited, took 390 to 400
 * time-stamp cycles a plan on "weak_cluster" (n = 12000), now 320, and
 * 315 against 270 to 285 on "large" (n = 30000). */
const int *fl_clusters_visited(const fl_clusters *cl, const int *eval, int *n)
{
  int *idx = leaf_list(cl);
#if FL_WIDE
  if (fl_wide_vectors()) {
    *n = list_visited_wide(cl->K, eval, idx);
    return idx;
  }
#endif
  *n = list_leaves(cl, NULL, eval, 0, idx);
  return idx;
}

/* The gain estimate's test (see FL_GAIN_FRACTION) on the leaves the plan
 * would visit with yc outside their ball and not nearer to their center
 * than the owner: drops those whose estimate is below exp(lng) from eval
 * and returns the sum of their bounds bk; *dropped receives the sum of
 * their estimates.  df: yc's distances to the centers; ps: the plan's
 * scratch, its distances to the owners from owner_distances() (the
 * squared ones no longer needed) and room for 3 K floats.  Only the
 * leaves listed are estimated: a coarse evaluation would visit 2%
 * ("large", n = 30000) to 17% ("weak_cluster", n = 12000) of them, and an
 * estimate of every leaf in the plan's loop took nhpc 18% longer on
 * "large". */
static inline FL_INLINE double drop_estimated(const fl_clusters *cl, const float *df,
                                             float *ps, double lng, int *eval,
                                             const double *bk, double *dropped, int wide)
{
  const int K = cl->K;
  const float *cp = ps + K, *icp = cp + K;
  float *under = ps, *ex = ps + 3 * K, *qn = ex + K, *qd = qn + K;
  int *idx = leaf_list(cl);
#if FL_WIDE
  int n = wide ? list_estimated_wide(cl, df, eval, idx) : list_leaves(cl, df, eval, 1, idx);
#else
  (void) wide;
  int n = list_leaves(cl, df, eval, 1, idx);
#endif
  const double tau_scale = cl->inv2s2 / FL_COLD_SD;
  const double *lnw = cl->lnw, *rms2 = cl->rms2, *own2 = cl->own2;
  const double *side = cl->side, *iside = cl->iside;
  const int *oslot = cl->oslot;
  FL_SIMD
  for (int t = 0; t < n; t++) {
    int k = idx[t], o = oslot[k];
    double dist = df[k], gap = dist * dist - own2[k];
    double z = fl_positive(gap) * FL_COLD_SD * icp[o] * iside[k];
    z = FL_Z_MAX - fl_positive(FL_Z_MAX - z);
    double tau = cp[o] * side[k] * tau_scale, z2 = z + tau;
    double lnest = lnw[k] - mass_exponent(cl, dist, rms2[k]) - 0.5 * z * z - lng;
    /* the estimate over exp(lng) is exp(lnest) qn / qd = under qn / (ex qd) */
    ex[t] = (float) (FL_EXPF_XMAX - fl_positive(FL_EXPF_XMAX - fl_positive(lnest)));
    under[t] = (float) (FL_EXPF_XMAX - fl_positive(FL_EXPF_XMAX - fl_positive(-lnest)));
    double n1 = z + FL_SQRT_HALF_PI, d1 = z * n1 + 1.0, n2 = z2 + FL_SQRT_HALF_PI;
    double d2 = z2 * n2 + 1.0;
    qn[t] = (float) fl_positive(FL_INV_SQRT_2PI * (n1 * d2 - n2 * d1));
    qd[t] = (float) (d1 * d2);
  }
  fl_expf_neg_array(ex, n);
  if (dropped) fl_expf_neg_array(under, n);
  double left = 0.0, est = 0.0;
  for (int t = 0; t < n; t++)
    if (qn[t] < ex[t] * qd[t]) {
      eval[idx[t]] = 0;
      left += bk[idx[t]];
      if (dropped) est += (double) under[t] * qn[t] / ((double) ex[t] * qd[t]);
    }
  if (dropped) *dropped = est * exp(lng);
  return left;
}

/* In the first evaluations (nothing covered, the mass estimates of the
 * skipped leaves added to the gain) a leaf is visited when its ball holds
 * the candidate or its mass estimate passes the mass test; its bound is
 * not tested.  Farther out the ball's bound is loose (a few far-flung
 * clients set the radius) and the estimate good: over the first
 * evaluations of "heavy_skew" (n = 12000), the leaves visited 1.5 or more
 * rms radii away gained 0.99 to 1.3 times their estimates in sum, 2.2 at
 * 1.75 to 2.  Against testing the bounds of all leaves, testing them only
 * where the ball holds the candidate or the center lies within 2 rms radii
 * of it visited 52% and 33% fewer pairs in all on "medium_cluster" (n =
 * 12000 and 30000), 39% on "strong_cluster" (n = 12000), 38% on
 * "medium_density", 31% on "large", 29% on "uniform", 7% to 24% on the
 * other presets, with the same f(S) on all 13 (nhpc at one thread);
 * within 1 rms radius 15% fewer than within 2 on "heavy_skew", within 0.5
 * or 0 the same as within 1.  The leaves whose ball holds the candidate
 * are visited whatever their bound (when positive): the mass estimate
 * misses a tight group of clients around the candidate inside a broad
 * leaf.  On "heavy_skew" at n = 11000 (k = 100) one candidate's first key
 * was 1.77 for a gain of 14.9, 14.7 of it from the leaf holding it (36
 * clients, rms radius 44.5, the candidate 25 from the center; estimate
 * 1.54, bound 36 under the threshold of 42), and nhpc ended at 0.99446 of
 * greedy's f(S).  Visiting those leaves brought "heavy_skew" at n = 3000,
 * 8000, 11000 and 16000 from 0.99823, 0.99738, 0.99446 and 0.99821 to
 * 0.99916, 0.99966, 1.00000 and 0.99996 (inst/bench/quality-sizes.sh), for
 * 4% more pairs on "weak_cluster" and 2.7% on "heavy_skew" (n = 12000), at
 * most 1% more on the other presets, and 4% more time on "weak_cluster"
 * and 2.8% on "heavy_skew" (n = 12000), 3% on "medium_cluster" (n =
 * 30000; medians of 5 alternated runs, at most 2% on five other presets).
 * Visiting only the leaves whose center lies within one rms radius left n
 * = 11000 and 16000 at 0.99890 and 0.99846.
 *
 * One loop over the clusters, reach and decision together, branch-free:
 * it vectorises (as two loops, a vectorised reach then a scalar plan, they
 * took 19% of nhpc's time at n = 30000); then the gain estimates of the
 * leaves it would visit.  The loop runs in single precision, twice as many
 * clusters a vector (the cluster values in floats, rounded so that the
 * bounds stay bounds: see leaf_floats and ball_reach), and adds its
 * bounds in single precision with an allowance for the rounding (in double
 * precision its sums went through the stack, and nhpc at one thread took
 * 5% longer on "weak_cluster").  In the rounds of nhpc at one thread it
 * took 1250 to 1280 time-stamp cycles a plan in double precision and 1010
 * so on "weak_cluster" (n = 12000), 1640 to 2090 and 1260 to 1370 on
 * "large" (n = 30000); the selections stayed the same on the 13 presets,
 * and the pairs within 0.0002%. */
static inline FL_INLINE double plan(const fl_clusters *cl, const fl_cand *cand, float *df,
                                    double thresh, int all, fl_cold cold, int *eval,
                                    double *skipped, int wide)
{
  const fl_reach_terms reach = reach_terms(cl, cand->ynorm);
  const float inv2s2 = (float) cl->inv2s2;
  /* the first evaluations, the mass estimates of the leaves skipped added */
  const int first = skipped && cold == FL_COLD_NONE;
  const double est = first ? FL_GUESS_EST_FRACTION : FL_EST_FRACTION;
  const float lnt = thresh > 0 ? (float) log(est * thresh) : 0.0f;
  /* a float, see skip_cold */
  const float first_f = first ? 1.0f : 0.0f;
  /* pruned clients are visited with the others (all), or bounded apart */
  const float *w = all ? cl->wallf : cl->wactf, *low = all ? cl->minallf : cl->minactf;
  const float *lnw = all ? cl->lnw_allf : cl->lnwf, wpr_scale = all ? 0.0f : 1.0f;
  const float *rad = cl->radf, *rms2 = cl->rms2f, *wpr = cl->wprf, *minpr = cl->minprf;
  const float *lnmin = all ? cl->lnmin_allf : cl->lnminf, *reach2 = cl->reach2f;
  /* floats, as thresh: an int flag in the loop kept GCC from vectorising it */
  const float skip_cold = cold != FL_COLD_NONE && thresh > 0 ? 1.0f : 0.0f;
  const float near_test = cold == FL_COLD_ALL ? 1.0f : 0.0f, thresh_f = (float) thresh;
  float *ps = plan_scratch(cl);
  const float *cp2 = skip_cold > 0 ? owner_distances(cl, cand, ps) : df;
  const float *own2 = cl->own2f, *side2 = cl->side2f;
  double *bk = cl->bounds + (size_t) fl_thread_id() * fl_thread_stride(cl->krow, sizeof(double));
  const int *oslot = cl->oslot;
  /* a product of floats at least that of the rounded-up w and the hw -
   * minimum rounded from below: 1 + 2^-22 covers its two roundings */
  const double up = 1.0 + 0x1p-22;
  if (skipped) *skipped = 0.0;
  /* Whole vectors: the leaves past K (zeros, df too) are never visited
   * and add nothing.  The scalar loop over the last K mod 16 leaves took a
   * quarter of the plan's perf samples on "weak_cluster" (n = 12000, K =
   * 317). */
  const int kend = padded_leaves(cl->K);
  for (int k = cl->K; k < kend; k++) df[k] = 0.0f;
  float leftf = 0.0f;
  FL_SIMD_SUM(leftf)
  for (int k = 0; k < kend; k++) {
    float dist = df[k], hw = ball_reach(dist, rad[k], reach);
    float bf = w[k] * positive_f(hw - low[k]);
    /* log of the mass estimate at least log(FL_EST_FRACTION thresh)? */
    int mass = lnw[k] - (dist * dist + rms2[k]) * inv2s2 >= lnt;
    /* log of the similarity at the near point at most log(min coverage)? */
    float near2 = positive_f(dist * dist + rms2[k] - reach2[k] * dist);
    /* (dist^2 - own2) / |yc - owner| >= side, without a square root */
    float own_gap = dist * dist - own2[k];
    int beyond = (own_gap >= 0) & (own_gap * own_gap >= side2[k] * cp2[oslot[k]]) &
      (dist > rad[k]);
    int covered = (skip_cold > 0) & (((near_test > 0) & (-near2 * inv2s2 <= lnmin[k])) | beyond);
    /* the first evaluations visit the leaves whose ball holds the
     * candidate instead of testing bounds (see above); & and |: no
     * branches */
    int bounded = (first_f == 0.0f) & (bf >= thresh_f);
    int inside = (first_f > 0.0f) & (dist <= rad[k]);
    int visit = (bf > 0) & !covered & (bounded | mass | inside);
    eval[k] = visit;
    bk[k] = (double) bf * up;
    leftf += wpr_scale * wpr[k] * positive_f(hw - minpr[k]) + (visit ? 0.0f : bf);
  }
  /* The sum of the 2 kend nonnegative terms, in any order, rounds each of
   * its additions down by at most a factor 1 - 2^-24 (or by 2^-150 among
   * the subnormal floats), so that the exact sum is at most the computed
   * one over (1 - 2^-24)^(2 kend), at most times 1 + 4 kend 2^-24 (kend
   * 2^-24 < 1/4), plus 2 kend 2^-150; 2^-24 more covers the products in
   * double. */
  double left = leftf * up * (1.0 + (4.0 * kend + 1.0) * 0x1p-24) + 2.0 * kend * 0x1p-150;
  if (skip_cold > 0) {
    double fraction = skipped ? FL_GUESS_GAIN_FRACTION : FL_GAIN_FRACTION;
    left += drop_estimated(cl, df, ps, log(fraction * thresh), eval, bk, skipped, wide);
  }
  if (first) *skipped = skipped_mass(cl, df, eval, all ? cl->wall : cl->wact);
  return left;
}

static FL_CLONES double plan_narrow(const fl_clusters *cl, const fl_cand *cand, float *df,
                                    double thresh, int all, fl_cold cold, int *eval,
                                    double *skipped)
{
  return plan(cl, cand, df, thresh, all, cold, eval, skipped, 0);
}

#if FL_WIDE
/* 512-bit vectors and 32 registers (its code refers to the stack 73
 * times, the x86-64-v3 one's 103; which of the two gains was not
 * separated): on an AVX-512 VM this version took 15% to 37% less time
 * than the x86-64-v3 one (perf samples of the
 * plan over those of the gain kernel, whose work is the same; five
 * presets at n = 12000 and 30000, two runs each), and all of nhpc 6% to
 * 8% less on "large" (n = 30000), -5% to +1% on the others. */
static FL_WIDE_TARGET double plan_wide(const fl_clusters *cl, const fl_cand *cand, float *df,
                                       double thresh, int all, fl_cold cold, int *eval,
                                       double *skipped)
{
  return plan(cl, cand, df, thresh, all, cold, eval, skipped, 1);
}
#endif

double fl_clusters_plan(const fl_clusters *cl, const fl_cand *cand, float *df, double thresh,
                        int all, fl_cold cold, int *eval, double *skipped)
{
#if FL_WIDE
  if (fl_wide_vectors()) return plan_wide(cl, cand, df, thresh, all, cold, eval, skipped);
#endif
  return plan_narrow(cl, cand, df, thresh, all, cold, eval, skipped);
}

/* The K^2 terms in single precision, by fl_expf_neg_array (within
 * FL_EXPF_ERR): they only rank the leaves (first_threshold in
 * matrix_free.c).  With exp() first_threshold took 1.0 to 1.2 ms on
 * "weak_cluster" (n = 12000) and 2.4 ms on "large" (n = 30000), now 0.7
 * and 1.7 ms, with the same results on the 13 presets. */
void fl_clusters_leaf_mass(const fl_clusters *cl, double *est)
{
FL_OMP(parallel for num_threads(cl->threads) schedule(dynamic, 8))
  for (int L = 0; L < cl->K; L++) {
    fl_cand cand;
    float *df = point_distances(cl, cl->mu + (size_t) L * cl->d, &cand);
    FL_SIMD
    for (int k = 0; k < cl->K; k++) {
      double dist = df[k];
      df[k] = (float) ((dist * dist + cl->rms2[k]) * cl->inv2s2);
    }
    fl_expf_neg_array(df, cl->K);
    double mass = 0.0;
    FL_SIMD_SUM(mass)
    for (int k = 0; k < cl->K; k++) mass += cl->wall[k] * df[k];
    est[L] = mass;
  }
}

void fl_clusters_offset(const fl_clusters *cl, const double *yc, float *yo, fl_cand *cand)
{
  cand->yc = yc;
  cand->yo = yo;
  cand->ynorm = sqrt(fl_offset_f(yc, cl->org, cl->d, yo));
  double norm2 = 0.0;
  for (int t = 0; t < cl->d; t++) norm2 += (double) yo[t] * yo[t];
  cand->yn2 = (float) norm2;
}

/* With a = x - org for a client x of the chunk's leaf (|a| at most the
 * leaf's span A) and b = yc - org (|b| = B, ynorm), rounding a and b to
 * single precision (a', b') moves |x - yc| by at most u (A + B), u =
 * 2^-24, so |a' - b'|^2 is at least |x - yc|^2 less 2 u (A + B)^2.  The
 * kernel computes |a' - b'|^2 as |a'|^2 + |b'|^2 - 2 a'.b': the norms
 * rounded once (u relatively each), the dot product summed over d terms
 * (within d u |a'| |b'| <= d u (A + B)^2 / 4 to first order, twice that
 * in the sum) and the sum rounded twice (2 u (A + B)^2 at most), so the
 * true squared distance is at least the computed one less (d / 2 + 5) u
 * (A + B)^2, and less (d + 5) u (A + B)^2 with room for the second-order
 * terms; the rounded 1 / (2 sigma^2) and product take off 3 u more of the
 * exponent.  So each true similarity is at most the computed one times 1
 * + eta, eta = expm1 of (d + 8) u (A + B)^2 / (2 sigma^2) + FL_EXPF_ERR
 * (plus FL_SIM_SLACK), and the true partial gain at most the computed one
 * plus eta times the computed similarity mass; the bound holds both ways,
 * so the computed gain is within the same allowance of the true one.  The
 * clients are stored relative to one origin, not to their leaf's center,
 * so that the candidate's offset is computed once per evaluation, not
 * once per chunk: nhpc then took 4% to 14% less time on six presets (n =
 * 12000 and 30000, one thread, medians of 5 interleaved runs). */
static double rounding_allowance(const fl_clusters *cl, const fl_chunk *c, double ynorm)
{
  double reach = cl->span[c->cluster] + ynorm * (1.0 + FL_RAD_SLACK);
  double x = (cl->d + 8.0) * (0.5 * FL_F32_EPS) * reach * reach * cl->inv2s2 + FL_EXPF_ERR
    + FL_SIM_SLACK;
  return x < 1.0 ? x * (1.0 + x) : expm1(x);   /* expm1(x) <= x (1 + x) */
}

void fl_clusters_chunk_gains(const fl_clusters *cl, int ch, int nq, const fl_cand *const *cand,
                             int all, double *gain, double *slack)
{
  const fl_chunk *c = &cl->chunk[ch];
  const int d = cl->d, cnt = all ? c->hi - c->lo : c->nact;
  if (cl->xf) {
    const float *yo[FL_DOT_BATCH];
    float yn2[FL_DOT_BATCH];
    double mass[FL_DOT_BATCH];
    for (int q = 0; q < nq; q++) {
      yo[q] = cand[q]->yo;
      yn2[q] = cand[q]->yn2;
    }
    fl_gain_dot_f(cl->xf + (size_t) c->lo * d, c->hi - c->lo, cnt, nq, yo, yn2, cl->xn + c->lo,
                  d, (float) cl->inv2s2, cl->ws + c->lo, cl->cover + c->lo, gain, mass);
    for (int q = 0; q < nq; q++) slack[q] = rounding_allowance(cl, c, cand[q]->ynorm) * mass[q];
    return;
  }
  for (int q = 0; q < nq; q++) {
    double s[FL_CHUNK], g = 0.0;
    fl_rbf_rows(cl->xs + (size_t) c->lo * d, cnt, cand[q]->yc, d, cl->inv2s2, s);
    for (int t = 0; t < cnt; t++) {
      double diff = s[t] - cl->cover[c->lo + t];
      if (diff > 0) g += cl->ws[c->lo + t] * diff;
    }
    gain[q] = g;
    slack[q] = 0.0;
  }
}

void fl_clusters_skip_table(const fl_clusters *cl, const double *hw, int npick,
                            unsigned char *skip)
{
  for (size_t q = 0; q < (size_t) npick; q++)
    for (int k = 0; k < cl->K; k++) {
      skip[q * cl->K + k] = hw[q * cl->K + k] <= cl->minall[k];
    }
}

/* Move client a of the layout to slot b (row, weight, coverage). */
static void move_client(fl_clusters *cl, int a, int b)
{
  memcpy(cl->xs + (size_t) b * cl->d, cl->xs + (size_t) a * cl->d, (size_t) cl->d * sizeof(double));
  cl->ws[b] = cl->ws[a];
  cl->cover[b] = cl->cover[a];
}

/* Stable partition of the chunk's active clients: those still at or below
 * tau stay in front in their order, the newly pruned follow them. */
static void prune_chunk(fl_clusters *cl, fl_chunk *c, int tid)
{
  int d = cl->d, keep = c->lo, np = 0;
  double *sx = cl->scratch + tid * fl_thread_stride((size_t) FL_CHUNK * (d + 2), sizeof(double));
  double *sw = sx + (size_t) FL_CHUNK * d, *sc = sw + FL_CHUNK;
  for (int i = c->lo; i < c->lo + c->nact; i++) {
    if (cl->cover[i] > cl->tau) {
      memcpy(sx + (size_t) np * d, cl->xs + (size_t) i * d, (size_t) d * sizeof(double));
      sw[np] = cl->ws[i];
      sc[np++] = cl->cover[i];
    } else {
      if (keep != i) move_client(cl, i, keep);
      keep++;
    }
  }
  for (int t = 0; t < np; t++) {
    memcpy(cl->xs + (size_t) (keep + t) * d, sx + (size_t) t * d, (size_t) d * sizeof(double));
    cl->ws[keep + t] = sw[t];
    cl->cover[keep + t] = sc[t];
  }
  c->nact = keep - c->lo;
  if (np > 0 && cl->xf) single_precision_chunk(cl, (int) (c - cl->chunk));
}

static void summarise_chunk(fl_clusters *cl, int ch)
{
  const fl_chunk *c = &cl->chunk[ch];
  fl_summary s = { 0.0, 1.0, 0.0, 1.0 };
  for (int i = c->lo; i < c->hi; i++) {
    double v = cl->cover[i];
    if (i < c->lo + c->nact) {
      s.wact += cl->ws[i];
      if (v < s.minact) s.minact = v;
    } else {
      s.wpr += cl->ws[i];
      if (v < s.minpr) s.minpr = v;
    }
  }
  cl->csum[ch] = s;
  cl->touched[ch] = 1;
}

/* Whether pick p, by similarities computed in single precision as the
 * gain kernel's (within rounding_allowance() of the true ones), may raise
 * the coverage of a client of chunk c: if not, the double-precision ones
 * would not either.  In the post-selection pass of "nhpc" (one thread, n =
 * 12000), 9% of the chunks a pick visited on "weak_cluster" had a client
 * to raise, 11% on "medium_cluster", 22% on "heavy_skew" ("large", n =
 * 30000: 18%), and the double-precision distances of all of them took 6%
 * of the solve's perf samples on "weak_cluster"; with the test, those
 * left took 1.4% and the test 2%. */
static int may_raise(const fl_clusters *cl, const fl_chunk *c, const fl_cand *p)
{
  const int cnt = c->hi - c->lo;
  float s[FL_CHUNK];   /* FL_CHUNK is a multiple of FL_COLS_PAD */
  fl_sqdist_dot_f(cl->xf + (size_t) c->lo * cl->d, cnt, cnt, 1, &p->yo, &p->yn2, cl->xn + c->lo,
                  cl->d, s, 0);
  for (int t = 0; t < cnt; t++) s[t] = (float) (s[t] * cl->inv2s2);
  fl_expf_neg_array(s, cnt);
  /* FL_RAISE_SLACK: the double-precision similarities' own rounding */
  const double up = (1.0 + rounding_allowance(cl, c, p->ynorm)) * (1.0 + FL_RAISE_SLACK);
  const double *cover = cl->cover + c->lo;
  for (int t = 0; t < cnt; t++)
    if (s[t] * up > cover[t]) return 1;
  return 0;
}

double fl_clusters_post_chunk(fl_clusters *cl, int ch, const fl_cand *pick, int npick,
                              const unsigned char *skip, double *part, int cover,
                              int summary, int tid)
{
  fl_chunk *c = &cl->chunk[ch];
  int K = cl->K, cnt = c->hi - c->lo, raised = !cover;
  double pairs = 0.0, s[FL_CHUNK];
  for (int q = 0; cover && q < npick; q++) {
    double g = 0.0;
    if (!skip[(size_t) q * K + c->cluster]) {
      pairs += cnt;
      if (cl->xf && !may_raise(cl, c, &pick[q])) {
        if (part) part[q] = 0.0;
        continue;
      }
      fl_rbf_rows(cl->xs + (size_t) c->lo * cl->d, cnt, pick[q].yc, cl->d, cl->inv2s2, s);
      for (int t = 0; t < cnt; t++) {
        double diff = s[t] - cl->cover[c->lo + t];
        if (diff > 0) {
          g += cl->ws[c->lo + t] * diff;
          cl->cover[c->lo + t] = s[t];
          raised = 1;
        }
      }
    }
    if (part) part[q] = g;
  }
  /* a chunk whose coverage the picks left as it was keeps its summary and
   * has nothing new to prune (its summary was made when the layout was) */
  if (summary && raised) {
    if (cl->prune) prune_chunk(cl, c, tid);
    summarise_chunk(cl, ch);
  }
  return pairs;
}

/* Did a chunk of leaf k get a new summary since the last reduction?
 * Clears their flags.  A leaf without clients (k-means may leave one
 * empty) has no chunk to flag: its values, those of no clients, are set
 * every time. */
static int leaf_touched(fl_clusters *cl, int k)
{
  int any = cl->first[k] == cl->first[k + 1];
  for (int ch = cl->first[k]; ch < cl->first[k + 1]; ch++) {
    any |= cl->touched[ch];
    cl->touched[ch] = 0;
  }
  return any;
}

/* Only the leaves whose chunks the picks raised change: the others keep
 * their values, which computing them anew (four log()s each) would give
 * again.  On "large" (n = 30000) this took 1.3 to 3.8 ms of nhpc's solve
 * at one and two threads for all leaves, 0.4 to 1.0 ms so. */
void fl_clusters_reduce(fl_clusters *cl)
{
  for (int k = 0; k < cl->K; k++) {
    if (!leaf_touched(cl, k)) continue;
    fl_summary s = { 0.0, 1.0, 0.0, 1.0 };
    for (int ch = cl->first[k]; ch < cl->first[k + 1]; ch++) {
      const fl_summary *c = &cl->csum[ch];
      s.wact += c->wact;
      s.wpr += c->wpr;
      if (c->minact < s.minact) s.minact = c->minact;
      if (c->minpr < s.minpr) s.minpr = c->minpr;
    }
    cl->wact[k] = s.wact;
    cl->minact[k] = s.minact;
    cl->wpr[k] = s.wpr;
    cl->minpr[k] = s.minpr;
    cl->wall[k] = s.wact + s.wpr;
    cl->minall[k] = s.minact < s.minpr ? s.minact : s.minpr;
    cl->lnw[k] = s.wact > 0 ? log(s.wact) : -HUGE_VAL;
    cl->lnw_all[k] = s.wact + s.wpr > 0 ? log(s.wact + s.wpr) : -HUGE_VAL;
    cl->lnmin[k] = s.minact > 0 ? log(s.minact) : -HUGE_VAL;
    cl->lnmin_all[k] = cl->minall[k] > 0 ? log(cl->minall[k]) : -HUGE_VAL;
    leaf_floats(cl, k);
  }
}

double fl_clusters_objective(const fl_clusters *cl)
{
  double f = 0.0;
  for (int i = 0; i < cl->n; i++) f += cl->ws[i] * cl->cover[i];
  return f;
}
