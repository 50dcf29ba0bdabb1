/* .Call glue for dpmeans(), ofl() and bpmeans(): the R wrappers have
 * validated everything; here we convert (points to row-major, so each
 * point is contiguous), call the core and return its status. */
#include <stdlib.h>
#include <string.h>
#include "r_util.h"
#include "occ_common.h"

enum { OCC_DP = 0, OCC_OFL = 1, OCC_BP = 2 };

/* control: list(lambda, serial, workers, batch, order (n x passes 0-based
 * integer or NULL), shards, threads, max_iter, u (OFL uniforms)). */
static occ_setup setup_from(SEXP X, fl_r_args control)
{
  occ_setup s = { 0 };
  s.n = Rf_nrows(X);
  s.d = Rf_ncols(X);
  s.threads = fl_r_int(control, "threads");
  s.x = fl_r_row_major(X, s.threads);
  s.serial = fl_r_int(control, "serial");
  s.workers = fl_r_int(control, "workers");
  s.batch = fl_r_int(control, "batch");
  s.order = fl_r_ints(control, "order");
  s.norder = s.order ? Rf_length(fl_r_get(control, "order")) / (s.n > 0 ? s.n : 1) : 0;
  s.shards = fl_r_int(control, "shards");
  s.max_iter = fl_r_int(control, "max_iter");
  s.interrupted = fl_r_interrupted;
  return s;
}

static SEXP int_vector(const int *v, int n, int offset)
{
  SEXP out = PROTECT(Rf_allocVector(INTSXP, n));
  for (int i = 0; i < n; i++) INTEGER(out)[i] = v[i] + offset;
  UNPROTECT(1);
  return out;
}

static SEXP real_vector(const double *v, int n)
{
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  for (int i = 0; i < n; i++) REAL(out)[i] = v[i];
  UNPROTECT(1);
  return out;
}

/* k x d row-major rows as an R k x d matrix. */
static SEXP rows_matrix(const occ_centers *c)
{
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, c->k, c->d));
  for (int k = 0; k < c->k; k++)
    for (int t = 0; t < c->d; t++)
      REAL(out)[k + (size_t) c->k * t] = c->v[(size_t) k * c->d + t];
  UNPROTECT(1);
  return out;
}

static SEXP trace_list(const occ_trace *tr)
{
  const char *names[] = { "iterations", "converged", "objective", "epoch_iteration",
                          "proposed", "accepted", "seconds", "proposals",
                          "proposal_pass" };
  SEXP out = PROTECT(fl_r_list(9, names));
  SET_VECTOR_ELT(out, 0, Rf_ScalarInteger(tr->iterations));
  SET_VECTOR_ELT(out, 1, Rf_ScalarLogical(tr->converged));
  SET_VECTOR_ELT(out, 2, real_vector(tr->objective, tr->iterations));
  SET_VECTOR_ELT(out, 3, int_vector(tr->ep_iter, tr->nepochs, 1));
  SET_VECTOR_ELT(out, 4, int_vector(tr->ep_proposed, tr->nepochs, 0));
  SET_VECTOR_ELT(out, 5, int_vector(tr->ep_accepted, tr->nepochs, 0));
  SET_VECTOR_ELT(out, 6, real_vector(tr->ep_seconds, tr->nepochs));
  SET_VECTOR_ELT(out, 7, int_vector(tr->prop, tr->nprop, 1));
  SET_VECTOR_ELT(out, 8, int_vector(tr->prop_pass, tr->nprop, 1));
  UNPROTECT(1);
  return out;
}

/* What the core allocated for a result, while it is copied into R objects.
 * The sizes come from the run, so the copies cannot be allocated first
 * (r_knn.c's way); and an R allocation may longjmp.  So an external
 * pointer owns them: its finaliser frees them at the next garbage
 * collection after a longjmp, and held_done() at once otherwise. */
typedef struct {
  occ_centers model;
  occ_trace tr;
  int *facility;
  unsigned char *Z;
} occ_held;

static void held_done(SEXP ptr)
{
  occ_held *h = R_ExternalPtrAddr(ptr);
  if (!h) return;
  occ_centers_free(&h->model);
  occ_trace_free(&h->tr);
  free(h->facility);
  free(h->Z);
  R_ClearExternalPtr(ptr);
}

/* A zeroed occ_held in *h, owned by the returned pointer (protect it); the
 * struct lives in a raw vector the pointer keeps alive. */
static SEXP held_new(occ_held **h)
{
  SEXP raw = PROTECT(Rf_allocVector(RAWSXP, sizeof(occ_held)));
  memset(RAW(raw), 0, sizeof(occ_held));
  *h = (occ_held *) RAW(raw);
  SEXP ptr = PROTECT(R_MakeExternalPtr(*h, R_NilValue, raw));
  R_RegisterCFinalizer(ptr, held_done);
  UNPROTECT(2);
  return ptr;
}

static SEXP run_clusters(int kind, const occ_setup *s, double lambda, fl_r_args control)
{
  const char *names[] = { "status", "cluster", "centers", "trace", "cost", "facility" };
  SEXP out = PROTECT(fl_r_list(6, names));
  SEXP cluster = PROTECT(Rf_allocVector(INTSXP, s->n));
  SEXP cost = PROTECT(Rf_allocVector(REALSXP, kind == OCC_OFL ? s->n : 0));
  occ_held *h;
  SEXP held = PROTECT(held_new(&h));
  int status = kind == OCC_DP
    ? occ_dpmeans(s, lambda, INTEGER(cluster), &h->model, &h->tr)
    : occ_ofl(s, lambda, fl_r_doubles(control, "u"), INTEGER(cluster), REAL(cost),
              &h->model, &h->facility, &h->tr);
  SET_VECTOR_ELT(out, 0, Rf_ScalarInteger(status));
  if (status == FL_OK) {
    for (int i = 0; i < s->n; i++) INTEGER(cluster)[i] += 1;
    SET_VECTOR_ELT(out, 1, cluster);
    SET_VECTOR_ELT(out, 2, rows_matrix(&h->model));
    SET_VECTOR_ELT(out, 3, trace_list(&h->tr));
    SET_VECTOR_ELT(out, 4, cost);
    if (h->facility) SET_VECTOR_ELT(out, 5, int_vector(h->facility, h->model.k, 1));
  }
  held_done(held);
  UNPROTECT(4);
  return out;
}

static SEXP run_features(const occ_setup *s, double lambda)
{
  const char *names[] = { "status", "Z", "features", "trace" };
  SEXP out = PROTECT(fl_r_list(4, names));
  occ_held *h;
  SEXP held = PROTECT(held_new(&h));
  int zcap = 0;
  int status = occ_bpmeans(s, lambda, &h->Z, &zcap, &h->model, &h->tr);
  SET_VECTOR_ELT(out, 0, Rf_ScalarInteger(status));
  if (status == FL_OK) {
    const int K = h->model.k;
    SEXP z = Rf_allocMatrix(INTSXP, s->n, K);
    SET_VECTOR_ELT(out, 1, z);
    for (int i = 0; i < s->n; i++)
      for (int k = 0; k < K; k++)
        INTEGER(z)[i + (size_t) s->n * k] = h->Z[(size_t) i * zcap + k];
    SET_VECTOR_ELT(out, 2, rows_matrix(&h->model));
    SET_VECTOR_ELT(out, 3, trace_list(&h->tr));
  }
  held_done(held);
  UNPROTECT(2);
  return out;
}

/* X: the n x d points as R holds them. */
SEXP facloc_occ(SEXP kind, SEXP X, SEXP list)
{
  fl_r_args control = fl_r_args_of(list, "control");
  occ_setup s = setup_from(X, control);
  double lambda = fl_r_double(control, "lambda");
  int k = Rf_asInteger(kind);
  return k == OCC_BP ? run_features(&s, lambda) : run_clusters(k, &s, lambda, control);
}

/* x: d x n new points; model: d x K (centers or features, transposed).
 * Returns list(status, assignment (n cluster ids, or n x K Z), dist). */
SEXP facloc_occ_predict(SEXP kind, SEXP x, SEXP model, SEXP threads)
{
  int d = Rf_nrows(x), n = Rf_ncols(x), K = Rf_ncols(model);
  int nthreads = Rf_asInteger(threads), status = FL_OK, bp = Rf_asInteger(kind) == OCC_BP;
  /* R allocations first: they may longjmp, which must not leak Z */
  const char *names[] = { "status", "assignment", "dist" };
  SEXP out = PROTECT(fl_r_list(3, names));
  SEXP dist = Rf_allocVector(REALSXP, n);
  SET_VECTOR_ELT(out, 2, dist);
  SEXP assign = bp ? Rf_allocMatrix(INTSXP, n, K) : Rf_allocVector(INTSXP, n);
  SET_VECTOR_ELT(out, 1, assign);
  if (bp) {
    unsigned char *Z = malloc((size_t) n * K + 1);
    status = Z ? occ_predict_features(REAL(x), n, d, REAL(model), K, nthreads, Z, REAL(dist))
               : FL_ERR_NOMEM;
    if (status == FL_OK)
      for (int i = 0; i < n; i++)
        for (int k = 0; k < K; k++) INTEGER(assign)[i + (size_t) n * k] = Z[(size_t) i * K + k];
    free(Z);
  } else {
    occ_predict_nearest(REAL(x), n, d, REAL(model), K, nthreads, INTEGER(assign), REAL(dist));
    for (int i = 0; i < n; i++) INTEGER(assign)[i] += 1;
  }
  SET_VECTOR_ELT(out, 0, Rf_ScalarInteger(status));
  UNPROTECT(1);
  return out;
}

/* ---- Distributed runs (R/occ-cluster.R) ----
 * A worker keeps its block in an environment: x (d x m), z, zprev (DP, OFL),
 * u, cost (OFL), Z, Zp (raw zcap x m), chg (raw m), zcap (BP), model
 * (d x K), kind, lambda, threads.  The steps below update those vectors in
 * place: they were created on the worker and are referenced only there. */

static SEXP env_get(SEXP env, const char *name)
{
  SEXP v = Rf_findVarInFrame(env, Rf_install(name));
  if (v == R_UnboundValue) Rf_error("internal error: worker state lacks '%s'", name);
  return v;
}

static int env_int(SEXP env, const char *name)
{
  return Rf_asInteger(env_get(env, name));
}

/* Propose rows [lo, hi) (0-based, of the block) against the model, keeping
 * each row's scratch (distance; BP: residual) in the block's slot buffer
 * for its catch-up (facloc_occ_wapply).  Returns list(rows, z, sd,
 * payload): payload is d x np, the proposers' points (DP, OFL) or
 * residuals (BP); sd their squared distances (BP: residual norms). */
SEXP facloc_occ_wpropose(SEXP env, SEXP lo_, SEXP hi_)
{
  int kind = env_int(env, "kind"), threads = env_int(env, "threads");
  int lo = Rf_asInteger(lo_), hi = Rf_asInteger(hi_);
  SEXP x = env_get(env, "x"), model = env_get(env, "model");
  int d = Rf_nrows(x), m = Rf_ncols(x), k = Rf_ncols(model), len = hi - lo;
  double lambda = Rf_asReal(env_get(env, "lambda"));
  char *flag = R_alloc((size_t) len + 1, 1);
  SEXP slots = env_get(env, "slots");
  size_t per = kind == OCC_BP ? OCC_BP_SLOT(d) : 1;
  if ((size_t) XLENGTH(slots) < (size_t) len * per)
    Rf_error("internal error: the block's slot buffer is too short");
  double *sd = kind == OCC_BP ? NULL : REAL(slots);
  double *res = kind == OCC_BP ? REAL(slots) : NULL;
  int *z = kind == OCC_BP ? NULL : INTEGER(env_get(env, "z"));
  if (kind == OCC_DP)
    occ_dp_propose_rows(REAL(x), d, m, lo, hi, REAL(model), k, lambda, threads, z, sd, flag);
  else if (kind == OCC_OFL)
    occ_ofl_propose_rows(REAL(x), d, m, lo, hi, REAL(model), k, lambda,
                         REAL(env_get(env, "u")), REAL(env_get(env, "cost")),
                         threads, z, sd, flag);
  else
    occ_bp_propose_rows(REAL(x), d, m, lo, hi, REAL(model), k, lambda,
                        RAW(env_get(env, "Z")), RAW(env_get(env, "Zp")),
                        env_int(env, "zcap"), (char *) RAW(env_get(env, "chg")),
                        threads, res, flag);
  int np = 0;
  for (int j = 0; j < len; j++) np += flag[j];
  SEXP rows = PROTECT(Rf_allocVector(INTSXP, np));
  SEXP zo = PROTECT(Rf_allocVector(INTSXP, z ? np : 0));
  SEXP so = PROTECT(Rf_allocVector(REALSXP, np));
  SEXP payload = PROTECT(Rf_allocMatrix(REALSXP, d, np));
  for (int j = 0, q = 0; j < len; j++) {
    if (!flag[j]) continue;
    int i = lo + j;
    INTEGER(rows)[q] = i;
    const double *src = res ? res + (size_t) j * per : REAL(x) + (size_t) i * d;
    for (int t = 0; t < d; t++) REAL(payload)[(size_t) q * d + t] = src[t];
    REAL(so)[q] = res ? src[2 * d] : sd[j];
    if (z) INTEGER(zo)[q] = z[i];
    q++;
  }
  const char *names[] = { "rows", "z", "sd", "payload" };
  SEXP out = PROTECT(fl_r_list(4, names));
  SET_VECTOR_ELT(out, 0, rows);
  SET_VECTOR_ELT(out, 1, zo);
  SET_VECTOR_ELT(out, 2, so);
  SET_VECTOR_ELT(out, 3, payload);
  UNPROTECT(5);
  return out;
}

/* Apply the validated outcome of the block's last epoch (rows [lo, hi) of
 * env), ap: list(rows (its proposers, 0-based), accepted (per proposer),
 * z and sd (DP, OFL: validated assignment and squared distance, OFL: the
 * cost), bits (BP: np x nb memberships of the features from kfix on),
 * kfix, before (accepted in the epoch ahead of this block)).  Then the
 * block's non-proposers catch up with the epoch's new centers (features),
 * which env$model already holds. */
SEXP facloc_occ_wapply(SEXP env, SEXP list)
{
  fl_r_args ap = fl_r_args_of(list, "outcome list");
  int kind = env_int(env, "kind"), lo = env_int(env, "lo"), hi = env_int(env, "hi");
  SEXP x = env_get(env, "x"), model = env_get(env, "model"), rows = fl_r_get(ap, "rows");
  int d = Rf_nrows(x), m = Rf_ncols(x), np = Rf_length(rows);
  int kfix = fl_r_int(ap, "kfix"), before = fl_r_int(ap, "before");
  double lambda = Rf_asReal(env_get(env, "lambda"));
  const int *r = INTEGER(rows), *acc = INTEGER(fl_r_get(ap, "accepted"));
  double *slots = REAL(env_get(env, "slots"));
  int *outcome = (int *) R_alloc((size_t) (hi - lo) + 1, sizeof(int));
  for (int i = lo; i < hi; i++) outcome[i - lo] = OCC_QUIET;
  for (int j = 0; j < np; j++) outcome[r[j] - lo] = acc[j] ? OCC_ACCEPTED : OCC_REJECTED;
  if (kind == OCC_BP) {
    SEXP bits = fl_r_get(ap, "bits");
    int zcap = env_int(env, "zcap"), nb = np ? Rf_ncols(bits) : 0;
    unsigned char *Z = RAW(env_get(env, "Z"));
    char *chg = (char *) RAW(env_get(env, "chg"));
    for (int j = 0; j < np; j++)
      for (int c = 0; c < nb; c++) {
        int bit = INTEGER(bits)[j + (size_t) np * c];
        Z[(size_t) r[j] * zcap + kfix + c] = (unsigned char) bit;
        if (bit) chg[r[j]] = 1;
      }
    occ_bp_catch_up_rows(REAL(x), d, m, lo, hi, REAL(model), kfix, lambda, Z, zcap,
                         chg, slots, outcome, before);
    return R_NilValue;
  }
  int *zz = INTEGER(env_get(env, "z"));
  const int *zv = INTEGER(fl_r_get(ap, "z"));
  for (int j = 0; j < np; j++) zz[r[j]] = zv[j];
  if (kind == OCC_DP) {
    occ_dp_catch_up_rows(REAL(x), d, m, lo, hi, REAL(model), kfix, lambda, zz, slots,
                         outcome, before);
  } else {
    double *cost = REAL(env_get(env, "cost"));
    const double *sdv = REAL(fl_r_get(ap, "sd"));
    for (int j = 0; j < np; j++) cost[r[j]] = sdv[j];
    occ_ofl_catch_up_rows(REAL(x), d, m, lo, hi, REAL(model), kfix, lambda,
                          REAL(env_get(env, "u")), cost, zz, slots, outcome, before);
  }
  return R_NilValue;
}

/* End-of-pass partials of the block: list(partial, changed). */
SEXP facloc_occ_wpartial(SEXP env)
{
  int kind = env_int(env, "kind"), threads = env_int(env, "threads");
  SEXP x = env_get(env, "x"), model = env_get(env, "model");
  int d = Rf_nrows(x), m = Rf_ncols(x), k = Rf_ncols(model), changed = 0;
  SEXP partial;
  if (kind == OCC_DP) {
    size_t len = (size_t) k * (d + 1);
    double *tally = (double *) R_alloc(len + 1, sizeof(double));
    changed = occ_dp_block_tally(REAL(x), d, m, INTEGER(env_get(env, "z")),
                                 INTEGER(env_get(env, "zprev")), k, tally);
    partial = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t) len));
    memcpy(REAL(partial), tally, len * sizeof(double));
  } else if (kind == OCC_OFL) {
    partial = PROTECT(Rf_ScalarReal(occ_ofl_block_cost(REAL(env_get(env, "cost")), m)));
  } else {
    partial = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t) k * k + (R_xlen_t) k * d));
    occ_bp_block_gram(REAL(x), d, m, RAW(env_get(env, "Z")), env_int(env, "zcap"), k,
                      REAL(partial));
    changed = occ_bp_changed((char *) RAW(env_get(env, "chg")), m, threads);
  }
  const char *names[] = { "partial", "changed" };
  SEXP out = PROTECT(fl_r_list(2, names));
  SET_VECTOR_ELT(out, 0, partial);
  SET_VECTOR_ELT(out, 1, Rf_ScalarInteger(changed));
  UNPROTECT(2);
  return out;
}

/* Renumber after the model update (map: DP newid, BP keep, 0-based; old K)
 * and return the block's cost under the new model (env$model). */
SEXP facloc_occ_wrelabel(SEXP env, SEXP map, SEXP oldk)
{
  int kind = env_int(env, "kind"), threads = env_int(env, "threads");
  SEXP x = env_get(env, "x"), model = env_get(env, "model");
  int d = Rf_nrows(x), m = Rf_ncols(x), k = Rf_ncols(model);
  double cost;
  if (kind == OCC_DP) {
    cost = occ_dp_block_relabel_cost(REAL(x), d, m, INTEGER(env_get(env, "z")),
                                     INTEGER(env_get(env, "zprev")), INTEGER(map),
                                     REAL(model), k);
  } else {
    int zcap = env_int(env, "zcap");
    unsigned char *Z = RAW(env_get(env, "Z"));
    char *chg = (char *) RAW(env_get(env, "chg"));
    occ_bp_compact(Z, RAW(env_get(env, "Zp")), m, zcap, INTEGER(map), k,
                   Rf_asInteger(oldk), threads);
    for (int i = 0; i < m; i++) chg[i] = 0;
    cost = occ_bp_block_cost(REAL(x), d, m, Z, zcap, REAL(model), k);
  }
  return Rf_ScalarReal(cost);
}

static SEXP centers_matrix(const occ_centers *c)
{
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, c->d, c->k));
  for (size_t j = 0; j < (size_t) c->k * c->d; j++) REAL(out)[j] = c->v[j];
  UNPROTECT(1);
  return out;
}

/* Caller: validate proposals in order.  props: list(payload (d x np), z, sd,
 * u); model d x K.  Returns list(status, accepted, z, sd, model, bits). */
SEXP facloc_occ_cvalidate(SEXP kind_, SEXP list, SEXP model, SEXP lambda_)
{
  fl_r_args props = fl_r_args_of(list, "proposals");
  int kind = Rf_asInteger(kind_);
  SEXP payload = fl_r_get(props, "payload");
  int d = Rf_nrows(payload), np = Rf_ncols(payload), K = Rf_ncols(model);
  double lambda = Rf_asReal(lambda_);
  const char *names[] = { "status", "accepted", "z", "sd", "model", "bits" };
  SEXP out = PROTECT(fl_r_list(6, names));
  SEXP accepted = PROTECT(Rf_allocVector(INTSXP, np));
  SEXP z = PROTECT(Rf_duplicate(fl_r_get(props, "z")));
  SEXP sd = PROTECT(Rf_duplicate(fl_r_get(props, "sd")));
  double *cost = kind == OCC_OFL ? (double *) R_alloc((size_t) np + 1, sizeof(double)) : NULL;
  double *res = kind == OCC_BP
    ? (double *) R_alloc((size_t) np * OCC_BP_SLOT(d) + 1, sizeof(double)) : NULL;
  occ_held *h;
  SEXP held = PROTECT(held_new(&h));
  occ_centers *c = &h->model;
  int zcap = 0, status = occ_centers_init(c, d, K + np + 1);
  if (status == FL_OK) {
    memcpy(c->v, REAL(model), (size_t) K * d * sizeof(double));
    c->k = K;
  }
  if (status == FL_OK && kind == OCC_DP) {
    status = occ_dp_validate_list(REAL(payload), np, d, lambda, c, INTEGER(z),
                                  REAL(sd), INTEGER(accepted));
  } else if (status == FL_OK && kind == OCC_OFL) {
    status = occ_ofl_validate_list(REAL(payload), np, d, lambda,
                                   REAL(fl_r_get(props, "u")), cost, c,
                                   INTEGER(z), REAL(sd), INTEGER(accepted));
    for (int j = 0; j < np; j++) REAL(sd)[j] = cost[j];
  } else if (status == FL_OK) {
    for (int j = 0; j < np; j++) {
      double *r = res + (size_t) j * OCC_BP_SLOT(d);
      memcpy(r, REAL(payload) + (size_t) j * d, (size_t) d * sizeof(double));
      r[2 * d] = REAL(sd)[j];
    }
    status = occ_bp_validate_list(res, np, d, lambda, c, &h->Z, &zcap, INTEGER(accepted));
  }
  SET_VECTOR_ELT(out, 0, Rf_ScalarInteger(status));
  if (status == FL_OK) {
    SET_VECTOR_ELT(out, 1, accepted);
    SET_VECTOR_ELT(out, 2, z);
    SET_VECTOR_ELT(out, 3, sd);
    SET_VECTOR_ELT(out, 4, centers_matrix(c));
    if (kind == OCC_BP) {
      int nb = c->k - K;
      SEXP bits = Rf_allocMatrix(INTSXP, np, nb);
      SET_VECTOR_ELT(out, 5, bits);
      for (int j = 0; j < np; j++)
        for (int b = 0; b < nb; b++)
          INTEGER(bits)[j + (size_t) np * b] = h->Z[(size_t) j * zcap + K + b];
    }
  }
  held_done(held);
  UNPROTECT(5);
  return out;
}

/* Caller: the model update from the combined partials of a pass (K the
 * model's size during the pass).  Returns list(model (d x kept), map). */
SEXP facloc_occ_cupdate(SEXP kind_, SEXP partial, SEXP K_, SEXP d_)
{
  int kind = Rf_asInteger(kind_), K = Rf_asInteger(K_), d = Rf_asInteger(d_), kept;
  SEXP part = PROTECT(Rf_duplicate(partial));
  SEXP map = PROTECT(Rf_allocVector(INTSXP, K));
  double *model = (double *) R_alloc((size_t) K * d + 1, sizeof(double));
  if (kind == OCC_DP) {
    kept = occ_dp_means(REAL(part), K, d, model, INTEGER(map));
  } else {
    double *G = REAL(part), *B = G + (size_t) K * K;
    kept = occ_bp_keep(G, B, K, d, INTEGER(map));
    occ_psd_solve(G, B, kept, d);
    memcpy(model, B, (size_t) kept * d * sizeof(double));
  }
  SEXP m = PROTECT(Rf_allocMatrix(REALSXP, d, kept));
  memcpy(REAL(m), model, (size_t) kept * d * sizeof(double));
  const char *names[] = { "model", "map" };
  SEXP out = PROTECT(fl_r_list(2, names));
  SET_VECTOR_ELT(out, 0, m);
  SET_VECTOR_ELT(out, 1, map);
  UNPROTECT(4);
  return out;
}
