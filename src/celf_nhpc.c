/* Generation 6 (mode nhpc): hpc with nested parallelism.  The team is cut
 * into G groups of M threads; the groups take heaps in turn (one heap in
 * all when G = 1, FL_HEAPS_PER_GROUP per group otherwise) and a group's M
 * threads split the planning and the chunks of every gain evaluation, two
 * by two, the two threads of a pair working its share from both ends.
 * Lane 0 drives the CELF chain and posts up to fl_mf_post_cap() stale
 * tops at a time, popping the next step's while its lanes start on this
 * one; the group meets at its own sense-reversing barrier once per heap
 * taken and three times per step (candidates posted; plans written;
 * partial gains written) instead of at team-wide barriers. */
#include "mf.h"
#include "fl_solvers.h"

/* One round, in one parallel region:
 *   the team cut into G groups of M threads; each group takes heaps in
 *   turn and its lanes share every evaluation step, meeting at the
 *   group's own barrier (fl_mf_team_refresh; with several heaps, two
 *   phases, the team meeting between them); a thread past the last
 *   whole group only meets the team;
 *   barrier: every heap's fresh entries are in;
 *   one thread merges and commits the picks (fl_mf_merge) and readies
 *   the post pass; the end of the single is the barrier;
 *   the fused post pass, as in hpc (fl_mf_post); the region's end is the
 *   last barrier. */
static void round_nhpc(fl_mf *r)
{
  int want = r->c->group_size;
FL_OMP(parallel num_threads(fl_mf_team(r)))
  {
    /* The team may be smaller than asked: size the groups from it. */
    int nt = fl_team_size(), tid = fl_thread_id();
    int M = want < nt ? want : nt;
    if (M < 1) M = 1;
    int G = nt / M, g = tid / M;
    fl_mf_team_refresh(r, g < G ? g : -1, tid % M, M);
FL_OMP(barrier)
FL_OMP(single)
    {
      fl_mf_merge(r);
      fl_mf_post_start(r);
    }
    fl_mf_post(r, 1, 1);
  }
}

static const fl_mf_config nhpc = { .prune = 1, .grouped = 1, .post_many = 1,
                                   .round = round_nhpc };

int fl_solve_nhpc(const fl_problem *p, const fl_control *c, fl_result *res)
{
  return fl_mf_solve(p, c, &nhpc, res);
}

double fl_bytes_nhpc(const fl_problem *p, const fl_control *c)
{
  return fl_mf_bytes(p, c, &nhpc);
}
