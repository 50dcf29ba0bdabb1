/* Mode "stochastic": stochastic greedy (Mirzasoleiman et al., AAAI 2015).
 * Each step draws s = ceil((m / k) log(1 / epsilon)) of the open candidates
 * uniformly without replacement and picks the one of largest exact gain
 * (ties to the lowest index); 1 - 1/e - epsilon of the optimum in
 * expectation.  epsilon = 0 samples every open candidate: plain greedy.
 *
 * Matrix-free: from points, a gain visits only the clients it can raise.
 * Client i gains from candidate y only if ||y - x_i|| < reach_i, where
 * exp(-reach_i^2 / (2 sigma^2)) = cover_i (infinite while uncovered), and
 * the clients' balls (knn_balls.h) bound ||y - x_i|| from below, per ball
 * and per client, without touching the points.  With a given dense or
 * sparse similarity, fl_gain reads it.
 *
 * Lazy evaluations (as the paper suggests): a candidate's last computed
 * gain bounds its gain from above, so the sample is evaluated in order of
 * these bounds, a batch at a time, until the best gain found beats the
 * next bound; the pick is still the sample's best (ties to the lowest
 * index), only fewer gains are computed.
 *
 * The sample is drawn on the main thread from a generator seeded by
 * c->seed; threads split each batch of gains, each gain summed by one
 * thread in a fixed order.  The picks depend on the seed alone (the
 * number of gains computed also depends on the batch size, so on the
 * threads). */
#include <math.h>
#include <stdlib.h>
#include "exact_state.h"
#include "celf_heap.h"
#include "fl_solvers.h"
#include "dual_certify.h"
#include "knn_balls.h"
#include "kernel.h"
#include "fl_rng.h"
#include "fl_omp.h"
#include "fl_tune.h"

typedef struct {
  fl_balls b;
  double *reach;       /* n, in member order */
  double *ball_reach;  /* largest reach in each ball */
} reach_index;

static int balls_for(int n)
{
  return (int) ceil(sqrt((double) n));
}

int fl_stochastic_sample_size(int m, int k, double epsilon)
{
  if (!(epsilon > 0.0)) return m;
  double s = ceil((double) m / (double) k * log(1.0 / epsilon));
  if (s < 1.0) s = 1.0;
  return s > m ? m : (int) s;
}

double fl_stochastic_bytes(const fl_problem *p, const fl_control *c)
{
  double bytes = 12.0 * p->m + 24.0 * fl_stochastic_sample_size(p->m, c->k, c->epsilon);
  if (!p->sim && !p->sp_p)
    bytes += fl_balls_bytes(p->n, p->d, balls_for(p->n), c->threads) + 8.0 * p->n + 8.0 * balls_for(p->n);
  return bytes;
}

static void reach_free(reach_index *r)
{
  fl_balls_free(&r->b);
  free(r->reach);
  free(r->ball_reach);
}

static int reach_init(reach_index *r, const fl_problem *p, int threads)
{
  r->reach = malloc(sizeof(double) * (size_t) p->n);
  r->ball_reach = NULL;
  if (fl_balls_build(&r->b, p->x, p->n, p->d, balls_for(p->n), threads) != FL_OK) {
    free(r->reach);
    return FL_ERR_NOMEM;
  }
  r->ball_reach = malloc(sizeof(double) * (size_t) r->b.nball);
  if (!r->reach || !r->ball_reach) { reach_free(r); return FL_ERR_NOMEM; }
  return FL_OK;
}

/* Reaches from the current coverage (after every pick). */
static void reach_update(reach_index *r, const double *cover, double inv2s2,
                         int n, int threads)
{
  const fl_balls *b = &r->b;
FL_OMP(parallel for num_threads(fl_par_threads(threads, n, FL_PAR_MIN_CLIENTS)) schedule(dynamic, 16))
  for (int c = 0; c < b->nball; c++) {
    double most = 0.0;
    for (int t = b->start[c]; t < b->start[c + 1]; t++) {
      double cv = cover[b->member[t]];
      r->reach[t] = cv > 0.0 ? sqrt(-log(cv) / inv2s2) : INFINITY;
      if (r->reach[t] > most) most = r->reach[t];
    }
    r->ball_reach[c] = most;
  }
  (void) threads; (void) n;
}

/* Exact gain of candidate j; pruned clients cannot gain (up to rounding far
 * below the slack of fl_balls_beyond).  Adds the kernel evaluations. */
static double pruned_gain(const reach_index *r, const fl_problem *p, int j,
                          const double *cover, double *pairs)
{
  const fl_balls *b = &r->b;
  const double *yj = p->y + (size_t) j * p->d;
  double g = 0.0, evals = 0.0;
  for (int c = 0; c < b->nball; c++) {
    double dq = sqrt(fl_sqdist(yj, b->centre + (size_t) c * p->d, p->d));
    if (fl_balls_beyond(dq - b->radius[c], dq + b->radius[c], r->ball_reach[c])) continue;
    for (int t = b->start[c]; t < b->start[c + 1]; t++) {
      double rc = b->to_centre[t];
      if (fl_balls_beyond(fabs(dq - rc), dq + rc, r->reach[t])) continue;
      int i = b->member[t];
      double diff = fl_rbf(b->xs + (size_t) t * p->d, yj, p->d, p->inv2s2) - cover[i];
      evals += 1.0;
      if (diff > 0) g += p->weight ? p->weight[i] * diff : diff;
    }
  }
  *pairs += evals;
  return g;
}

/* Move a uniform sample of `size` entries of pool[0..npool-1] to its front
 * (partial Fisher-Yates). */
static void draw_sample(fl_rng *rng, int *pool, int npool, int size)
{
  for (int t = 0; t < size; t++) {
    int u = t + fl_rng_below(rng, npool - t);
    int tmp = pool[t]; pool[t] = pool[u]; pool[u] = tmp;
  }
}

/* Gains of the candidates e[0..size-1].idx, threads splitting them. */
static void batch_gains(fl_state *s, const reach_index *r, const fl_entry *e,
                        int size, int threads, double *gain)
{
  double pairs = 0.0;
  int team = fl_par_threads(threads, (double) size * s->p.n, FL_PAR_MIN_PAIRS);
FL_OMP(parallel for num_threads(team) schedule(dynamic, 1) reduction(+:pairs))
  for (int t = 0; t < size; t++)
    gain[t] = r ? pruned_gain(r, &s->p, e[t].idx, s->cover, &pairs)
                : fl_gain(&s->p, e[t].idx, s->cover);
  (void) team;
  s->pairs += pairs;
  s->evaluations += size;
}

static int entry_order(const void *a, const void *b)
{
  const fl_entry *x = a, *y = b;
  return fl_entry_before(*y, *x) - fl_entry_before(*x, *y);
}

/* The best of the sample pool[0..size-1] by exact gain, evaluated lazily:
 * key = gain, round = position in the pool.  ub[] holds the bounds. */
static fl_entry best_of_sample(fl_state *s, const reach_index *r, const int *pool,
                               int size, int threads, double *ub, fl_entry *order,
                               double *gain)
{
  for (int t = 0; t < size; t++) {
    order[t].key = ub[pool[t]];
    order[t].idx = pool[t];
    order[t].round = t;
  }
  qsort(order, (size_t) size, sizeof(fl_entry), entry_order);
  fl_entry best = { 0.0, -1, -1 };
  int batch = FL_LAZY_BATCH * threads;
  for (int lo = 0; lo < size; lo += batch) {
    /* every bound from here on is below the best gain: none can win or tie */
    if (best.idx >= 0 && order[lo].key < best.key) break;
    int count = size - lo < batch ? size - lo : batch;
    batch_gains(s, r, order + lo, count, threads, gain);
    for (int t = 0; t < count; t++) {
      fl_entry e = { gain[t], order[lo + t].idx, order[lo + t].round };
      ub[e.idx] = gain[t];
      if (best.idx < 0 || fl_entry_before(e, best)) best = e;
    }
  }
  return best;
}

static int run(fl_state *s, reach_index *r, const fl_control *c, int *pool,
               double *ub, fl_entry *order, double *gain, int sample, fl_result *res)
{
  const fl_problem *p = &s->p;
  int npool = 0;
  for (int j = 0; j < p->m; j++) {
    ub[j] = INFINITY;
    if (!s->chosen[j]) pool[npool++] = j;
  }
  fl_rng rng;
  fl_rng_seed(&rng, (uint64_t) c->seed);
  for (int round = 0; round < c->k && npool > 0; round++) {
    if (fl_interrupted(c)) return FL_INTERRUPTED;
    if (fl_reached(c, fl_state_objective(s))) break;
    int size = sample < npool ? sample : npool;
    draw_sample(&rng, pool, npool, size);
    if (r) reach_update(r, s->cover, p->inv2s2, p->n, c->threads);
    fl_entry best = best_of_sample(s, r, pool, size, c->threads, ub, order, gain);
    fl_state_select(s, best.idx, best.key, res);
    pool[best.round] = pool[--npool];
    fl_progress(c, round + 1, res->nselected, fl_state_objective(s));
  }
  return FL_OK;
}

int fl_solve_stochastic(const fl_problem *p, const fl_control *c, fl_result *res)
{
  fl_state s;
  if (fl_state_init(&s, p, c->threads, 0) != FL_OK) return FL_ERR_NOMEM;
  int sample = fl_stochastic_sample_size(p->m, c->k, c->epsilon);
  int *pool = malloc((size_t) p->m * sizeof(int));
  double *ub = malloc((size_t) p->m * sizeof(double));
  fl_entry *order = malloc((size_t) sample * sizeof(fl_entry));
  double *gain = malloc((size_t) sample * sizeof(double));
  reach_index index, *r = NULL;    /* from points only */
  int status = (pool && ub && order && gain) ? FL_OK : FL_ERR_NOMEM;
  if (status == FL_OK && !p->sim && !p->sp_p) {
    status = reach_init(&index, p, c->threads);
    if (status == FL_OK) r = &index;
  }
  if (status == FL_OK) status = run(&s, r, c, pool, ub, order, gain, sample, res);
  res->rounds = res->nselected;
  res->objective = fl_state_objective(&s);
  res->evaluations = s.evaluations;
  res->pairs = s.pairs;
  /* Sampling leaves most gains unseen (ub Inf), so no round has a bound;
   * with a similarity matrix the LP dual gives one (the gains last
   * computed bound the final ones). */
  if (status == FL_OK) {
    for (int j = 0; j < p->m; j++) if (s.chosen[j]) ub[j] = 0.0;
    status = fl_certify(&s, c, ub, res);
  }
  if (r) reach_free(r);
  free(pool); free(ub); free(order); free(gain);
  fl_state_free(&s);
  return status;
}
