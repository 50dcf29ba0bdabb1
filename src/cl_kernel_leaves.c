/* ISA-specific loops of the evaluation plan (fl_clusters): square roots
 * four (SSE) or sixteen (AVX-512) at a time, and lists of flagged leaves
 * packed by an AVX-512 compress.  The AVX-512 versions are compiled for
 * x86-64-v4 and taken at run time where the CPU has it
 * (fl_wide_vectors()). */
#include <math.h>
#include "cl_internal.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if FL_WIDE
#include <immintrin.h>

/* fl_sqrtf_array() sixteen at a time. */
static FL_WIDE_TARGET __attribute__((noinline)) void sqrtf_wide(float *v, int n)
{
  int i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(v + i, _mm512_sqrt_ps(_mm512_loadu_ps(v + i)));
  for (; i < n; i++) v[i] = sqrtf(v[i]);
}
#endif

/* v[i] = sqrt(v[i]) for n values >= 0.  sqrtf() may set errno, so under
 * R's flags (no -fno-math-errno) a loop over it never vectorises: SSE
 * takes four at a time where it is there (every x86-64), AVX-512 sixteen
 * (square roots are correctly rounded: the same values; measured:
 * inst/bench/results/tunables.md, fl_sqrtf_array). */
void fl_sqrtf_array(float *v, int n)
{
#if FL_WIDE
  if (fl_wide_vectors()) {
    sqrtf_wide(v, n);
    return;
  }
#endif
  int i = 0;
#ifdef __SSE2__
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(v + i, _mm_sqrt_ps(_mm_loadu_ps(v + i)));
#endif
  for (; i < n; i++) v[i] = sqrtf(v[i]);
}

#if FL_WIDE
/* Leaves k .. k + 15 whose bit is set in m appended to idx after its n
 * entries, packed by a compress in a register (compressing into memory is
 * microcoded on Zen 4) and stored whole: the count never passes the
 * leaves seen, so the store stays within idx's K entries.  Returns the new
 * count. */
static inline FL_WIDE_TARGET int append_leaves(int *idx, int n, __mmask16 m, int k)
{
  const __m512i step = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m512i at = _mm512_add_epi32(step, _mm512_set1_epi32(k));
  _mm512_storeu_si512((void *) (idx + n), _mm512_maskz_compress_epi32(m, at));
  return n + __builtin_popcount(m);
}

/* The leaves k .. k + 15 with eval[k] != 0, as a mask. */
static inline FL_WIDE_TARGET __mmask16 flagged_leaves(const int *eval, int k)
{
  __m512i ev = _mm512_loadu_si512((const void *) (eval + k));
  return _mm512_test_epi32_mask(ev, ev);
}

/* list_leaves() with estimate, sixteen leaves at a time (append_leaves):
 * where the plans visit most leaves before this test, the scalar loop was
 * a large share of the plan (measured: inst/bench/results/tunables.md,
 * fl_list_estimated_wide).  Not inlined: its caller's other version is
 * compiled for older CPUs. */
FL_WIDE_TARGET __attribute__((noinline)) int fl_list_estimated_wide(const fl_clusters *cl,
                                                                        const float *df,
                                                                        const int *eval,
                                                                        int *idx)
{
  const int K = cl->K;
  int n = 0, k = 0;
  for (; k + 16 <= K; k += 16) {
    __mmask16 m = flagged_leaves(eval, k);
    if (m == 0) continue;
    __m512 f = _mm512_loadu_ps(df + k);
    __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(f));
    __m512d hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f), 1)));
    __mmask8 m0 = _mm512_cmp_pd_mask(_mm512_mul_pd(lo, lo), _mm512_loadu_pd(cl->own2 + k), _CMP_GE_OQ) &
      _mm512_cmp_pd_mask(lo, _mm512_loadu_pd(cl->rad + k), _CMP_GT_OQ);
    __mmask8 m1 = _mm512_cmp_pd_mask(_mm512_mul_pd(hi, hi), _mm512_loadu_pd(cl->own2 + k + 8), _CMP_GE_OQ) &
      _mm512_cmp_pd_mask(hi, _mm512_loadu_pd(cl->rad + k + 8), _CMP_GT_OQ);
    n = append_leaves(idx, n, m & (__mmask16) (m0 | ((unsigned) m1 << 8)), k);
  }
  for (; k < K; k++) {
    idx[n] = k;
    n += estimated(cl, df, eval, k);
  }
  return n;
}

/* The leaves k with eval[k] != 0 into idx, sixteen at a time; returns
 * their count. */
FL_WIDE_TARGET __attribute__((noinline)) int fl_list_visited_wide(int K, const int *eval,
                                                                      int *idx)
{
  int n = 0, k = 0;
  for (; k + 16 <= K; k += 16) n = append_leaves(idx, n, flagged_leaves(eval, k), k);
  for (; k < K; k++) {
    idx[n] = k;
    n += eval[k] != 0;
  }
  return n;
}
#endif
