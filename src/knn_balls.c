#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "facloc.h"
#include "knn_balls.h"
#include "fl_memory.h"
#include "kernel.h"
#include "fl_omp.h"
#include "kmeans.h"
#include "fl_tune.h"

double fl_balls_bytes(int n, int d, int nball, int threads)
{
  double ns = n < FL_BALLS_SAMPLE ? n : FL_BALLS_SAMPLE;
  return 8.0 * nball * (d + 1) + 4.0 * (nball + 1) + 12.0 * n   /* the balls */
    + 8.0 * n * d                                                /* xs */
    + 8.0 * ns * d + 12.0 * ns + 12.0 * n + 16.0 * nball * d   /* temporaries */
    + fl_kmeans_bytes((int) ns, d, threads);
}

void fl_balls_free(fl_balls *b)
{
  free(b->centre); free(b->radius); free(b->start);
  free(b->member); free(b->to_centre); free(b->xs);
  memset(b, 0, sizeof *b);
}

/* Centres from k-means on every step-th point. */
static int sample_centres(fl_balls *b, const double *x, int n, int d, int threads)
{
  int step = n > FL_BALLS_SAMPLE ? n / FL_BALLS_SAMPLE : 1;
  int ns = (n + step - 1) / step;
  double *sample = step > 1 ? malloc(sizeof(double) * (size_t) ns * d) : NULL;
  int *assign = malloc(sizeof(int) * (size_t) ns);
  int status = FL_ERR_NOMEM;
  if (assign && (step == 1 || sample)) {
    for (int s = 0; step > 1 && s < ns; s++)
      memcpy(sample + (size_t) s * d, x + (size_t) s * step * d, sizeof(double) * d);
    if (b->nball > ns) b->nball = ns;
    status = fl_kmeans(step > 1 ? sample : x, ns, d, b->nball, 1u, threads, assign, b->centre);
  }
  free(sample); free(assign);
  return status;
}

int fl_balls_build(fl_balls *b, const double *x, int n, int d, int nball, int threads)
{
  memset(b, 0, sizeof *b);
  b->nball = nball < 1 ? 1 : (nball > n ? n : nball);
  b->d = d;
  b->centre = malloc(sizeof(double) * (size_t) b->nball * d);
  b->radius = calloc((size_t) b->nball, sizeof(double));
  b->start = calloc((size_t) b->nball + 1, sizeof(int));
  b->member = malloc(sizeof(int) * (size_t) n);
  b->to_centre = malloc(sizeof(double) * (size_t) n);
  b->xs = fl_alloc_large((size_t) n * d, sizeof(double), 0);
  int *assign = malloc(sizeof(int) * (size_t) n);
  double *d2 = malloc(sizeof(double) * (size_t) n);
  int ok = b->centre && b->radius && b->start && b->member && b->to_centre && b->xs &&
           assign && d2 && sample_centres(b, x, n, d, threads) == FL_OK;
  if (ok) {
FL_OMP(parallel for num_threads(fl_par_threads(threads, (double) n * b->nball * d, FL_PAR_MIN_PAIRS)) schedule(static))
    for (int i = 0; i < n; i++)
      assign[i] = fl_nearest_row(b->centre, b->nball, x + (size_t) i * d, d, &d2[i]);
    /* counting sort by ball; points stay in index order within a ball */
    for (int i = 0; i < n; i++) b->start[assign[i] + 1]++;
    for (int c = 0; c < b->nball; c++) b->start[c + 1] += b->start[c];
    int *next = malloc(sizeof(int) * (size_t) b->nball);
    ok = next != NULL;
    for (int c = 0; ok && c < b->nball; c++) next[c] = b->start[c];
    for (int i = 0; ok && i < n; i++) {
      int t = next[assign[i]]++;
      b->member[t] = i;
      memcpy(b->xs + (size_t) t * d, x + (size_t) i * d, sizeof(double) * d);
      b->to_centre[t] = sqrt(d2[i]);
      if (b->to_centre[t] > b->radius[assign[i]]) b->radius[assign[i]] = b->to_centre[t];
    }
    free(next);
  }
  (void) threads;
  free(assign); free(d2);
  if (!ok) { fl_balls_free(b); return FL_ERR_NOMEM; }
  return FL_OK;
}
