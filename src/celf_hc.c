/* Generation 4 (mode hc): hierarchical CELF without W.  Per-thread heaps
 * (FL_HEAPS_PER_GROUP per thread, taken in turn), each refreshed by one
 * thread against the cluster bounds; the round's picks are merged
 * serially, then the coverage update and the cluster summary refresh run
 * as two separate parallel passes: three parallel regions a round.  No
 * pruning: every client stays in every evaluation. */
#include "mf.h"
#include "fl_solvers.h"

/* One round, in order:
 *   region 1: every thread refreshes its own heaps (fl_mf_team_refresh;
 *             with several heaps, two phases, the team meeting between
 *             them); the region's end is the barrier;
 *   serial:   the round's picks merged and committed (fl_mf_merge);
 *   region 2: the picks' coverage raised, chunk by chunk (fl_mf_post);
 *   region 3: the cluster summaries refreshed, chunk by chunk. */
static void round_hc(fl_mf *r)
{
FL_OMP(parallel num_threads(fl_mf_team(r)))
  fl_mf_team_refresh(r, fl_thread_id(), 0, 1);
  fl_mf_merge(r);
  fl_mf_post_start(r);
FL_OMP(parallel num_threads(fl_mf_team(r)))
  fl_mf_post(r, 1, 0);
  fl_mf_post_start(r);
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
