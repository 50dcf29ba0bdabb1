#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "facloc.h"
#include "kmeans.h"
#include "kernel.h"
#include "fl_omp.h"
#include "fl_rng.h"
#include "fl_tune.h"

/* Every loop below runs its serial form outside OpenMP when it would run
 * on one thread: a parallel region costs a team even when num_threads()
 * or if() leaves it one thread, and the leaves' k-means run one thread
 * each (cl_hierarchy.c; measured: inst/bench/results/tunables.md,
 * k-means: serial forms outside OpenMP). */

/* Uniform on [0, 1) from the top 53 bits of fl_rng (no R RNG in the core). */
static double uniform01(fl_rng *r)
{
  return (double) (fl_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* lower_dist() on the FL_LOWER_BLOCK sample points from s0. */
static void lower_block(const double *x, int ns, int step, int d, const double *c, int s0,
                        double *dist)
{
  int nb = ns - s0 < FL_LOWER_BLOCK ? ns - s0 : FL_LOWER_BLOCK;
  double ds[FL_LOWER_BLOCK];
  if (step == 1) fl_sqdist_rows(x + (size_t) s0 * d, nb, c, d, ds);
  else
    for (int s = 0; s < nb; s++) ds[s] = fl_sqdist(x + (size_t) (s0 + s) * step * d, c, d);
  for (int s = 0; s < nb; s++)
    if (ds[s] < dist[s0 + s]) dist[s0 + s] = ds[s];
}

/* dist[s] = min(dist[s], squared distance of sample point s to c): the
 * seeding's O(ns d) step per center, parallel over blocks of points (each
 * point on its own, so the result does not depend on the thread count).
 * Contiguous points (step 1) go through the blocked kernel, built for
 * AVX2. */
static void lower_dist(const double *x, int ns, int step, int d, const double *c,
                       int threads, double *dist)
{
  int team = fl_par_threads(threads, ns, FL_PAR_MIN_CLIENTS);
  if (team > 1) {
FL_OMP(parallel for num_threads(team) schedule(dynamic, 8))
    for (int s0 = 0; s0 < ns; s0 += FL_LOWER_BLOCK) lower_block(x, ns, step, d, c, s0, dist);
  } else {
    for (int s0 = 0; s0 < ns; s0 += FL_LOWER_BLOCK) lower_block(x, ns, step, d, c, s0, dist);
  }
}

/* k-means++ on a strided sample of the points: each new center is drawn
 * with probability proportional to the squared distance to the nearest
 * center chosen so far. */
static int seed_centers(const double *x, int n, int d, int K, unsigned int seed,
                        int threads, double *centers)
{
  int step = n > FL_KMEANS_SAMPLE ? n / FL_KMEANS_SAMPLE : 1;
  int ns = (n + step - 1) / step;
  double *dist = malloc((size_t) ns * sizeof(double));
  if (!dist) return FL_ERR_NOMEM;
  fl_rng state;
  fl_rng_seed(&state, UINT64_C(0x1234567) + seed);
  int first = (int) (uniform01(&state) * ns);
  if (first >= ns) first = ns - 1;
  memcpy(centers, x + (size_t) first * step * d, (size_t) d * sizeof(double));
  for (int s = 0; s < ns; s++) dist[s] = HUGE_VAL;
  lower_dist(x, ns, step, d, centers, threads, dist);
  for (int c = 1; c < K; c++) {
    double total = 0.0;
    for (int s = 0; s < ns; s++) total += dist[s];
    int pick = ns - 1;
    if (total > 0) {
      double target = uniform01(&state) * total, acc = 0.0;
      for (int s = 0; s < ns; s++) {
        acc += dist[s];
        if (acc > target) { pick = s; break; }
      }
    } else {
      pick = c % ns;   /* all points coincide with centers: any will do */
    }
    double *cc = centers + (size_t) c * d;
    memcpy(cc, x + (size_t) pick * step * d, (size_t) d * sizeof(double));
    lower_dist(x, ns, step, d, cc, threads, dist);
  }
  free(dist);
  return FL_OK;
}

/* The seeding keeps one squared distance per sample point; step = n /
 * FL_KMEANS_SAMPLE leaves fewer than twice FL_KMEANS_SAMPLE of them. */
double fl_kmeans_bytes(int n, int d, int threads)
{
  double ns = n < 2 * FL_KMEANS_SAMPLE ? n : 2 * FL_KMEANS_SAMPLE;
  return 8.0 * ns + 4.0 * threads * fl_thread_stride((size_t) d * FL_COLS_PAD, sizeof(float));
}

/* Hamerly's bounds (2010) let a point keep its center without computing
 * any distance: hi[i] bounds its distance to its center from above, lo[i]
 * its distance to every other center from below.  After the centers move
 * (move[c], largest maxmove), hi grows by its center's move and lo shrinks
 * by the largest; the point keeps its center while hi stays below lo by
 * FL_KMEANS_MARGIN of their sum, a margin well above the rounding of the
 * single-precision distances the bounds start from at the benchmarks'
 * scales (fl_tune.h; checked: inst/bench/results/tunables.md). */

/* Assign points idx[0..nb-1] (nb <= FL_COLS_PAD), stored by coordinate in
 * pts, to their nearest centers, bounds set; returns how many changed. */
static int assign_block(float *pts, const int *idx, int nb, int d, int K, const float *cf,
                        int first, float *hi, float *lo, int *assign)
{
  int best[FL_COLS_PAD], changed = 0;
  float bd[FL_COLS_PAD], next[FL_COLS_PAD];
  for (int t = 0; t < d; t++)   /* lanes past nb: finite, then ignored */
    for (int j = nb; j < FL_COLS_PAD; j++) pts[t * FL_COLS_PAD + j] = 0.0f;
  fl_nearest_two_f(pts, cf, K, d, best, bd, next);
  for (int j = 0; j < nb; j++) {
    int i = idx[j];
    if (first || best[j] != assign[i]) changed++;
    assign[i] = best[j];
    hi[i] = sqrtf(bd[j]);
    lo[i] = sqrtf(next[j]);
  }
  return changed;
}

/* One pass of assign_points(): the points, the centers and the bounds. */
typedef struct {
  const double *x, *org;
  const float *cf, *move;
  int n, d, K, first;
  float maxmove, *hi, *lo;
  int *assign;
} fl_assign;

/* assign_points() on the points of range i0, with thread tid's scratch. */
static int assign_range(const fl_assign *a, int i0, float *scratch, int tid)
{
  const int d = a->d, end = a->n - i0 < FL_ASSIGN_RANGE ? a->n : i0 + FL_ASSIGN_RANGE;
  float *pts = scratch + tid * fl_thread_stride((size_t) d * FL_COLS_PAD, sizeof(float));
  int idx[FL_COLS_PAD], nb = 0, changed = 0;
  for (int i = i0; i < end; i++) {
    if (!a->first) {
      float h = a->hi[i] + a->move[a->assign[i]], l = a->lo[i] - a->maxmove;
      a->hi[i] = h;
      a->lo[i] = l;
      if (h + FL_KMEANS_MARGIN * (h + l) < l) continue;
    }
    const double *xi = a->x + (size_t) i * d;
    for (int t = 0; t < d; t++) pts[t * FL_COLS_PAD + nb] = (float) (xi[t] - a->org[t]);
    idx[nb++] = i;
    if (nb == FL_COLS_PAD) {
      changed += assign_block(pts, idx, nb, d, a->K, a->cf, a->first, a->hi, a->lo, a->assign);
      nb = 0;
    }
  }
  if (nb > 0)
    changed += assign_block(pts, idx, nb, d, a->K, a->cf, a->first, a->hi, a->lo, a->assign);
  return changed;
}

/* Assign every point to its nearest center (the lowest on ties), by
 * distances computed in single precision, unless the bounds settle it;
 * returns how many changed (all on the first iteration, which sets the
 * bounds).  The points the bounds leave open are taken FL_COLS_PAD at a
 * time (fl_nearest_two_f), each on its own: the result does not depend on
 * the thread count. */
static int assign_points(const fl_assign *a, int threads, float *scratch)
{
  int changed = 0;
  if (threads > 1) {
FL_OMP(parallel for num_threads(fl_team(threads)) schedule(dynamic, 1) reduction(+:changed))
    for (int i0 = 0; i0 < a->n; i0 += FL_ASSIGN_RANGE)
      changed += assign_range(a, i0, scratch, fl_thread_id());
  } else {
    for (int i0 = 0; i0 < a->n; i0 += FL_ASSIGN_RANGE) changed += assign_range(a, i0, scratch, 0);
  }
  return changed;
}

/* move[c]: how far center c moved from old (rounded up in single
 * precision); returns the largest move. */
static float center_moves(const double *old, const double *centers, int K, int d, float *move)
{
  float most = 0.0f;
  for (int c = 0; c < K; c++) {
    double m = sqrt(fl_sqdist(old + (size_t) c * d, centers + (size_t) c * d, d));
    move[c] = (float) (m * (1.0 + 1e-6)) + 1e-30f;
    if (move[c] > most) most = move[c];
  }
  return most;
}

/* Points are summed in FL_SUM_BLOCKS fixed blocks when there are at least
 * FL_SUM_MIN_POINTS of them (else one): each block's sums in point order,
 * then the blocks' in block order, so the centers never depend on the
 * thread count.  (Threads taking coordinates instead did not scale: each
 * read every row's cache lines; measured: inst/bench/results/tunables.md,
 * FL_SUM_BLOCKS.) */
static int sum_blocks(int n)
{
  return n >= FL_SUM_MIN_POINTS ? FL_SUM_BLOCKS : 1;
}

/* The sums of block blk of the B blocks into part's slot blk. */
static void block_sums(const double *x, int n, int d, int K, const int *assign, int blk,
                       int B, double *part)
{
  double *s = part + (size_t) blk * K * d;
  memset(s, 0, (size_t) K * d * sizeof(double));
  for (int i = (int) ((long long) n * blk / B); i < (int) ((long long) n * (blk + 1) / B); i++) {
    double *si = s + (size_t) assign[i] * d;
    const double *xi = x + (size_t) i * d;
    FL_SIMD   /* si and xi never overlap; GCC's -O2 would not vectorise it */
    for (int t = 0; t < d; t++) si[t] += xi[t];
  }
}

/* Per-cluster sums and counts of the points; part: sum_blocks(n) x K x d
 * scratch. */
static void center_sums(const double *x, int n, int d, int K, const int *assign,
                        int threads, double *part, double *sum, int *count)
{
  const int B = sum_blocks(n);
  const size_t Kd = (size_t) K * d;
  memset(count, 0, (size_t) K * sizeof(int));
  for (int i = 0; i < n; i++) count[assign[i]]++;
  if (threads > 1 && B > 1) {
FL_OMP(parallel for num_threads(fl_team(threads)) schedule(dynamic, 1))
    for (int blk = 0; blk < B; blk++) block_sums(x, n, d, K, assign, blk, B, part);
  } else {
    for (int blk = 0; blk < B; blk++) block_sums(x, n, d, K, assign, blk, B, part);
  }
  memcpy(sum, part, Kd * sizeof(double));
  for (int blk = 1; blk < B; blk++)
    for (size_t j = 0; j < Kd; j++) sum[j] += part[blk * Kd + j];
}

int fl_kmeans(const double *x, int n, int d, int K, unsigned int seed,
              int threads, int *assign, double *centers)
{
  threads = fl_par_size(threads, (double) n * K * d, FL_PAR_MIN_PAIRS);   /* too small: no team */
  if (seed_centers(x, n, d, K, seed, threads, centers) != FL_OK) return FL_ERR_NOMEM;
  double *sum = malloc((size_t) K * d * sizeof(double));
  double *part = malloc((size_t) sum_blocks(n) * K * d * sizeof(double));
  double *org = malloc((size_t) d * sizeof(double));
  int *count = malloc((size_t) K * sizeof(int));
  float *cf = calloc((size_t) K * d + FL_COLS_PAD, sizeof(float));   /* padded */
  float *pts = malloc(threads * fl_thread_stride((size_t) d * FL_COLS_PAD, sizeof(float)) *
                     sizeof(float));
  float *hi = malloc((size_t) n * sizeof(float)), *lo = malloc((size_t) n * sizeof(float));
  float *move = malloc((size_t) K * sizeof(float)), maxmove = 0.0f;
  double *old = malloc((size_t) K * d * sizeof(double));
  int status = sum && part && org && count && cf && pts && hi && lo && move && old
    ? FL_OK : FL_ERR_NOMEM;
  for (int it = 0; status == FL_OK && it < FL_KMEANS_ITER; it++) {
    fl_centers_cols_f(centers, K, d, org, cf);
    fl_assign a = { x, org, cf, move, n, d, K, it == 0, maxmove, hi, lo, assign };
    if (assign_points(&a, threads, pts) == 0) break;
    center_sums(x, n, d, K, assign, threads, part, sum, count);
    memcpy(old, centers, (size_t) K * d * sizeof(double));
    for (int c = 0; c < K; c++)
      if (count[c] > 0)   /* an empty cluster keeps its center */
        for (int t = 0; t < d; t++) centers[(size_t) c * d + t] = sum[(size_t) c * d + t] / count[c];
    maxmove = center_moves(old, centers, K, d, move);
  }
  free(sum); free(part); free(org); free(count); free(cf); free(pts);
  free(hi); free(lo); free(move); free(old);
  return status;
}
