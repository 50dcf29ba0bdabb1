/* The cluster summaries the bounds read: each leaf's spread along its
 * bisector planes (bisector_spreads), the single-precision copies of
 * the centers, clients and per-leaf arrays, and the coverage of the
 * picks and the initial facilities (fl_clusters_own). */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <float.h>
#include <stdint.h>
#include "cl_internal.h"

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

/* side2[] for every leaf, each from its own clients, and whether the
 * leaves are to be judged by estimates.  A leaf's spread across a
 * bisector is sqrt(rms2 / d), a random direction's, unless some direction
 * holds more than FL_ISOTROPIC times that variance: the line from a
 * candidate to the owner runs along the directions where the clients
 * spread most.  The estimates and cold tests take a leaf's clients for
 * one normal spread; a leaf looks like parts of several of the data's
 * clusters when it spreads along some direction more than FL_MIXED_EXCESS
 * times as much as an isotropic sample of its size would at most (the
 * edge of the Marchenko-Pastur law, (1 + sqrt(d / m))^2 rms2 / d for m
 * clients) and two groups split along it explain more than FL_MIXED_SPLIT
 * of its variance there.  Past FL_MIXED_SHARE of such leaves, the
 * evaluations skip leaves by their bounds alone (estimates 0): no skips by
 * mass or gain estimates and no estimates added to a key, no cold tests,
 * and first evaluations at the skip threshold itself (no FL_FIRST_COARSE,
 * no visits by ball alone); the mass test still adds visits. */
void fl_cl_bisector_spreads(fl_clusters *cl)
{
  const int d = cl->d;
  double *scratch = cl->scratch;
  int mixed = 0;
FL_OMP(parallel for num_threads(fl_team(cl->threads)) schedule(dynamic, 8) reduction(+:mixed))
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
void fl_cl_single_precision_centers(fl_clusters *cl)
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
void fl_cl_single_precision_chunk(fl_clusters *cl, int ch)
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

void fl_cl_single_precision_chunks(fl_clusters *cl)
{
FL_OMP(parallel for num_threads(fl_team(cl->threads)) schedule(dynamic, 16))
  for (int ch = 0; ch < cl->nchunks; ch++) fl_cl_single_precision_chunk(cl, ch);
}


/* Leaf k's values in single precision for fl_clusters_plan(), from the
 * doubles; after every change of those (fl_clusters_reduce; own2f also in
 * fl_clusters_own). */
void fl_cl_leaf_floats(fl_clusters *cl, int k)
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
   * sorted by index with qsort() and bsearch() (measured:
   * inst/bench/results/tunables.md, fl_clusters_own) */
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
