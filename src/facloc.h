/*
 * facloc solver core: plain C99 + OpenMP, no R headers.
 *
 * Files named r_*.c and init.c are the R glue; every other file in src/
 * belongs to the core and also builds into the standalone benchmark driver
 * (inst/bench/) and the sanitizer harnesses.
 */
#ifndef FACLOC_H
#define FACLOC_H

#include <stddef.h>

/* Status codes returned by every core entry point. */
enum {
  FL_OK = 0,
  FL_ERR_NOMEM = 1,       /* malloc failed, possibly inside a parallel region */
  FL_INTERRUPTED = 2,     /* the interrupt callback asked us to stop */
  FL_ERR_ARG = 3          /* inconsistent arguments reaching the core */
};

typedef enum {
  FL_MODE_G = 0,    /* sequential greedy on a precomputed matrix */
  FL_MODE_C,        /* CELF, one shared heap under a lock */
  FL_MODE_DC,       /* distributed CELF, one heap per thread */
  FL_MODE_HC,       /* hierarchical CELF, k-means cluster bounds */
  FL_MODE_HPC,      /* hc + coverage pruning + fused barriers */
  FL_MODE_NHPC,     /* nested G x M threads with group barriers */
  FL_MODE_STOCHASTIC, /* stochastic greedy on sampled candidates */
  FL_MODE_COUNT
} fl_mode;

/*
 * A facility location instance.  Clients i = 0..n-1 are served by
 * candidates j = 0..m-1 with similarity s_ij, given by exactly one of:
 *   - points: x (n x d, row-major) and y (m x d, row-major; may equal x),
 *     s_ij = exp(-||x_i - y_j||^2 * inv2s2);
 *   - dense: sim, n x m column-major (column j = candidate j);
 *   - sparse: compressed sparse columns (sp_p, sp_i, sp_x), n x m.
 */
typedef struct {
  int n, m, d;
  const double *x, *y;
  double inv2s2;
  const double *sim;
  const float *simf;      /* the solvers' own dense n x m matrix in single precision
                           * (fl_control single), never given: NULL from the glue */
  const int *sp_p, *sp_i;
  const double *sp_x;
  const double *weight;   /* n client weights, NULL for all ones */
  const int *initial;     /* 0-based candidates already open, or NULL */
  int ninitial;
  const double *cost;     /* m positive candidate costs, or NULL: no budget */
  double budget;          /* total cost allowed for the new picks (with cost) */
} fl_problem;

/* Called on the main thread between rounds, outside parallel regions.
 * Returns non-zero to stop the solve. */
typedef int (*fl_interrupt_fn)(void *ctx);
/* Progress report from the main thread between rounds. */
typedef void (*fl_progress_fn)(void *ctx, int round, int selected, double objective);

typedef struct {
  fl_mode mode;
  int k;
  int threads;
  int batch;          /* picks committed per round (relaxed modes) */
  double eps;         /* cluster pruning fraction (hc, hpc, nhpc) */
  double tau;         /* coverage pruning threshold (hpc, nhpc) */
  int clusters;       /* k-means clusters (hc, hpc, nhpc) */
  int group_size;     /* M of nhpc */
  unsigned int seed;  /* k-means seed */
  fl_interrupt_fn interrupted;
  fl_progress_fn progress;
  void *callback_ctx;
  double epsilon;     /* stochastic greedy: (m/k) log(1/epsilon) samples a step */
  double target;      /* stop once f(S) >= target; 0: none */
  int certify;        /* steps of the LP-dual bound's minimisation (dual.h) */
  double certify_goal; /* ... which stop once f(S) >= certify_goal times the bound
                        * (proven good enough); 0: every step */
  int single;         /* 1: the exact modes' matrix from points in single precision,
                       * rounded up (exact_state.h) */
  int stream;         /* 1: mode dc from points computes its gains from the points
                       * and holds no matrix (celf_stream.c) ... */
  double stream_lists; /* ... and keeps lists of live clients in at most these bytes */
} fl_control;

typedef struct {
  int *selected;        /* k entries, 0-based candidate indices, caller-owned */
  double *gains;        /* k entries, caller-owned */
  int nselected;
  double objective;     /* f(initial + selected), double precision */
  double bound;         /* upper bound on the optimum for this k: the smallest of
                         * the cap, bound_online and bound_dual */
  double bound_online;  /* min over rounds t of f(S_t) + the k largest gain bounds
                         * held then (Inf: none) */
  double bound_dual;    /* the LP dual's best B(u) (Inf: not computed) */
  double bound_evaluations; /* gain and c_j(u) evaluations of the final bound */
  double bound_seconds; /* its elapsed time (0 without OpenMP) */
  int dual_steps;       /* steps of the LP dual that lowered it */
  double *trace_objective; /* nselected + 1 entries (caller-owned, k + 1; or NULL): */
  double *trace_bound;     /* f(S_t) and the bound known after t picks */
  double *dual_trace;   /* certify + 1 entries, or NULL: the LP dual's B after each step */
  double evaluations;   /* marginal-gain evaluations */
  double pairs;         /* client-candidate similarities evaluated */
  int rounds;
  int budget_rule;      /* with a budget: FL_RULE_UNIT_COST or FL_RULE_COST_BENEFIT */
} fl_result;

/* Which lazy greedy won under a budget (Leskovec et al. 2007). */
enum { FL_RULE_NONE = 0, FL_RULE_UNIT_COST = 1, FL_RULE_COST_BENEFIT = 2 };

/* Solve; fills res.  Returns an FL_* status; on failure nothing leaks. */
int fl_solve(const fl_problem *p, const fl_control *c, fl_result *res);

/* Certify a given set: f(initial + sel) and upper bounds on the best f
 * over sets of c->k more (bound, bound_online = f + the k largest gains,
 * bound_dual after c->certify steps), from the similarity (W is built
 * from points).  sel: nsel distinct 0-based candidates, none initial. */
int fl_bound(const fl_problem *p, const int *sel, int nsel, const fl_control *c,
             fl_result *res);

/* B(u) of dual.h for k picks at the given u (n values, at least the
 * initial facilities' coverage): a check of the oracle. */
int fl_dual_at(const fl_problem *p, int k, int threads, const double *u, double *value);

/* c_j(u) of the matrix-free modes' LP-dual oracle (mf_dual.c) for every
 * candidate into out (m), at u_i = alpha max_{j in sel} s_ij, on the
 * cluster layout of c: a check against the exact values. */
int fl_mf_dual_values(const fl_problem *p, const fl_control *c, const int *sel, int nsel,
                      double alpha, double *out);

/* f(S) for the given 0-based candidates (initial facilities included). */
int fl_objective(const fl_problem *p, const int *sel, int nsel, int threads,
                 double *value);

/* Bytes of working memory a solve will allocate (beyond the inputs). */
double fl_solve_bytes(const fl_problem *p, const fl_control *c);

const char *fl_mode_name(fl_mode mode);
/* "exact", "matrix-free" or "sampled" */
const char *fl_mode_kind(fl_mode mode);
/* The mode named name, -1 if none is. */
int fl_mode_lookup(const char *name);

#endif
