/* Generation 4 (mode hc): hierarchical CELF without W.  Per-thread heaps
 * (FL_HEAPS_PER_GROUP per thread, taken in turn), each refreshed by one
 * thread against the cluster bounds; the round's picks are merged
 * serially, then the coverage update and the cluster summary refresh run
 * as two separate parallel passes: three parallel regions a round.  No
 * pruning: every client stays in every evaluation. */
#include "fl_mf.h"
#include "fl_solvers.h"

static void round_hc(fl_mf *r)
{
FL_OMP(parallel num_threads(fl_mf_team(r)))
  fl_mf_refresh_heaps(r, fl_thread_id(), 0, 1);
  fl_mf_merge(r);
FL_OMP(parallel num_threads(fl_mf_team(r)))
  fl_mf_post(r, 1, 0);
FL_OMP(parallel num_threads(fl_mf_team(r)))
  fl_mf_post(r, 0, 1);
}

static const fl_mf_config hc = { .prune = 0, .grouped = 0, .post_many = 0, .round = round_hc };

int fl_solve_hc(const fl_problem *p, const fl_control *c, fl_result *res)
{
  return fl_mf_solve(p, c, &hc, res);
}

double fl_bytes_hc(const fl_problem *p, const fl_control *c)
{
  return fl_mf_bytes(p, c, &hc);
}
