/* BP-means (Broderick, Kulis and Jordan, 2013), serial and OCC: minimise
 * ||X - Z A||_F^2 + lambda^2 K with binary Z.  Visiting point i, each z_ik is
 * set greedily in feature order (1 when subtracting A_k lowers the
 * residual's norm); a residual whose squared norm still exceeds lambda^2
 * becomes a new feature.  After each pass unused features are dropped and
 * A = (Z'Z)^-1 Z'X.  OCC proposals are residuals against the features
 * frozen at the epoch's start; validation continues the same greedy sweep
 * over the features accepted since and accepts what is still too far. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "occ_common.h"
#include "kernel.h"

typedef struct {
  const double *x;
  int n, d;
  double lambda2;
  occ_centers A;
  int kfix;
  unsigned char *Z;     /* n x zcap, row-major */
  unsigned char *Zp;    /* Z after the previous pass: proposals start from
                           it, so recomputing one (see occ_pass) is exact */
  int zcap;
  char *chg;            /* did the pass change row i */
  double *res;          /* per slot: OCC_BP_SLOT(d) doubles */
} bp_state;

static double sqnorm(const double *r, int d)
{
  double s = 0.0;
  FL_SIMD_SUM(s)
  for (int t = 0; t < d; t++) s += r[t] * r[t];
  return s;
}

/* Greedy sweep of z over features [from, to) for one residual r = x - z A
 * with squared norm *rn; tmp is d doubles of scratch.  *rn takes the value
 * each step was decided on, so it never grows: a sweep split in two (a
 * proposal, then its validation) decides as one sweep does, and a point
 * that did not propose never proposes later.  Returns 1 if some z changed. */
static int sweep(unsigned char *z, const double *A, int d, int from, int to,
                 double *r, double *tmp, double *rn)
{
  int changed = 0;
  for (int k = from; k < to; k++) {
    const double *a = A + (size_t) k * d;
    if (z[k]) {                       /* keep it unless adding a back helps */
      for (int t = 0; t < d; t++) tmp[t] = r[t] + a[t];
      double tn = sqnorm(tmp, d);
      if (tn <= *rn) {
        memcpy(r, tmp, (size_t) d * sizeof(double));
        *rn = tn;
        z[k] = 0;
        changed = 1;
      }
    } else {
      double tn = fl_sqdist(r, a, d);
      if (tn < *rn) {
        for (int t = 0; t < d; t++) r[t] -= a[t];
        *rn = tn;
        z[k] = 1;
        changed = 1;
      }
    }
  }
  return changed;
}

/* r = x - z A over features [0, k). */
static void residual(const double *x, const unsigned char *z, const double *A,
                     int d, int k, double *r)
{
  memcpy(r, x, (size_t) d * sizeof(double));
  for (int j = 0; j < k; j++)
    if (z[j])
      for (int t = 0; t < d; t++) r[t] -= A[(size_t) j * d + t];
}

static double bp_begin(void *ptr)
{
  bp_state *st = ptr;
  st->kfix = st->A.k;
  return (double) (st->kfix + 1) * st->d;
}

static int bp_propose(void *ptr, int i, int slot)
{
  bp_state *st = ptr;
  const int d = st->d;
  unsigned char *z = st->Z + (size_t) i * st->zcap;
  double *r = st->res + (size_t) slot * OCC_BP_SLOT(d), *rn = r + 2 * d;
  memcpy(z, st->Zp + (size_t) i * st->zcap, (size_t) st->zcap);
  residual(st->x + (size_t) i * d, z, st->A.v, d, st->kfix, r);
  *rn = sqnorm(r, d);
  st->chg[i] = (char) sweep(z, st->A.v, d, 0, st->kfix, r, r + d, rn);
  return *rn > st->lambda2;
}

/* Z with cap columns (the new ones zero). */
static unsigned char *widen(const unsigned char *Z, int n, int zcap, int cap)
{
  unsigned char *W = calloc((size_t) n * cap, 1);
  if (W)
    for (int i = 0; i < n; i++)
      memcpy(W + (size_t) i * cap, Z + (size_t) i * zcap, (size_t) zcap);
  return W;
}

/* Room for one more feature column in Z and Zp (main thread). */
static int grow_z(bp_state *st)
{
  if (st->A.k < st->zcap) return FL_OK;
  int cap = 2 * st->zcap;
  unsigned char *Z = widen(st->Z, st->n, st->zcap, cap);
  unsigned char *Zp = widen(st->Zp, st->n, st->zcap, cap);
  if (!Z || !Zp) {
    free(Z);
    free(Zp);
    return FL_ERR_NOMEM;
  }
  free(st->Z);
  free(st->Zp);
  st->Z = Z;
  st->Zp = Zp;
  st->zcap = cap;
  return FL_OK;
}

static int bp_validate(void *ptr, int i, int slot)
{
  bp_state *st = ptr;
  const int d = st->d;
  double *r = st->res + (size_t) slot * OCC_BP_SLOT(d), *rn = r + 2 * d;
  if (sweep(st->Z + (size_t) i * st->zcap, st->A.v, d, st->kfix, st->A.k, r, r + d, rn))
    st->chg[i] = 1;
  if (*rn <= st->lambda2) return 0;
  if (grow_z(st) || occ_centers_push(&st->A, r)) return -1;
  st->Z[(size_t) i * st->zcap + st->A.k - 1] = 1;
  st->chg[i] = 1;
  return 1;
}

/* Z'Z (K x K) then Z'X (K x d) over rows [lo, hi). */
static void bp_gram(void *ctx, int lo, int hi, double *out)
{
  bp_state *st = ctx;
  const int K = st->A.k, d = st->d;
  double *B = out + (size_t) K * K;
  for (int i = lo; i < hi; i++) {
    const unsigned char *z = st->Z + (size_t) i * st->zcap;
    const double *xi = st->x + (size_t) i * d;
    for (int j = 0; j < K; j++) {
      if (!z[j]) continue;
      for (int m = 0; m < K; m++) out[(size_t) j * K + m] += z[m];
      for (int t = 0; t < d; t++) B[(size_t) j * d + t] += xi[t];
    }
  }
}

/* The residual scratch is malloc'ed, not on the stack: d doubles of a wide
 * data set would overflow a worker thread's stack.  Without it the sum
 * is NaN, which no sum of squares is, and bp_end_pass reports it. */
static void bp_cost(void *ctx, int lo, int hi, double *out)
{
  bp_state *st = ctx;
  const int d = st->d;
  double s = out[0], *r = malloc((size_t) (d > 0 ? d : 1) * sizeof(double));
  if (!r) {
    out[0] = NAN;
    return;
  }
  for (int i = lo; i < hi; i++) {
    residual(st->x + (size_t) i * d, st->Z + (size_t) i * st->zcap, st->A.v, d,
             st->A.k, r);
    s += sqnorm(r, d);
  }
  free(r);
  out[0] = s;
}

int occ_bp_keep(double *G, double *B, int K, int d, int *keep)
{
  int kept = 0;
  for (int k = 0; k < K; k++) if (G[(size_t) k * K + k] > 0) keep[kept++] = k;
  /* the whole map travels to cluster workers: no unwritten entries */
  for (int k = kept; k < K; k++) keep[k] = -1;
  for (int j = 0; j < kept; j++) {
    for (int m = 0; m < kept; m++) G[(size_t) j * kept + m] = G[(size_t) keep[j] * K + keep[m]];
    memmove(B + (size_t) j * d, B + (size_t) keep[j] * d, (size_t) d * sizeof(double));
  }
  return kept;
}

void occ_bp_compact(unsigned char *Z, unsigned char *Zp, int n, int zcap,
                    const int *keep, int kept, int K, int threads)
{
  (void) threads;
FL_OMP(parallel for num_threads(fl_par_threads(threads, n, FL_PAR_MIN_CLIENTS)) schedule(static))
  for (int i = 0; i < n; i++) {
    unsigned char *z = Z + (size_t) i * zcap;
    for (int j = 0; j < kept; j++) z[j] = z[keep[j]];
    for (int j = kept; j < K; j++) z[j] = 0;
    memcpy(Zp + (size_t) i * zcap, z, (size_t) zcap);
  }
}

int occ_bp_changed(const char *chg, int n, int threads)
{
  int ch = 0;
  (void) threads;
FL_OMP(parallel for num_threads(fl_par_threads(threads, n, FL_PAR_MIN_CLIENTS)) reduction(+:ch) schedule(static))
  for (int i = 0; i < n; i++) ch += chg[i];
  return ch;
}

static int bp_end_pass(void *ptr, const occ_setup *s, double *objective,
                       int *changed)
{
  bp_state *st = ptr;
  const int K = st->A.k, d = st->d;
  *changed = occ_bp_changed(st->chg, st->n, s->threads);
  const size_t len = (size_t) K * K + (size_t) K * d;
  double *G = malloc(len * sizeof(double) + 1);
  int *keep = malloc((size_t) K * sizeof(int) + 1);
  int status = (G && keep) ? occ_shard_sum(s, bp_gram, st, len, G) : FL_ERR_NOMEM;
  if (status == FL_OK) {
    double *B = G + (size_t) K * K;
    const int k = occ_bp_keep(G, B, K, d, keep);
    occ_bp_compact(st->Z, st->Zp, st->n, st->zcap, keep, k, K, s->threads);
    occ_psd_solve(G, B, k, d);
    memcpy(st->A.v, B, (size_t) k * d * sizeof(double));
    st->A.k = k;
    double cost = 0.0;
    status = occ_shard_sum(s, bp_cost, st, 1, &cost);
    if (status == FL_OK && isnan(cost)) status = FL_ERR_NOMEM;
    *objective = cost + st->lambda2 * k;
  }
  free(G);
  free(keep);
  return status;
}

int occ_bpmeans(const occ_setup *s, double lambda, unsigned char **Zout,
                int *zcap, occ_centers *features, occ_trace *tr)
{
  bp_state st;
  memset(tr, 0, sizeof *tr);
  memset(&st, 0, sizeof st);
  st.x = s->x;
  st.n = s->n;
  st.d = s->d;
  st.lambda2 = lambda * lambda;
  st.zcap = 16;
  st.Z = calloc((size_t) s->n * st.zcap, 1);
  st.Zp = calloc((size_t) s->n * st.zcap, 1);
  st.chg = calloc((size_t) s->n, 1);
  const size_t slot_bytes = OCC_BP_SLOT(s->d) * sizeof(double);
  st.res = malloc((size_t) occ_slots(s, slot_bytes) * slot_bytes);
  int status = (st.Z && st.Zp && st.chg && st.res) ? occ_centers_init(&st.A, s->d, 16)
                                           : FL_ERR_NOMEM;
  if (status == FL_OK) {
    occ_alg alg = { &st, slot_bytes, bp_begin, bp_propose, bp_validate, bp_end_pass };
    status = occ_run(s, &alg, tr);
  }
  if (status == FL_OK) {
    *Zout = st.Z;
    *zcap = st.zcap;
    *features = st.A;
  } else {
    occ_trace_free(tr);
    occ_centers_free(&st.A);
    free(st.Z);
  }
  free(st.Zp);
  free(st.chg);
  free(st.res);
  return status;
}

int occ_predict_features(const double *x, int n, int d, const double *A,
                         int k, int threads, unsigned char *Z, double *cost)
{
  (void) threads;
  int failed = 0;
FL_OMP(parallel num_threads(fl_par_threads(threads, n, FL_PAR_MIN_CLIENTS)))
  {
    double *r = malloc((size_t) 2 * (d > 0 ? d : 1) * sizeof(double));
    if (!r) {
FL_OMP(atomic write)
      failed = 1;
    }
FL_OMP(for schedule(static))
    for (int i = 0; i < n; i++) {
      if (!r) continue;
      unsigned char *z = Z + (size_t) i * k;
      memset(z, 0, (size_t) k);
      memcpy(r, x + (size_t) i * d, (size_t) d * sizeof(double));
      double rn = sqnorm(r, d);
      sweep(z, A, d, 0, k, r, r + d, &rn);
      cost[i] = sqnorm(r, d);
    }
    free(r);
  }
  return failed ? FL_ERR_NOMEM : FL_OK;
}

/* Distributed steps (see occ_dpmeans.c): a worker's block holds its rows of
 * Z and Zp (m x zcap) and change flags; proposals travel as residuals. */
static bp_state block_state(const double *x, int d, int m, double lambda,
                            const double *A, int k, unsigned char *Z,
                            unsigned char *Zp, int zcap, char *chg, double *res)
{
  bp_state st;
  memset(&st, 0, sizeof st);
  st.x = x;
  st.n = m;
  st.d = d;
  st.lambda2 = lambda * lambda;
  st.A.v = (double *) A;
  st.A.k = st.A.cap = st.kfix = k;
  st.A.d = d;
  st.Z = Z;
  st.Zp = Zp;
  st.zcap = zcap;
  st.chg = chg;
  st.res = res;
  return st;
}

void occ_bp_propose_rows(const double *x, int d, int m, int lo, int hi,
                         const double *A, int k, double lambda,
                         unsigned char *Z, unsigned char *Zp, int zcap,
                         char *chg, int threads, double *res, char *flag)
{
  bp_state st = block_state(x, d, m, lambda, A, k, Z, Zp, zcap, chg, res);
  occ_propose_rows(bp_propose, &st, lo, hi, bp_begin(&st), threads, flag);
}

static void bp_limit(void *st, int k)
{
  ((bp_state *) st)->A.k = k;
}

void occ_bp_catch_up_rows(const double *x, int d, int m, int lo, int hi,
                          const double *A, int kfix, double lambda,
                          unsigned char *Z, int zcap, char *chg, double *res,
                          const int *outcome, int before)
{
  bp_state st = block_state(x, d, m, lambda, A, kfix, Z, NULL, zcap, chg, res);
  occ_catch_up_rows(bp_validate, bp_limit, &st, lo, hi, outcome, kfix, before);
}

/* res: np slots of OCC_BP_SLOT(d).  On FL_OK *Zout (np x *zcap) holds the
 * proposals' memberships of the features from kfix on (caller frees). */
int occ_bp_validate_list(double *res, int np, int d, double lambda,
                         occ_centers *A, unsigned char **Zout, int *zcap,
                         int *accepted)
{
  int cap = A->k + 16;
  unsigned char *Z = calloc((size_t) np * cap + 1, 1);
  unsigned char *Zp = calloc((size_t) np * cap + 1, 1);
  char *chg = calloc((size_t) np + 1, 1);
  int status = (Z && Zp && chg) ? FL_OK : FL_ERR_NOMEM;
  bp_state st = block_state(NULL, d, np, lambda, A->v, A->k, Z, Zp, cap, chg, res);
  st.A = *A;
  if (status == FL_OK) status = occ_validate_list(bp_validate, &st, np, accepted);
  *A = st.A;
  free(st.Zp);
  free(chg);
  if (status == FL_OK) {
    *Zout = st.Z;
    *zcap = st.zcap;
  } else {
    free(st.Z);
  }
  return status;
}

void occ_bp_block_gram(const double *x, int d, int m, unsigned char *Z, int zcap,
                       int k, double *out)
{
  bp_state st = block_state(x, d, m, 0.0, NULL, k, Z, NULL, zcap, NULL, NULL);
  memset(out, 0, ((size_t) k * k + (size_t) k * d) * sizeof(double));
  bp_gram(&st, 0, m, out);
}

double occ_bp_block_cost(const double *x, int d, int m, unsigned char *Z, int zcap,
                         const double *A, int k)
{
  bp_state st = block_state(x, d, m, 0.0, A, k, Z, NULL, zcap, NULL, NULL);
  double cost = 0.0;
  bp_cost(&st, 0, m, &cost);
  return cost;
}
