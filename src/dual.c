/* Minimising the LP-dual bound B(u) of facility location (see dual.h).
 *
 * Method: for the current top-k set T (the candidates of the k largest
 * c_j(u)), B restricted to T is separable in the clients: client i adds
 * a_i (u_i + sum_{j in T} max(0, w_ij - u_i)), whose minimisers are the
 * interval [m2_i, m1_i] between the second largest and the largest w_ij
 * over T (at or above lo_i).  Each step moves every u_i towards that
 * interval, u + alpha (P(u) - u), with alpha chosen by a line search on
 * the true B: FL_DUAL_TRIALS values of alpha are evaluated in one pass
 * over the columns, and the next step's first trial is twice the one
 * taken.  Why not plain subgradient steps: their length needs a target
 * (Polyak's rule) or a schedule, both of which only the optimum would
 * fix, and B oscillates under them; this direction is scaled per client
 * by its distance to its interval (the minimiser of that client's part),
 * and the line search on B itself needs no schedule, so a few steps, each
 * one pass over the candidates, already close most of the gap (the
 * figures are in inst/bench/results/certificate.csv).  The step is not a
 * subgradient step: B may stall above its minimum, but every B(u) is a
 * bound, and B only decreases (a step that does not lower it is refused
 * and the next trials are shorter).
 *
 * A step (certify counts them) that no trial lets lower B is followed by
 * up to FL_DUAL_RISES steps along the direction's rises alone, while each
 * lowers B by FL_DUAL_RAISE_GAIN of it.  Raising u never raises a c_j, so a rise
 * keeps every value computed before as a bound and evaluates only the
 * candidates that can still enter the top k (below), few of them; a step
 * that lowers some u_i evaluates about every candidate.  The falls matter
 * where k is small against the clusters (most clients covered by no
 * candidate of the top set, their u_i falling to 0); the rises where
 * clients are covered twice over by the top set, as under a wide kernel,
 * where a full step is mostly refused (its falls let the picks' own c_j
 * back into the top k).
 *
 * Lazy evaluation: c_j(u) is non-increasing in every u_i, and
 *   c_j(u') <= c_j(u) + sum_i a_i max(0, u_i - u'_i)
 * (each term rises at most by the drop of u_i), whichever way the other
 * coordinates move.  So a value computed at u stays a bound after any
 * steps once the clients' weighted drops since are added: a step that
 * only raises u keeps old values as they are, one that lowers some u_i
 * must add its drop.  Candidates sit in a heap keyed by value minus the
 * total drop when it was computed (one key order for every later u); the
 * top-k of a new u evaluates candidates in key order until the next key
 * plus the total drop is at most the k-th value found: the rest cannot
 * enter the top k.  Early steps, which lower most u_i far, evaluate about
 * every candidate; later ones far fewer.  With a budget every candidate
 * is evaluated (the knapsack orders by c_j / cost_j, which the common
 * shift does not preserve). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dual.h"
#include "celf_heap.h"
#include "exact_state.h"

typedef struct {       /* min-heap of the k largest (value, index) pairs */
  double *v;
  int *j;
  int size, cap;
} topk_heap;

typedef struct {
  const fl_dual_problem *dp;
  fl_dual_oracle *o;
  int nopen;            /* candidates not excluded */
  fl_heap h;            /* keyed by value - drop at evaluation */
  fl_entry *entries;
  double drop;          /* total weighted drop of u so far */
  int *batch;           /* nopen */
  double *vals;         /* FL_DUAL_TRIALS x nopen: values in pop order */
  double *out;          /* FL_DUAL_TRIALS x nopen: the oracle's output */
  topk_heap top[FL_DUAL_TRIALS];
  double *all;          /* nopen: every value, with a budget */
  double *pair;         /* 2 nopen: knapsack scratch */
  int *sel;             /* k: the top set of the current u */
  int nsel;
} dual_state;

/* Is (v, j) below (w, l)?  Lower values first, and among equal values the
 * higher index: the heap keeps the k largest values, the lowest indices
 * on ties, whatever the order they come in. */
static int below(double v, int j, double w, int l)
{
  return v < w || (v == w && j > l);
}

static void topk_swap(topk_heap *t, int a, int b)
{
  double v = t->v[a]; t->v[a] = t->v[b]; t->v[b] = v;
  int j = t->j[a]; t->j[a] = t->j[b]; t->j[b] = j;
}

static void topk_push(topk_heap *t, double v, int j)
{
  if (t->size < t->cap) {
    int c = t->size++;
    t->v[c] = v;
    t->j[c] = j;
    while (c > 0 && below(t->v[c], t->j[c], t->v[(c - 1) / 2], t->j[(c - 1) / 2])) {
      topk_swap(t, c, (c - 1) / 2);
      c = (c - 1) / 2;
    }
    return;
  }
  if (t->cap == 0 || below(v, j, t->v[0], t->j[0])) return;
  t->v[0] = v;
  t->j[0] = j;
  for (int p = 0;;) {
    int c = 2 * p + 1;
    if (c >= t->size) break;
    if (c + 1 < t->size && below(t->v[c + 1], t->j[c + 1], t->v[c], t->j[c])) c++;
    if (!below(t->v[c], t->j[c], t->v[p], t->j[p])) break;
    topk_swap(t, c, p);
    p = c;
  }
}

/* Sum of the k largest, added largest first so that the same values give
 * the same bits in any order of evaluation. */
static double topk_sum(topk_heap *t, double *scratch)
{
  memcpy(scratch, t->v, (size_t) t->size * sizeof(double));
  return fl_topk_sum(scratch, t->size, t->size);
}

double fl_dual_weighted_sum(const fl_dual_problem *dp, const double *u)
{
  double s = 0.0;
  for (int i = 0; i < dp->n; i++) s += dp->weight ? dp->weight[i] * u[i] : u[i];
  return s;
}

static int by_ratio_desc(const void *a, const void *b)
{
  const double *x = a, *y = b;
  return (x[0] < y[0]) - (x[0] > y[0]);
}

/* The fractional knapsack of values v[r] of candidates js[r] at costs. */
static double knapsack(const dual_state *st, const int *js, const double *v, int cnt)
{
  const fl_dual_problem *dp = st->dp;
  for (int r = 0; r < cnt; r++) {
    st->pair[2 * r] = v[r] > 0.0 ? v[r] / dp->cost[js[r]] : 0.0;
    st->pair[2 * r + 1] = dp->cost[js[r]];
  }
  qsort(st->pair, (size_t) cnt, 2 * sizeof(double), by_ratio_desc);
  double left = dp->budget, sum = 0.0;
  for (int r = 0; r < cnt && left > 0.0 && st->pair[2 * r] > 0.0; r++) {
    double take = st->pair[2 * r + 1] < left ? st->pair[2 * r + 1] : left;
    sum += st->pair[2 * r] * take;
    left -= take;
  }
  return sum;
}

static void top_reset(dual_state *st, int nu)
{
  for (int q = 0; q < nu; q++) st->top[q].size = 0;
}

/* B at the nu points u[q] (whose drops from the current u are shift[q])
 * into b[q]; the candidates evaluated are popped off the heap into
 * h.a[h.size..], their values in vals (q-major, in pop order).  Returns
 * the count popped, or -1 on failure. */
static int evaluate(dual_state *st, const double *const *u, const double *shift, int nu,
                    double *b)
{
  const fl_dual_problem *dp = st->dp;
  fl_heap *h = &st->h;
  int k = dp->k, lazy = !dp->cost, popped = 0;
  top_reset(st, nu);
  while (h->size > 0) {
    if (lazy && popped >= k) {
      int done = 1;
      for (int q = 0; q < nu && done; q++)
        done = st->top[q].size == st->top[q].cap &&
          h->a[0].key + st->drop + shift[q] < st->top[q].v[0];
      if (done) break;
    }
    /* batches grow with the count popped: a few more evaluations than
     * needed, in few oracle calls */
    int want = lazy ? (popped < k ? k : popped / 2) : h->size;
    if (want < 8 * dp->threads) want = 8 * dp->threads;
    int cnt = 0;
    while (cnt < want && h->size > 0) {
      fl_entry e = fl_heap_pop(h);
      h->a[h->size] = e;
      st->batch[cnt++] = e.idx;
    }
    if (st->o->values(st->o, st->batch, cnt, u, nu, st->out) != FL_OK) return -1;
    st->o->evaluations += cnt;
    for (int q = 0; q < nu; q++) {
      const double *v = st->out + (size_t) q * cnt;
      memcpy(st->vals + (size_t) q * st->nopen + popped, v, (size_t) cnt * sizeof(double));
      for (int r = 0; r < cnt; r++) topk_push(&st->top[q], v[r], st->batch[r]);
    }
    popped += cnt;
  }
  /* each pop left its entry in the slot it freed, the last popped first:
   * reversed, h->a[h->size + r] is the r-th popped, as in vals */
  for (int lo = h->size, hi = h->size + popped - 1; lo < hi; lo++, hi--) {
    fl_entry e = h->a[lo]; h->a[lo] = h->a[hi]; h->a[hi] = e;
  }
  for (int r = 0; r < popped; r++) st->batch[r] = h->a[h->size + r].idx;
  for (int q = 0; q < nu; q++) {
    b[q] = fl_dual_weighted_sum(dp, u[q]) + topk_sum(&st->top[q], st->all);
    if (dp->cost) {
      double ks = knapsack(st, st->batch, st->vals + (size_t) q * st->nopen, popped);
      if (fl_dual_weighted_sum(dp, u[q]) + ks < b[q]) b[q] = fl_dual_weighted_sum(dp, u[q]) + ks;
    }
  }
  return popped;
}

/* Push the popped entries back, keyed by their values at point q (q < 0:
 * unchanged), and keep q's top set. */
static void settle(dual_state *st, int popped, int q)
{
  fl_heap *h = &st->h;
  if (q >= 0) {
    const double *v = st->vals + (size_t) q * st->nopen;
    for (int r = 0; r < popped; r++) h->a[h->size + r].key = v[r] - st->drop;
    st->nsel = st->top[q].size;
    memcpy(st->sel, st->top[q].j, (size_t) st->nsel * sizeof(int));
  }
  int all = h->size + popped;
  if (popped > all / 8) {
    fl_heap_build(h, h->a, all);
  } else {
    while (h->size < all) fl_heap_push(h, h->a[h->size]);
  }
}

static int state_init(dual_state *st, const fl_dual_problem *dp, fl_dual_oracle *o,
                      const double *ub0)
{
  memset(st, 0, sizeof *st);
  st->dp = dp;
  st->o = o;
  for (int j = 0; j < dp->m; j++) st->nopen += !(dp->skip && dp->skip[j]);
  size_t m = (size_t) (st->nopen > 0 ? st->nopen : 1), k = (size_t) (dp->k > 0 ? dp->k : 1);
  st->entries = malloc(m * sizeof(fl_entry));
  st->batch = malloc(m * sizeof(int));
  st->vals = malloc(FL_DUAL_TRIALS * m * sizeof(double));
  st->out = malloc(FL_DUAL_TRIALS * m * sizeof(double));
  st->all = malloc((m > k ? m : k) * sizeof(double));
  st->pair = dp->cost ? malloc(2 * m * sizeof(double)) : NULL;
  st->sel = malloc(k * sizeof(int));
  int ok = st->entries && st->batch && st->vals && st->out && st->all && st->sel && (!dp->cost || st->pair);
  for (int q = 0; q < FL_DUAL_TRIALS; q++) {
    st->top[q].v = malloc(k * sizeof(double));
    st->top[q].j = malloc(k * sizeof(int));
    st->top[q].cap = dp->k < st->nopen ? dp->k : st->nopen;
    ok = ok && st->top[q].v && st->top[q].j;
  }
  if (!ok) return FL_ERR_NOMEM;
  int c = 0;
  for (int j = 0; j < dp->m; j++) {
    if (dp->skip && dp->skip[j]) continue;
    fl_entry e = { ub0 ? ub0[j] : INFINITY, j, 0 };
    st->entries[c++] = e;
  }
  fl_heap_build(&st->h, st->entries, st->nopen);
  return FL_OK;
}

static void state_free(dual_state *st)
{
  free(st->entries); free(st->batch); free(st->vals); free(st->out); free(st->all); free(st->pair);
  free(st->sel);
  for (int q = 0; q < FL_DUAL_TRIALS; q++) { free(st->top[q].v); free(st->top[q].j); }
}

/* dir = P(u) - u for the top set, with floor = lo (or 0); returns the
 * weighted drop of a full step (alpha = 1), or -1 on failure. */
static double direction(dual_state *st, const double *u, const double *floor, double *t,
                        double *dir, double *m1, double *m2)
{
  const fl_dual_problem *dp = st->dp;
  for (int i = 0; i < dp->n; i++) {
    double f = dp->prune * u[i];
    t[i] = m1[i] = m2[i] = f > floor[i] ? f : floor[i];
  }
  if (st->o->top_two(st->o, st->sel, st->nsel, t, m1, m2) != FL_OK) return -1.0;
  double drop = 0.0;
  for (int i = 0; i < dp->n; i++) {
    double target = u[i] > m1[i] ? m1[i] : u[i] < m2[i] ? m2[i] : u[i];
    dir[i] = target - u[i];
    if (dir[i] < 0.0) drop += dp->weight ? dp->weight[i] * -dir[i] : -dir[i];
  }
  return drop;
}

typedef struct {
  double *dir, *m1, *m2, *floor, *t, *trial;
} search_space;

static int space_init(search_space *w, const fl_dual_problem *dp)
{
  size_t n = (size_t) (dp->n > 0 ? dp->n : 1);
  w->dir = malloc(n * sizeof(double));
  w->m1 = malloc(n * sizeof(double));
  w->m2 = malloc(n * sizeof(double));
  w->floor = calloc(n, sizeof(double));
  w->t = malloc(n * sizeof(double));
  w->trial = malloc(FL_DUAL_TRIALS * n * sizeof(double));
  if (!w->dir || !w->m1 || !w->m2 || !w->floor || !w->t || !w->trial) return FL_ERR_NOMEM;
  if (dp->lo) memcpy(w->floor, dp->lo, (size_t) dp->n * sizeof(double));
  return FL_OK;
}

static void space_free(search_space *w)
{
  free(w->dir); free(w->m1); free(w->m2); free(w->floor); free(w->t); free(w->trial);
}

/* One step from u (B(u) = *best), along the direction's rises alone when
 * `raise`: returns 1 if it lowered B, 0 if not, -1 on failure; *alpha is
 * the next first trial, *drop the full step's drop (the direction
 * recomputed when *drop < 0: both kinds of step share it). */
static int step(dual_state *st, search_space *w, double *u, double *best, double *alpha,
                double *drop, int raise)
{
  size_t n = (size_t) st->dp->n;
  if (*drop < 0.0) {
    *drop = direction(st, u, w->floor, w->t, w->dir, w->m1, w->m2);
    if (*drop < 0.0) return -1;
  }
  double fall = raise ? 0.0 : *drop;
  const double *pts[FL_DUAL_TRIALS];
  double shift[FL_DUAL_TRIALS], b[FL_DUAL_TRIALS];
  for (int q = 0; q < FL_DUAL_TRIALS; q++) {
    double a = *alpha / (double) (1 << q), *t = w->trial + q * n;
    for (size_t i = 0; i < n; i++)
      t[i] = u[i] + a * (raise && w->dir[i] < 0.0 ? 0.0 : w->dir[i]);
    pts[q] = t;
    shift[q] = a * fall;
  }
  int popped = evaluate(st, pts, shift, FL_DUAL_TRIALS, b);
  if (popped < 0) return -1;
  int q = 0;     /* the longest step that lowers B */
  while (q < FL_DUAL_TRIALS - 1 && !(b[q] < *best)) q++;
  if (!(b[q] < *best)) {
    settle(st, popped, -1);
    *alpha /= (double) (1 << FL_DUAL_TRIALS);
    return 0;
  }
  st->drop += shift[q];
  settle(st, popped, q);
  memcpy(u, pts[q], n * sizeof(double));
  *best = b[q];
  *alpha = 2.0 * *alpha / (double) (1 << q);
  if (*alpha > 1.0) *alpha = 1.0;
  *drop = -1.0;      /* a new u, a new direction */
  return 1;
}

static int search(dual_state *st, double *u, fl_dual_result *out)
{
  const fl_dual_problem *dp = st->dp;
  search_space w;
  int status = space_init(&w, dp);
  double b0 = INFINITY, zero = 0.0;
  const double *here = u;
  if (status == FL_OK) {
    int popped = evaluate(st, &here, &zero, 1, &b0);
    if (popped < 0) status = FL_ERR_NOMEM;
    else settle(st, popped, 0);
  }
  /* the first trials of full steps and of rises */
  double best = out->start = b0, alpha[2] = { 1.0, 1.0 }, drop = -1.0;
  int it = 1;
  for (; it <= dp->iterations && status == FL_OK && !(best <= dp->enough); it++) {
    if (dp->interrupted && dp->interrupted(dp->callback_ctx)) {
      status = FL_INTERRUPTED;
      break;
    }
    double before = best;
    int moved = step(st, &w, u, &best, &alpha[0], &drop, 0);
    if (moved < 0) status = FL_ERR_NOMEM;
    /* refused: rises, while each lowers B by FL_DUAL_RAISE_GAIN of it */
    for (int r = 0; moved == 0 && r < FL_DUAL_RISES; r++) {
      double last = best;
      int rose = step(st, &w, u, &best, &alpha[1], &drop, 1);
      if (rose < 0) status = FL_ERR_NOMEM;
      if (rose <= 0 || last - best < FL_DUAL_RAISE_GAIN * last) break;
    }
    if (best < before) out->steps = it;
    if (out->trace) out->trace[it] = best;
    /* stalled, or no step short enough helps */
    if ((best < before && before - best <= FL_DUAL_TOL * before) || alpha[0] < FL_DUAL_TOL) break;
  }
  if (out->trace) {
    out->trace[0] = b0;
    for (; it <= dp->iterations; it++) out->trace[it] = best;
  }
  out->bound = best;
  space_free(&w);
  return status;
}

int fl_dual_minimise(const fl_dual_problem *dp, fl_dual_oracle *o, const double *u0,
                     const double *ub0, fl_dual_result *out)
{
  out->bound = out->start = INFINITY;
  out->steps = 0;
  dual_state st;
  double *u = malloc((size_t) (dp->n > 0 ? dp->n : 1) * sizeof(double));
  int status = u ? state_init(&st, dp, o, ub0) : FL_ERR_NOMEM;
  if (status == FL_OK) {
    memcpy(u, u0, (size_t) dp->n * sizeof(double));
    status = search(&st, u, out);
  }
  if (u) state_free(&st);
  free(u);
  return status;
}

double fl_dual_bytes(const fl_problem *p)
{
  /* per client: u, the direction, m1, m2, the floors, t, the trials, lo;
   * per candidate: the heap entries, the batch, values and the oracle's
   * output for every trial, scratch and the solvers' keys, the knapsack's
   * pairs, skip */
  double n = p->n, m = p->m;
  /* and the matrix-free oracle's packed clients and norms (mf_dual.c) */
  double packed = p->x && !p->sim && !p->sp_p ? 8.0 * (((double) p->d + 1.0) * n + m + p->d) : 0.0;
  return packed + (8.0 + 2.0 * FL_DUAL_TRIALS) * 8.0 * n +
    (16.0 + 4.0 + 16.0 * FL_DUAL_TRIALS + 16.0 + (p->cost ? 16.0 : 0.0) + 1.0) * m;
}

int fl_dual_value(const fl_dual_problem *dp, fl_dual_oracle *o, const double *u,
                  double *value)
{
  fl_dual_problem one = *dp;
  one.iterations = 0;
  fl_dual_result r = { 0 };
  int status = fl_dual_minimise(&one, o, u, NULL, &r);
  *value = r.bound;
  return status;
}
