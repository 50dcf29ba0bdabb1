/* The OCC engine and helpers shared by DP-means, OFL and BP-means. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include "occ_common.h"
#include "kernel.h"

int occ_centers_init(occ_centers *c, int d, int cap)
{
  c->k = 0;
  c->d = d;
  c->cap = cap > 0 ? cap : 16;
  c->v = malloc((size_t) c->cap * (size_t) (d > 0 ? d : 1) * sizeof(double));
  return c->v ? FL_OK : FL_ERR_NOMEM;
}

int occ_centers_push(occ_centers *c, const double *x)
{
  if (c->k == c->cap) {
    int cap = 2 * c->cap;
    double *v = realloc(c->v, (size_t) cap * (size_t) c->d * sizeof(double));
    if (!v) return FL_ERR_NOMEM;
    c->v = v;
    c->cap = cap;
  }
  memcpy(c->v + (size_t) c->k * c->d, x, (size_t) c->d * sizeof(double));
  c->k++;
  return FL_OK;
}

void occ_centers_free(occ_centers *c)
{
  free(c->v);
  c->v = NULL;
  c->k = c->cap = 0;
}

void occ_nearest(const double *x, const double *centers, int d, int from,
                 int to, int *best, double *bestd)
{
  for (int k = from; k < to; k++) {
    double dist = fl_sqdist(x, centers + (size_t) k * d, d);
    if (dist < *bestd) {
      *bestd = dist;
      *best = k;
    }
  }
}

int occ_grow(void **p, int *cap, int need, size_t elt)
{
  if (need <= *cap) return FL_OK;
  int cap2 = *cap > 0 ? *cap : 64;
  while (cap2 < need) cap2 *= 2;
  void *q = realloc(*p, (size_t) cap2 * elt);
  if (!q) return FL_ERR_NOMEM;
  *p = q;
  *cap = cap2;
  return FL_OK;
}

double occ_now(void)
{
#if FL_HAVE_OMP
  return fl_wtime();
#else
  return (double) clock() / CLOCKS_PER_SEC;
#endif
}

static int push_epoch(occ_trace *tr, int pass, int proposed, int accepted,
                      double seconds)
{
  int cap = tr->cap_epochs, need = tr->nepochs + 1;
  int c1 = cap, c2 = cap, c3 = cap;
  if (occ_grow((void **) &tr->ep_iter, &c1, need, sizeof(int)) ||
      occ_grow((void **) &tr->ep_proposed, &c2, need, sizeof(int)) ||
      occ_grow((void **) &tr->ep_accepted, &c3, need, sizeof(int)) ||
      occ_grow((void **) &tr->ep_seconds, &cap, need, sizeof(double)))
    return FL_ERR_NOMEM;
  tr->cap_epochs = cap;
  tr->ep_iter[tr->nepochs] = pass;
  tr->ep_proposed[tr->nepochs] = proposed;
  tr->ep_accepted[tr->nepochs] = accepted;
  tr->ep_seconds[tr->nepochs] = seconds;
  tr->nepochs++;
  return FL_OK;
}

static int push_proposal(occ_trace *tr, int i, int pass)
{
  int cap = tr->cap_prop, c1 = cap, need = tr->nprop + 1;
  if (occ_grow((void **) &tr->prop, &c1, need, sizeof(int)) ||
      occ_grow((void **) &tr->prop_pass, &cap, need, sizeof(int)))
    return FL_ERR_NOMEM;
  tr->cap_prop = cap;
  tr->prop[tr->nprop] = i;
  tr->prop_pass[tr->nprop] = pass;
  tr->nprop++;
  return FL_OK;
}

static int interrupted(const occ_setup *s)
{
  return s->interrupted && s->interrupted(s->callback_ctx);
}

/* Validate point i and record it if it proposed or is accepted now (a
 * non-proposer catching up, see validate_epoch); counts both. */
static int settle(const occ_alg *a, occ_trace *tr, int i, int slot, int pass,
                  int proposer, int *proposed, int *accepted)
{
  int r = a->validate(a->st, i, slot);
  if (r < 0) return FL_ERR_NOMEM;
  if (!proposer && !r) return FL_OK;
  (*proposed)++;
  *accepted += r;
  return push_proposal(tr, i, pass);
}

/* The serial algorithm: one point at a time in the pass's order.  Interrupts
 * are checked every 8192 points; the pass is one row of the epoch table. */
static int serial_pass(const occ_setup *s, const occ_alg *a, occ_trace *tr,
                       int pass)
{
  const int *order = NULL;
  if (s->order) {
    int col = pass < s->norder ? pass : s->norder - 1;
    order = s->order + (size_t) col * s->n;
  }
  double t0 = occ_now();
  int proposed = 0, accepted = 0, status = FL_OK;
  for (int j = 0; j < s->n && status == FL_OK; j++) {
    int i = order ? order[j] : j;
    a->begin_epoch(a->st);
    if (a->propose(a->st, i, 0))
      status = settle(a, tr, i, 0, pass, 1, &proposed, &accepted);
    if ((j & 8191) == 8191 && interrupted(s)) status = FL_INTERRUPTED;
  }
  if (status == FL_OK) status = push_epoch(tr, pass, proposed, accepted, occ_now() - t0);
  return status;
}

/* Epochs whose proposals leave the state unchanged (none accepted) could
 * have shared one parallel region with the next: its proposals read the
 * same state.  So the engine proposes for up to `chunk` epochs at once and
 * validates them in order; after an epoch that accepts something, the
 * proposals of the later epochs in the chunk are stale and are recomputed
 * (propose must not depend on its own earlier calls in the pass).  The
 * chunk doubles while nothing is accepted, so quiet passes take a few
 * regions instead of one per epoch; the result is that of one epoch at a
 * time.  A pass starts with the chunk the previous one ended with: once
 * the passes are quiet, each is one region (waking the other threads for
 * every region is dear: measured: inst/bench/results/tunables.md, OCC
 * chunks of epochs).
 * Scratch is bounded to 16 MiB (and one pass). */
static int epochs_per_pass(const occ_setup *s)
{
  long long per = (long long) s->workers * s->batch;
  return (int) ((s->n + per - 1) / per);
}

/* Epochs proposed at once at most: scratch within 16 MiB, one pass. */
static int max_chunk(const occ_setup *s, size_t slot_bytes)
{
  long long per = (long long) s->workers * s->batch;
  long long c = (16LL << 20) / ((long long) slot_bytes + 1) / per;
  int epochs = epochs_per_pass(s);
  return c < 1 ? 1 : (c > epochs ? epochs : (int) c);
}

int occ_slots(const occ_setup *s, size_t slot_bytes)
{
  return s->serial ? 1 : max_chunk(s, slot_bytes) * s->workers * s->batch;
}

/* Row of epoch slot `slot` (0-based within the epoch) of epoch t, or -1:
 * epoch t holds the P b consecutive rows from t P b, worker p the b of them
 * from p b. */
static int epoch_row(const occ_setup *s, int t, int slot)
{
  long long i = (long long) t * s->workers * s->batch + slot;
  return i < s->n ? (int) i : -1;
}

/* The team for proposing for `points` points of `work` each (as
 * begin_epoch returns it). */
static int propose_team(int threads, double points, double work)
{
  return fl_par_threads(threads, points * work, FL_PAR_MIN_DISTANCE_WORK);
}

/* Propose for the c epochs from epoch t, one (epoch, worker) block of b
 * consecutive rows at a time. */
static void propose_epochs(const occ_setup *s, const occ_alg *a, int t, int c,
                           double work, char *flags)
{
  const int P = s->workers, b = s->batch, nblocks = c * P;
  int team = propose_team(s->threads, (double) c * P * b, work);
  (void) team;
FL_OMP(parallel for num_threads(team) schedule(static))
  for (int blk = 0; blk < nblocks; blk++) {
    int base = blk * b, first = epoch_row(s, t, base);
    int count = first < 0 ? 0 : (s->n - first < b ? s->n - first : b);
    for (int r = 0; r < count; r++)
      flags[base + r] = (char) a->propose(a->st, first + r, base + r);
    memset(flags + base + count, 0, (size_t) (b - count));
  }
}

/* Validate epoch t, whose proposals sit at scratch slots base + slot, in
 * row order.  Once something is accepted, the later non-proposers of the
 * epoch are validated too, so that they meet the centers (features) the
 * serial pass would have shown them, and the pass equals the serial pass
 * in row order.  Their distance (BP-means: the residual norm its sweep
 * tracks) never grows, so they do not open one; settle() records one that
 * did as the serial pass would. */
static int validate_epoch(const occ_setup *s, const occ_alg *a, occ_trace *tr,
                          int pass, int t, int base, const char *flags,
                          double seconds, int *accepted)
{
  const int slots = s->workers * s->batch;
  int proposed = 0, status = FL_OK;
  double t0 = occ_now();
  *accepted = 0;
  for (int slot = 0; slot < slots && status == FL_OK; slot++) {
    int i = epoch_row(s, t, slot), proposer = flags[base + slot];
    if (i < 0) break;
    if (proposer || *accepted)
      status = settle(a, tr, i, base + slot, pass, proposer, &proposed, accepted);
  }
  if (status == FL_OK)
    status = push_epoch(tr, pass, proposed, *accepted, seconds + occ_now() - t0);
  return status;
}

/* One OCC pass: epochs of P x b points proposed in parallel, validated in
 * row order on the main thread.  *chunk_io: epochs proposed at once,
 * carried from pass to pass. */
static int occ_pass(const occ_setup *s, const occ_alg *a, occ_trace *tr,
                    int pass, char *flags, int *chunk_io)
{
  const int slots = s->workers * s->batch, cmax = max_chunk(s, a->slot_bytes);
  const int epochs = epochs_per_pass(s);
  int t = 0, chunk = *chunk_io;
  while (t < epochs) {
    int c = chunk < epochs - t ? chunk : epochs - t;
    double t0 = occ_now();
    propose_epochs(s, a, t, c, a->begin_epoch(a->st), flags);
    double share = (occ_now() - t0) / c;   /* proposal time split evenly */
    int done = 0, accepted = 0;
    while (done < c && accepted == 0) {
      int status = validate_epoch(s, a, tr, pass, t + done, done * slots, flags,
                                  share, &accepted);
      if (status) return status;
      done++;
    }
    t += done;
    chunk = accepted ? 1 : (2 * chunk < cmax ? 2 * chunk : cmax);
    *chunk_io = chunk;
    if (interrupted(s)) return FL_INTERRUPTED;
  }
  return FL_OK;
}

static int push_objective(occ_trace *tr, double value)
{
  if (occ_grow((void **) &tr->objective, &tr->cap_obj, tr->iterations + 1,
               sizeof(double)))
    return FL_ERR_NOMEM;
  tr->objective[tr->iterations++] = value;
  return FL_OK;
}

int occ_run(const occ_setup *s, const occ_alg *a, occ_trace *tr)
{
  memset(tr, 0, sizeof *tr);
  char *flags = malloc((size_t) occ_slots(s, a->slot_bytes));
  if (!flags) return FL_ERR_NOMEM;
  int status = FL_OK, chunk = 1;
  for (int pass = 0; pass < s->max_iter && status == FL_OK; pass++) {
    status = s->serial ? serial_pass(s, a, tr, pass)
                       : occ_pass(s, a, tr, pass, flags, &chunk);
    double objective = 0.0;
    int changed = 1;
    if (status == FL_OK) status = a->end_pass(a->st, s, &objective, &changed);
    if (status == FL_OK) status = push_objective(tr, objective);
    if (status == FL_OK && !changed) {
      tr->converged = 1;
      break;
    }
    if (status == FL_OK && interrupted(s)) status = FL_INTERRUPTED;
  }
  free(flags);
  return status;
}

void occ_trace_free(occ_trace *tr)
{
  free(tr->objective);
  free(tr->ep_iter);
  free(tr->ep_proposed);
  free(tr->ep_accepted);
  free(tr->ep_seconds);
  free(tr->prop);
  free(tr->prop_pass);
  memset(tr, 0, sizeof *tr);
}

int occ_shard_sum(const occ_setup *s, occ_part_fn part, void *ctx, size_t len,
                  double *out)
{
  const int S = s->shards;
  double *buf = calloc((size_t) S * (len > 0 ? len : 1), sizeof(double));
  if (!buf) return FL_ERR_NOMEM;
  int threads = s->threads < S ? s->threads : S;
  (void) threads;
FL_OMP(parallel for num_threads(fl_par_threads(threads, s->n, FL_PAR_MIN_CLIENTS)) schedule(static))
  for (int sh = 0; sh < S; sh++)
    for (long long lo = (long long) sh * s->batch; lo < s->n; lo += (long long) S * s->batch)
      part(ctx, (int) lo, (int) (lo + s->batch < s->n ? lo + s->batch : s->n),
           buf + (size_t) sh * len);
  memcpy(out, buf, len * sizeof(double));
  for (int sh = 1; sh < S; sh++)
    for (size_t j = 0; j < len; j++) out[j] += buf[(size_t) sh * len + j];
  free(buf);
  return FL_OK;
}

void occ_psd_solve(double *G, double *b, int k, int d)
{
  /* row offsets in size_t: k k and k d may pass INT_MAX */
  const size_t K = (size_t) k, D = (size_t) d;
  double scale = 0.0;
  for (size_t j = 0; j < K; j++) if (G[j * K + j] > scale) scale = G[j * K + j];
  const double tol = 1e-10 * (scale > 0 ? scale : 1.0);
  /* G = L L', L stored in the lower triangle; a zero pivot zeroes its column. */
  for (size_t j = 0; j < K; j++) {
    double s = G[j * K + j];
    for (size_t m = 0; m < j; m++) s -= G[j * K + m] * G[j * K + m];
    double piv = s > tol ? sqrt(s) : 0.0;
    G[j * K + j] = piv;
    for (size_t i = j + 1; i < K; i++) {
      double v = G[i * K + j];
      for (size_t m = 0; m < j; m++) v -= G[i * K + m] * G[j * K + m];
      G[i * K + j] = piv > 0 ? v / piv : 0.0;
    }
  }
  for (size_t c = 0; c < D; c++) {
    for (size_t j = 0; j < K; j++) {          /* L y = b */
      double v = b[j * D + c];
      for (size_t m = 0; m < j; m++) v -= G[j * K + m] * b[m * D + c];
      b[j * D + c] = G[j * K + j] > 0 ? v / G[j * K + j] : 0.0;
    }
    for (size_t j = K; j-- > 0;) {            /* L' a = y */
      double v = b[j * D + c];
      for (size_t m = j + 1; m < K; m++) v -= G[m * K + j] * b[m * D + c];
      b[j * D + c] = G[j * K + j] > 0 ? v / G[j * K + j] : 0.0;
    }
  }
}

int occ_assign_init(occ_assign *a, const occ_setup *s, double lambda)
{
  memset(a, 0, sizeof *a);
  a->x = s->x;
  a->n = s->n;
  a->d = s->d;
  a->lambda2 = lambda * lambda;
  a->z = malloc((size_t) s->n * sizeof(int));
  a->sd = malloc((size_t) occ_slots(s, sizeof(double)) * sizeof(double));
  if (occ_centers_init(&a->c, s->d, 64) || !a->z || !a->sd) {
    occ_assign_free(a);
    return FL_ERR_NOMEM;
  }
  for (int i = 0; i < s->n; i++) a->z[i] = -1;
  return FL_OK;
}

void occ_assign_free(occ_assign *a)
{
  occ_centers_free(&a->c);
  free(a->z);
  free(a->sd);
  a->z = NULL;
  a->sd = NULL;
}

double occ_assign_begin(void *st)
{
  occ_assign *a = st;
  a->kfix = a->c.k;
  return (double) (a->kfix + 1) * a->d;
}

void occ_assign_old(occ_assign *a, int i, int slot)
{
  int best = -1;
  double bd = HUGE_VAL;
  occ_nearest(a->x + (size_t) i * a->d, a->c.v, a->d, 0, a->kfix, &best, &bd);
  a->z[i] = best;
  a->sd[slot] = bd;
}

double occ_assign_new(occ_assign *a, int i, int slot)
{
  occ_nearest(a->x + (size_t) i * a->d, a->c.v, a->d, a->kfix, a->c.k,
              &a->z[i], &a->sd[slot]);
  return a->sd[slot];
}

int occ_assign_open(occ_assign *a, int i)
{
  if (occ_centers_push(&a->c, a->x + (size_t) i * a->d)) return FL_ERR_NOMEM;
  a->z[i] = a->c.k - 1;
  return FL_OK;
}

int occ_assign_run(const occ_setup *s, const occ_alg *alg, occ_assign *a,
                   occ_trace *tr, int *cluster, occ_centers *centers)
{
  int status = occ_run(s, alg, tr);
  if (status == FL_OK) {
    memcpy(cluster, a->z, (size_t) s->n * sizeof(int));
    *centers = a->c;
    a->c.v = NULL;
  } else {
    occ_trace_free(tr);
  }
  occ_assign_free(a);
  return status;
}

occ_assign occ_assign_view(const double *x, int d, int m, double lambda,
                           const double *centers, int k, int *z, double *sd)
{
  occ_assign a = { 0 };
  a.x = x;
  a.n = m;
  a.d = d;
  a.lambda2 = lambda * lambda;
  a.c.v = (double *) centers;   /* read only: proposals never push */
  a.c.k = a.c.cap = a.kfix = k;
  a.c.d = d;
  a.z = z;
  a.sd = sd;
  return a;
}

void occ_propose_rows(int (*propose)(void *, int, int), void *st, int lo,
                      int hi, double work, int threads, char *flag)
{
  int team = propose_team(threads, hi - lo, work);
  (void) threads; (void) team;
FL_OMP(parallel for num_threads(team) schedule(static))
  for (int i = lo; i < hi; i++) flag[i - lo] = (char) propose(st, i, i - lo);
}

void occ_catch_up_rows(int (*validate)(void *, int, int),
                       void (*limit)(void *, int), void *st, int lo, int hi,
                       const int *outcome, int kfix, int before)
{
  int k = kfix + before;
  for (int i = lo; i < hi; i++) {
    if (outcome[i - lo] == OCC_ACCEPTED) {
      k++;
    } else if (outcome[i - lo] == OCC_QUIET && k > kfix) {
      limit(st, k);
      validate(st, i, i - lo);   /* shrinks a distance: never opens one */
    }
  }
}

void occ_assign_limit(void *st, int k)
{
  ((occ_assign *) st)->c.k = k;
}

int occ_validate_list(int (*validate)(void *, int, int), void *st, int np,
                      int *accepted)
{
  for (int j = 0; j < np; j++) {
    int r = validate(st, j, j);
    if (r < 0) return FL_ERR_NOMEM;
    accepted[j] = r;
  }
  return FL_OK;
}
