/* The block kernel of the matrix-free modes (hc, hpc, nhpc), k-means and
 * the balls:
 * similarities of one candidate to a run of clients, vectorised under R's
 * default -O2 (SSE2, no -march), where the scalar fl_rbf() spends about
 * 17 ns a pair on this kind of machine and these about 10 (measured with
 * 64-row blocks, d = 32). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "fl_kernel.h"

#define FL_EXP_XMAX 708.0   /* exp(-708) is the last normal result */

/* exp(-x) for x >= 0 (+Inf included), within 1 ulp of the C library's for
 * x <= 708 and 0 beyond.  Branch-free, so loops over it vectorise: the
 * usual x = k ln2 + r reduction (|r| <= ln2 / 2, Cody-Waite split of ln2),
 * the degree-13 Taylor polynomial of exp(r) (truncation below 1e-17), and
 * 2^k assembled in the exponent bits.  The clamp at FL_EXP_XMAX works on
 * the bit patterns, which order non-negative doubles, with only the 64-bit
 * integer operations SSE2 has. */
static inline double fl_exp_neg(double x)
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
  sb = ((kb - INT64_C(0x4338000000000000) + 1023) * (INT64_C(1) << 52)) & ~over;
  double scale;
  memcpy(&scale, &sb, sizeof sb);
  return p * scale;
}

FL_CLONES void fl_sqdist_rows(const double *rows, int cnt, const double *restrict y, int d,
                    double *restrict out)
{
  int i = 0;
  for (; i + 4 <= cnt; i += 4) {
    const double *restrict a = rows + (size_t) i * d;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    FL_SIMD_SUM4(s0, s1, s2, s3)
    for (int t = 0; t < d; t++) {
      double yt = y[t], e0 = a[t] - yt, e1 = a[d + t] - yt, e2 = a[2 * d + t] - yt,
        e3 = a[3 * d + t] - yt;
      s0 += e0 * e0;
      s1 += e1 * e1;
      s2 += e2 * e2;
      s3 += e3 * e3;
    }
    out[i] = s0; out[i + 1] = s1; out[i + 2] = s2; out[i + 3] = s3;
  }
  for (; i < cnt; i++) out[i] = fl_sqdist(rows + (size_t) i * d, y, d);
}

/* Points per block of fl_sqdist_cols_f(): their running sums stay in L1. */
#define FL_COLS_BLOCK 64

FL_CLONES void fl_sqdist_cols_f(const float *cols, int cnt, const float *restrict y, int d,
                                double *restrict out)
{
  float acc[FL_COLS_BLOCK];
  for (int i0 = 0; i0 < cnt; i0 += FL_COLS_BLOCK) {
    int nb = cnt - i0 < FL_COLS_BLOCK ? cnt - i0 : FL_COLS_BLOCK;
    for (int j = 0; j < nb; j++) acc[j] = 0.0f;
    for (int t = 0; t < d; t++) {
      const float *restrict c = cols + (size_t) t * cnt + i0;
      float yt = y[t];
      FL_SIMD
      for (int j = 0; j < nb; j++) {
        float e = c[j] - yt;
        acc[j] += e * e;
      }
    }
    for (int j = 0; j < nb; j++) out[i0 + j] = acc[j];
  }
}

/* Rows are scanned in blocks of this many (distances on the stack). */
#define FL_NEAREST_BLOCK 64

int fl_nearest_row(const double *rows, int cnt, const double *y, int d, double *best_d2)
{
  int best = 0;
  double bd = INFINITY, d2[FL_NEAREST_BLOCK];
  for (int c0 = 0; c0 < cnt; c0 += FL_NEAREST_BLOCK) {
    int nb = cnt - c0 < FL_NEAREST_BLOCK ? cnt - c0 : FL_NEAREST_BLOCK;
    fl_sqdist_rows(rows + (size_t) c0 * d, nb, y, d, d2);
    for (int c = 0; c < nb; c++)
      if (d2[c] < bd) { bd = d2[c]; best = c0 + c; }
  }
  if (best_d2) *best_d2 = bd;
  return best;
}

FL_CLONES void fl_rbf_rows(const double *rows, int cnt, const double *y, int d, double inv2s2,
                 double *restrict out)
{
  fl_sqdist_rows(rows, cnt, y, d, out);
  FL_SIMD
  for (int i = 0; i < cnt; i++) out[i] = fl_exp_neg(out[i] * inv2s2);
}
