#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "exact_state.h"
#include "fl_memory.h"
#include "kernel.h"
#include "fl_omp.h"
#include "fl_tune.h"

static int all_finite(const double *v, int n)
{
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}

int fl_tiles_init(fl_tiles *t, const fl_problem *p, int threads, int single)
{
  int same = p->y == p->x && p->m == p->n;
  t->xn = malloc(sizeof(double) * (size_t) p->n);
  t->yn = same ? t->xn : malloc(sizeof(double) * (size_t) p->m);
  /* written once per solve: huge pages spare most of its page faults
   * (0.12 -> 0.02 s at n = 10,000, d = 1024) */
  t->xp = single ? NULL : fl_alloc_large(fl_tile_packed(p->n, p->d), sizeof(double), 0);
  t->xpf = single ? fl_alloc_large(fl_tile_packed_f(p->n, p->d), sizeof(float), 0) : NULL;
  t->org = calloc((size_t) p->d, sizeof(double));
  t->cosine = 0;
  if (!t->xn || !t->yn || !(t->xp || t->xpf) || !t->org) {
    fl_tiles_free(t);
    return FL_ERR_NOMEM;
  }
  for (int i = 0; i < p->n; i++)
    for (int c = 0; c < p->d; c++) t->org[c] += p->x[(size_t) i * p->d + c];
  for (int c = 0; c < p->d; c++) t->org[c] /= p->n;
  int rows = FL_TILE_CLIENTS, nx = (p->n + rows - 1) / rows, ny = same ? 0 : (p->m + rows - 1) / rows;
FL_OMP(parallel for num_threads(fl_par_threads(threads, (double) (p->n + p->m) * p->d, FL_PAR_MIN_PAIRS)) schedule(dynamic, 1))
  for (int b = 0; b < nx + ny; b++) {
    int x = b < nx, r0 = (x ? b : b - nx) * rows, cnt = (x ? p->n : p->m) - r0;
    const double *pts = (x ? p->x : p->y) + (size_t) r0 * p->d;
    if (cnt > rows) cnt = rows;
    fl_tile_norms(pts, cnt, p->d, t->org, (x ? t->xn : t->yn) + r0);
    if (x && t->xp) fl_tile_pack_clients(pts, cnt, p->d, t->org, t->xp + (size_t) r0 * p->d);
    if (x && t->xpf) fl_tile_pack_clients_f(pts, cnt, p->d, t->org, t->xpf + (size_t) r0 * p->d);
  }
  (void) threads;
  t->direct = !all_finite(t->xn, p->n) || !all_finite(t->yn, p->m);
  return FL_OK;
}

void fl_tiles_free(fl_tiles *t)
{
  if (t->yn != t->xn) free(t->yn);
  free(t->xn);
  free(t->xp);
  free(t->xpf);
  free(t->org);
  t->xn = t->yn = t->xp = t->org = NULL;
  t->xpf = NULL;
}

size_t fl_tiles_packed_bytes(const fl_tiles *t, int mc, int d)
{
  return t->xpf ? sizeof(float) * fl_tile_packed_f(mc, d) : sizeof(double) * fl_tile_packed(mc, d);
}

void fl_tiles_pack(const fl_tiles *t, const fl_problem *p, int j0, int mc, void *yp)
{
  if (t->direct) return;
  const double *y = p->y + (size_t) j0 * p->d;
  if (t->xpf) fl_tile_pack_candidates_f(y, mc, p->d, t->org, yp);
  else fl_tile_pack_candidates(y, mc, p->d, t->org, yp);
}

void fl_tiles_block(const fl_tiles *t, const fl_problem *p, int j0, int mc, const void *yp,
                    double *out, size_t ldo, int i0, int nc)
{
  if (t->direct) {
    for (int a = 0; a < mc; a++)
      for (int i = 0; i < nc; i++) {
        double d2 = fl_sqdist(p->x + (size_t) (i0 + i) * p->d, p->y + (size_t) (j0 + a) * p->d, p->d);
        out[(size_t) a * ldo + i] = t->cosine ? fl_positive(1.0 - 0.5 * d2) : exp(-d2 * p->inv2s2);
      }
    return;
  }
  if (t->xpf)   /* the Gaussian kernel only (fl_tiles_init) */
    fl_rbf_tile_f(yp, t->yn + j0, mc, t->xpf + (size_t) i0 * p->d, t->xn + i0, nc, p->d,
                  p->inv2s2, out, ldo);
  else
    fl_rbf_tile(yp, t->yn + j0, mc, t->xp + (size_t) i0 * p->d, t->xn + i0, nc, p->d,
                p->inv2s2, t->cosine, out, ldo);
}

/* A similarity v of the single-precision tiles rounded up to single
 * precision: raised first past the double exponential's error (within 2
 * ulp of exp(), and d2 inv2s2 rounded once: relative 2^-43 at most), at
 * most 1 as every Gaussian similarity; never below the double kernel's,
 * so no f(S) on the matrix falls below the true one. */
static inline float float_above(double v)
{
  v *= 1.0 + 0x1p-40;
  v = v > 1.0 ? 1.0 : v;
  float f = (float) v;
  uint32_t bits;    /* v >= 0: the next float up is the next bit pattern */
  memcpy(&bits, &f, sizeof f);
  bits += (double) f < v;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* Where the tiled kernel's blocks go: the matrix W itself, or through a
 * thread's tile either the matrix Wf (rounded up) or the coverage cover,
 * the largest similarity of each client to any candidate. */
typedef struct {
  double *W;
  float *Wf;
  double *cover;
} fill_target;

/* Rows a < cnt of a tile of candidates j0.. by clients i0.., their
 * clients from `from` to nc, into the candidates' columns of W, or of Wf
 * rounded up. */
static void tile_rows(const double *tile, int cnt, int from, int nc, const fill_target *to,
                      size_t n, int j0, int i0)
{
  for (int a = 0; a < cnt && from < nc; a++) {
    const double *row = tile + (size_t) a * FL_TILE_CLIENTS;
    size_t at = (size_t) (j0 + a) * n + i0;
    if (to->W) memcpy(to->W + at + from, row + from, sizeof(double) * (size_t) (nc - from));
    else for (int i = from; i < nc; i++) to->Wf[at + i] = float_above(row[i]);
  }
}

static void tile_to_target(const double *tile, int mc, int nc, const fill_target *to,
                          double *cover, size_t n, int j0, int i0)
{
  if (to->Wf) {
    tile_rows(tile, mc, 0, nc, to, n, j0, i0);
    return;
  }
  for (int a = 0; a < mc; a++)
    for (int i = 0; i < nc; i++)
      if (tile[(size_t) a * FL_TILE_CLIENTS + i] > cover[i0 + i])
        cover[i0 + i] = tile[(size_t) a * FL_TILE_CLIENTS + i];
}

/* A tile of candidates j0.. (cnt) by clients i0.. (nc) into the symmetric
 * matrix (W, or Wf rounded up): the values of clients from j0 on into the
 * candidates' columns, and those of clients from j0 + cnt on mirrored into
 * the clients' own columns.  With the blocks of tiles_fill(), every value
 * is written once: (r, c) by r's block where c lies at or past it, else by
 * c's. */
static void tile_mirror(const double *tile, int cnt, int nc, const fill_target *to, size_t n,
                        int j0, int i0)
{
  tile_rows(tile, cnt, j0 > i0 ? j0 - i0 : 0, nc, to, n, j0, i0);
  /* FL_MIRROR_CLIENTS clients at a time, a tile row's run of them read
   * whole: reading the tile a column at a time, its stride of
   * FL_TILE_CLIENTS doubles maps every read to the same few cache sets,
   * and each one missed the first-level cache */
  for (int b = j0 + cnt > i0 ? j0 + cnt - i0 : 0; b < nc; b += FL_MIRROR_CLIENTS) {
    int w = nc - b < FL_MIRROR_CLIENTS ? nc - b : FL_MIRROR_CLIENTS;
    size_t at = (size_t) (i0 + b) * n + j0;
    for (int a = 0; a < cnt; a++) {
      const double *run = tile + (size_t) a * FL_TILE_CLIENTS + b;
      if (to->W) for (int i = 0; i < w; i++) to->W[at + i * n + a] = run[i];
      else for (int i = 0; i < w; i++) to->Wf[at + i * n + a] = float_above(run[i]);
    }
  }
}

/* Every candidate block against every client block, a candidate block per
 * task; a thread's coverage is merged into to->cover at the end.  Where
 * the candidates are the clients (the same points), the matrix is
 * symmetric, and a block meets only the clients from its own first
 * candidate on (rounded down to a panel): about half the work.  Each dot
 * product is a running sum over the coordinates in order, |x|^2 + |y|^2
 * adds in either order to the same bits, so s_ij and s_ji are computed
 * alike, in double as in single precision, and the mirror holds the bits
 * the whole fill would compute (the tests compare the two). */
static int tiles_fill(const fl_problem *p, int threads, int cosine, const fill_target *to)
{
  size_t n = (size_t) p->n;
  int team = fl_par_threads(threads, (double) p->n * p->m, FL_PAR_MIN_PAIRS);
  int mc = fl_tile_candidates_for(p->d, p->m, team), nb = (p->m + mc - 1) / mc, status = FL_OK;
  fl_tiles t;
  if (fl_tiles_init(&t, p, threads, to->Wf != NULL) != FL_OK) return FL_ERR_NOMEM;
  t.cosine = cosine;
  int mirror = !to->cover && p->y == p->x && p->m == p->n && !t.direct;
  int width = to->Wf ? fl_tile_width_f() : fl_tile_width();
FL_OMP(parallel num_threads(team))
  {
    void *yp = malloc(fl_tiles_packed_bytes(&t, mc, p->d));
    double *tile = to->W && !mirror ? NULL : malloc(sizeof(double) * (size_t) mc * FL_TILE_CLIENTS);
    double *cover = to->cover ? calloc(n, sizeof(double)) : NULL;
    int ok = yp && ((to->W && !mirror) || tile) && (!to->cover || cover);
    if (!ok) {
FL_OMP(atomic write)
      status = FL_ERR_NOMEM;
    }
FL_OMP(for schedule(dynamic, 1))
    for (int b = 0; b < nb; b++) {
      int j0 = b * mc, cnt = p->m - j0 < mc ? p->m - j0 : mc;
      if (ok) fl_tiles_pack(&t, p, j0, cnt, yp);
      for (int i0 = mirror ? j0 - j0 % width : 0; ok && i0 < p->n; i0 += FL_TILE_CLIENTS) {
        int nc = p->n - i0 < FL_TILE_CLIENTS ? p->n - i0 : FL_TILE_CLIENTS;
        if (to->W && !mirror) {
          fl_tiles_block(&t, p, j0, cnt, yp, to->W + (size_t) j0 * n + i0, n, i0, nc);
          continue;
        }
        fl_tiles_block(&t, p, j0, cnt, yp, tile, FL_TILE_CLIENTS, i0, nc);
        if (mirror) tile_mirror(tile, cnt, nc, to, n, j0, i0);
        else tile_to_target(tile, cnt, nc, to, cover, n, j0, i0);
      }
    }
    if (ok && cover) {
FL_OMP(critical)
      for (size_t i = 0; i < n; i++)
        if (cover[i] > to->cover[i]) to->cover[i] = cover[i];
    }
    free(yp);
    free(tile);
    free(cover);
  }
  fl_tiles_free(&t);
  return status;
}

int fl_similarity_fill(const fl_problem *p, int threads, int cosine, double *W, float *Wf)
{
  fill_target to = { W, Wf, NULL };
  return tiles_fill(p, threads, cosine, &to);
}

/* s->W, or s->Wf with single, from the points. */
static int build_matrix(fl_state *s, const fl_problem *p, int threads, int single)
{
  size_t cells = (size_t) p->n * (size_t) p->m;
  if (single) s->Wf = fl_alloc_large(cells, sizeof(float), 0);
  else s->W = fl_alloc_large(cells, sizeof(double), 0);
  if (!s->W && !s->Wf) return FL_ERR_NOMEM;
  int status = fl_similarity_fill(p, threads, 0, s->W, s->Wf);
  if (status != FL_OK) return status;
  s->p.sim = s->W;
  s->p.simf = s->Wf;
  return FL_OK;
}

double fl_objective_tiled_bytes(const fl_problem *p, int k, int threads)
{
  return 8.0 * ((double) p->ninitial + k + 1.0) * p->d + 8.0 * (threads + 1.0) * p->n;
}

int fl_objective_tiled(const fl_problem *p, const int *sel, int nsel, int threads,
                       double *value)
{
  size_t n = (size_t) p->n, d = (size_t) p->d;
  int total = p->ninitial + nsel;
  double *cover = calloc(n, sizeof(double)), *y = malloc(sizeof(double) * (total + 1) * d);
  int status = cover && y ? FL_OK : FL_ERR_NOMEM;
  for (int t = 0; status == FL_OK && t < total; t++) {
    int j = t < p->ninitial ? p->initial[t] : sel[t - p->ninitial];
    memcpy(y + t * d, p->y + (size_t) j * d, sizeof(double) * d);
  }
  fl_problem q = *p;
  q.y = y;
  q.m = total;
  fill_target to = { NULL, NULL, cover };
  if (status == FL_OK && total > 0) status = tiles_fill(&q, threads, 0, &to);
  double f = 0.0;
  for (size_t i = 0; status == FL_OK && i < n; i++) f += p->weight ? p->weight[i] * cover[i] : cover[i];
  *value = f;
  free(cover);
  free(y);
  return status;
}

int fl_state_init(fl_state *s, const fl_problem *p, int threads, int matrix)
{
  memset(s, 0, sizeof *s);
  s->p = *p;
  s->threads = threads;
  if (matrix != FL_NO_MATRIX && !fl_held(p)) {
    if (build_matrix(s, p, threads, matrix == FL_MATRIX_SINGLE) != FL_OK) {
      fl_state_free(s);
      return FL_ERR_NOMEM;
    }
    s->pairs = (double) p->n * (double) p->m;
  }
  s->cover = calloc((size_t) p->n, sizeof(double));
  s->chosen = calloc((size_t) p->m, 1);
  fl_live_init(s);
  if (!s->cover || !s->chosen) {
    fl_state_free(s);
    return FL_ERR_NOMEM;
  }
  for (int t = 0; t < p->ninitial; t++) {
    s->chosen[p->initial[t]] = 1;
    fl_cover_add(&s->p, p->initial[t], s->cover, threads);
  }
  return FL_OK;
}

void fl_state_free(fl_state *s)
{
  free(s->W);
  free(s->Wf);
  free(s->cover);
  free(s->chosen);
  fl_live_free(s);
  s->W = NULL;
  s->Wf = NULL;
  s->cover = NULL;
  s->chosen = NULL;
}

void fl_state_record(fl_state *s, int j, double gain, fl_result *res)
{
  s->chosen[j] = 1;
  res->selected[res->nselected] = j;
  res->gains[res->nselected] = gain;
  res->nselected++;
}

void fl_state_select(fl_state *s, int j, double gain, fl_result *res)
{
  fl_cover_add(&s->p, j, s->cover, s->threads);
  if (!fl_held(&s->p)) s->pairs += s->p.n;
  fl_state_record(s, j, gain, res);
}

double fl_state_objective(const fl_state *s)
{
  const double *w = s->p.weight;
  double f = 0.0;
  for (int i = 0; i < s->p.n; i++) f += w ? w[i] * s->cover[i] : s->cover[i];
  return f;
}

static int decreasing(const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x < y) - (x > y);
}

/* Quickselect: move the k largest to v[0..k-1]. */
double fl_topk_sum(double *v, int n, int k)
{
  if (k > n) k = n;
  int lo = 0, hi = n - 1;
  while (k > 0 && k < n && lo < hi) {
    double pivot = v[lo + (hi - lo) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (v[i] > pivot) i++;
      while (v[j] < pivot) j--;
      if (i <= j) {
        double t = v[i]; v[i] = v[j]; v[j] = t;
        i++; j--;
      }
    }
    if (k - 1 <= j) hi = j;
    else if (k - 1 >= i) lo = i;
    else break;
  }
  /* Added largest first, so the same values give the same bits in
   * whichever order the caller gathered them. */
  qsort(v, (size_t) (k > 0 ? k : 0), sizeof(double), decreasing);
  double sum = 0.0;
  for (int t = 0; t < k; t++) sum += v[t];
  return sum;
}

int fl_interrupted(const fl_control *c)
{
  return c->interrupted && c->interrupted(c->callback_ctx);
}

int fl_reached(const fl_control *c, double f)
{
  return c->target > 0.0 && f >= c->target;
}

int fl_bound_k(const fl_control *c, const fl_result *res)
{
  return c->target > 0.0 ? res->nselected : c->k;
}

void fl_trace(fl_result *res, int t, double bound)
{
  if (bound < res->bound_online) res->bound_online = bound;
  if (res->trace_bound) res->trace_bound[t] = res->bound_online;
}

void fl_progress(const fl_control *c, int round, int nsel, double objective)
{
  if (c->progress) c->progress(c->callback_ctx, round, nsel, objective);
}

/* For points (s_ij <= 1) no set of facilities covers more than
 * sum_i w_i; f(S) plus the k largest
 * gain bounds can exceed it where gains stay flat over k picks, so every
 * mode's bound is capped by it.  (A given
 * similarity matrix would need a pass over it for its row maxima.)
 * Stochastic greedy reports no bound (Inf). */
double fl_bound_cap(const fl_problem *p)
{
  double cap = 0.0;
  for (int i = 0; i < p->n; i++) cap += p->weight ? p->weight[i] : 1.0;
  return cap;
}
