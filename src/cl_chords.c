/* Upper bounds on candidates' similarity masses from the leaves' moments,
 * a few percent above the masses where the kernel is wide: the keys of
 * the matrix-free modes' first round where they spare most first
 * evaluations (fl_mf_first_gains).
 *
 * A candidate y's mass is sum_i v_i exp(-a_i), v_i = w_i (1 - m_i), a_i =
 * |x_i - y|^2 / 2 sigma^2; before the first pick its gain is at most that
 * (max(0, s - m) <= s (1 - m) for s, m in [0, 1]).  Over one leaf every
 * a_i lies in [a_lo, a_hi], from y's distance to the leaf's center and the
 * leaf's radius, and exp(-a) is convex, so it lies below its chord over
 * that interval.  The chord is linear, so the leaf adds at most V (its sum
 * of v_i) times the chord at the v-weighted mean of the a_i, which the
 * leaf's first two moments give.  Where the kernel is wide beside the
 * leaves the chord hugs the curve: on `medium` (n = 12000, d = 32) at the
 * median heuristic's width, computed in R with exact distances on 316
 * k-means leaves, the bounds were a median 3.5% above the masses and the
 * ball bound, V exp(-a_lo), 28% above them. */
#include <stdlib.h>
#include <math.h>
#include "cl_layout.h"
#include "cl_internal.h"
#include "kernel.h"
#include "fl_omp.h"

/* Exponents are capped here before the float exp(): exp(-a) only grows,
 * so the values stay upper bounds (by at most V exp(-80)). */
#define FL_CHORD_AMAX 80.0f

/* Relative margin on each bound: the float exp() (FL_EXPF_ERR), the
 * exponents' and the chord's roundings in single precision (a few 2^-24
 * times an exponent of at most FL_CHORD_AMAX), with room to spare. */
#define FL_CHORD_SLACK 1e-4

void fl_chords_free(fl_chords *mo)
{
  free(mo->mass);
  mo->mass = NULL;
}

/* Leaf k's moments over all its clients (pruned ones too), mean[] d
 * doubles of scratch. */
static void leaf_moments(const fl_clusters *cl, int k, double *mean, fl_chords *mo)
{
  const int d = cl->d;
  const double *mu = cl->mu + (size_t) k * d;
  double V = 0.0, s2 = 0.0, g2 = 0.0;
  for (int t = 0; t < d; t++) mean[t] = 0.0;
  for (int ch = cl->first[k]; ch < cl->first[k + 1]; ch++)
    for (int i = cl->chunk[ch].lo; i < cl->chunk[ch].hi; i++) {
      double v = cl->ws[i] * (1.0 - cl->cover[i]);
      const double *x = cl->xs + (size_t) i * d;
      V += v;
      s2 += v * fl_sqdist(x, mu, d);
      for (int t = 0; t < d; t++) mean[t] += v * (x[t] - mu[t]);
    }
  for (int t = 0; t < d; t++) g2 += mean[t] * mean[t];
  mo->mass[k] = (float) V * (1.0f + 0x1p-22f);
  mo->s2[k] = V > 0 ? (float) (s2 / V) * (1.0f - 0x1p-20f) : 0.0f;
  mo->g[k] = V > 0 ? (float) (sqrt(g2) / V) * (1.0f + 0x1p-20f) : 0.0f;
  mo->lift[k] = (float) (FL_DOT_LIFT(d) * sqrt(fl_sqdist(mu, cl->org, d))) * (1.0f + 0x1p-20f);
}

int fl_chords_init(const fl_clusters *cl, fl_chords *mo)
{
  const size_t kr = (size_t) cl->krow;
  const int T = cl->threads > 0 ? cl->threads : 1;
  mo->mass = calloc(4 * kr, sizeof(float));
  double *mean = malloc((size_t) T * cl->d * sizeof(double));
  if (!mo->mass || !mean) {
    free(mo->mass); free(mean);
    return FL_ERR_NOMEM;
  }
  mo->s2 = mo->mass + kr;
  mo->g = mo->s2 + kr;
  mo->lift = mo->g + kr;
FL_OMP(parallel for num_threads(fl_team(cl->threads)) schedule(dynamic, 8))
  for (int k = 0; k < cl->K; k++)
    leaf_moments(cl, k, mean + (size_t) fl_thread_id() * cl->d, mo);
  free(mean);
  return FL_OK;
}

/* The chord bound on a candidate's similarity mass from its computed
 * distances df to the centers (fl_clusters_distances) and its |yc - org|,
 * e scratch of 3 krow floats.  Each distance D to a center is within
 * lift (its norms' FL_DOT_LIFT) of the computed one times 1 -+ 2^-23;
 * the clients of a leaf lie within rad of its center (the ball of
 * fl_clusters_reach).  The interval [a_lo, a_hi] is widened by both
 * (a chord over a wider interval lies higher), and the mean exponent
 * lowered: it is |y - mean|^2 + s2 - g^2 over 2 sigma^2 (the clients'
 * spread about their weighted mean), and |y - mean| >= D - g. */
static FL_CLONES double chord_bound(const fl_clusters *cl, const fl_chords *mo,
                                    const float *df, double ynorm, float *e)
{
  const int K = cl->K, kr = cl->krow;
  const float q = (float) (cl->inv2s2), liftb = (float) (FL_DOT_LIFT(cl->d) * ynorm);
  const float down = 1.0f - 0x1p-20f, up = 1.0f + 0x1p-20f;
  float *elo = e, *ehi = e + kr, *lam = e + 2 * kr;
  FL_SIMD
  for (int k = 0; k < K; k++) {
    float lift = liftb + mo->lift[k];
    float dlo = df[k] * (1.0f - 0x1p-22f) - lift, dhi = df[k] * (1.0f + 0x1p-22f) + lift;
    dlo = dlo > 0.0f ? dlo : 0.0f;
    float glo = dlo - cl->radf[k], ghi = dhi + cl->radf[k];
    glo = glo > 0.0f ? glo : 0.0f;
    float alo = glo * glo * q * down, ahi = ghi * ghi * q * up;
    float near = dlo - mo->g[k], spread = mo->s2[k] - mo->g[k] * mo->g[k];
    near = near > 0.0f ? near : 0.0f;
    float mean = (near * near + (spread > 0.0f ? spread : 0.0f)) * q * down;
    float l = ahi > alo ? (mean - alo) / (ahi - alo) : 0.0f;
    lam[k] = l < 0.0f ? 0.0f : l > 1.0f ? 1.0f : l;
    elo[k] = alo < FL_CHORD_AMAX ? alo : FL_CHORD_AMAX;
    ehi[k] = ahi < FL_CHORD_AMAX ? ahi : FL_CHORD_AMAX;
  }
  for (int k = K; k < kr; k++) elo[k] = ehi[k] = 0.0f;   /* the padding, whole vectors */
  fl_expf_neg_array(e, 2 * kr);
  double sum = 0.0;
  FL_SIMD_SUM(sum)
  for (int k = 0; k < K; k++)
    sum += (double) mo->mass[k] * ((1.0f - lam[k]) * elo[k] + lam[k] * ehi[k]);
  return sum * (1.0 + FL_CHORD_SLACK);
}

int fl_chords_bound(const fl_clusters *cl, const fl_chords *mo, const int *idx, int count,
                    double *ub)
{
  const int T = cl->threads > 0 ? cl->threads : 1, B = FL_DOT_BATCH;
  const size_t per = (size_t) B * cl->d + (size_t) (B + 3) * cl->krow;
  float *scratch = malloc((size_t) T * per * sizeof(float));
  if (!scratch) return FL_ERR_NOMEM;
FL_OMP(parallel for num_threads(fl_team(cl->threads)) schedule(dynamic, 1))
  for (int at = 0; at < count; at += B) {
    float *yo = scratch + (size_t) fl_thread_id() * per;
    float *df = yo + (size_t) B * cl->d, *e = df + (size_t) B * cl->krow;
    fl_cand cand[FL_DOT_BATCH];
    const fl_cand *cp[FL_DOT_BATCH];
    int nq = count - at < B ? count - at : B;
    for (int q = 0; q < nq; q++) {
      fl_clusters_offset(cl, cl->y + (size_t) idx[at + q] * cl->d, yo + (size_t) q * cl->d, &cand[q]);
      cp[q] = &cand[q];
    }
    fl_clusters_distances(cl, nq, cp, df);
    for (int q = 0; q < nq; q++)
      ub[at + q] = chord_bound(cl, mo, df + (size_t) q * cl->krow, cand[q].ynorm, e);
  }
  free(scratch);
  return FL_OK;
}
