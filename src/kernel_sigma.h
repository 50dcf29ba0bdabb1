/* The median heuristic's width (kernel_sigma.c). */
#ifndef FL_SIGMA_H
#define FL_SIGMA_H

#include "facloc.h"

/* *width: the median of the distances between the n rows of the n x d
 * column-major x (stats::median(dist(x))); where it is 0, the median of
 * the positive ones; where none is positive, 1.  FL_ERR_NOMEM when the
 * n (n - 1) / 2 distances cannot be held.  The distances are computed on
 * up to `threads` threads, the width the same at any count. */
int fl_median_distance(const double *x, int n, int d, int threads, double *width);
/* *width by the same rule from len given distances (a dist object's). */
int fl_median_width(const double *dist, size_t len, double *width);

#endif
