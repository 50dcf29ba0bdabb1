/* The kernels over clients stored by coordinate behind fl_sqdist_cols_f()
 * and fl_gain_dot_f(), written once for any vector width: kernel.c
 * includes this file once per width it compiles, with FL_VF (floats a
 * vector), FL_COLS_FN(name) (the name of each definition at that width:
 * the names below stand for those) and FL_COLS_ATTR (the attributes of
 * sqdist_cols and gain_dot) defined. */
#define fl_fv FL_COLS_FN(fl_fv)
#define fl_dv FL_COLS_FN(fl_dv)
#define fl_fh FL_COLS_FN(fl_fh)
#define fl_iv FL_COLS_FN(fl_iv)
#define fl_i32v FL_COLS_FN(fl_i32v)
#define sqdist_pad FL_COLS_FN(sqdist_pad)
#define sqdist_cols FL_COLS_FN(sqdist_cols)
#define nearest_two FL_COLS_FN(nearest_two)
#define dot_block FL_COLS_FN(dot_block)
#define sqdist_dot FL_COLS_FN(sqdist_dot)
#define dot_rows FL_COLS_FN(dot_rows)
#define gain_sums FL_COLS_FN(gain_sums)
#define lane_sum FL_COLS_FN(lane_sum)
#define gain_block FL_COLS_FN(gain_block)
#define gain_dot FL_COLS_FN(gain_dot)

/* Squared distances of y to the FL_COLS_PAD points stored by coordinate
 * from c (stride apart), into sum.  The points past the caller's count
 * are read (callers pad their arrays) and ignored. */
#if defined(__GNUC__)
#define FL_NV (FL_COLS_PAD / FL_VF)   /* vectors per padded block */
typedef float fl_fv __attribute__((vector_size(4 * FL_VF), aligned(4), may_alias));
typedef int32_t fl_i32v __attribute__((vector_size(4 * FL_VF)));
#define loadv(p) (*(const fl_fv *) (p))
/* A store, not memcpy(): under _FORTIFY_SOURCE (R's default flags on
 * Debian and Ubuntu) the memcpy() into the caller's block was checked and
 * no longer one vector store (measured: inst/bench/results/tunables.md,
 * storev). */
#define storev(p, v) (*(fl_fv *) (p) = (v))

/* Coordinates two at a time: 2 FL_NV independent sums.  Coordinate t of
 * y is y[t * ystep]. */
static inline FL_INLINE void sqdist_pad(const float *c, int stride, const float *restrict y,
                                        size_t ystep, int d, float *restrict sum)
{
  fl_fv a[FL_NV], b[FL_NV], e;
  for (int v = 0; v < FL_NV; v++) a[v] = b[v] = (fl_fv) { 0 };
  int t = 0;
  for (; t + 2 <= d; t += 2, c += 2 * (size_t) stride) {
    float y0 = y[t * ystep], y1 = y[(t + 1) * ystep];
#pragma GCC unroll 4
    for (int v = 0; v < FL_NV; v++) {
      e = loadv(c + v * FL_VF) - y0; a[v] += e * e;
      e = loadv(c + stride + v * FL_VF) - y1; b[v] += e * e;
    }
  }
#pragma GCC unroll 4
  for (int v = 0; v < FL_NV; v++) {
    if (t < d) {
      e = loadv(c + v * FL_VF) - y[t * ystep];
      a[v] += e * e;
    }
    storev(sum + v * FL_VF, a[v] + b[v]);
  }
}
#else
static inline FL_INLINE void sqdist_pad(const float *c, int stride, const float *restrict y,
                                        size_t ystep, int d, float *restrict sum)
{
  for (int j = 0; j < FL_COLS_PAD; j++) sum[j] = 0.0f;
  for (int t = 0; t < d; t++, c += stride)
    for (int j = 0; j < FL_COLS_PAD; j++) {
      float e = c[j] - y[t * ystep];
      sum[j] += e * e;
    }
}
#endif

FL_COLS_ATTR void sqdist_cols(const float *cols, int stride, int cnt,
                               const float *restrict y, int d, float *restrict out)
{
  int i0 = 0;
  for (; i0 + FL_COLS_PAD <= cnt; i0 += FL_COLS_PAD) sqdist_pad(cols + i0, stride, y, 1, d, out + i0);
  if (i0 < cnt) {
    float sum[FL_COLS_PAD];
    sqdist_pad(cols + i0, stride, y, 1, d, sum);
    memcpy(out + i0, sum, (size_t) (cnt - i0) * sizeof(float));
  }
}

/* For FL_COLS_PAD points stored by coordinate (pts, rows of FL_COLS_PAD
 * floats), the nearest of K centers stored by coordinate (cols, stride K;
 * the lowest on ties), its squared distance and the second smallest
 * (INFINITY when K = 1), each distance the bits sqdist_pad() gives it.  The
 * points in the lanes and the centers' coordinates broadcast, rather than
 * each point's distances in lanes (sqdist_cols) and a scalar scan for the
 * two smallest (measured: inst/bench/results/tunables.md,
 * fl_nearest_two_f). */
#if defined(__GNUC__)
#define SELECT_V(mask, a, b) ((fl_fv) (((fl_i32v) (a) & (mask)) | ((fl_i32v) (b) & ~(mask))))
FL_COLS_ATTR void nearest_two(const float *pts, const float *cols, int K, int d,
                              int *best, float *bd, float *next)
{
  fl_fv near[FL_NV], second[FL_NV];
  fl_i32v at[FL_NV];
  for (int c = 0; c < K; c++) {
    float sum[FL_COLS_PAD];
    sqdist_pad(pts, FL_COLS_PAD, cols + c, (size_t) K, d, sum);
#pragma GCC unroll 4
    for (int v = 0; v < FL_NV; v++) {
      fl_fv dist = loadv(sum + v * FL_VF);
      if (c == 0) {
        near[v] = dist;
        second[v] = (fl_fv) { 0 } + INFINITY;
        at[v] = (fl_i32v) { 0 };
        continue;
      }
      fl_i32v closer = dist < near[v];
      second[v] = SELECT_V(closer, near[v], SELECT_V(dist < second[v], dist, second[v]));
      near[v] = SELECT_V(closer, dist, near[v]);
      at[v] = (at[v] & ~closer) | (((fl_i32v) { 0 } + c) & closer);
    }
  }
  for (int v = 0; v < FL_NV; v++)
    for (int j = 0; j < FL_VF; j++) {
      best[v * FL_VF + j] = at[v][j];
      bd[v * FL_VF + j] = near[v][j];
      next[v * FL_VF + j] = second[v][j];
    }
}
#undef SELECT_V
#else
FL_COLS_ATTR void nearest_two(const float *pts, const float *cols, int K, int d,
                              int *best, float *bd, float *next)
{
  for (int j = 0; j < FL_COLS_PAD; j++) {
    best[j] = 0;
    bd[j] = next[j] = INFINITY;
  }
  for (int c = 0; c < K; c++) {
    float dist[FL_COLS_PAD];
    sqdist_pad(pts, FL_COLS_PAD, cols + c, (size_t) K, d, dist);
    for (int j = 0; j < FL_COLS_PAD; j++)
      if (c == 0 || dist[j] < bd[j]) {
        next[j] = bd[j];
        bd[j] = dist[j];
        best[j] = c;
      } else if (dist[j] < next[j]) {
        next[j] = dist[j];
      }
  }
}
#endif

/* The exponents e[q][j] = (xn_j + yn_q - 2 x_j.y_q) inv2s2 of Q candidates
 * y[q] and the clients of nvec vectors (1, 2 or 4, Q nvec <= 8: one load
 * of each coordinate's clients for all Q), e rows erow apart, negative
 * ones (rounding) taken as 0.  Q, nvec and erow are constants where it is
 * inlined.  Each lane sums its even and its odd coordinates apart, so a
 * client's exponent has the same bits whatever Q and nvec. */
#if defined(__GNUC__)
static inline FL_INLINE void dot_block(const float *c, int stride, int nvec, int Q,
                                       const float *const *y, const float *yn,
                                       const float *xn, int d, float inv2s2, float *e,
                                       size_t erow)
{
  /* unrolled, so the sums stay in registers: Q nvec times two chains */
  fl_fv a[4][4][2];
#pragma GCC unroll 4
  for (int q = 0; q < Q; q++)
#pragma GCC unroll 4
    for (int v = 0; v < nvec; v++) a[q][v][0] = a[q][v][1] = (fl_fv) { 0 };
  int t = 0;
  for (; t + 2 <= d; t += 2, c += 2 * (size_t) stride) {
#pragma GCC unroll 2
    for (int p = 0; p < 2; p++) {
      fl_fv x[4];
#pragma GCC unroll 4
      for (int v = 0; v < nvec; v++) x[v] = loadv(c + p * stride + v * FL_VF);
#pragma GCC unroll 4
      for (int q = 0; q < Q; q++) {
        float yt = y[q][t + p];
#pragma GCC unroll 4
        for (int v = 0; v < nvec; v++) a[q][v][p] += x[v] * yt;
      }
    }
  }
  if (t < d) {
#pragma GCC unroll 4
    for (int v = 0; v < nvec; v++) {
      fl_fv x = loadv(c + v * FL_VF);
#pragma GCC unroll 4
      for (int q = 0; q < Q; q++) a[q][v][0] += x * y[q][t];
    }
  }
#pragma GCC unroll 4
  for (int q = 0; q < Q; q++)
#pragma GCC unroll 4
    for (int v = 0; v < nvec; v++) {
      fl_fv x = (loadv(xn + v * FL_VF) + yn[q] - 2.0f * (a[q][v][0] + a[q][v][1])) * inv2s2;
      storev(e + q * erow + v * FL_VF, (fl_fv) ((fl_i32v) x & (x > 0.0f)));
    }
}
#else
static inline FL_INLINE void dot_block(const float *c, int stride, int nvec, int Q,
                                       const float *const *y, const float *yn,
                                       const float *xn, int d, float inv2s2, float *e,
                                       size_t erow)
{
  for (int q = 0; q < Q; q++)
    for (int j = 0; j < nvec * FL_VF; j++) {
      float dot = 0.0f;
      for (int t = 0; t < d; t++) dot += c[(size_t) t * stride + j] * y[q][t];
      float x = (xn[j] + yn[q] - 2.0f * dot) * inv2s2;
      e[q * erow + j] = x > 0.0f ? x : 0.0f;
    }
}
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
 * doubles of the sums (measured: inst/bench/results/tunables.md,
 * gain_sums). */
static inline FL_INLINE void gain_sums(const float *s, const double *w, const double *cover,
                                       int nb, int nv, fl_dv acc[4])
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
static inline FL_INLINE double lane_sum(const fl_dv *v)
{
  double sum = 0.0;
  for (int i = 0; i < FL_VF / 2; i++) sum += (*v)[i];
  return sum;
}
#endif

/* dot_block() over cnt points, four vectors at a time for one or two
 * candidates, then two, then one, in whole vectors (points up to the next multiple of FL_COLS_PAD): returns that
 * count. */
static inline FL_INLINE int dot_rows(const float *cols, int stride, int cnt, int Q,
                                     const float *const *y, const float *yn, const float *xn,
                                     int d, float inv2s2, float *e, size_t erow)
{
  int nv = (cnt + FL_COLS_PAD - 1) / FL_COLS_PAD * FL_COLS_PAD, j = 0;
  if (Q <= 2)   /* a lone candidate's four chains left the FMA units idle */
    for (; j + 4 * FL_VF <= nv; j += 4 * FL_VF)
      dot_block(cols + j, stride, 4, Q, y, yn, xn + j, d, inv2s2, e + j, erow);
  for (; j + 2 * FL_VF <= nv; j += 2 * FL_VF)
    dot_block(cols + j, stride, 2, Q, y, yn, xn + j, d, inv2s2, e + j, erow);
  for (; j < nv; j += FL_VF)
    dot_block(cols + j, stride, 1, Q, y, yn, xn + j, d, inv2s2, e + j, erow);
  return nv;
}

/* Q candidates over a block of nb <= FL_GAIN_BLOCK clients: exponents two
 * vectors at a time, then exp() and the gain sums of each. */
static inline FL_INLINE void gain_block(const float *cols, int stride, int nb, int Q,
                                        const float *const *y, const float *yn,
                                        const float *xn, int d, float inv2s2,
                                        const double *w, const double *cover,
                                        double *gain, double *mass)
{
  float e[4 * FL_GAIN_BLOCK];
  /* whole vectors: the lanes past nb (distances of the padding) get weight
   * 0, not a scalar remainder loop, exp() included (measured:
   * inst/bench/results/tunables.md, gain_block: whole vectors) */
  int nv = dot_rows(cols, stride, nb, Q, y, yn, xn, d, inv2s2, e, FL_GAIN_BLOCK);
  for (int q = 0; q < Q; q++) {
    const float *x = e + q * FL_GAIN_BLOCK;
    float s[FL_GAIN_BLOCK];
    FL_SIMD
    for (int i = 0; i < nv; i++) s[i] = fl_expf_neg(x[i]);
#if FL_VEC_SUMS
    fl_dv acc[4] = { { 0 }, { 0 }, { 0 }, { 0 } };
    gain_sums(s, w, cover, nb, nv, acc);
    acc[0] += acc[1];
    acc[2] += acc[3];
    gain[q] += lane_sum(&acc[0]);
    mass[q] += lane_sum(&acc[2]);
#else
    double g = 0.0, m = 0.0;
    FL_SIMD_SUM(g, m)
    for (int i = 0; i < nv; i++) {
      double wi = i < nb ? w[i] : 0.0;
      double si = s[i], diff = si - cover[i];
      g += wi * fl_positive(diff);
      m += wi * si;
    }
    gain[q] += g;
    mass[q] += m;
#endif
  }
}

FL_COLS_ATTR void gain_dot(const float *cols, int stride, int cnt, int nq,
                           const float *const *y, const float *yn, const float *xn, int d,
                           float inv2s2, const double *w, const double *cover,
                           double *gain, double *mass)
{
  for (int q = 0; q < nq; q++) gain[q] = mass[q] = 0.0;
  for (int i0 = 0; i0 < cnt; i0 += FL_GAIN_BLOCK) {
    int nb = cnt - i0 < FL_GAIN_BLOCK ? cnt - i0 : FL_GAIN_BLOCK, q = 0;
    const float *c = cols + i0, *xb = xn + i0;
    const double *wb = w + i0, *cb = cover + i0;
    /* four candidates at a time (16 sums: with AVX2's 16 registers about
     * as fast a pair as two at a time), then two, then one */
    for (; q + 4 <= nq; q += 4)
      gain_block(c, stride, nb, 4, y + q, yn + q, xb, d, inv2s2, wb, cb, gain + q, mass + q);
    for (; q + 2 <= nq; q += 2)
      gain_block(c, stride, nb, 2, y + q, yn + q, xb, d, inv2s2, wb, cb, gain + q, mass + q);
    for (; q < nq; q++)
      gain_block(c, stride, nb, 1, y + q, yn + q, xb, d, inv2s2, wb, cb, gain + q, mass + q);
  }
}

FL_COLS_ATTR void sqdist_dot(const float *cols, int stride, int cnt, int nq,
                             const float *const *y, const float *yn, const float *xn, int d,
                             float *out, size_t orow)
{
  int q = 0;
  for (; q + 4 <= nq; q += 4)
    dot_rows(cols, stride, cnt, 4, y + q, yn + q, xn, d, 1.0f, out + q * orow, orow);
  for (; q + 2 <= nq; q += 2)
    dot_rows(cols, stride, cnt, 2, y + q, yn + q, xn, d, 1.0f, out + q * orow, orow);
  for (; q < nq; q++)
    dot_rows(cols, stride, cnt, 1, y + q, yn + q, xn, d, 1.0f, out + q * orow, orow);
}

#undef loadv
#undef storev
#undef FL_NV
#undef POSITIVE_V
#undef fl_fv
#undef fl_dv
#undef fl_fh
#undef fl_iv
#undef fl_i32v
#undef sqdist_pad
#undef sqdist_cols
#undef nearest_two
#undef dot_block
#undef sqdist_dot
#undef dot_rows
#undef gain_sums
#undef lane_sum
#undef gain_block
#undef gain_dot
