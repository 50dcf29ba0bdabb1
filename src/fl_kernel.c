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
  sb = (kb - INT64_C(0x4338000000000000) + 1023 + 64) * (INT64_C(1) << 52);
  double scale;
  memcpy(&scale, &sb, sizeof sb);
  return p * scale * 0x1p-64;
}

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

/* Squared distances of y to the FL_COLS_PAD points stored by coordinate
 * from c (stride apart), into sum.  The points past the caller's count
 * are read (callers pad their arrays) and ignored. */
#if defined(__GNUC__)
/* FL_VF floats a vector, loaded from any float address: GCC's vector
 * extension keeps the sums in registers (as plain arrays they went through
 * memory, a store and a load per coordinate).  8 where the x86-64-v3 clone
 * is compiled from this source or the target has AVX (Clang splits them
 * well anywhere), else 4: GCC lowers vectors wider than the target's
 * through memory (nhpc with SSE2 alone, "medium", n = 12000: 1.14 s with
 * 8-float vectors, 0.24 s with 4; 0.11 s with the x86-64-v3 clone). */
#if defined(FL_HAVE_CLONES) || defined(__AVX__) || defined(__clang__)
#define FL_VF 8
#else
#define FL_VF 4
#endif
#define FL_NV (FL_COLS_PAD / FL_VF)   /* vectors per padded block */
typedef float fl_fv __attribute__((vector_size(4 * FL_VF), aligned(4), may_alias));
#define loadv(p) (*(const fl_fv *) (p))
/* A store, not memcpy(): under _FORTIFY_SOURCE (R's default flags on
 * Debian and Ubuntu) the memcpy() into the caller's block was checked and
 * no longer one vector store, and the matrix-free modes ran 5% slower. */
#define storev(p, v) (*(fl_fv *) (p) = (v))

/* Coordinates two at a time: 2 FL_NV independent sums. */
static inline void sqdist_pad(const float *c, int stride, const float *restrict y, int d,
                              float *restrict sum)
{
  fl_fv a[FL_NV], b[FL_NV], e;
  for (int v = 0; v < FL_NV; v++) a[v] = b[v] = (fl_fv) { 0 };
  int t = 0;
  for (; t + 2 <= d; t += 2, c += 2 * (size_t) stride) {
    float y0 = y[t], y1 = y[t + 1];
#pragma GCC unroll 4
    for (int v = 0; v < FL_NV; v++) {
      e = loadv(c + v * FL_VF) - y0; a[v] += e * e;
      e = loadv(c + stride + v * FL_VF) - y1; b[v] += e * e;
    }
  }
#pragma GCC unroll 4
  for (int v = 0; v < FL_NV; v++) {
    if (t < d) {
      e = loadv(c + v * FL_VF) - y[t];
      a[v] += e * e;
    }
    storev(sum + v * FL_VF, a[v] + b[v]);
  }
}
#else
static inline void sqdist_pad(const float *c, int stride, const float *restrict y, int d,
                              float *restrict sum)
{
  for (int j = 0; j < FL_COLS_PAD; j++) sum[j] = 0.0f;
  for (int t = 0; t < d; t++, c += stride)
    for (int j = 0; j < FL_COLS_PAD; j++) {
      float e = c[j] - y[t];
      sum[j] += e * e;
    }
}
#endif

FL_CLONES void fl_sqdist_cols_f(const float *cols, int stride, int cnt,
                                const float *restrict y, int d, float *restrict out)
{
  int i0 = 0;
  for (; i0 + FL_COLS_PAD <= cnt; i0 += FL_COLS_PAD) sqdist_pad(cols + i0, stride, y, d, out + i0);
  if (i0 < cnt) {
    float sum[FL_COLS_PAD];
    sqdist_pad(cols + i0, stride, y, d, sum);
    memcpy(out + i0, sum, (size_t) (cnt - i0) * sizeof(float));
  }
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

/* Clients per block of fl_gain_cols_f(): the exp() loop then runs over
 * several vectors, whose polynomial chains overlap. */
#define FL_GAIN_BLOCK 64

/* The gain sums in vectors need __builtin_convertvector (GCC 9, Clang);
 * older compilers take the plain loop. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 9)
#define FL_VEC_SUMS 1
#else
#define FL_VEC_SUMS 0
#endif

#if FL_VEC_SUMS
/* Half a float vector as doubles, and its lanes' integer type. */
typedef double fl_dv __attribute__((vector_size(4 * FL_VF), aligned(8), may_alias));
typedef float fl_fh __attribute__((vector_size(2 * FL_VF), aligned(4), may_alias));
typedef long long fl_iv __attribute__((vector_size(4 * FL_VF)));

/* max(v, 0) lane by lane, exactly, as fl_positive() (a macro: a function
 * returning a 32-byte vector draws GCC's ABI warning where AVX is off). */
#define POSITIVE_V(v) (0.5 * ((v) + (fl_dv) ((fl_iv) (v) & INT64_MAX)))

/* acc[0..1] += w max(s - cover, 0) and acc[2..3] += w s over the nv
 * similarities s (whole float vectors), the lanes from nb on weighted 0
 * (they hold the next clients of the layout).  The sums stay in vector
 * registers, where `omp simd reduction` kept them on the stack, and exp()
 * runs apart, a float vector at a time instead of the half as many
 * doubles of the sums: fl_gain_cols_f took 1.95 instead of 2.44 ns a pair
 * with 64 clients in L1, 2.61 instead of 3.31 with 27 (a typical leaf),
 * 2.72 instead of 3.17 over n = 12000 (one candidate, d = 32, x86-64-v3,
 * best of 54 runs), and nhpc 5 to 7% less time at one thread ("large",
 * "medium_cluster"). */
static inline void gain_sums(const float *s, const double *w, const double *cover, int nb,
                             int nv, fl_dv acc[4])
{
  const int h = FL_VF / 2;
  fl_iv lane;
  for (int i = 0; i < h; i++) lane[i] = i;
  for (int j = 0; j < nv; j += FL_VF) {
    fl_dv s0 = __builtin_convertvector(*(const fl_fh *) (s + j), fl_dv);
    fl_dv s1 = __builtin_convertvector(*(const fl_fh *) (s + j + h), fl_dv);
    fl_dv w0 = *(const fl_dv *) (w + j), w1 = *(const fl_dv *) (w + j + h);
    if (j + FL_VF > nb) {
      w0 = (fl_dv) ((fl_iv) w0 & (lane < (long long) (nb - j)));
      w1 = (fl_dv) ((fl_iv) w1 & (lane < (long long) (nb - j - h)));
    }
    fl_dv e0 = s0 - *(const fl_dv *) (cover + j), e1 = s1 - *(const fl_dv *) (cover + j + h);
    acc[0] += w0 * POSITIVE_V(e0);
    acc[1] += w1 * POSITIVE_V(e1);
    acc[2] += w0 * s0;
    acc[3] += w1 * s1;
  }
}

/* The lanes of *v added in a fixed order. */
static inline double lane_sum(const fl_dv *v)
{
  double sum = 0.0;
  for (int i = 0; i < FL_VF / 2; i++) sum += (*v)[i];
  return sum;
}
#endif

FL_CLONES double fl_gain_cols_f(const float *cols, int stride, int cnt, const float *y, int d,
                                float inv2s2, const double *w, const double *cover,
                                double *mass)
{
  float d2[FL_GAIN_BLOCK];
#if FL_VEC_SUMS
  float s[FL_GAIN_BLOCK];
  fl_dv acc[4] = { { 0 }, { 0 }, { 0 }, { 0 } };
#else
  double g = 0.0, m = 0.0;
#endif
  for (int i0 = 0; i0 < cnt; i0 += FL_GAIN_BLOCK) {
    int nb = cnt - i0 < FL_GAIN_BLOCK ? cnt - i0 : FL_GAIN_BLOCK;
    /* whole vectors: the lanes past nb (distances of the padding) get
     * weight 0, where a scalar remainder loop, exp() included, took a
     * sixth of the time with chunks of 27 or 43 clients */
    int nv = (nb + FL_COLS_PAD - 1) / FL_COLS_PAD * FL_COLS_PAD;
    for (int j0 = 0; j0 < nb; j0 += FL_COLS_PAD) sqdist_pad(cols + i0 + j0, stride, y, d, d2 + j0);
#if FL_VEC_SUMS
    FL_SIMD
    for (int j = 0; j < nv; j++) s[j] = fl_expf_neg(d2[j] * inv2s2);
    gain_sums(s, w + i0, cover + i0, nb, nv, acc);
#else
    const double *wb = w + i0, *cb = cover + i0;
    FL_SIMD_SUM(g, m)
    for (int j = 0; j < nv; j++) {
      double wj = j < nb ? wb[j] : 0.0;
      double s = fl_expf_neg(d2[j] * inv2s2), diff = s - cb[j];
      g += wj * fl_positive(diff);
      m += wj * s;
    }
#endif
  }
#if FL_VEC_SUMS
  acc[0] += acc[1];
  acc[2] += acc[3];
  *mass = lane_sum(&acc[2]);
  return lane_sum(&acc[0]);
#else
  *mass = m;
  return g;
#endif
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
