/* ISA-specific loop of the exact modes' gains: the live clients of a
 * column packed into a list, eight at a time by an AVX-512 compress where
 * the CPU has it (fl_wide_vectors()), else one at a time.  The list is in
 * client order, so a sum over it has the bits of a scan of the column
 * (exact_gain.c).  Measured: inst/bench/results/tunables.md, live lists. */
#include "exact_state.h"
#include "kernel.h"
#if FL_WIDE
#include <immintrin.h>
#endif

/* Clients i .. n - 1 one at a time, without a branch: each is written at
 * slot t, which moves on only if the client is live.  Returns the count. */
#define FL_PACK_FROM(name, T)                                                            \
  static inline FL_INLINE int name(const T *restrict col, const double *restrict cover, \
                                   int i, int n, int t, int *restrict client,          \
                                   double *restrict value)                              \
  {                                                                                      \
    for (; i < n; i++) {                                                                 \
      client[t] = i;                                                                     \
      value[t] = col[i];                                                                 \
      t += col[i] > cover[i];                                                            \
    }                                                                                    \
    return t;                                                                            \
  }
FL_PACK_FROM(pack_from, double)
FL_PACK_FROM(pack_from_f, float)

#if FL_WIDE
/* Clients i .. i + 7, their similarities c: those above their coverage,
 * packed in a register (compressing into memory is microcoded on Zen 4)
 * and stored whole at slot t <= i, so the store ends before slot i + 8,
 * within the list's n entries.  Returns the new count. */
static inline FL_WIDE_TARGET int pack_eight(__m512d c, const double *cover, int i, int t,
                                            int *client, double *value)
{
  const __m256i step = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __mmask8 live = _mm512_cmp_pd_mask(c, _mm512_loadu_pd(cover + i), _CMP_GT_OQ);
  __m256i at = _mm256_add_epi32(step, _mm256_set1_epi32(i));
  _mm512_storeu_pd(value + t, _mm512_maskz_compress_pd(live, c));
  _mm256_storeu_si256((__m256i *) (client + t), _mm256_maskz_compress_epi32(live, at));
  return t + __builtin_popcount(live);
}

static FL_WIDE_TARGET __attribute__((noinline)) int
pack_wide(const double *col, const double *cover, int n, int *client, double *value)
{
  int i = 0, t = 0;
  for (; i + 8 <= n; i += 8) t = pack_eight(_mm512_loadu_pd(col + i), cover, i, t, client, value);
  return pack_from(col, cover, i, n, t, client, value);
}

static FL_WIDE_TARGET __attribute__((noinline)) int
pack_wide_f(const float *col, const double *cover, int n, int *client, double *value)
{
  int i = 0, t = 0;
  for (; i + 8 <= n; i += 8)
    t = pack_eight(_mm512_cvtps_pd(_mm256_loadu_ps(col + i)), cover, i, t, client, value);
  return pack_from_f(col, cover, i, n, t, client, value);
}
#endif

int fl_live_pack(const double *col, const double *cover, int n, int *client, double *value)
{
#if FL_WIDE
  if (fl_wide_vectors()) return pack_wide(col, cover, n, client, value);
#endif
  return pack_from(col, cover, 0, n, 0, client, value);
}

int fl_live_pack_f(const float *col, const double *cover, int n, int *client, double *value)
{
#if FL_WIDE
  if (fl_wide_vectors()) return pack_wide_f(col, cover, n, client, value);
#endif
  return pack_from_f(col, cover, 0, n, 0, client, value);
}
