/* The lazy heaps of the matrix-free generations: a group's leader pops
 * stale tops and posts them for evaluation until its heap yields the
 * round's fresh entries; with several heaps, a round runs in two phases
 * (a quota each, then the heaps whose tops can still beat the batch-th
 * best fresh entry), and the lead of the first phase is evaluated finely
 * by the whole team between them. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <limits.h>
#include "mf.h"

/* Is heap entry e fresh with a coarse gain, keyed up by FL_TIE? */
static int coarse_fresh(const fl_mf *r, fl_entry e)
{
  return e.round == r->round && r->refine && r->fine_round[e.idx] != r->round &&
    r->settle_round[e.idx] != r->round;
}

/* The leader of a group of several lanes pops the tops the next step
 * will most likely post (up to `count`) while its lanes start on this
 * step, which they then share out so that the others take more of it
 * (fl_claim).  next_stale() takes the tops of these and of the heap in
 * the heap's order, which is total (fl_entry_before), and pushes back
 * those it leaves: it posts what it would have posted from the heap
 * alone. */
static void pop_ahead(fl_heap *hp, fl_mf_heap *s, int count)
{
  s->ahead_at = 0;
  for (s->nahead = 0; s->nahead < count && hp->size > 0; s->nahead++)
    s->ahead[s->nahead] = fl_heap_pop(hp);
}

/* The first of the tops popped ahead and the heap's, NULL when both are
 * empty; ahead_pop() takes it. */
static const fl_entry *ahead_top(const fl_heap *hp, const fl_mf_heap *s)
{
  const fl_entry *a = s->ahead_at < s->nahead ? &s->ahead[s->ahead_at] : NULL;
  if (hp->size == 0) return a;
  return a && fl_entry_before(*a, hp->a[0]) ? a : &hp->a[0];
}

static fl_entry ahead_pop(fl_heap *hp, fl_mf_heap *s)
{
  return ahead_top(hp, s) == &s->ahead[s->ahead_at] ? s->ahead[s->ahead_at++] : fl_heap_pop(hp);
}

/* Leader: move fresh tops to the fresh list and post up to fl_mf_post_cap()
 * stale tops for evaluation (popped into s->pending), the first of them
 * perhaps a top fresh with a coarse gain, to be evaluated finely
 * (s->fine).  Stops at a fresh top once something is posted, so the fresh
 * list always holds the heap's best.  Returns how many were posted (0: the
 * heap is done for this round). */
static int next_stale(fl_mf *r, int h, int steps_done)
{
  fl_heap *hp = &r->heaps[h];
  fl_mf_heap *s = &r->hs[h];
  s->npend = 0;
  const int cap = fl_mf_post_cap(r->cfg, r->c, steps_done);
  const fl_entry *top;
  while (s->npend < cap && r->nfresh[h] < r->quota && steps_done < r->steps &&
         (top = ahead_top(hp, s)) != NULL && top->key >= r->stop) {
    int fine = !r->first_phase && coarse_fresh(r, *top);
    if (fine && (r->nfresh[h] > 0 || top->key < r->lead)) {
      /* Only the leader of the fresh list is evaluated finely here, and
       * only if it can beat the lead: the others are rarely picks
       * (fl_mf_merge evaluates those that are), so their coarse gains
       * are keyed down again and the heap's order decides where they
       * stand. */
      fl_entry e = ahead_pop(hp, s);
      e.key /= 1.0 + FL_TIE;
      r->settle_round[e.idx] = r->round;
      fl_heap_push(hp, e);
      continue;
    }
    if (top->round == r->round) {
      if (s->npend > 0) break;
      if (!fine) {
        r->fresh[(size_t) h * r->batch + r->nfresh[h]++] = ahead_pop(hp, s);
        continue;
      }
    }
    s->fine[s->npend] = (unsigned char) fine;
    s->pending[s->npend++] = ahead_pop(hp, s);
  }
  for (; s->ahead_at < s->nahead; s->ahead_at++) fl_heap_push(hp, s->ahead[s->ahead_at]);
  s->nahead = s->ahead_at = 0;
  return s->npend;
}

static void finish_eval(fl_mf *r, int h, int tid)
{
  fl_mf_heap *s = &r->hs[h];
  for (int q = 0; q < s->npend; q++) fl_heap_push(&r->heaps[h], fl_mf_evaluated(r, s, q, r->round));
  r->tcount[(size_t) tid * FL_MF_PAD + 1] += s->npend;
}

/* All threads of a group (M of them, this one at lane) refresh heap h:
 * pop and evaluate stale tops until it yields quota fresh entries, has
 * run `steps` evaluation steps, its top is keyed below stop, or it
 * empties.  *iter counts the group's evaluation steps (same on every
 * lane), whose parity selects the posted slot and the lanes' speeds
 * read. */
static void refresh_heap(fl_mf *r, int h, int lane, int M, fl_barrier *bar, int *iter)
{
  fl_mf_heap *s = &r->hs[h];
  int tid = fl_thread_id();
  for (int steps = 0;; steps++) {
    int slot = *iter & 1;
    if (lane == 0) {
      s->posted[slot] = next_stale(r, h, steps);
      fl_claims_reset(r, tid, M);
    }
    fl_barrier_wait(bar, M);   /* candidates posted */
    if (s->posted[slot] == 0) break;
    (*iter)++;
    if (M > 1) {
      if (lane == 0) pop_ahead(&r->heaps[h], s, fl_mf_post_cap(r->cfg, r->c, steps + 1));
      int parity = *iter & 1;
      fl_lane_step step[2];
      fl_mf_eval_share(r, s, 0, fl_pair_share(r, tid, lane, M, parity), lane, M, bar, tid, step);
      fl_note_lane(r, tid, parity, step);
    } else {
      fl_mf_eval_alone(r, s, tid);
    }
    fl_barrier_wait(bar, M);   /* partial gains written */
    if (lane == 0) finish_eval(r, h, tid);
  }
}

/* The batch-th largest key of the heaps' fresh entries, -Inf if they are
 * fewer: no entry keyed below it can be among the round's picks. */
static double batch_floor(const fl_mf *r)
{
  double best[FL_MAX_FLOOR];
  int nb = 0, b = r->batch < FL_MAX_FLOOR ? r->batch : FL_MAX_FLOOR;
  for (int h = 0; h < r->nheaps; h++)
    for (int t = 0; t < r->nfresh[h]; t++) {
      double key = r->fresh[(size_t) h * r->batch + t].key;
      int at = nb < b ? nb++ : b;   /* keep the b largest, in decreasing order */
      for (; at > 0 && best[at - 1] < key; at--)
        if (at < b) best[at] = best[at - 1];
      if (at < b) best[at] = key;
    }
  return nb == b && b == r->batch ? best[b - 1] : -HUGE_VAL;
}

/* The next heap nobody has taken this phase (nheaps when none is left). */
static int take_heap(fl_mf *r)
{
  int h;
FL_OMP(atomic capture)
  h = r->next_heap++;
  return h < r->nheaps ? h : r->nheaps;
}

/* Group g refreshes heaps, one at a time, until none is left; the leader
 * takes each and tells its lanes through the group's slot.  The group's
 * threads meet at their own barrier (bar[g]) only; g < 0, a thread in no
 * group, does nothing. */
static void refresh_group(fl_mf *r, int g, int lane, int M)
{
  if (g < 0) return;
  fl_barrier *bar = M > 1 ? &r->bar[g] : NULL;
  int *slot = r->taken + (size_t) g * fl_thread_stride(1, sizeof(int)), iter = 0;
  for (;;) {
    if (lane == 0) *slot = take_heap(r);
    if (bar) fl_barrier_wait(bar, M);   /* heap taken */
    int h = *slot;
    if (h == r->nheaps) break;
    refresh_heap(r, h, lane, M, bar, &iter);
  }
}

/* The first phase's quota of fresh entries per heap. */
static int first_quota(const fl_mf *r)
{
  return (r->batch + r->nheaps - 1) / r->nheaps;
}

/* The evaluation steps a heap may take in a round's first refresh. */
static int first_steps(const fl_mf *r)
{
  return first_quota(r) < r->batch ? FL_FIRST_PHASE_STEPS : INT_MAX;
}

/* With several heaps, a heap whose best candidate is not the round's
 * pick would still evaluate finely every candidate whose raised coarse
 * gain passes its own leader's fine gain, and the best few of a heap are
 * often within FL_TIE of each other; without fine evaluations the coarse
 * ones could not drop the leaves of FL_GUESS_GAIN_FRACTION.  So the first
 * phase evaluates none finely; the whole team then evaluates the best of
 * its fresh entries finely (post_lead, take_lead), and the second phase
 * only the coarse gains raised above that lead, which the round's first
 * pick must reach.  Is this the round's first phase without fine
 * evaluations? */
static int lead_phase(const fl_mf *r)
{
  return r->refine && r->nheaps > 1;
}

/* Does a second phase follow the first (for the batch floor, or the lead)? */
static int two_phases(const fl_mf *r)
{
  return first_quota(r) < r->batch || lead_phase(r);
}

/* Round `round` starts: each heap's first phase, no stop, no lead yet. */
void fl_mf_round_start(fl_mf *r, int round)
{
  r->round = round;
  r->quota = first_quota(r);
  r->steps = first_steps(r);
  r->stop = -HUGE_VAL;
  r->next_heap = 0;
  r->lead = -HUGE_VAL;
  r->first_phase = lead_phase(r);
}

/* Pool the heaps' fresh entries in greedy order (gain, lowest index). */
int fl_mf_pool_fresh(fl_mf *r)
{
  int nm = 0, b = r->batch;
  for (int h = 0; h < r->nheaps; h++) {
    for (int t = 0; t < r->nfresh[h]; t++) {
      fl_entry e = r->fresh[(size_t) h * b + t];
      int at = nm++;
      /* insertion sort: at most nheaps x batch entries */
      for (; at > 0 && fl_entry_before(e, r->merged[at - 1]); at--) {
        r->merged[at] = r->merged[at - 1];
        r->from[at] = r->from[at - 1];
      }
      r->merged[at] = e;
      r->from[at] = h;
    }
    r->nfresh[h] = 0;
  }
  return nm;
}

/* The first phase's fresh entries go back to their heaps, to be taken
 * again in the second phase, but for the best, which is posted to heap
 * 0's scratch to be evaluated finely by the team (fl_mf_team_eval);
 * when its gain is fine already it goes back too and is the lead. */
static void post_lead(fl_mf *r)
{
  fl_mf_heap *s = &r->hs[0];
  int nm = fl_mf_pool_fresh(r), post = nm > 0 && r->fine_round[r->merged[0].idx] != r->round;
  r->lead = nm > 0 ? r->merged[0].key : -HUGE_VAL;   /* take_lead replaces a coarse one */
  for (int q = post; q < nm; q++) fl_heap_push(&r->heaps[r->from[q]], r->merged[q]);
  s->npend = post;
  if (post) {
    s->pending[0] = r->merged[0];
    s->fine[0] = 1;
    fl_claims_reset(r, 0, fl_team_size());
  }
}

/* The second phase's stop, quota and steps, the lead posted (serial). */
static void second_phase(fl_mf *r)
{
  r->stop = batch_floor(r);
  r->quota = r->batch;
  r->steps = INT_MAX;
  r->next_heap = 0;
  if (r->first_phase) post_lead(r);
}

/* The lead from the evaluation post_lead() posted, back in its heap; the
 * second phase's stop is at most the lead, so that it can be taken
 * (serial). */
static void take_lead(fl_mf *r)
{
  fl_mf_heap *s = &r->hs[0];
  if (s->npend > 0) {
    fl_entry lead = fl_mf_evaluated(r, s, 0, r->round);
    r->lead = lead.key;
    fl_heap_push(&r->heaps[r->from[0]], lead);
    r->tcount[(size_t) fl_thread_id() * FL_MF_PAD + 1] += 1;
  }
  if (r->stop > r->lead) r->stop = r->lead;
  r->first_phase = 0;
}

void fl_mf_team_refresh(fl_mf *r, int g, int lane, int M)
{
  refresh_group(r, g, lane, M);   /* first phase */
  if (!two_phases(r)) return;
FL_OMP(barrier)
FL_OMP(single)
  second_phase(r);
  if (r->first_phase) {
    if (r->hs[0].npend > 0) fl_mf_team_eval(r, 0);
FL_OMP(barrier)
FL_OMP(single)
    take_lead(r);
  }
  refresh_group(r, g, lane, M);   /* second phase */
}

/* Every heap entry keyed anew and stale: its key raised by `raise`, or
 * (with bounds) set to its certified bound ub; no fine evaluation counts
 * as of this round.  Keys move (readmission raises all alike, but rounding
 * can make ties), so each heap is rebuilt. */
void fl_mf_stale_keys(fl_mf *r, double raise, int bounds)
{
  for (int h = 0; h < r->nheaps; h++) {
    fl_heap *heap = &r->heaps[h];
    for (int t = 0; t < heap->size; t++) {
      fl_entry *e = &heap->a[t];
      e->key = bounds ? r->ub[e->idx] : e->key + raise;
      e->round = -1;
    }
    fl_heap_build(heap, heap->a, heap->size);
  }
  for (int j = 0; j < r->cl.m; j++) r->fine_round[j] = r->settle_round[j] = -1;
  memset(r->checked, 0, (size_t) r->cl.m);
}
