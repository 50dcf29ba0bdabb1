/* The exact modes' marginal gains, summed client by client in client
 * order, and the lists of live clients that let a gain read only the
 * clients its candidate can still improve.
 *
 * A client covered at least as well as candidate j would cover it adds
 * fl_positive(s_ij - m_i) = +0 to j's gain, and g + 0 = g: leaving such
 * clients out changes no bit of the sum.  Coverage only grows, so once
 * dead for j a client stays dead.  From j's third gain on, until it keeps
 * a list, its live clients are packed from its column (exact_kernel_live.c)
 * and summed; once at most a share 1 / FL_LIVE_SHARE of them are, j keeps
 * them (their indices, in client order, and similarities), and later gains
 * of j sum that list and drop from it the clients that died.  Lazy greedy
 * re-evaluates the same candidates many times, and after a few picks most
 * clients of most columns are dead: of the terms exact greedy's gains
 * read, 15% are live on 10,000 embeddings (d = 384, k = 100, the
 * median-heuristic sigma), 9% at d = 1024, k = 1000, and on `medium` 3.7%
 * at the median sigma, 1.9% at sigma = 20. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "exact_state.h"
#include "fl_memory.h"
#include "kernel.h"
#include "fl_omp.h"
#include "fl_tune.h"

double fl_matrix_bytes(const fl_problem *p, int single)
{
  return (single ? 4.0 : 8.0) * (double) p->n * (double) p->m;
}

double fl_sim(const fl_problem *p, int i, int j)
{
  if (p->sim) return p->sim[(size_t) j * p->n + i];
  if (p->simf) return p->simf[(size_t) j * p->n + i];
  return fl_rbf(p->x + (size_t) i * p->d, p->y + (size_t) j * p->d, p->d, p->inv2s2);
}

/* A dense column's gain: no call a client, no branch, the same bits (x +
 * 0 = x) in client order; one definition for the matrix in double and in
 * single precision (T). */
#define FL_DENSE_GAIN(name, T)                                                           \
  static double name(const T *col, const double *w, const double *cover, int n)         \
  {                                                                                      \
    double g = 0.0;                                                                      \
    if (w) for (int i = 0; i < n; i++) g += w[i] * fl_positive(col[i] - cover[i]);      \
    else for (int i = 0; i < n; i++) g += fl_positive(col[i] - cover[i]);               \
    return g;                                                                            \
  }
FL_DENSE_GAIN(dense_gain, double)
FL_DENSE_GAIN(dense_gain_single, float)

double fl_gain(const fl_problem *p, int j, const double *cover)
{
  const double *w = p->weight;
  double g = 0.0;
  if (p->sp_p) {
    for (int t = p->sp_p[j]; t < p->sp_p[j + 1]; t++) {
      int i = p->sp_i[t];
      double diff = p->sp_x[t] - cover[i];
      if (diff > 0) g += w ? w[i] * diff : diff;
    }
    return g;
  }
  if (p->sim) return dense_gain(p->sim + (size_t) j * p->n, w, cover, p->n);
  if (p->simf) return dense_gain_single(p->simf + (size_t) j * p->n, w, cover, p->n);
  for (int i = 0; i < p->n; i++) {
    double diff = fl_sim(p, i, j) - cover[i];
    if (diff > 0) g += w ? w[i] * diff : diff;
  }
  return g;
}

double fl_gain_pairs(const fl_problem *p)
{
  if (p->sp_p) return p->m > 0 ? (double) p->sp_p[p->m] / p->m : 0.0;
  return (double) p->n;
}

void fl_cover_add(const fl_problem *p, int j, double *cover, int threads)
{
  if (p->sp_p) {
    for (int t = p->sp_p[j]; t < p->sp_p[j + 1]; t++)
      if (p->sp_x[t] > cover[p->sp_i[t]]) cover[p->sp_i[t]] = p->sp_x[t];
    return;
  }
FL_OMP(parallel for num_threads(fl_par_threads(threads, p->n, FL_PAR_MIN_CLIENTS)) schedule(static))
  for (int i = 0; i < p->n; i++) {
    double s = fl_sim(p, i, j);
    if (s > cover[i]) cover[i] = s;
  }
  (void) threads;
}

/* Entries of the lists, 12 bytes each: at most a share 1 / FL_LIVE_SHARE
 * of the matrix's bytes (in single precision with single), with room in
 * an int for the threads that overshoot it. */
static int live_capacity(const fl_problem *p, int single)
{
  double cap = fl_matrix_bytes(p, single) / (12.0 * FL_LIVE_SHARE);
  return cap < INT_MAX / 2 ? (int) cap : INT_MAX / 2;
}

/* A thread's scratch: room for a whole column's clients, apart from the
 * next thread's by whole cache lines. */
static size_t scratch_stride(const fl_problem *p)
{
  return fl_thread_stride((size_t) p->n, sizeof(double));
}

double fl_live_bytes(const fl_problem *p, int single, int threads)
{
  return (double) p->m * sizeof(fl_live) + 12.0 * live_capacity(p, single) +
         12.0 * (double) threads * (double) scratch_stride(p);
}

/* One block of memory for every list, handed out as they are kept: a page
 * is touched only once a list lies on it; and each thread's scratch. */
void fl_live_init(fl_state *s)
{
  const fl_problem *p = &s->p;
  if (!(p->sim || p->simf) || p->sp_p) return;
  size_t scratch = scratch_stride(p) * (size_t) s->threads;
  s->live_cap = live_capacity(p, p->simf != NULL);
  s->live = calloc((size_t) p->m, sizeof(fl_live));
  s->live_client = fl_alloc_large((size_t) s->live_cap, sizeof(int), 0);
  s->live_value = fl_alloc_large((size_t) s->live_cap, sizeof(double), 0);
  s->scratch_client = fl_alloc_large(scratch, sizeof(int), 0);
  s->scratch_value = fl_alloc_large(scratch, sizeof(double), 0);
  if (!s->live || !s->live_client || !s->live_value || !s->scratch_client || !s->scratch_value)
    fl_live_free(s);
}

int fl_live_init_pool(fl_state *s, double bytes)
{
  double cap = bytes / 12.0, most = live_capacity(&s->p, 0);
  s->live_cap = (int) (cap < most ? cap : most);
  s->live = calloc((size_t) s->p.m, sizeof(fl_live));
  s->live_client = fl_alloc_large((size_t) s->live_cap, sizeof(int), 0);
  s->live_value = fl_alloc_large((size_t) s->live_cap, sizeof(double), 0);
  if (s->live && s->live_client && s->live_value) return FL_OK;
  fl_live_free(s);
  return FL_ERR_NOMEM;
}

void fl_live_free(fl_state *s)
{
  free(s->live);
  free(s->live_client);
  free(s->live_value);
  free(s->scratch_client);
  free(s->scratch_value);
  s->live = NULL;
  s->live_client = NULL;
  s->live_value = NULL;
  s->scratch_client = NULL;
  s->scratch_value = NULL;
}

/* The sum of a list's terms in client order, as a scan of the column sums
 * them; the clients that died are dropped from the list (*count). */
static double list_gain(const double *w, const double *cover, int *client, double *value,
                        int *count)
{
  double g = 0.0;
  int kept = 0;
  for (int t = 0; t < *count; t++) {
    int i = client[t];
    double diff = value[t] - cover[i];
    client[kept] = i;
    value[kept] = value[t];
    kept += diff > 0;
    g += w ? w[i] * fl_positive(diff) : fl_positive(diff);
  }
  *count = kept;
  return g;
}

void fl_live_keep(fl_state *s, int j, const int *client, const double *value, int count)
{
  fl_live *l = &s->live[j];
  if (count > s->p.n / FL_LIVE_SHARE || fl_atomic_read(&s->live_used) > s->live_cap - count)
    return;
  int end = fl_atomic_add_fetch(&s->live_used, count);
  if (end > s->live_cap) return;
  l->first = end - count;
  l->count = count;
  l->kept = 1;
  memcpy(s->live_client + l->first, client, sizeof(int) * (size_t) count);
  memcpy(s->live_value + l->first, value, sizeof(double) * (size_t) count);
}

/* Candidate j's gain from its live clients, packed from its column into
 * the thread's scratch, which j keeps (fl_live_keep). */
static double pack_and_keep(fl_state *s, int j)
{
  const fl_problem *p = &s->p;
  int id = fl_thread_id();
  if (id >= s->threads) return fl_gain(p, j, s->cover);
  size_t at = (size_t) j * p->n, stride = scratch_stride(p);
  int *client = s->scratch_client + stride * (size_t) id;
  double *value = s->scratch_value + stride * (size_t) id;
  int count = p->sim ? fl_live_pack(p->sim + at, s->cover, p->n, client, value)
                     : fl_live_pack_f(p->simf + at, s->cover, p->n, client, value);
  double g = list_gain(p->weight, s->cover, client, value, &count);
  fl_live_keep(s, j, client, value, count);
  return g;
}

double fl_live_gain(fl_state *s, int j)
{
  fl_live *l = &s->live[j];
  return list_gain(s->p.weight, s->cover, s->live_client + l->first, s->live_value + l->first,
                   &l->count);
}

double fl_state_gain(fl_state *s, int j)
{
  const fl_problem *p = &s->p;
  if (!s->live) return fl_gain(p, j, s->cover);
  fl_live *l = &s->live[j];
  if (l->kept) return fl_live_gain(s, j);
  /* The first two gains scan the column: most candidates are evaluated
   * once or twice, and before the picks most of a column is live. */
  if (l->scans++ < 2) return fl_gain(p, j, s->cover);
  return pack_and_keep(s, j);
}
