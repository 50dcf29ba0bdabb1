/* The LP dual's oracle for an explicit similarity: a dense matrix or
 * sparse columns (dual.h). */
#include "dual.h"
#include "kernel.h"
#include "fl_omp.h"
#include "fl_tune.h"

/* c_j(u) of a dense column whose values are of type T (the matrix in
 * double or in single precision): one definition for both. */
#define FL_DENSE_VALUE(name, T)                                                         \
  FL_CLONES static double name(const T *restrict col, const double *restrict u,         \
                               const double *restrict a, int n)                         \
  {                                                                                     \
    double s = 0.0;                                                                     \
    if (a) {                                                                            \
      FL_SIMD_SUM(s)                                                                    \
      for (int i = 0; i < n; i++) s += a[i] * fl_positive(col[i] - u[i]);              \
    } else {                                                                            \
      FL_SIMD_SUM(s)                                                                    \
      for (int i = 0; i < n; i++) s += fl_positive(col[i] - u[i]);                      \
    }                                                                                   \
    return s;                                                                           \
  }
FL_DENSE_VALUE(dense_value, double)
FL_DENSE_VALUE(dense_value_single, float)

static double sparse_value(const fl_problem *p, int j, const double *u)
{
  const double *a = p->weight;
  double s = 0.0;
  for (int t = p->sp_p[j]; t < p->sp_p[j + 1]; t++) {
    int i = p->sp_i[t];
    double v = fl_positive(p->sp_x[t] - u[i]);
    s += a ? a[i] * v : v;
  }
  return s;
}

/* A column is read once per u; after the first its n values come from the
 * cache. */
static int exact_values(fl_dual_oracle *o, const int *js, int cnt, const double *const *u, int nu,
                        double *c)
{
  const fl_dual_exact *e = o->ctx;
  const fl_problem *p = e->p;
  int n = p->n;
FL_OMP(parallel for num_threads(fl_par_threads(e->threads, (double) cnt * n * nu, FL_PAR_MIN_PAIRS)) schedule(dynamic, 4))
  for (int r = 0; r < cnt; r++) {
    int j = js[r];
    for (int q = 0; q < nu; q++)
      c[(size_t) q * cnt + r] = p->sp_p ? sparse_value(p, j, u[q])
        : p->simf ? dense_value_single(p->simf + (size_t) j * n, u[q], p->weight, n)
        : dense_value(p->sim + (size_t) j * n, u[q], p->weight, n);
  }
  return FL_OK;
}

static int exact_top_two(fl_dual_oracle *o, const int *js, int cnt, const double *t, double *m1,
                         double *m2)
{
  const fl_dual_exact *e = o->ctx;
  const fl_problem *p = e->p;
  (void) t;    /* m1 and m2 start at t: smaller values change nothing */
  if (p->sp_p) {
    for (int r = 0; r < cnt; r++)
      for (int s = p->sp_p[js[r]]; s < p->sp_p[js[r] + 1]; s++)
        fl_keep_two(p->sp_x[s], m1 + p->sp_i[s], m2 + p->sp_i[s]);
    return FL_OK;
  }
  int n = p->n, blocks = (n + FL_DUAL_BLOCK - 1) / FL_DUAL_BLOCK;
FL_OMP(parallel for num_threads(fl_par_threads(e->threads, (double) cnt * n, FL_PAR_MIN_PAIRS)) schedule(dynamic, 1))
  for (int b = 0; b < blocks; b++) {
    int lo = b * FL_DUAL_BLOCK, hi = lo + FL_DUAL_BLOCK < n ? lo + FL_DUAL_BLOCK : n;
    for (int r = 0; r < cnt; r++) {
      size_t at = (size_t) js[r] * n;
      if (p->simf)
        for (int i = lo; i < hi; i++) fl_keep_two(p->simf[at + i], m1 + i, m2 + i);
      else
        for (int i = lo; i < hi; i++) fl_keep_two(p->sim[at + i], m1 + i, m2 + i);
    }
  }
  return FL_OK;
}

void fl_dual_oracle_exact(fl_dual_oracle *o, fl_dual_exact *ctx, const fl_problem *p,
                          int threads)
{
  ctx->p = p;
  ctx->threads = threads;
  o->ctx = ctx;
  o->values = exact_values;
  o->top_two = exact_top_two;
  o->evaluations = o->pairs = 0.0;
}
