/* The contests before a pick is committed.  Keys are coarse gains, and
 * the estimates behind a coarse gain (leaves taken as covered, the gain
 * estimates of cl_plan.c) can fail on heavy tails, grids and repeated
 * rows, keying a candidate far below its gain; it then waits in its heap
 * while greedy would pick it.  So first the loose contest: the
 * FL_LOOSE_RIVALS candidates whose certified bound ub exceeds the pick's
 * gain by most (largest bound first), each not yet so checked since its
 * last coarse evaluation, are evaluated without estimates (leaves skipped
 * by their bounds alone, at the coarse threshold), and one that comes
 * before the pick goes back with its fresh key and takes the pick's
 * place; while these evaluations have made at most FL_LOOSE_SHARE of
 * the solve's other kernel evaluations.  Then the near-tie contest: a
 * fine evaluation still skips leaves whose bound is small beside the
 * threshold, so it may fall short of the true gain by up to its `left`;
 * where gains lie within that of each other (regular grids, repeated rows, the flat gains of a wide
 * kernel), such a shortfall would turn greedy's path, and a path turned
 * early can cost a percent of f(S) by the k-th pick.  So the pick and
 * every candidate keyed within FL_CONTEST eps of its gain whose certified
 * bound ub still reaches it are evaluated exactly (no leaf skipped but
 * those of zero bound), and the best exact gain wins, lowest index on
 * ties, as in greedy. */
#include "mf.h"

/* Room for the pick and its contenders: one team batch. */
#define FL_CONTEST_MOST (FL_TEAM_BATCH - 1)

typedef struct {
  int idx;
  int heap;   /* its heap, -1 for an entry of the round's pool */
  int at;     /* its position there */
} fl_rival;

typedef struct {
  fl_rival who[FL_CONTEST_MOST];
  int n;
  double limit, gain;   /* keys below limit, or bounds below gain, stay out */
  int pick;
} fl_field;

static int enters(const fl_mf *r, const fl_field *f, fl_entry e)
{
  return e.key >= f->limit && e.idx != f->pick && r->ub[e.idx] > f->gain;
}

static void add(fl_field *f, int idx, int heap, int at)
{
  if (f->n < FL_CONTEST_MOST) {
    fl_rival v = { idx, heap, at };
    f->who[f->n++] = v;
  }
}

/* The entries of heap h keyed at least f->limit, from the top down (a
 * child's key is at most its parent's), while there is room. */
static void gather_heap(const fl_mf *r, int h, fl_field *f)
{
  const fl_heap *heap = &r->heaps[h];
  int stack[64], top = 0;   /* depth-first: at most one sibling per level waits */
  if (heap->size > 0) stack[top++] = 0;
  while (top > 0 && f->n < FL_CONTEST_MOST) {
    int i = stack[--top];
    fl_entry e = heap->a[i];
    if (e.key < f->limit) continue;
    if (enters(r, f, e)) add(f, e.idx, h, i);
    for (long long c = 2LL * i + 1; c <= 2LL * i + 2 && c < heap->size; c++)
      if (top < 64) stack[top++] = (int) c;
  }
}

/* Evaluate the field exactly (the pick first), one team batch at most, by
 * the calling thread: fine evaluations at threshold 0. */
static void evaluate(fl_mf *r, fl_field *f, fl_entry pick, fl_entry *out)
{
  fl_mf_heap *s = &r->hs[0];
  double keep = r->thresh;
  s->pending[0] = pick;
  for (int t = 0; t < f->n; t++) {
    fl_entry e = { 0.0, f->who[t].idx, -1 };
    s->pending[t + 1] = e;
  }
  s->npend = f->n + 1;
  for (int q = 0; q < s->npend; q++) s->fine[q] = 1;
  r->thresh = 0.0;
  fl_mf_eval_alone(r, s, fl_thread_id());
  r->thresh = keep;
  r->tcount[(size_t) fl_thread_id() * FL_MF_PAD + 1] += s->npend;
  for (int q = 0; q < s->npend; q++) out[q] = fl_mf_evaluated(r, s, q, r->round);
}

/* Is rival t the first of the field in its heap? */
static int first_in_heap(const fl_field *f, int t)
{
  for (int u = 0; u < t; u++)
    if (f->who[u].heap == f->who[t].heap) return 0;
  return 1;
}

/* Exact keys back where the contenders are; each heap that holds one is
 * rebuilt once (a contender's position would move under another's sift). */
static void put_back(fl_mf *r, const fl_field *f, const fl_entry *out)
{
  for (int t = 0; t < f->n; t++) {
    const fl_rival *v = &f->who[t];
    if (v->heap >= 0) r->heaps[v->heap].a[v->at] = out[t + 1];
    else r->merged[v->at] = out[t + 1];
  }
  for (int t = 0; t < f->n; t++) {
    fl_heap *heap = f->who[t].heap >= 0 ? &r->heaps[f->who[t].heap] : NULL;
    if (heap && first_in_heap(f, t)) fl_heap_build(heap, heap->a, heap->size);
  }
}

static int zero_gain(const fl_mf *r, double gain)
{
  return gain <= FL_ZERO_GAIN * r->first_gain;
}

/* The loose rivals, into who (their count returned): up to
 * FL_LOOSE_RIVALS open candidates whose certified bound exceeds the
 * pick's gain, largest bound first, none evaluated as a loose rival since
 * its last coarse evaluation.  One pass over the bounds in candidate
 * order (a pass over the heaps, reading each bound at random, took
 * longer than the evaluations). */
static int gather_loose(const fl_mf *r, const fl_entry *pick, int *who)
{
  const double *ub = r->ub;
  const unsigned char *chosen = r->chosen, *checked = r->checked;
  double floor = pick->key;
  int n = 0;
  for (int j = 0; j < r->cl.m; j++) {
    if (chosen[j] || ub[j] <= floor || checked[j] || j == pick->idx) continue;   /* ub: open ones only */
    int t = n < FL_LOOSE_RIVALS ? n++ : n - 1;
    for (; t > 0 && ub[who[t - 1]] < ub[j]; t--) who[t] = who[t - 1];
    who[t] = j;
    if (n == FL_LOOSE_RIVALS) floor = ub[who[n - 1]];
  }
  return n;
}

/* Rival idx's fresh entry e back where it waits: the round's pool after
 * q, or its heap, moved to its place there (a rebuild of the heap cost
 * more than the evaluations at sigma = 20). */
static void place(fl_mf *r, int idx, fl_entry e, int q, int nm)
{
  for (int u = q + 1; u < nm; u++)
    if (r->merged[u].idx == idx) {
      r->merged[u] = e;
      return;
    }
  for (int h = 0; h < r->nheaps; h++) {
    fl_heap *heap = &r->heaps[h];
    for (int i = 0; i < heap->size; i++)
      if (heap->a[i].idx == idx) {
        fl_heap_update(heap, i, e);
        return;
      }
  }
}

/* The loose contest: the n rivals who[] evaluated without estimates
 * (FL_FINE_BOUNDS) by the calling thread, each put back with its fresh
 * key; does one of them come before pick p? */
static int loose_rival_first(fl_mf *r, fl_entry p, int q, int nm)
{
  double pairs = fl_mf_pairs(r);
  if (r->loose_pairs > FL_LOOSE_SHARE * (pairs - r->loose_pairs)) return 0;
  int who[FL_LOOSE_RIVALS], n = gather_loose(r, &p, who);
  if (n == 0) return 0;
  fl_mf_heap *s = &r->hs[0];
  for (int t = 0; t < n; t++) {
    fl_entry e = { 0.0, who[t], -1 };
    s->pending[t] = e;
    s->fine[t] = FL_FINE_BOUNDS;
  }
  s->npend = n;
  fl_mf_eval_alone(r, s, fl_thread_id());
  r->tcount[(size_t) fl_thread_id() * FL_MF_PAD + 1] += n;
  r->loose_pairs += fl_mf_pairs(r) - pairs;
  int first = 0;
  for (int t = 0; t < n; t++) {
    fl_entry e = fl_mf_evaluated(r, s, t, r->round);
    r->checked[who[t]] = 1;
    place(r, who[t], e, q, nm);
    first |= fl_entry_before(e, p);
  }
  return first;
}

/* A pick of zero gain while another candidate may still gain would fill
 * the set in index order (repeated rows, k past the distinct points): the
 * keys of skipping evaluations no longer tell.  Lazy greedy on the
 * certified bounds, with exact evaluations, then evaluates every candidate
 * that might still gain before a zero is picked.  Those evaluations are in
 * double precision: the gains left (a duplicate's jitter) can lie below
 * the single-precision kernel's resolution, where it reads 0 for all. */
void fl_mf_rekey_from_bounds(fl_mf *r)
{
  fl_mf_stale_keys(r, 0.0, 1);
  r->exact_tail = 1;
  r->thresh = 0.0;
  r->cl.double_gains = 1;
}

fl_verdict fl_mf_contest(fl_mf *r, int q, int nm)
{
  fl_entry p = r->merged[q];
  if (r->exact_tail) return FL_COMMIT;   /* exact keys, bounds elsewhere: greedy's pick */
  if (zero_gain(r, p.key)) return FL_ZERO_GAIN_PICK;
  if (r->npick == 0 && loose_rival_first(r, p, q, nm)) return FL_DEFER;
  fl_field f;
  f.n = 0;
  f.pick = p.idx;
  f.gain = p.key;
  f.limit = p.key * (1.0 - FL_CONTEST * r->c->eps);
  for (int t = q + 1; t < nm; t++)
    if (enters(r, &f, r->merged[t])) add(&f, r->merged[t].idx, -1, t);
  for (int h = 0; h < r->nheaps; h++) gather_heap(r, h, &f);
  if (f.n == 0) return FL_COMMIT;
  if (r->npick > 0) return FL_DEFER;   /* a later pick of the round: next round decides */
  fl_entry out[FL_CONTEST_MOST + 1];
  evaluate(r, &f, p, out);
  r->merged[q] = out[0];
  put_back(r, &f, out);
  for (int t = 1; t <= f.n; t++)
    if (fl_entry_before(out[t], out[0])) return FL_DEFER;
  return FL_COMMIT;
}
