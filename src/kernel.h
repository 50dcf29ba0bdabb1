/* The RBF kernel.  The exact modes' matrix (g, c, dc, the budgeted
 * solver, the certificate) and the exhaustive pass come from the tiled
 * kernel (fl_rbf_tile, kernel_tile.c): the same pair gets the same bits
 * in each.  fl_rbf() serves the similarities computed one at a time
 * (facility_objective(), stochastic greedy, the matrix-free modes' dual);
 * the matrix-free modes' blocks go through fl_rbf_rows(). */
#ifndef FL_KERNEL_H
#define FL_KERNEL_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "fl_omp.h"

/* On x86-64 Linux with GCC, the block kernels (and the cluster bounds'
 * loops, fl_clusters_reach and fl_clusters_plan) are also compiled for
 * x86-64-v3 (AVX2 and FMA; AVX2 alone before GCC 12, which cannot
 * dispatch on that level) and picked at load time by the CPU (an ifunc):
 * R builds packages without -march (measured:
 * inst/bench/results/tunables.md, x86-64-v3 clones).  A fused
 * multiply-add rounds once where SSE2 rounds twice, so the two
 * builds' results differ in the last bits; every rounding allowance holds
 * for both, and the single-precision exp() is within 7.9e-8 of the C
 * library's with FMA, 1.02e-7 without.  Elsewhere (no ifunc), or built
 * with -DFL_NO_CLONES (the benchmark driver's `make CLONES=0`), one
 * version for the compiler's target.  Some are also compiled for
 * x86-64-v4 (FL_WIDE below). */
#if !defined(FL_NO_CLONES) && defined(__GNUC__) && !defined(__clang__) && \
  defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)
#define FL_HAVE_CLONES 1
#if __GNUC__ >= 12
#define FL_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define FL_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#else
#define FL_CLONES
#endif

/* Sums that must give the bits of R's own (the median heuristic's
 * distances, summed as stats::dist() sums them): AVX2 without FMA, since
 * a fused multiply-add rounds once where R's build rounds twice. */
#if defined(FL_HAVE_CLONES)
#define FL_CLONES_UNFUSED __attribute__((target_clones("avx2", "default")))
#else
#define FL_CLONES_UNFUSED
#endif

/* Always inlined: a helper of a function compiled for one target (a
 * clone, or FL_WIDE_TARGET) is then compiled for that target too. */
#if defined(__GNUC__)
#define FL_INLINE __attribute__((always_inline))
#else
#define FL_INLINE
#endif

/* The x86-64-v4 (AVX-512) versions, where GCC 12 or later names the level:
 * the kernels over clients stored by coordinate (kernel.c), the plan's
 * loop over the leaves (fl_clusters_plan) with its list of leaves to
 * estimate, and the square roots of the distances to the centers, each
 * picked at run time by fl_wide_vectors(). */
#if defined(FL_HAVE_CLONES) && __GNUC__ >= 12
#define FL_WIDE 1
#define FL_WIDE_TARGET __attribute__((target("arch=x86-64-v4")))
#else
#define FL_WIDE 0
#endif

/* Whether this CPU runs the x86-64-v4 versions (two loads and tests):
 * only where it also has AVX512-VBMI2 (Ice Lake and later, Zen 4 and
 * later), so not on Skylake-SP and Cascade Lake, which lower the whole
 * core's clock while 512-bit arithmetic runs (not measured here: the
 * gains in kernel.c are from a later Xeon). */
static inline int fl_wide_vectors(void)
{
#if FL_WIDE
  return __builtin_cpu_supports("x86-64-v4") && __builtin_cpu_supports("avx512vbmi2");
#else
  return 0;
#endif
}

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

#define FL_EXP_XMAX 746.0   /* exp(-746) rounds to 0 */

/* exp(-x) for x >= 0 (+Inf included), within 1 ulp of the C library's for
 * x <= 708, and like it down into the subnormal numbers and 0 beyond 745:
 * the exact modes' greedy choices on data where every similarity is that
 * small must be the same.  Branch-free, so loops over it vectorise: the
 * usual x = k ln2 + r reduction (|r| <= ln2 / 2, Cody-Waite split of ln2),
 * the degree-13 Taylor polynomial of exp(r) (truncation below 1e-17), and
 * 2^(k + 64) assembled in the exponent bits, then 2^-64 applied (exact
 * for normal results, one rounding for subnormal ones).  The clamp at
 * FL_EXP_XMAX works on the bit patterns, which order non-negative doubles,
 * with only the 64-bit integer operations SSE2 has. */
static inline FL_INLINE double fl_exp_neg(double x)
{
  const double log2e = 1.4426950408889634, ln2hi = 6.93147180369123816490e-01,
    ln2lo = 1.90821492927058770002e-10, shift = 0x1.8p52, xmax = FL_EXP_XMAX;
  int64_t xb, mb;
  memcpy(&xb, &x, sizeof x);
  memcpy(&mb, &xmax, sizeof xmax);
  int64_t diff = mb - xb;
  int64_t over = -(int64_t) ((uint64_t) diff >> 63);   /* all ones if x > xmax */
  xb += diff & over;
  memcpy(&x, &xb, sizeof x);
  double kd = -x * log2e + shift;   /* round(-x / ln2) in the low bits */
  double k = kd - shift;
  double r = (-x - k * ln2hi) - k * ln2lo;
  double p = 1.0 / 6227020800.0;
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  int64_t kb, sb;
  memcpy(&kb, &kd, sizeof kd);
  sb = (kb - INT64_C(0x4338000000000000) + 1023 + 64) * (INT64_C(1) << 52);
  double scale;
  memcpy(&scale, &sb, sizeof sb);
  return p * scale * 0x1p-64;
}

/* max(v, 0), exactly, without a branch: loops over it vectorise. */
static inline double fl_positive(double v)
{
  return 0.5 * (v + fabs(v));
}

/* out = y - ref in single precision (d values); returns |y - ref|^2 in
 * double precision. */
static inline double fl_offset_f(const double *restrict y, const double *restrict ref,
                                 int d, float *restrict out)
{
  double norm2 = 0.0;
  FL_SIMD_SUM(norm2)
  for (int t = 0; t < d; t++) {
    double b = y[t] - ref[t];
    out[t] = (float) b;
    norm2 += b * b;
  }
  return norm2;
}

/* Squared distances of y to cnt rows (row-major, d columns), four rows per
 * sweep over the coordinates. */
void fl_sqdist_rows(const double *rows, int cnt, const double *y, int d, double *out);
/* Squared distances of y to cnt points stored by coordinate (coordinate t
 * of point i at cols[t * stride + i]) in single precision: k-means, and
 * the matrix-free modes' distances to the leaves' centers, whose bounds
 * allow for its rounding (fl_clusters_reach), and to the leaves' owners.
 * Vectorised across the points; reads up to FL_COLS_PAD - 1 floats past
 * cols[(d - 1) * stride + cnt - 1], which the caller's array must hold. */
#define FL_COLS_PAD 16
void fl_sqdist_cols_f(const float *cols, int stride, int cnt, const float *y, int d,
                      float *out);
/* The nearest of K centers (cols, as for fl_sqdist_cols_f, stride K) to
 * each of FL_COLS_PAD points stored by coordinate (pts: coordinate t of
 * point j at pts[t * FL_COLS_PAD + j]), the lowest on ties: best[j], its
 * squared distance bd[j] and the second smallest next[j] (INFINITY when K =
 * 1), the distances those fl_sqdist_cols_f() gives (k-means). */
void fl_nearest_two_f(const float *pts, const float *cols, int K, int d, int *best, float *bd,
                      float *next);
/* The K centers (K x d, row-major) as cols for fl_sqdist_cols_f(): each
 * minus their mean org (d), so that the values, and the rounding, are on
 * the scale of the distances, in single precision, by coordinate (d x K). */
void fl_centers_cols_f(const double *centers, int K, int d, double *org, float *cols);
/* The partial gains gain[q] = sum_i w_i max(0, s_qi - cover_i) of nq
 * candidates y[q] (d floats each, stored as the clients) over cnt clients
 * stored so, with s_qi = exp(-d2_qi inv2s2) and d2_qi = xn_i + yn_q - 2
 * x_i.y_q, from the squared norms xn of the clients and yn of the
 * candidates, computed in single precision (negative d2 taken as 0;
 * exp() within FL_EXPF_ERR relatively of exp() of the computed float
 * argument, at least exp(-FL_EXPF_XMAX)); mass[q] = sum_i w_i s_qi.  xn,
 * w and cover are read up to the next multiple of FL_COLS_PAD past cnt
 * (callers pad them; the values there, any finite ones, are ignored). */
#define FL_EXPF_XMAX 87.0f
#define FL_EXPF_ERR 1e-6
/* v[i] = exp(-v[i]) for n values v[i] >= 0, as the exp() of
 * fl_gain_dot_f. */
void fl_expf_neg_array(float *v, int n);
void fl_gain_dot_f(const float *cols, int stride, int cnt, int nq, const float *const *y,
                   const float *yn, const float *xn, int d, float inv2s2, const double *w,
                   const double *cover, double *gain, double *mass);
/* The squared distances xn_j + yn_q - 2 x_j.y_q (negative ones 0) of nq
 * <= 4 points y[q] (d floats, norms yn) to cnt points stored as for
 * fl_gain_dot_f (norms xn), into out + q orow, computed in single
 * precision as there: the matrix-free modes' distances to the leaves'
 * centers.  Writes (and reads xn up to) the next multiple of FL_COLS_PAD
 * past cnt. */
void fl_sqdist_dot_f(const float *cols, int stride, int cnt, int nq, const float *const *y,
                     const float *yn, const float *xn, int d, float *out, size_t orow);
/* Index of the row nearest to y (the lowest on ties), its squared distance
 * into *best_d2 unless NULL: k-means and the balls' assignments. */
int fl_nearest_row(const double *rows, int cnt, const double *y, int d, double *best_d2);
/* out[i] = exp(-||row_i - y||^2 inv2s2) with a vectorised exp() within
 * 1 ulp of the C library's: the matrix-free modes' kernel.  The exact
 * modes and the reference pass keep fl_rbf(). */
void fl_rbf_rows(const double *rows, int cnt, const double *y, int d, double inv2s2,
                 double *out);

/* The tiled kernel (kernel_tile.c) of the exact modes' matrix and the
 * exhaustive pass.  Rows (d columns) are packed for it in panels:
 * fl_tile_packed() doubles hold n rows packed either way; a client block
 * starts at a multiple of FL_TILE_CLIENTS (a multiple of every panel's
 * width), at xp + i0 d, and a candidate block at a multiple of
 * fl_tile_candidates().  Each is packed, and its squared norm taken,
 * relative to an origin org (d values): the clients' mean, so that the
 * norms are on the scale of the distances. */
size_t fl_tile_packed(int n, int d);
void fl_tile_pack_clients(const double *x, int n, int d, const double *org, double *xp);
void fl_tile_pack_candidates(const double *y, int m, int d, const double *org, double *yp);
/* Squared norms of n rows minus org, each the bits fl_rbf_tile() gives a
 * dot product: a point's distance to itself is 0 exactly. */
void fl_tile_norms(const double *x, int n, int d, const double *org, double *out);
/* out[a * ldo + i] = exp(-max(0, d2) inv2s2), d2 = yn_a + xn_i - 2
 * y_a.x_i, for the mc packed candidates yp (squared norms yn) and the nc
 * packed clients xp (xn), a < mc, i < nc; exp() within 1 ulp of the C
 * library's (fl_exp_neg).  With cosine (rows of unit length), max(0, 1 -
 * d2 / 2), their cosine where positive. */
void fl_rbf_tile(const double *yp, const double *yn, int mc, const double *xp,
                 const double *xn, int nc, int d, double inv2s2, int cosine, double *out,
                 size_t ldo);
/* The same in single precision, for the exact modes' single-precision
 * matrix: rows packed as floats (fl_tile_packed_f() of them, panels of
 * fl_tile_width_f() clients, FL_TILE_CLIENTS a multiple of it too), each
 * slice of FL_TILE_DEPTH coordinates multiplied and summed in float, the
 * slices added in double, and d2 lowered by that sum's worst-case error
 * before the exponential: every value at least the double kernel's, at
 * most exp(2 gamma (yn + xn) inv2s2) times it (the rounding may have
 * lowered d2 by as much; gamma = 7.9e-6 at the default depth).  Gaussian
 * kernel only. */
size_t fl_tile_packed_f(int n, int d);
int fl_tile_width_f(void);
void fl_tile_pack_clients_f(const double *x, int n, int d, const double *org, float *xp);
void fl_tile_pack_candidates_f(const double *y, int m, int d, const double *org, float *yp);
void fl_rbf_tile_f(const float *yp, const double *yn, int mc, const float *xp,
                   const double *xn, int nc, int d, double inv2s2, double *out, size_t ldo);
/* Candidates per block of fl_rbf_tile() calls at dimension d: the block's
 * rows stay in the core's cache (FL_TILE_DOUBLES) while every client
 * meets them; against the few clients of a leaf, fewer
 * (FL_TILE_LEAF_DOUBLES). */
int fl_tile_candidates(int d);
int fl_tile_leaf_candidates(int d);
/* fl_tile_candidates(d), or fewer where m candidates in such blocks
 * would leave some of a team's threads (team >= 1) without one: about
 * m / team, a multiple of FL_TILE_ROWS, so that every thread gets a
 * block where m allows. */
int fl_tile_candidates_for(int d, int m, int team);
/* Clients a panel (the width the kernel runs at on this CPU). */
int fl_tile_width(void);

#endif
