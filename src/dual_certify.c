/* The final bound of the solvers that hold the similarity (a matrix they
 * built, or one given dense or sparse): the LP dual of dual.h from the
 * final coverage, its first evaluation the lazy refresh of the keys the
 * solve left (which alone gives f(S) + the k largest marginal gains). */
#include <math.h>
#include <stdlib.h>
#include "dual_certify.h"
#include "dual_start.h"
#include "dual.h"
#include "fl_omp.h"
#include "fl_solvers.h"

/* The LP dual of s's problem for k picks: dp, its oracle, lo and skip
 * (the initial facilities' coverage and columns, freed by dual_free). */
typedef struct {
  fl_dual_problem dp;
  fl_dual_oracle o;
  fl_dual_exact ctx;
  double *lo;
  unsigned char *skip;
} dual_setup;

static void dual_free(dual_setup *d)
{
  free(d->lo);
  free(d->skip);
}

static int dual_init(dual_setup *d, const fl_state *s, int k, int iterations)
{
  const fl_problem *p = &s->p;
  d->lo = p->ninitial ? calloc((size_t) p->n, sizeof(double)) : NULL;
  d->skip = p->ninitial ? calloc((size_t) p->m, 1) : NULL;
  if (p->ninitial && (!d->lo || !d->skip)) {
    dual_free(d);
    return FL_ERR_NOMEM;
  }
  for (int t = 0; t < p->ninitial; t++) {
    fl_cover_add(p, p->initial[t], d->lo, s->threads);
    d->skip[p->initial[t]] = 1;
  }
  fl_dual_problem dp = { 0 };
  dp.n = p->n;
  dp.m = p->m;
  dp.k = k;
  dp.weight = p->weight;
  dp.lo = d->lo;
  dp.skip = d->skip;
  dp.cost = p->cost;
  dp.budget = p->budget;
  dp.threads = s->threads;
  dp.iterations = iterations;
  d->dp = dp;
  fl_dual_oracle_exact(&d->o, &d->ctx, p, s->threads);
  return FL_OK;
}

int fl_certify_dual(fl_dual_problem *dp, fl_dual_oracle *o, const double *u0,
                    const double *ub0, const fl_control *c, fl_result *res)
{
  double start = fl_wtime();
  dp->iterations = c->certify;
  dp->enough = c->certify_goal > 0.0 ? res->objective / c->certify_goal : 0.0;
  dp->interrupted = c->interrupted;
  dp->callback_ctx = c->callback_ctx;
  fl_dual_result r = { 0 };
  r.trace = res->dual_trace;
  int status = fl_dual_minimise(dp, o, u0, ub0, &r);
  if (status != FL_ERR_NOMEM) {
    if (r.bound < res->bound_dual) res->bound_dual = r.bound;
    res->dual_steps = r.steps;
    /* B(u0) = f(S) + the k largest final gains: the online bound of the
     * last round with its stale keys refreshed */
    if (r.start < res->bound_online) res->bound_online = r.start;
  }
  res->bound_evaluations += o->evaluations;
  res->bound_seconds += fl_wtime() - start;
  return status;
}

/* Has the bound proved the goal of the default effort? */
static int goal_met(const fl_control *c, const fl_result *res)
{
  double bound = res->bound_dual < res->bound_online ? res->bound_dual : res->bound_online;
  return c->certify_goal > 0.0 && res->objective >= c->certify_goal * bound;
}

/* For the exact solvers and stochastic greedy on a similarity.  B at the
 * final coverage first, lazily from the keys (ub0): where it
 * proves the goal, or no step is asked for, that is all.  Else the steps
 * start from the prefix of the picks where B is lowest (dual_start.c), or
 * from the final coverage again where no prefix is lower.  Without a
 * budget: the knapsack's bound is not a sum of the k largest. */
int fl_certify(const fl_state *s, const fl_control *c, const double *ub0, fl_result *res)
{
  if (!fl_held(&s->p)) return FL_OK;    /* no oracle: bound_dual stays Inf */
  dual_setup d;
  if (dual_init(&d, s, fl_bound_k(c, res), c->certify) != FL_OK) return FL_ERR_NOMEM;
  fl_control first = *c;
  first.certify = 0;
  int prefixes = c->certify > 0 && !s->p.cost && res->nselected >= 2;
  int status = fl_certify_dual(&d.dp, &d.o, s->cover, ub0, prefixes ? &first : c, res);
  if (status == FL_OK && prefixes && goal_met(c, res)) {
    for (int t = 1; res->dual_trace && t <= c->certify; t++)
      res->dual_trace[t] = res->dual_trace[0];   /* as fl_dual_minimise fills it */
  } else if (status == FL_OK && prefixes) {
    double start = fl_wtime(), *u = NULL, *ub = NULL;
    d.o.evaluations = 0.0;   /* counted; the next call counts the prefixes' with its own */
    status = fl_dual_prefix_start(&d.dp, &d.o, &s->p, res->selected, res->nselected,
                                  res->bound_dual, s->threads, &u, &ub);
    res->bound_seconds += fl_wtime() - start;
    if (status == FL_OK)
      status = fl_certify_dual(&d.dp, &d.o, u ? u : s->cover, u ? ub : ub0, c, res);
    free(u);
    free(ub);
  }
  dual_free(&d);
  return status;
}

int fl_dual_at(const fl_problem *p, int k, int threads, const double *u, double *value)
{
  fl_state s;
  if (fl_state_init(&s, p, threads, 1) != FL_OK) return FL_ERR_NOMEM;
  dual_setup d;
  int status = dual_init(&d, &s, k, 0);
  if (status == FL_OK) {
    status = fl_dual_value(&d.dp, &d.o, u, value);
    dual_free(&d);
  }
  fl_state_free(&s);
  return status;
}

int fl_bound(const fl_problem *p, const int *sel, int nsel, const fl_control *c,
             fl_result *res)
{
  res->objective = res->evaluations = res->pairs = res->bound_evaluations = 0.0;
  res->bound = res->bound_online = res->bound_dual = INFINITY;
  res->bound_seconds = 0.0;
  res->dual_steps = res->nselected = res->rounds = 0;
  if (c->k < 1 || c->threads < 1 || c->certify < 0) return FL_ERR_ARG;
  fl_state s;
  if (fl_state_init(&s, p, c->threads, fl_matrix_of(c)) != FL_OK) return FL_ERR_NOMEM;
  for (int t = 0; t < nsel; t++) {
    s.chosen[sel[t]] = 1;
    fl_cover_add(&s.p, sel[t], s.cover, s.threads);
  }
  res->objective = fl_state_objective(&s);
  res->pairs = s.pairs;
  int status = s.Wf ? fl_objective_tiled(p, sel, nsel, c->threads, &res->objective) : FL_OK;
  if (status == FL_OK) status = fl_certify(&s, c, NULL, res);
  res->bound = res->bound_dual < res->bound_online ? res->bound_dual : res->bound_online;
  if (p->x && !p->sim && !p->sp_p && fl_bound_cap(p) < res->bound) res->bound = fl_bound_cap(p);
  if (res->bound < res->objective) res->bound = res->objective;
  fl_state_free(&s);
  return status;
}
