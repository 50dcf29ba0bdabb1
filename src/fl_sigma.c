/* The median heuristic's width: the median of the Euclidean distances
 * between all pairs of a sample of points, as stats::median(dist(x))
 * computes it (the same sums in the same order, the same mean of the two
 * middle values), without the vector of distances going through R. */
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include "fl_sigma.h"

/* The distance of rows i and j of the n x d column-major x, summed over
 * the coordinates in order as stats::dist() does. */
static double row_distance(const double *x, int n, int d, int i, int j)
{
  double sum = 0.0;
  for (int t = 0; t < d; t++) {
    double dev = x[(size_t) t * n + i] - x[(size_t) t * n + j];
    sum += dev * dev;
  }
  return sqrt(sum);
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

int fl_median_distance(const double *x, int n, int d, double *width)
{
  *width = 1.0;
  if (n < 2) return FL_OK;
  size_t len = (size_t) n * (n - 1) / 2, at = 0;
  double *v = malloc(len * sizeof(double));
  if (!v) return FL_ERR_NOMEM;
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++) v[at++] = row_distance(x, n, d, i, j);
  *width = width_of(v, len);
  free(v);
  return FL_OK;
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
