/* The median heuristic's width: the median of the Euclidean distances
 * between all pairs of a sample of points, as stats::median(dist(x))
 * computes it (the same sums in the same order, the same mean of the two
 * middle values), without the vector of distances going through R.  The
 * distances run as register tiles of 4 x 4 pairs, 11 times faster than
 * pair by pair at d = 1024 (n = 2000: 3.0 -> 0.27 s), in AVX2 where the
 * CPU has it, or of 8 x 8 pairs in AVX-512 (fl_wide_vectors()), but never
 * with fused multiply-adds, so each pair's sum has R's bits; the panels
 * are shared out to the threads. */
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include "kernel_sigma.h"
#include "kernel.h"
#include "fl_omp.h"
#include "fl_tune.h"

/* Rows of x in panels of w, a panel's rows side by side for each
 * coordinate in turn: row r of panel p, coordinate t, at
 * panel[w (p d + t) + r]; rows past n are 0.  Two panels' w^2 pairs
 * then run as one register tile that reads both panels in order. */
static double *pack_panels(const double *x, int n, int d, int panels, int w)
{
  double *panel = calloc((size_t) panels * d * w, sizeof(double));
  if (!panel) return NULL;
  for (int t = 0; t < d; t++)
    for (int i = 0; i < n; i++)
      panel[((size_t) (i / w) * d + t) * w + i % w] = x[(size_t) t * n + i];
  return panel;
}

/* acc[c] += (b[c] - a)^2 for panel b's four rows: one row of the tile. */
static inline FL_INLINE void add_squares(const double *b, double a, double acc[4])
{
  for (int c = 0; c < 4; c++) {
    double dev = b[c] - a;
    acc[c] += dev * dev;
  }
}

/* The squared distances of panel a's four rows to panel b's, each summed
 * over the coordinates in order, as stats::dist() sums them. */
static inline FL_INLINE void panel_squares(const double *a, const double *b, int d,
                                           double sq[4][4])
{
  double s0[4] = {0}, s1[4] = {0}, s2[4] = {0}, s3[4] = {0};
  for (int t = 0; t < d; t++, a += 4, b += 4) {
    add_squares(b, a[0], s0);
    add_squares(b, a[1], s1);
    add_squares(b, a[2], s2);
    add_squares(b, a[3], s3);
  }
  memcpy(sq[0], s0, sizeof s0);
  memcpy(sq[1], s1, sizeof s1);
  memcpy(sq[2], s2, sizeof s2);
  memcpy(sq[3], s3, sizeof s3);
}

/* Where the distance of rows j < i of n goes: stats::dist()'s order. */
static size_t pair_at(int n, int j, int i)
{
  return (size_t) j * n - (size_t) j * (j + 1) / 2 + (size_t) (i - j - 1);
}

/* The distances of panel pa's rows to the rows after them, into v. */
FL_CLONES_UNFUSED static void panel_distances(const double *panel, int n, int d, int pa,
                                              double *v)
{
  int panels = (n + 3) / 4;
  size_t stride = (size_t) d * 4;
  double sq[4][4];
  for (int pb = pa; pb < panels; pb++) {
    panel_squares(panel + pa * stride, panel + pb * stride, d, sq);
    for (int r = 0; r < 4; r++)
      for (int c = 0; c < 4; c++) {
        int j = 4 * pa + r, i = 4 * pb + c;
        if (j < i && i < n) v[pair_at(n, j, i)] = sqrt(sq[r][c]);
      }
  }
}

#if FL_WIDE
typedef double wide_v __attribute__((vector_size(64), aligned(8), may_alias));

/* panel_distances() over panels of 8 rows, each tile 8 x 8 pairs, in
 * AVX-512: twice the pairs a vector operation.  fp-contract=off keeps
 * every product rounded before its sum (x86-64-v4 has FMA), as R's. */
static FL_WIDE_TARGET __attribute__((optimize("fp-contract=off"))) void
panel_distances_wide(const double *panel, int n, int d, int pa, double *v)
{
  int panels = (n + 7) / 8;
  size_t stride = (size_t) d * 8;
  for (int pb = pa; pb < panels; pb++) {
    const double *a = panel + pa * stride, *b = panel + pb * stride;
    wide_v acc[8];
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++) acc[r] = (wide_v) { 0 };
    for (int t = 0; t < d; t++, a += 8, b += 8) {
      wide_v bv = *(const wide_v *) b;
#pragma GCC unroll 8
      for (int r = 0; r < 8; r++) {
        wide_v dev = bv - a[r];
        acc[r] += dev * dev;
      }
    }
    for (int r = 0; r < 8; r++)
      for (int c = 0; c < 8; c++) {
        int j = 8 * pa + r, i = 8 * pb + c;
        if (j < i && i < n) v[pair_at(n, j, i)] = sqrt(acc[r][c]);
      }
  }
}
#endif

/* Every distance between two rows of the n x d column-major x, into v in
 * stats::dist()'s order, panel by panel on `threads` threads (the same
 * values at any count and panel width). */
static int all_distances(const double *x, int n, int d, int threads, double *v)
{
  int wide = fl_wide_vectors(), w = wide ? 8 : 4, panels = (n + w - 1) / w;
  double *panel = pack_panels(x, n, d, panels, w);
  if (!panel) return FL_ERR_NOMEM;
  double work = (double) n * n / 2 * d;
FL_OMP(parallel for num_threads(fl_par_threads(threads, work, FL_PAR_MIN_PAIRS)) schedule(dynamic, 1))
  for (int pa = 0; pa < panels; pa++) {
#if FL_WIDE
    if (wide) {
      panel_distances_wide(panel, n, d, pa, v);
      continue;
    }
#endif
    panel_distances(panel, n, d, pa, v);
  }
  (void) threads; (void) work;
  free(panel);
  return FL_OK;
}

/* The k-th smallest of v[0..len-1] (0-based), v reordered (quickselect,
 * Hoare's partition about the middle element). */
static double kth_smallest(double *v, size_t len, size_t k)
{
  size_t lo = 0, hi = len - 1;
  while (lo < hi) {
    double pivot = v[lo + (hi - lo) / 2];
    size_t i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot) i++;
      while (v[j] > pivot) j--;
      if (i <= j) {
        double t = v[i]; v[i] = v[j]; v[j] = t;
        i++;
        if (j == 0) break;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return v[k];
  }
  return v[k];
}

/* The smallest of v[from..len-1]. */
static double smallest_from(const double *v, size_t from, size_t len)
{
  double m = v[from];
  for (size_t t = from + 1; t < len; t++) if (v[t] < m) m = v[t];
  return m;
}

/* R's mean of a and b: a long double sum, then its refinement pass. */
static double mean_of_two(double a, double b)
{
  long double s = ((long double) a + b) / 2.0L;
  long double t = ((long double) a - s) + ((long double) b - s);
  return (double) (s + t / 2.0L);
}

/* stats::median of v[0..len-1], len >= 1 (v reordered). */
static double median_of(double *v, size_t len)
{
  size_t half = (len + 1) / 2;
  double lower = kth_smallest(v, len, half - 1);
  if (len % 2) return lower;
  return mean_of_two(lower, smallest_from(v, half, len));
}

/* Moves the positive values of v to its front; returns their count. */
static size_t positive_front(double *v, size_t len)
{
  size_t np = 0;
  for (size_t t = 0; t < len; t++) if (v[t] > 0) v[np++] = v[t];
  return np;
}

/* The width of the distances v[0..len-1] (v reordered): their median,
 * else that of the positive ones, else 1. */
static double width_of(double *v, size_t len)
{
  if (len == 0) return 1.0;
  double m = median_of(v, len);
  if (m == 0) {
    size_t np = positive_front(v, len);
    m = np > 0 ? median_of(v, np) : 1.0;
  }
  return m;
}

int fl_median_distance(const double *x, int n, int d, int threads, double *width)
{
  *width = 1.0;
  if (n < 2) return FL_OK;
  size_t len = (size_t) n * (n - 1) / 2;
  double *v = malloc(len * sizeof(double));
  if (!v) return FL_ERR_NOMEM;
  int status = all_distances(x, n, d, threads, v);
  if (status == FL_OK) *width = width_of(v, len);
  free(v);
  return status;
}

int fl_median_width(const double *dist, size_t len, double *width)
{
  *width = 1.0;
  if (len == 0) return FL_OK;
  double *v = malloc(len * sizeof(double));
  if (!v) return FL_ERR_NOMEM;
  memcpy(v, dist, len * sizeof(double));
  *width = width_of(v, len);
  free(v);
  return FL_OK;
}
