/* How the lanes of a group share an evaluation step: a pair's runs cut
 * by the lanes' measured speeds.  The vCPUs of a shared machine run at
 * different speeds for minutes at a time (other tenants; measured:
 * inst/bench/results/tunables.md, FL_BALANCE_GAIN); with even shares the
 * lanes on faster ones waited for the slowest at every step.  Every lane
 * records, for the plans and for the client visits, the share of the step
 * it took, the seconds it took and the work in them; the next step moves
 * each lane's share FL_BALANCE_GAIN of the way to the one that would have
 * made the lanes finish together (share over seconds, normalised), unless
 * the step had less work than `least` (mostly the clock and the caches
 * then), and gives every lane at least FL_BALANCE_FLOOR / M; a pair's run
 * is its two lanes' shares.  The split changes no result: a candidate's
 * plan and partial gains have the same bits whichever lane makes them. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <limits.h>
#include "mf.h"


/* The even runs of lane's pair in a group of M. */
fl_share fl_pair_even(int lane, int M)
{
  fl_cut c = { (double) fl_pair_front(lane) / M, (double) fl_pair_next(lane, M) / M };
  fl_share sh = { c, c };
  return sh;
}




void fl_claims_reset(const fl_mf *r, int base, int M)
{
  for (int l = 0; l + 1 < M; l += 2) {   /* the pairs' fronts */
    fl_units *c = fl_pair_claims(r, base + l);
    c[0] = c[1] = 0;
  }
}

/* Thread tid's record of phase `phase` in the step of parity `parity`. */
static double *lane_rec(const fl_mf *r, int tid, int parity, int phase)
{
  return r->lanes + (size_t) tid * fl_mf_lane_stride() + (size_t) (2 * parity + phase) * FL_LANE_REC;
}

/* Where lane l's share of the group of M (threads base..base + M - 1)
 * starts, from their records of `phase` in slot `parity`: even until
 * every lane has one. */
static double balanced_cut(const fl_mf *r, int base, int M, int l, int phase, int parity,
                           double least)
{
  if (l <= 0) return 0.0;
  if (l >= M) return 1.0;
  double speed = 0.0, work = 0.0, below = 0.0, all = 0.0;
  for (int i = 0; i < M; i++) {
    const double *rec = lane_rec(r, base + i, parity, phase);
    if (rec[0] <= 0.0 || rec[1] <= 0.0) return (double) l / M;
    speed += rec[0] / rec[1];
    work += rec[2];
  }
  for (int i = 0; i < M; i++) {
    const double *rec = lane_rec(r, base + i, parity, phase);
    double g = work < least * M ? rec[0]
      : (1.0 - FL_BALANCE_GAIN) * rec[0] + FL_BALANCE_GAIN * rec[0] / rec[1] / speed;
    if (g < FL_BALANCE_FLOOR / M) g = FL_BALANCE_FLOOR / M;
    all += g;
    below += i < l ? g : 0.0;
  }
  return below / all;
}

/* The runs of the pair of lane (at thread tid) in its group of M. */
fl_share fl_pair_share(const fl_mf *r, int tid, int lane, int M, int parity)
{
  int base = tid - lane, front = fl_pair_front(lane), next = fl_pair_next(lane, M);
  fl_share sh = {
    { balanced_cut(r, base, M, front, FL_PHASE_PLANS, parity, FL_BALANCE_PLANS),
      balanced_cut(r, base, M, next, FL_PHASE_PLANS, parity, FL_BALANCE_PLANS) },
    { balanced_cut(r, base, M, front, FL_PHASE_VISITS, parity, FL_BALANCE_VISITS),
      balanced_cut(r, base, M, next, FL_PHASE_VISITS, parity, FL_BALANCE_VISITS) } };
  return sh;
}

/* This lane's record of a step into the slot the next step reads, while
 * the other lanes may still read this step's. */
void fl_note_lane(fl_mf *r, int tid, int parity, const fl_lane_step *step)
{
  for (int phase = FL_PHASE_PLANS; phase <= FL_PHASE_VISITS; phase++) {
    double *rec = lane_rec(r, tid, 1 - parity, phase);
    rec[0] = step[phase].share;
    rec[1] = step[phase].secs > 1e-9 ? step[phase].secs : 1e-9;
    rec[2] = step[phase].work;
  }
}
