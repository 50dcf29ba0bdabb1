/* The evaluation plan: a candidate's distances to the leaves' centers,
 * the bound on its similarity to each leaf's clients (ball_reach), the
 * mass estimates of leaves it may skip, and which leaves it visits. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <float.h>
#include <stdint.h>
#include "cl_internal.h"

/* fl_positive() in single precision. */
static inline float positive_f(float v)
{
  return 0.5f * (v + fabsf(v));
}

void fl_clusters_distances(const fl_clusters *cl, int nq, const fl_cand *const *cand,
                           float *df)
{
  const float *y[FL_DOT_BATCH];
  float yn[FL_DOT_BATCH];
  for (int q = 0; q < nq; q++) {
    y[q] = cand[q]->yo;
    yn[q] = cand[q]->yn2;
  }
  fl_sqdist_dot_f(cl->muf, cl->K, cl->K, nq, y, yn, cl->mun, cl->d, df, (size_t) cl->krow);
  fl_sqrtf_array(df, nq * cl->krow);
}


/* The thread's scratch for the plan (6 K floats, see owner_distances and
 * drop_estimated). */
static float *plan_scratch(const fl_clusters *cl)
{
  return cl->yf + (size_t) fl_thread_id() * cl->yf_stride + cl->d + cl->krow;
}

/* The distances of cand to the centers, in the thread's scratch. */
static float *cand_distances(const fl_clusters *cl, const fl_cand *cand)
{
  float *df = cl->yf + (size_t) fl_thread_id() * cl->yf_stride + cl->d;
  fl_clusters_distances(cl, 1, &cand, df);
  return df;
}

/* The distances of yc to the centers in the thread's scratch, and *cand
 * for it, its offset there too. */
static float *point_distances(const fl_clusters *cl, const double *yc, fl_cand *cand)
{
  fl_clusters_offset(cl, yc, cl->yf + (size_t) fl_thread_id() * cl->yf_stride, cand);
  return cand_distances(cl, cand);
}

/* The squared distances of a candidate to the owners (single precision,
 * estimates only), into the first K floats of the plan's scratch ps
 * (column 0 is 0 while there is no owner: unowned leaves have own2 =
 * HUGE_VAL), then the distances and their inverses. */
static const float *owner_distances(const fl_clusters *cl, const fl_cand *cand, float *ps)
{
  float *cp2 = ps, *cp = cp2 + cl->K, *icp = cp + cl->K;
  cp2[0] = 0.0f;
  fl_sqdist_cols_f(cl->ownf, cl->K, cl->nown, cand->yo, cl->d, cp2);
  int n = cl->nown > 0 ? cl->nown : 1;
  memcpy(cp, cp2, (size_t) n * sizeof(float));
  fl_sqrtf_array(cp, n);
  for (int s = 0; s < n; s++) icp[s] = 1.0f / (cp[s] + FL_TINY_DIST);
  return cp2;
}

/* An upper bound on exp(-x) for x >= 0 without exp(), in single
 * precision: 1 over the degree-6 Taylor polynomial of exp(x), which is
 * below exp(x), times 1 + FL_SIM_SLACK + 2^-18.  Within 1% of exp(-x) up
 * to x = 2.3 (the bounds that matter) and vectorisable, sixteen a vector
 * with AVX-512.  The 24 roundings of the polynomial (all its terms
 * positive), those of its coefficients and the division move it by less
 * than 1.5e-6 relatively; 2^-18 is 3.8e-6. */
static inline float exp_neg_upper(float x)
{
  const float lift = (float) ((1.0 + FL_SIM_SLACK) * (1.0 + 0x1p-18));
  float p = 1.0f + x * (1.0f / 6.0f);
  p = 1.0f + x * (1.0f / 5.0f) * p;
  p = 1.0f + x * 0.25f * p;
  p = 1.0f + x * (1.0f / 3.0f) * p;
  p = 1.0f + x * 0.5f * p;
  p = 1.0f + x * p;
  return lift / p;
}

/* The terms of ball_reach() for a candidate at |yc - org| = ynorm.  The
 * distance to a ball is at least the computed distance to its center
 * times FL_REACH_SHRINK, less the lift and the radius (see FL_DOT_LIFT);
 * here the shrink is taken below (1 - 2^-22) FL_REACH_SHRINK and the lift
 * above its value, so that their product and sum round to at most and at
 * least the exact ones, and the exponent's scale 2^-21 below, for the two
 * roundings of gap^2 scale. */
typedef struct { float lift, shrink, scale; } fl_reach_terms;

static fl_reach_terms reach_terms(const fl_clusters *cl, double ynorm)
{
  fl_reach_terms t = {
    float_toward(FL_DOT_LIFT(cl->d) * ynorm, 1), (float) (FL_REACH_SHRINK * (1.0 - 0x1p-22)),
    (float) ((1.0 - FL_RAD_SLACK) * cl->inv2s2 * (1.0 - 0x1p-21))
  };
  return t;
}

/* The bound on the similarity to any client of a ball of radius rad (from
 * cl->radf, rounded up) whose center is at computed distance dist: each
 * side of the gap's difference is off by at most 2^-24 of it, so 2^-21 of
 * their sum more keeps the gap below the exact one. */
static inline float ball_reach(float dist, float rad, fl_reach_terms t)
{
  float near_side = dist * t.shrink, far_side = t.lift + rad;
  float gap = positive_f(near_side - far_side - 0x1p-21f * (near_side + far_side));
  return exp_neg_upper(gap * gap * t.scale);
}

FL_CLONES void fl_clusters_reach(const fl_clusters *cl, const fl_cand *cand, double *hw,
                                 double *dist)
{
  const float *df = cand_distances(cl, cand), *rad = cl->radf;
  const fl_reach_terms t = reach_terms(cl, cand->ynorm);
  FL_SIMD
  for (int k = 0; k < cl->K; k++) {
    dist[k] = df[k];
    hw[k] = ball_reach(df[k], rad[k], t);
  }
}

/* Minus the log of the mass estimate per unit weight of a leaf at
 * distance dist with mean squared spread rms2 (see skipped_mass). */
static inline FL_INLINE double mass_exponent(const fl_clusters *cl, double dist, double rms2)
{
  const double inv2s2 = cl->inv2s2;
  return (dist * dist + rms2) * inv2s2 - 2.0 * inv2s2 * inv2s2 / cl->d * dist * dist * rms2;
}

/* The mass estimate of fl_clusters_plan, w exp(-(dist^2 + rms2) / 2
 * sigma^2) times Jensen's correction exp(dist^2 rms2 / (2 d sigma^4)) (the
 * mean of exp(dist p / sigma^2) over offsets p along the line to the
 * candidate, normal with the variance rms2 / d of a random direction),
 * summed over the leaves it skips (eval), from their distances df
 * (overwritten: the exponents, 1e9 more for the leaves visited, whose
 * terms exp() then takes below 1e-37). */
static inline double skipped_mass(const fl_clusters *cl, float *df, const int *eval,
                                  const double *w)
{
  FL_SIMD
  for (int k = 0; k < cl->K; k++)
    df[k] = (float) (fl_positive(mass_exponent(cl, df[k], cl->rms2[k])) + 1e9 * eval[k]);
  fl_expf_neg_array(df, cl->K);
  double mass = 0.0;
  FL_SIMD_SUM(mass)
  for (int k = 0; k < cl->K; k++) mass += w[k] * df[k];
  return mass;
}


/* The visited leaves (eval[l] != 0), or with estimate those of them that
 * drop_estimated() estimates, into idx, in order; returns their count. */
static inline FL_INLINE int list_leaves(const fl_clusters *cl, const float *df,
                                        const int *eval, int estimate, int *idx)
{
  int n = 0;
  for (int k = 0; k < cl->K; k += 4) {
    uint64_t word[2];   /* most leaves are not visited: four flags at a time */
    memcpy(word, eval + k, sizeof word);
    if ((word[0] | word[1]) == 0) continue;
    for (int l = k; l < k + 4 && l < cl->K; l++) {
      idx[n] = l;
      n += estimate ? estimated(cl, df, eval, l) : eval[l] != 0;
    }
  }
  return n;
}

/* The thread's scratch of K ints for lists of leaves. */
static int *leaf_list(const fl_clusters *cl)
{
  return cl->listed + (size_t) fl_thread_id() * fl_thread_stride(cl->K, sizeof(int));
}

/* The visited leaves with a scan of the flags, four at a time (most leaves
 * are skipped), and a compress sixteen at a time where there is AVX-512,
 * rather than the plan's items (plan_one in mf_eval.c) built by scanning
 * the chunks of every four leaves with one visited (measured:
 * inst/bench/results/tunables.md, fl_clusters_visited). */
const int *fl_clusters_visited(const fl_clusters *cl, const int *eval, int *n)
{
  int *idx = leaf_list(cl);
#if FL_WIDE
  if (fl_wide_vectors()) {
    *n = fl_list_visited_wide(cl->K, eval, idx);
    return idx;
  }
#endif
  *n = list_leaves(cl, NULL, eval, 0, idx);
  return idx;
}

/* The gain estimate's test (see FL_GAIN_FRACTION) on the leaves the plan
 * would visit with yc outside their ball and not nearer to their center
 * than the owner: drops those whose estimate is below exp(lng) and whose
 * bound bk is at most cap (FL_DROP_CAP) from eval and returns the sum of
 * their bounds; *dropped receives the sum of their estimates.  A client gains at most s_c (1 - s_o / s_c) when the
 * owner's similarity s_o covers it, and s_o / s_c = exp(((dist^2 - own2)
 * - 2 p |yc - owner|) / 2 sigma^2) depends on the client only through its
 * offset p from the center along the line from the owner to the
 * candidate.  With p normal (the spread of FL_ISOTROPIC) and s_c at the
 * mass estimate's mean (Jensen's correction included), the expected gain
 * per unit of mass is phi(z) (R(z) - R(z + tau)), z = FL_COLD_SD (dist^2 -
 * own2) / (|yc - owner| sqrt(side2)), tau = the spread of log s_o / s_c, R
 * Mills' ratio (approximated).  df: yc's distances to the centers; ps:
 * the plan's scratch, its distances to the owners from owner_distances()
 * (the squared ones no longer needed) and room for 3 K floats.  Only the
 * leaves listed are estimated, few of those the plan's loop sees
 * (measured: inst/bench/results/tunables.md, drop_estimated). */
static inline FL_INLINE double drop_estimated(const fl_clusters *cl, const float *df,
                                             float *ps, double lng, int *eval,
                                             const double *bk, double *dropped, int wide,
                                             double cap)
{
  const int K = cl->K;
  const float *cp = ps + K, *icp = cp + K;
  float *under = ps, *ex = ps + 3 * K, *qn = ex + K, *qd = qn + K;
  int *idx = leaf_list(cl);
#if FL_WIDE
  int n = wide ? fl_list_estimated_wide(cl, df, eval, idx) : list_leaves(cl, df, eval, 1, idx);
#else
  (void) wide;
  int n = list_leaves(cl, df, eval, 1, idx);
#endif
  const double tau_scale = cl->inv2s2 / FL_COLD_SD;
  const double *lnw = cl->lnw, *rms2 = cl->rms2, *own2 = cl->own2;
  const double *side = cl->side, *iside = cl->iside;
  const int *oslot = cl->oslot;
  FL_SIMD
  for (int t = 0; t < n; t++) {
    int k = idx[t], o = oslot[k];
    double dist = df[k], gap = dist * dist - own2[k];
    double z = fl_positive(gap) * FL_COLD_SD * icp[o] * iside[k];
    z = FL_Z_MAX - fl_positive(FL_Z_MAX - z);
    double tau = cp[o] * side[k] * tau_scale, z2 = z + tau;
    double lnest = lnw[k] - mass_exponent(cl, dist, rms2[k]) - 0.5 * z * z - lng;
    /* the estimate over exp(lng) is exp(lnest) qn / qd = under qn / (ex qd) */
    ex[t] = (float) (FL_EXPF_XMAX - fl_positive(FL_EXPF_XMAX - fl_positive(lnest)));
    under[t] = (float) (FL_EXPF_XMAX - fl_positive(FL_EXPF_XMAX - fl_positive(-lnest)));
    double n1 = z + FL_SQRT_HALF_PI, d1 = z * n1 + 1.0, n2 = z2 + FL_SQRT_HALF_PI;
    double d2 = z2 * n2 + 1.0;
    qn[t] = (float) fl_positive(FL_INV_SQRT_2PI * (n1 * d2 - n2 * d1));
    qd[t] = (float) (d1 * d2);
  }
  fl_expf_neg_array(ex, n);
  if (dropped) fl_expf_neg_array(under, n);
  double left = 0.0, est = 0.0;
  for (int t = 0; t < n; t++)
    if (qn[t] < ex[t] * qd[t] && bk[idx[t]] <= cap) {
      eval[idx[t]] = 0;
      left += bk[idx[t]];
      if (dropped) est += (double) under[t] * qn[t] / ((double) ex[t] * qd[t]);
    }
  if (dropped) *dropped = est * exp(lng);
  return left;
}

/* The per-leaf values of a plan that follow `all`: pruned clients are
 * visited with the others (all), or bounded apart (wpr_scale 1). */
typedef struct {
  const float *w, *low, *lnw, *lnmin;
  float wpr_scale;
} fl_plan_leaves;

static inline FL_INLINE fl_plan_leaves plan_leaves(const fl_clusters *cl, int all)
{
  fl_plan_leaves v = { all ? cl->wallf : cl->wactf, all ? cl->minallf : cl->minactf,
                       all ? cl->lnw_allf : cl->lnwf, all ? cl->lnmin_allf : cl->lnminf,
                       all ? 0.0f : 1.0f };
  return v;
}

/* An upper bound on the exact sum of the 2 kend nonnegative terms whose
 * sum in single precision, in any order, is leftf: each addition rounds
 * down by at most a factor 1 - 2^-24 (or by 2^-150 among the subnormal
 * floats), so that the exact sum is at most the computed one over (1 -
 * 2^-24)^(2 kend), at most times 1 + 4 kend 2^-24 (kend 2^-24 < 1/4), plus
 * 2 kend 2^-150; 2^-24 more covers the products in double (up). */
static inline double rounded_sum_bound(float leftf, double up, int kend)
{
  return leftf * up * (1.0 + (4.0 * kend + 1.0) * 0x1p-24) + 2.0 * kend * 0x1p-150;
}

/* In the first evaluations (nothing covered, the mass estimates of the
 * skipped leaves added to the gain) a leaf is visited when its ball holds
 * the candidate or its mass estimate passes the mass test; its bound is
 * not tested: farther out the ball's bound is loose (a few far-flung
 * clients set the radius) and the estimate good, and the mass estimate
 * misses a tight group of clients around the candidate inside a broad
 * leaf (measured: inst/bench/results/tunables.md, plan: visiting leaves
 * whose ball holds the candidate).  One loop over the clusters, reach and
 * decision together, branch-free, so that it vectorises, in single
 * precision (twice as many clusters a vector; the values rounded so that
 * the bounds stay bounds, see fl_cl_leaf_floats and ball_reach) with an
 * allowance for the rounding of its sum (measured: the same file, plan:
 * one loop in single precision); then the gain estimates. */
static inline FL_INLINE double plan(const fl_clusters *cl, const fl_cand *cand, float *df,
                                    double thresh, int all, fl_cold cold, int *eval,
                                    double *skipped, int wide)
{
  const fl_reach_terms reach = reach_terms(cl, cand->ynorm);
  const float inv2s2 = (float) cl->inv2s2;
  /* the first evaluations, the mass estimates of the leaves skipped added */
  const int first = skipped && cold == FL_COLD_NONE;
  const double est = first ? FL_GUESS_EST_FRACTION : FL_EST_FRACTION;
  const float lnt = thresh > 0 ? (float) log(est * thresh) : 0.0f;
  /* a float, see skip_cold */
  const float first_f = first ? 1.0f : 0.0f;
  const fl_plan_leaves v = plan_leaves(cl, all);
  const float *rad = cl->radf, *rms2 = cl->rms2f, *wpr = cl->wprf, *minpr = cl->minprf;
  const float *reach2 = cl->reach2f;
  /* floats, as thresh: an int flag in the loop kept GCC from vectorising it */
  const float skip_cold = cold != FL_COLD_NONE && thresh > 0 ? 1.0f : 0.0f;
  const float near_test = cold == FL_COLD_ALL ? 1.0f : 0.0f, thresh_f = (float) thresh;
  /* the near-point test, an estimate, skips no leaf bounded above this */
  const float near_cap = (float) (FL_DROP_CAP * thresh);
  float *ps = plan_scratch(cl);
  const float *cp2 = skip_cold > 0 ? owner_distances(cl, cand, ps) : df;
  const float *own2 = cl->own2f, *side2 = cl->side2f;
  double *bk = cl->bounds + (size_t) fl_thread_id() * fl_thread_stride(cl->krow, sizeof(double));
  const int *oslot = cl->oslot;
  /* a product of floats at least that of the rounded-up w and the hw -
   * minimum rounded from below: 1 + 2^-22 covers its two roundings */
  const double up = 1.0 + 0x1p-22;
  if (skipped) *skipped = 0.0;
  /* Whole vectors: the leaves past K (zeros, df too) are never visited
   * and add nothing (measured: inst/bench/results/tunables.md, plan:
   * whole vectors). */
  const int kend = padded_leaves(cl->K);
  for (int k = cl->K; k < kend; k++) df[k] = 0.0f;
  float leftf = 0.0f;
  FL_SIMD_SUM(leftf)
  for (int k = 0; k < kend; k++) {
    float dist = df[k], hw = ball_reach(dist, rad[k], reach);
    float bf = v.w[k] * positive_f(hw - v.low[k]);
    /* log of the mass estimate at least log(FL_EST_FRACTION thresh)? */
    int mass = v.lnw[k] - (dist * dist + rms2[k]) * inv2s2 >= lnt;
    /* log of the similarity at the near point at most log(min coverage)? */
    float near2 = positive_f(dist * dist + rms2[k] - reach2[k] * dist);
    /* (dist^2 - own2) / |yc - owner| >= side, without a square root */
    float own_gap = dist * dist - own2[k];
    int beyond = (own_gap >= 0) & (own_gap * own_gap >= side2[k] * cp2[oslot[k]]) &
      (dist > rad[k]);
    int near = (near_test > 0) & (-near2 * inv2s2 <= v.lnmin[k]) & (bf <= near_cap);
    int covered = (skip_cold > 0) & (near | beyond);
    /* the first evaluations visit the leaves whose ball holds the
     * candidate instead of testing bounds (see above); & and |: no
     * branches */
    int bounded = (first_f == 0.0f) & (bf >= thresh_f);
    int inside = (first_f > 0.0f) & (dist <= rad[k]);
    int visit = (bf > 0) & !covered & (bounded | mass | inside);
    eval[k] = visit;
    bk[k] = (double) bf * up;
    leftf += v.wpr_scale * wpr[k] * positive_f(hw - minpr[k]) + (visit ? 0.0f : bf);
  }
  double left = rounded_sum_bound(leftf, up, kend);
  if (skip_cold > 0) {
    double fraction = skipped ? FL_GUESS_GAIN_FRACTION : FL_GAIN_FRACTION;
    left += drop_estimated(cl, df, ps, log(fraction * thresh), eval, bk, skipped, wide,
                           FL_DROP_CAP * thresh);
  }
  if (first) *skipped = skipped_mass(cl, df, eval, all ? cl->wall : cl->wact);
  return left;
}

static FL_CLONES double plan_narrow(const fl_clusters *cl, const fl_cand *cand, float *df,
                                    double thresh, int all, fl_cold cold, int *eval,
                                    double *skipped)
{
  return plan(cl, cand, df, thresh, all, cold, eval, skipped, 0);
}

#if FL_WIDE
/* 512-bit vectors and 32 registers: the one loop kept in an x86-64-v4
 * version (measured: inst/bench/results/tunables.md, plan_wide). */
static FL_WIDE_TARGET double plan_wide(const fl_clusters *cl, const fl_cand *cand, float *df,
                                       double thresh, int all, fl_cold cold, int *eval,
                                       double *skipped)
{
  return plan(cl, cand, df, thresh, all, cold, eval, skipped, 1);
}
#endif

double fl_clusters_plan(const fl_clusters *cl, const fl_cand *cand, float *df, double thresh,
                        int all, fl_cold cold, int *eval, double *skipped)
{
#if FL_WIDE
  if (fl_wide_vectors()) return plan_wide(cl, cand, df, thresh, all, cold, eval, skipped);
#endif
  return plan_narrow(cl, cand, df, thresh, all, cold, eval, skipped);
}

/* The K^2 terms in single precision, by fl_expf_neg_array (within
 * FL_EXPF_ERR), not exp(): they only rank the leaves (first_threshold in
 * mf_first.c; measured: inst/bench/results/tunables.md,
 * fl_clusters_leaf_mass). */
void fl_clusters_leaf_mass(const fl_clusters *cl, double *est)
{
FL_OMP(parallel for num_threads(fl_team(cl->threads)) schedule(dynamic, 8))
  for (int L = 0; L < cl->K; L++) {
    fl_cand cand;
    float *df = point_distances(cl, cl->mu + (size_t) L * cl->d, &cand);
    FL_SIMD
    for (int k = 0; k < cl->K; k++) {
      double dist = df[k];
      df[k] = (float) ((dist * dist + cl->rms2[k]) * cl->inv2s2);
    }
    fl_expf_neg_array(df, cl->K);
    double mass = 0.0;
    FL_SIMD_SUM(mass)
    for (int k = 0; k < cl->K; k++) mass += cl->wall[k] * df[k];
    est[L] = mass;
  }
}
