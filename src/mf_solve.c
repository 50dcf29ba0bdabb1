/* The driver of the matrix-free generations (hc, hpc, nhpc): it
 * allocates, runs every candidate's first evaluation, loops the
 * generation's rounds and certifies the bound.  What a generation does in
 * a round is its own (fl_mf_config.round, in celf_hc.c, celf_hpc.c,
 * celf_nhpc.c); everything else is here and in the mf_*.c units.
 *
 * Candidates are dealt to heaps in turn, one max-heap each.  Keys start as
 * a common upper bound, so every candidate is evaluated once before the
 * first pick: the whole team does that first, each thread evaluating its
 * own candidates, and the heaps start from those gains.  An evaluation
 * visits only the leaf clusters whose bound (or estimated mass) is not
 * negligible beside eps times the last gain, and not most likely covered
 * (a coarse evaluation; the picks are evaluated finely, see FL_TIE).  A
 * round lets every heap yield its `batch` best fresh entries (evaluated
 * against the round's coverage), merges them and commits them in order
 * while each one's gain is certified to be at most eps stale; the
 * post-selection pass then raises the coverage, measures each pick's true
 * marginal gain, prunes and refreshes the cluster summaries.  ub[j] keeps
 * a certified upper bound on each candidate's gain (evaluated part +
 * bounds of what was skipped or pruned), which gives the `bound` of the
 * result after a final lazy refinement of the k largest, and the online
 * bound of each round and the LP dual of mf_dual.c. */
#include <string.h>
#include <math.h>
#include "mf.h"
#include "exact_state.h"

static int solve_rounds(fl_mf *r, const fl_control *c, fl_result *res, double f)
{
  r->round_work = HUGE_VAL;   /* the first round on a full team */
  for (int round = 0; r->nselected < r->k; round += r->npick > 0) {
    if (fl_interrupted(c)) return FL_INTERRUPTED;
    fl_mf_online(r, res, f);
    if (fl_reached(c, f)) break;
    fl_mf_round_start(r, round);
    double pairs = fl_mf_pairs(r);
    r->cfg->round(r);
    r->round_work = fl_mf_pairs(r) - pairs + r->cl.n;
    if (r->npick == 0) {
      if (r->again) continue;
      break;
    }
    fl_clusters_reduce(&r->cl);
    double last = fl_mf_record_picks(r, res);
    if (res->nselected == r->npick) r->first_gain = res->gains[0];
    fl_clusters_own(&r->cl, r->pick, r->npick);
    for (int q = res->nselected - r->npick; q < res->nselected; q++) f += res->gains[q];
    /* skip clusters that cannot add eps of the gain the last pick made */
    r->thresh = r->exact_tail ? 0.0 : c->eps * last;
    res->rounds = round + 1;
    int status = r->deferred && r->nselected < r->k ? fl_mf_deferred_gains(r, round + 1) : FL_OK;
    if (status != FL_OK) return status;
    fl_progress(c, round + 1, res->nselected, f);
  }
  return FL_OK;
}

/* The certified bound: f(S) plus the refined k largest gain bounds, at
 * most bound0 (the bound before any pick) and at least f(S); the
 * refinement's work and time go to the result's bound_* fields, and f(S)
 * plus its sum is the online bound of the final set. */
static double final_bound(fl_mf *r, const fl_control *c, fl_result *res, double bound0)
{
  double start = fl_wtime(), objective = res->objective;
  /* a default call: a share of the solve's kernel evaluations, at least
   * FL_REFINE_PER_PICK k + FL_REFINE_EXTRA evaluations' worth; with LP-dual
   * steps to take, every top made fresh here, faster than the dual's own
   * oracle */
  double pairs = fl_mf_pairs(r), budget = FL_BOUND_EFFORT * pairs;
  double least = (FL_REFINE_PER_PICK * r->k + FL_REFINE_EXTRA) * pairs / r->cl.m;
  if (budget < least) budget = least;
  if (c->certify > 0) budget = HUGE_VAL;
  int evaluated;
  double top = fl_mf_refined_topk(r, budget, &evaluated);
  fl_trace(res, r->nselected, objective + top);
  res->bound_evaluations += evaluated;
  res->bound_seconds += fl_wtime() - start;
  double bound = objective + top;
  if (bound > bound0) bound = bound0;
  return bound < objective ? objective : bound;
}

static void count_work(const fl_mf *r, fl_result *res)
{
  res->pairs = r->cl.pairs + fl_mf_pairs(r);
  res->evaluations = 0.0;
  for (int t = 0; t < r->c->threads; t++) res->evaluations += r->tcount[(size_t) t * FL_MF_PAD + 1];
}

int fl_mf_solve(const fl_problem *p, const fl_control *c, const fl_mf_config *g,
                fl_result *res)
{
  if (!p->x || !p->y || p->d < 1) return FL_ERR_ARG;
  fl_mf r;
  memset(&r, 0, sizeof r);
  r.c = c;
  r.cfg = g;
  r.k = c->k;
  r.batch = fl_mf_batch_size(c);
  r.nheaps = fl_mf_heap_count(g, c);
  int status = fl_clusters_init(&r.cl, p, c, g->prune);
  if (status != FL_OK) return status;
  if (fl_mf_alloc(&r) != FL_OK) {
    fl_mf_free(&r);
    return FL_ERR_NOMEM;
  }
  int nopen;
  double bound0 = fl_mf_setup_heaps(&r, p, &nopen);
  status = fl_mf_first_gains(&r, nopen, p->ninitial > 0);
  if (status == FL_OK) status = solve_rounds(&r, c, res, fl_clusters_objective(&r.cl));
  res->objective = fl_clusters_objective(&r.cl);
  count_work(&r, res);
  if (status == FL_OK) {
    r.k = fl_bound_k(c, res);   /* a bound for sets of the size selected */
    res->bound = final_bound(&r, c, res, bound0);
  }
  if (status == FL_OK) status = fl_mf_certify(&r, p, c, res);
  fl_mf_free(&r);
  return status;
}
