/* The core's floating-point peak and each distance kernel's share of it
 * (issue 57), one thread, every kernel in the same run.
 *
 *   make -C inst/bench kernel-peak BUILD=/tmp/fb && /tmp/fb/kernel-peak [n] [reps]
 *
 * The peak: 12 independent multiply-add chains of 2-, 4- and 8-double
 * vectors (SSE2 without FMA; AVX2 + FMA; AVX-512), the best of several
 * runs.  The kernels: an n x n matrix of Gaussian similarities of n points
 * in d dimensions (flops counted 2 n^2 d, a multiply and an add per pair
 * and coordinate), by fl_rbf() pair by pair (the exact modes' matrix and
 * the pass before the tiled kernel), by fl_rbf_rows() (the matrix-free
 * modes' block kernel, one candidate against a run of clients) and by
 * fl_rbf_tile(); then one exhaustive pass of gains, fl_gain() pair by
 * pair (the former fl_pass_gains()) against fl_pass_gains(); and the
 * matrix-free modes' gain kernel, fl_gain_dot_f() (single precision,
 * clients by coordinate in chunks of FL_CHUNK), one candidate a call (a
 * lone re-evaluation) and FL_DOT_BATCH a call (first evaluations), its
 * share of the single-precision peak (twice the double one).  Prints
 * CSV; the largest difference between the kernels' similarities, and
 * whether every point's similarity to itself is 1, go to the comments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "facloc.h"
#include "kernel.h"
#include "kernel_pass.h"
#include "exact_state.h"
#include "fl_tune.h"
#include "cl_layout.h"

#define CHAINS 12

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* One multiply-add on each of the 12 chains, kept in registers (named
 * variables: an array went through memory). */
#define FMA12(m, c)                                                           \
  a0 = a0 * m + c; a1 = a1 * m + c; a2 = a2 * m + c; a3 = a3 * m + c;         \
  a4 = a4 * m + c; a5 = a5 * m + c; a6 = a6 * m + c; a7 = a7 * m + c;         \
  a8 = a8 * m + c; a9 = a9 * m + c; a10 = a10 * m + c; a11 = a11 * m + c;     \
  __asm__("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5));   \
  __asm__("" : "+x"(a6), "+x"(a7), "+x"(a8), "+x"(a9), "+x"(a10), "+x"(a11))

#define PEAK_FN(name, width, attr)                                            \
  attr static double name(long iters)                                         \
  {                                                                           \
    typedef double vec __attribute__((vector_size(8 * width)));               \
    vec m = (vec) { 0 } + 0.999999999, c = (vec) { 0 } + 1e-9, z = { 0 };     \
    vec a0 = z + 1, a1 = z + 2, a2 = z + 3, a3 = z + 4, a4 = z + 5, a5 = z + 6, \
      a6 = z + 7, a7 = z + 8, a8 = z + 9, a9 = z + 10, a10 = z + 11, a11 = z + 12; \
    double t0 = now();                                                        \
    for (long it = 0; it < iters; it++) { FMA12(m, c); }                      \
    double t = now() - t0;                                                    \
    vec s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;      \
    if (s[0] == 42.0) puts("");                                               \
    return 2.0 * width * CHAINS * (double) iters / t * 1e-9;                  \
  }

PEAK_FN(peak_sse2, 2, )
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
PEAK_FN(peak_avx2, 4, __attribute__((target("avx2,fma"))))
PEAK_FN(peak_avx512, 8, __attribute__((target("avx512f"))))
#define FL_X86 1
#else
#define FL_X86 0
#endif

static double best_of(double (*fn)(long), int runs)
{
  double best = 0.0;
  for (int r = 0; r < runs; r++) {
    double g = fn(20000000L);
    if (g > best) best = g;
  }
  return best;
}

static double time_pairwise(const fl_problem *p, double *W)
{
  double t0 = now();
  for (int j = 0; j < p->m; j++)
    for (int i = 0; i < p->n; i++)
      W[(size_t) j * p->n + i] = fl_rbf(p->x + (size_t) i * p->d, p->y + (size_t) j * p->d,
                                        p->d, p->inv2s2);
  return now() - t0;
}

static double time_rows(const fl_problem *p, double *W)
{
  double t0 = now();
  for (int j = 0; j < p->m; j++)
    fl_rbf_rows(p->x, p->n, p->y + (size_t) j * p->d, p->d, p->inv2s2, W + (size_t) j * p->n);
  return now() - t0;
}

/* The tiled kernel in double, or with single in float (fl_rbf_tile_f). */
static double time_tile(const fl_problem *p, double *W, int single)
{
  double t0 = now();
  size_t size = single ? sizeof(float) : sizeof(double);
  int mc = fl_tile_candidates(p->d);
  double *xn = malloc(sizeof(double) * p->n);
  void *xp = malloc(size * (single ? fl_tile_packed_f(p->n, p->d) : fl_tile_packed(p->n, p->d)));
  void *yp = malloc(size * (single ? fl_tile_packed_f(mc, p->d) : fl_tile_packed(mc, p->d)));
  double *org = calloc((size_t) p->d, sizeof(double));   /* the kernel's cost alone */
  fl_tile_norms(p->x, p->n, p->d, org, xn);
  if (single) fl_tile_pack_clients_f(p->x, p->n, p->d, org, xp);
  else fl_tile_pack_clients(p->x, p->n, p->d, org, xp);
  for (int j0 = 0; j0 < p->m; j0 += mc) {
    int cnt = p->m - j0 < mc ? p->m - j0 : mc;
    const double *y = p->y + (size_t) j0 * p->d;
    if (single) fl_tile_pack_candidates_f(y, cnt, p->d, org, yp);
    else fl_tile_pack_candidates(y, cnt, p->d, org, yp);
    for (int i0 = 0; i0 < p->n; i0 += FL_TILE_CLIENTS) {
      int nc = p->n - i0 < FL_TILE_CLIENTS ? p->n - i0 : FL_TILE_CLIENTS;
      double *out = W + (size_t) j0 * p->n + i0;
      if (single)
        fl_rbf_tile_f(yp, xn + j0, cnt, (const float *) xp + (size_t) i0 * p->d, xn + i0, nc,
                      p->d, p->inv2s2, out, (size_t) p->n);
      else
        fl_rbf_tile(yp, xn + j0, cnt, (const double *) xp + (size_t) i0 * p->d, xn + i0, nc,
                    p->d, p->inv2s2, 0, out, (size_t) p->n);
    }
  }
  free(xn); free(xp); free(yp); free(org);
  return now() - t0;
}

static double time_pass_pairwise(const fl_problem *p, double *gain)
{
  double *cover = calloc((size_t) p->n, sizeof(double));
  double t0 = now();
  for (int j = 0; j < p->m; j++) gain[j] = fl_gain(p, j, cover);
  double t = now() - t0;
  free(cover);
  return t;
}

static double time_pass(const fl_problem *p, double *gain)
{
  double t0 = now();
  if (fl_pass_gains(p, 1, gain) != FL_OK) exit(1);
  return now() - t0;
}


/* Every candidate's gain by fl_gain_dot_f(), nq candidates a call, over
 * the clients in chunks of FL_CHUNK stored by coordinate in single
 * precision (as the matrix-free layout stores them), nothing covered. */
static double time_gain_dot(const fl_problem *p, int nq, double *gain)
{
  const int n = p->n, d = p->d, nch = (n + FL_CHUNK - 1) / FL_CHUNK;
  float *cols = calloc((size_t) nch * FL_CHUNK * d + FL_COLS_PAD, sizeof(float));
  float *xn = calloc((size_t) nch * FL_CHUNK + FL_COLS_PAD, sizeof(float));
  float *yf = malloc(sizeof(float) * (size_t) p->m * d), *yn = malloc(sizeof(float) * p->m);
  double *w = calloc((size_t) nch * FL_CHUNK + FL_COLS_PAD, sizeof(double));
  double *cover = calloc((size_t) nch * FL_CHUNK + FL_COLS_PAD, sizeof(double));
  for (int i = 0; i < n; i++) {
    int c = i / FL_CHUNK, at = i % FL_CHUNK, len = n - c * FL_CHUNK < FL_CHUNK ? n - c * FL_CHUNK : FL_CHUNK;
    double norm = 0.0;
    for (int t = 0; t < d; t++) {
      float v = (float) p->x[(size_t) i * d + t];
      cols[(size_t) c * FL_CHUNK * d + (size_t) t * len + at] = v;
      norm += (double) v * v;
    }
    xn[i] = (float) norm;
    w[i] = 1.0;
  }
  for (int j = 0; j < p->m; j++) {
    double norm = 0.0;
    for (int t = 0; t < d; t++) {
      yf[(size_t) j * d + t] = (float) p->y[(size_t) j * d + t];
      norm += (double) yf[(size_t) j * d + t] * yf[(size_t) j * d + t];
    }
    yn[j] = (float) norm;
  }
  double t0 = now();
  for (int j0 = 0; j0 < p->m; j0 += nq) {
    int cnt = p->m - j0 < nq ? p->m - j0 : nq;
    const float *y[FL_DOT_BATCH];
    double g[FL_DOT_BATCH], mass[FL_DOT_BATCH];
    for (int q = 0; q < cnt; q++) {
      y[q] = yf + (size_t) (j0 + q) * d;
      gain[j0 + q] = 0.0;
    }
    for (int c = 0; c < nch; c++) {
      int lo = c * FL_CHUNK, len = n - lo < FL_CHUNK ? n - lo : FL_CHUNK;
      fl_gain_dot_f(cols + (size_t) lo * d, len, len, cnt, y, yn + j0, xn + lo, d,
                    (float) p->inv2s2, w + lo, cover + lo, g, mass);
      for (int q = 0; q < cnt; q++) gain[j0 + q] += g[q];
    }
  }
  double t = now() - t0;
  free(cols); free(xn); free(yf); free(yn); free(w); free(cover);
  return t;
}

static double max_diff(const double *a, const double *b, size_t len)
{
  double m = 0.0;
  for (size_t t = 0; t < len; t++) m = fmax(m, fabs(a[t] - b[t]));
  return m;
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 2000, reps = argc > 2 ? atoi(argv[2]) : 3;
  double sse2 = best_of(peak_sse2, 5), avx2 = 0.0, avx512 = 0.0;
#if FL_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) avx2 = best_of(peak_avx2, 5);
  if (__builtin_cpu_supports("avx512f")) avx512 = best_of(peak_avx512, 5);
#endif
  double peak = fmax(sse2, fmax(avx2, avx512));
  printf("# peak GFLOP/s, one thread: sse2 (no FMA) %.2f, avx2+fma %.2f, avx512 %.2f\n",
         sse2, avx2, avx512);
  printf("# tile kernel at AVX-512: %s\n", fl_wide_vectors() ? "yes" : "no (x86-64-v3 or default)");
  printf("d,n,kernel,seconds,gflops,share_of_peak\n");
  static const int dims[] = { 32, 128, 384, 1024 };
  for (int q = 0; q < 4; q++) {
    int d = dims[q];
    fl_problem p = { 0 };
    p.n = p.m = n;
    p.d = d;
    double *x = malloc(sizeof(double) * (size_t) n * d);
    srand(57 + d);
    for (size_t t = 0; t < (size_t) n * d; t++) x[t] = (double) rand() / RAND_MAX;
    p.x = p.y = x;
    p.inv2s2 = 1.0 / (2.0 * 0.1 * d);   /* sigma^2 ~ half the mean squared distance */
    double *W0 = malloc(sizeof(double) * (size_t) n * n), *W1 = malloc(sizeof(double) * (size_t) n * n);
    double *W2 = malloc(sizeof(double) * (size_t) n * n);
    double *g0 = malloc(sizeof(double) * n), *g1 = malloc(sizeof(double) * n);
    const char *names[] = { "pairwise fl_rbf", "rows fl_rbf_rows", "tile fl_rbf_tile",
                            "pass pairwise fl_gain", "pass tiled fl_pass_gains",
                            "gain fl_gain_dot_f 1", "gain fl_gain_dot_f batch",
                            "tile fl_rbf_tile_f" };
    double best[8] = { INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY,
                       INFINITY };
    double *g2 = malloc(sizeof(double) * n);
    for (int r = 0; r < reps; r++) {
      best[0] = fmin(best[0], time_pairwise(&p, W0));
      best[1] = fmin(best[1], time_rows(&p, W1));
      best[2] = fmin(best[2], time_tile(&p, W1, 0));
      best[7] = fmin(best[7], time_tile(&p, W2, 1));
      best[3] = fmin(best[3], time_pass_pairwise(&p, g0));
      best[4] = fmin(best[4], time_pass(&p, g1));
      best[5] = fmin(best[5], time_gain_dot(&p, 1, g2));
      best[6] = fmin(best[6], time_gain_dot(&p, FL_DOT_BATCH, g2));
    }
    double flops = 2.0 * n * (double) n * d;
    for (int k = 0; k < 8; k++)
      printf("%d,%d,%s,%.4f,%.2f,%.3f\n", d, n, names[k], best[k], flops / best[k] * 1e-9,
             flops / best[k] * 1e-9 / (k >= 5 ? 2.0 * peak : peak));   /* floats: twice the lanes */
    double up = 0.0;
    long below = 0;
    for (size_t t = 0; t < (size_t) n * n; t++) {
      below += W2[t] < W1[t];
      if (W1[t] > 0) up = fmax(up, W2[t] / W1[t] - 1.0);
    }
    printf("# d %d: float tile vs double tile: %ld values below, at most %.3g above, relatively\n",
           d, below, up);
    int diag = 1;
    for (int i = 0; i < n; i++) diag &= W1[(size_t) i * n + i] == 1.0;
    printf("# d %d: tile vs pairwise max |diff| %.3g; pass gains max rel diff %.3g; "
           "single-precision gains max rel diff %.3g; diagonal exactly 1: %s\n", d,
           max_diff(W0, W1, (size_t) n * n), max_diff(g0, g1, n) / g0[0],
           max_diff(g0, g2, n) / g0[0], diag ? "yes" : "no");
    free(x); free(W0); free(W1); free(W2); free(g0); free(g1); free(g2);
  }
  return 0;
}
