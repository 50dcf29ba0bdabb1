/* Exact k-nearest-neighbour search with ball pruning.  The candidates are
 * grouped in about sqrt(m) balls (knn_balls.h).  A query scans its nearest
 * ball first, then the others in order of the lower bound ||q - c|| -
 * radius, skipping a ball, or a single member, whose lower bound exceeds
 * the current k-th distance.  The balls only decide what to skip, never
 * the answer, so the result is that of brute force whatever the grouping.
 * Threads split the query points. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "facloc.h"
#include "knn.h"
#include "knn_balls.h"
#include "kernel.h"
#include "fl_omp.h"
#include "fl_tune.h"

typedef struct { double d2; int j; } knn_hit;
typedef struct { double lb; int c; } knn_ball;

static int balls_for(int m)
{
  return (int) ceil(sqrt((double) m));
}

double fl_knn_bytes(int m, int d, int k, int threads)
{
  double g = balls_for(m);
  return fl_balls_bytes(m, d, balls_for(m), threads) + (double) threads * (24.0 * g + 16.0 * k);
}

static int hit_worse(knn_hit a, knn_hit b)
{
  return a.d2 > b.d2 || (a.d2 == b.d2 && a.j > b.j);
}

/* Keep the k best hits in a max-heap on hit_worse (the worst on top). */
static void offer(knn_hit *h, int *size, int k, knn_hit e)
{
  int t;
  if (*size < k) {
    t = (*size)++;
    while (t > 0 && hit_worse(e, h[(t - 1) / 2])) { h[t] = h[(t - 1) / 2]; t = (t - 1) / 2; }
    h[t] = e;
    return;
  }
  if (!hit_worse(h[0], e)) return;
  t = 0;
  for (;;) {
    int l = 2 * t + 1, r = l + 1, w = t;
    knn_hit big = e;
    if (l < k && hit_worse(h[l], big)) { w = l; big = h[l]; }
    if (r < k && hit_worse(h[r], big)) w = r;
    if (w == t) break;
    h[t] = h[w];
    t = w;
  }
  h[t] = e;
}

/* Is lb (from distances summing to scale) certainly beyond the k-th hit? */
static int beyond_kth(const knn_hit *h, int size, int k, double lb, double scale)
{
  return size == k && fl_balls_beyond(lb, scale, sqrt(h[0].d2));
}

static void scan_ball(const fl_balls *b, int c, double dq, const double *q,
                      int k, knn_hit *h, int *size)
{
  for (int t = b->start[c]; t < b->start[c + 1]; t++) {
    double rc = b->to_centre[t];
    if (beyond_kth(h, *size, k, fabs(dq - rc), dq + rc)) continue;
    knn_hit e = { fl_sqdist(q, b->xs + (size_t) t * b->d, b->d), b->member[t] };
    offer(h, size, k, e);
  }
}

static int ball_before(const void *a, const void *b)
{
  const knn_ball *x = a, *y = b;
  if (x->lb != y->lb) return x->lb < y->lb ? -1 : 1;
  return (x->c > y->c) - (x->c < y->c);
}

static int hit_order(const void *a, const void *b)
{
  const knn_hit *x = a, *y = b;
  return hit_worse(*x, *y) - hit_worse(*y, *x);
}

static void query(const fl_balls *b, const double *q, int k, double *dq, knn_ball *order, knn_hit *h, int *nbr, double *dist2)
{
  int own = 0, size = 0, norder = 0;
  for (int c = 0; c < b->nball; c++) {
    dq[c] = sqrt(fl_sqdist(q, b->centre + (size_t) c * b->d, b->d));
    if (dq[c] < dq[own]) own = c;
  }
  scan_ball(b, own, dq[own], q, k, h, &size);
  for (int c = 0; c < b->nball; c++) {
    double lb = dq[c] - b->radius[c];
    if (c != own && b->start[c + 1] > b->start[c] &&
        !beyond_kth(h, size, k, lb, dq[c] + b->radius[c])) {
      order[norder].lb = lb;
      order[norder++].c = c;
    }
  }
  qsort(order, (size_t) norder, sizeof(knn_ball), ball_before);
  for (int t = 0; t < norder; t++) {
    int c = order[t].c;
    if (beyond_kth(h, size, k, order[t].lb, dq[c] + b->radius[c])) break;
    scan_ball(b, c, dq[c], q, k, h, &size);
  }
  qsort(h, (size_t) k, sizeof(knn_hit), hit_order);
  for (int t = 0; t < k; t++) {
    nbr[t] = h[t].j;
    dist2[t] = h[t].d2;
  }
}

int fl_knn(const double *x, int n, const double *y, int m, int d, int k,
           int threads, int *nbr, double *dist2)
{
  if (k < 1 || k > m || n < 0 || d < 1 || threads < 1) return FL_ERR_ARG;
  fl_balls b;
  if (fl_balls_build(&b, y, m, d, balls_for(m), threads) != FL_OK) return FL_ERR_NOMEM;
  /* per thread, a cache line apart (knn_ball and knn_hit take 16 bytes) */
  size_t sq = fl_thread_stride((size_t) b.nball, sizeof(double));
  size_t sb = fl_thread_stride((size_t) b.nball, sizeof(knn_ball));
  size_t sh = fl_thread_stride((size_t) k, sizeof(knn_hit));
  double *dq = malloc(sizeof(double) * sq * threads);
  knn_ball *order = malloc(sizeof(knn_ball) * sb * threads);
  knn_hit *hits = malloc(sizeof(knn_hit) * sh * threads);
  if (!dq || !order || !hits) {
    free(dq); free(order); free(hits); fl_balls_free(&b);
    return FL_ERR_NOMEM;
  }
FL_OMP(parallel num_threads(fl_par_threads(threads, (double) n * m, FL_PAR_MIN_PAIRS)))
  {
    int me = fl_thread_id();
    /* Queries that are the candidates go in ball order: neighbours run
     * through the same few balls, which then stay in cache. */
    int same = x == y && n == m;
FL_OMP(for schedule(dynamic, 64))
    for (int t = 0; t < n; t++) {
      int i = same ? b.member[t] : t;
      query(&b, same ? b.xs + (size_t) t * d : x + (size_t) i * d, k, dq + sq * me,
            order + sb * me, hits + sh * me, nbr + (size_t) i * k,
            dist2 + (size_t) i * k);
    }
  }
  free(dq); free(order); free(hits);
  fl_balls_free(&b);
  return FL_OK;
}

int fl_knn_csc(int n, int m, int k, const int *nbr, const double *dist2,
               double inv2s2, int *p, int *i, double *x)
{
  int *next = malloc(sizeof(int) * (size_t) (m > 0 ? m : 1));
  if (!next) return FL_ERR_NOMEM;
  size_t nnz = (size_t) n * k;
  memset(p, 0, sizeof(int) * ((size_t) m + 1));
  for (size_t t = 0; t < nnz; t++) p[nbr[t] + 1]++;
  for (int j = 0; j < m; j++) p[j + 1] += p[j];
  memcpy(next, p, sizeof(int) * (size_t) m);
  /* rows in increasing order, so each column comes out sorted */
  for (int r = 0; r < n; r++)
    for (int t = 0; t < k; t++) {
      size_t s = (size_t) r * k + t;
      int pos = next[nbr[s]]++;
      i[pos] = r;
      x[pos] = exp(-dist2[s] * inv2s2);
    }
  free(next);
  return FL_OK;
}
