/* What the fl_clusters units share and no one else needs: the rounding
 * margins of the bounds and the helpers several of them call. */
#ifndef CL_INTERNAL_H
#define CL_INTERNAL_H

#include <math.h>
#include <float.h>
#include "cl_layout.h"
#include "kernel.h"
#include "fl_omp.h"
#include "fl_tune.h"

/* The per-cluster arrays kept in single precision (radf to side2f in
 * cl_layout.h). */
#define FL_LEAF_FLOATS 15

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

/* v >= 0 in single precision, at least v (dir = 1) or at most v (dir =
 * -1): moved by 2^-23 of it before the rounding to nearest, which moves a
 * normal float by at most 2^-24 of it.  Below the normal floats it is
 * FLT_MIN (dir = 1) or 0 (dir = -1, and 0 for v = 0): never a subnormal
 * float, whose arithmetic is slow: the zero weights and coverage minima
 * of most leaves would be subnormal (measured:
 * inst/bench/results/tunables.md, float_toward). */
static inline float float_toward(double v, int dir)
{
  float f = (float) (v * (1.0 + dir * 0x1p-23));
  if (f >= FLT_MIN) return f;
  return dir > 0 && v > 0 ? FLT_MIN : 0.0f;
}

/* K leaves rounded up to whole blocks of FL_COLS_PAD, the vectors' widths
 * in floats. */
static inline int padded_leaves(int K)
{
  return (K + FL_COLS_PAD - 1) / FL_COLS_PAD * FL_COLS_PAD;
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

/* cl_summaries.c */
void fl_cl_bisector_spreads(fl_clusters *cl);
void fl_cl_single_precision_centers(fl_clusters *cl);
void fl_cl_single_precision_chunk(fl_clusters *cl, int ch);
void fl_cl_single_precision_chunks(fl_clusters *cl);
void fl_cl_leaf_floats(fl_clusters *cl, int k);

/* cl_kernel_leaves.c */
/* v[i] = sqrt(v[i]) for n values >= 0. */
void fl_sqrtf_array(float *v, int n);
#if FL_WIDE
/* The leaves with eval[k] != 0 that the plan estimates (estimated()),
 * and all leaves with eval[k] != 0, into idx; return their count. */
FL_WIDE_TARGET int fl_list_estimated_wide(const fl_clusters *cl, const float *df,
                                          const int *eval, int *idx);
FL_WIDE_TARGET int fl_list_visited_wide(int K, const int *eval, int *idx);
#endif

#endif
