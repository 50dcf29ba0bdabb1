/* The block kernel of the matrix-free modes (hc, hpc, nhpc), k-means and
 * the balls: similarities of one candidate to a run of clients,
 * vectorised under R's default -O2 (SSE2, no -march), where the scalar
 * fl_rbf() is slower (measured: inst/bench/results/tunables.md, the block
 * kernel). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "kernel.h"
#include "fl_tune.h"

FL_CLONES void fl_sqdist_rows(const double *rows, int cnt, const double *restrict y, int d,
                    double *restrict out)
{
  int i = 0;
  for (; i + 4 <= cnt; i += 4) {
    const double *restrict a = rows + (size_t) i * d;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    FL_SIMD_SUM(s0, s1, s2, s3)
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

void fl_centers_cols_f(const double *centers, int K, int d, double *org, float *cols)
{
  for (int t = 0; t < d; t++) {
    double m = 0.0;
    for (int c = 0; c < K; c++) m += centers[(size_t) c * d + t];
    org[t] = m / (K > 0 ? K : 1);
    for (int c = 0; c < K; c++)
      cols[(size_t) t * K + c] = (float) (centers[(size_t) c * d + t] - org[t]);
  }
}

/* exp(-x) in single precision for 0 <= x (x >= FL_EXPF_XMAX gives
 * exp(-FL_EXPF_XMAX), a normal number above the true value), within
 * FL_EXPF_ERR of it relatively; branch-free, so it vectorises, 8 at a time
 * with AVX2.  As fl_exp_neg: x = k ln2 + r (|r| <= ln2 / 2, ln2 split so
 * that k ln2hi is exact), the degree-7 Taylor polynomial of exp(r)
 * (truncation below 6e-9) and 2^k put in the exponent bits. */
static inline float fl_expf_neg(float x)
{
  const float log2e = 1.44269504f, ln2hi = 0.693359375f, ln2lo = -2.12194440e-4f,
    shift = 0x1.8p23f, xmax = FL_EXPF_XMAX;
  int32_t xb, mb;   /* the clamp on the bit patterns, as in fl_exp_neg */
  memcpy(&xb, &x, sizeof x);
  memcpy(&mb, &xmax, sizeof xmax);
  int32_t diff = mb - xb;
  xb += diff & -(int32_t) ((uint32_t) diff >> 31);
  memcpy(&x, &xb, sizeof x);
  float kf = -x * log2e + shift;   /* round(-x / ln2) in the low bits */
  float k = kf - shift;
  float r = (-x - k * ln2hi) - k * ln2lo;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  int32_t kb, sb;
  memcpy(&kb, &kf, sizeof kf);
  sb = (int32_t) ((uint32_t) (kb - 0x4B400000 + 127) << 23);
  float scale;
  memcpy(&scale, &sb, sizeof sb);
  return p * scale;
}

FL_CLONES void fl_expf_neg_array(float *v, int n)
{
  FL_SIMD
  for (int i = 0; i < n; i++) v[i] = fl_expf_neg(v[i]);
}

/* The gain sums in vectors need __builtin_convertvector (GCC 9, Clang);
 * older compilers take the plain loop. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 9)
#define FL_VEC_SUMS 1
#else
#define FL_VEC_SUMS 0
#endif

/* FL_VF floats a vector, loaded from any float address: GCC's vector
 * extension keeps the sums in registers (as plain arrays they went through
 * memory, a store and a load per coordinate).  GCC lowers vectors wider
 * than the target's through memory, so each width is compiled for its
 * own target: 8 where the x86-64-v3 clone is compiled from this source or
 * the target has AVX (Clang splits them well anywhere), else 4; and with
 * GCC 12 or later (which names the level), 16 for x86-64-v4 (AVX-512),
 * picked at run time.  Of the other cloned functions only the plan's loop
 * (fl_clusters_plan) is kept in an x86-64-v4 version (measured:
 * inst/bench/results/tunables.md, FL_VF: vector widths). */
#if FL_WIDE
#define FL_VF 16
#define FL_COLS_FN(name) name##_wide
#define FL_COLS_ATTR static FL_WIDE_TARGET
#include "kernel_cols.h"
#undef FL_VF
#undef FL_COLS_FN
#undef FL_COLS_ATTR
#endif

#if defined(FL_HAVE_CLONES) || defined(__AVX__) || defined(__clang__)
#define FL_VF 8
#else
#define FL_VF 4
#endif
#define FL_COLS_FN(name) name##_narrow
#define FL_COLS_ATTR static FL_CLONES
#include "kernel_cols.h"

void fl_sqdist_cols_f(const float *cols, int stride, int cnt, const float *restrict y, int d,
                      float *restrict out)
{
#if FL_WIDE
  if (fl_wide_vectors()) {
    sqdist_cols_wide(cols, stride, cnt, y, d, out);
    return;
  }
#endif
  sqdist_cols_narrow(cols, stride, cnt, y, d, out);
}

void fl_nearest_two_f(const float *pts, const float *cols, int K, int d, int *best, float *bd,
                      float *next)
{
#if FL_WIDE
  if (fl_wide_vectors()) {
    nearest_two_wide(pts, cols, K, d, best, bd, next);
    return;
  }
#endif
  nearest_two_narrow(pts, cols, K, d, best, bd, next);
}

void fl_sqdist_dot_f(const float *cols, int stride, int cnt, int nq, const float *const *y,
                     const float *yn, const float *xn, int d, float *out, size_t orow)
{
#if FL_WIDE
  if (fl_wide_vectors()) {
    sqdist_dot_wide(cols, stride, cnt, nq, y, yn, xn, d, out, orow);
    return;
  }
#endif
  sqdist_dot_narrow(cols, stride, cnt, nq, y, yn, xn, d, out, orow);
}

void fl_gain_dot_f(const float *cols, int stride, int cnt, int nq, const float *const *y,
                   const float *yn, const float *xn, int d, float inv2s2, const double *w,
                   const double *cover, double *gain, double *mass)
{
#if FL_WIDE
  if (fl_wide_vectors()) {
    gain_dot_wide(cols, stride, cnt, nq, y, yn, xn, d, inv2s2, w, cover, gain, mass);
    return;
  }
#endif
  gain_dot_narrow(cols, stride, cnt, nq, y, yn, xn, d, inv2s2, w, cover, gain, mass);
}

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
