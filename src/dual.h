/* The LP-dual certificate of facility location (dual.c) and the
 * oracles that give it c_j(u) (dual_oracle.c).
 *
 * The LP relaxation max sum_ij a_i w_ij x_ij, sum_j x_ij <= 1,
 * x_ij <= y_j <= 1, sum_j y_j <= k has, for every u >= 0, the dual value
 *   B(u) = sum_i a_i u_i + (sum of the k largest c_j(u)),
 *   c_j(u) = sum_i a_i max(0, w_ij - u_i),
 * an upper bound on the best f over sets of k (weak duality), however
 * roughly u is chosen.  Facilities already open (`initial`) enter as
 * u_i >= their coverage lo_i, their columns excluded: their c_j is 0
 * there.  A budget sum_j cost_j y_j <= budget adds the fractional
 * knapsack of the c_j, and B uses the smaller of the two sums (each drops
 * one of the two constraints).  At u = the coverage m of a set S, c_j(m)
 * is j's marginal gain and B(m) the online bound f(S) + the k largest
 * gains, where the minimisation starts. */
#ifndef FL_DUAL_H
#define FL_DUAL_H

#include "facloc.h"
#include "fl_tune.h"   /* FL_DUAL_TRIALS */

/* What the minimisation needs from a similarity: two batch callbacks,
 * called on the main thread outside parallel regions (they may open their
 * own), with the oracle itself (its ctx their data, its pairs their
 * count).  Both return FL_OK or FL_ERR_NOMEM. */
typedef struct fl_dual_oracle fl_dual_oracle;
struct fl_dual_oracle {
  void *ctx;
  /* c[q * cnt + r] = c_{js[r]}(u[q]) for r < cnt, q < nu, or an upper
   * bound on it (every use of it stays a bound); u[q] are n-vectors. */
  int (*values)(fl_dual_oracle *o, const int *js, int cnt, const double *const *u, int nu,
                double *c);
  /* For every client i, m1[i] >= m2[i] (on entry both t[i]) become the two
   * largest of {m1[i], m2[i]} and {w_ij : j in js}; values w_ij <= t[i]
   * may be left out, so an oracle may skip every pair it proves below t.
   * Only steers the search: any values keep B a bound. */
  int (*top_two)(fl_dual_oracle *o, const int *js, int cnt, const double *t, double *m1,
                 double *m2);
  double evaluations;    /* candidates evaluated (at up to FL_DUAL_TRIALS u each),
                          * counted by fl_dual_minimise */
  double pairs;          /* kernel evaluations, counted by the oracle */
};

typedef struct {
  int n, m, k;
  const double *weight;        /* a_i, NULL for all ones */
  const double *lo;            /* n: coverage of the initial facilities, or NULL (0) */
  const unsigned char *skip;   /* m: excluded columns (initial facilities), or NULL */
  const double *cost;          /* m costs with a budget, or NULL */
  double budget;
  int threads;
  int iterations;              /* steps of the minimisation (certify) */
  double enough;               /* ... which stop once B <= enough (0: none) */
  double prune;                /* top_two's t = max(lo, prune u): 0 for exact oracles
                                * (see FL_DUAL_PRUNE in dual.c) */
  fl_interrupt_fn interrupted; /* checked between steps, or NULL */
  void *callback_ctx;
} fl_dual_problem;

typedef struct {
  double bound;         /* the best B(u) found */
  double start;         /* B(u0) */
  double *trace;        /* iterations + 1 entries (caller-owned, or NULL): best B
                         * after each step, trace[0] = B(u0) */
  int steps;            /* steps taken (fewer once B cannot improve) */
} fl_dual_result;

/* Minimise B from u0 (n values, u0 >= lo: the coverage of the set to
 * certify); ub0 (m values, or NULL for none known) holds upper bounds on
 * c_j(u0), such as the stale keys of a lazy greedy.  Counts go to
 * o->evaluations and o->pairs.  Returns FL_OK, FL_ERR_NOMEM or
 * FL_INTERRUPTED (out->bound is a bound in every case but the second). */
int fl_dual_minimise(const fl_dual_problem *dp, fl_dual_oracle *o, const double *u0,
                     const double *ub0, fl_dual_result *out);

/* The oracle of a similarity held as a dense n x m matrix (p->sim) or
 * sparse columns (p->sp_p): exact c_j(u), each summed by one thread in
 * client order (so the same for any number of threads); ctx holds what
 * o->ctx points to. */
typedef struct {
  const fl_problem *p;
  int threads;
} fl_dual_exact;
void fl_dual_oracle_exact(fl_dual_oracle *o, fl_dual_exact *ctx, const fl_problem *p,
                          int threads);
/* Keep in *m1 >= *m2 the two largest of them and w (the oracles' top_two). */
static inline void fl_keep_two(double w, double *m1, double *m2)
{
  if (w > *m2) {
    if (w > *m1) { *m2 = *m1; *m1 = w; }
    else *m2 = w;
  }
}

/* sum_i a_i u_i, the first term of B(u). */
double fl_dual_weighted_sum(const fl_dual_problem *dp, const double *u);
/* Working memory of fl_dual_minimise and fl_certify on problem p. */
double fl_dual_bytes(const fl_problem *p);
/* B(u) for one u: sum_i a_i u_i + the k largest c_j(u) (the knapsack
 * with a budget), the columns in skip left out (tests of the oracle). */
int fl_dual_value(const fl_dual_problem *dp, fl_dual_oracle *o, const double *u,
                  double *value);

#endif
