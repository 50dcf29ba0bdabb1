/* The RBF kernel: every solver and the objective go through these, so the
 * same pair always gets the same bits whichever mode computes it. */
#ifndef FL_KERNEL_H
#define FL_KERNEL_H

#include <math.h>
#include "fl_omp.h"

static inline double fl_sqdist(const double *restrict a,
                               const double *restrict b, int d)
{
  double s = 0.0;
  FL_SIMD_SUM(s)
  for (int t = 0; t < d; t++) {
    double diff = a[t] - b[t];
    s += diff * diff;
  }
  return s;
}

static inline double fl_rbf(const double *restrict a, const double *restrict b,
                            int d, double inv2s2)
{
  return exp(-fl_sqdist(a, b, d) * inv2s2);
}

#endif
