/*
 * Standalone driver for the facloc C core: no R involved, so the solvers can
 * be timed, profiled and run under sanitizers and valgrind on their own.
 *
 *   facloc-bench [--mode M|all] [--threads T] [--n N] [--d D] [--k K]
 *                [--sigma S] [--clusters C] [--spread S] [--seed SEED]
 *                [--no-header] [--input FILE] [--reps R] [--exact]
 *                [--group-size M] [--pass] [--barrier]
 *     Generates clustered points (C centres uniform in [0, 100]^d, points
 *     normal around them with sd `spread`) from a fixed seed, or reads n x d
 *     row-major doubles from --input FILE, and prints one CSV row per mode
 *     and run (--reps R runs each; --exact: matrix-free modes with batch 1,
 *     eps 0, tau 1; --group-size M: nhpc's threads per group, default 4;
 *     --pass: one exhaustive pass, as facility_pass_time(), instead;
 *     --barrier: the seconds per episode of T threads' group barrier,
 *     instead):
 *     mode,threads,n,d,k,seconds,evaluations,pairs,objective,bound
 *     (a pass's row: evaluations m, pairs n m, objective the gains' sum;
 *     a barrier's: n the episodes timed)
 *
 *   facloc-bench --fuzz ITER [--seed SEED] [--threads T]
 *     Runs ITER random small problems through every mode, at 1 to T threads
 *     (3 by default: more oversubscribe 2 cores, which exercises the waits
 *     that sleep), and checks the invariants listed at fuzz_one(); also
 *     injects allocation failures and interrupts.  Prints a summary; exit status 1 on any violation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <float.h>
#include <math.h>
#include <time.h>
#include "facloc.h"
#include "exact_state.h"
#include "cl_layout.h"
#include "kernel.h"
#include "kernel_pass.h"
#include "fl_barrier.h"
#include "fl_tune.h"

/* ---- random numbers: splitmix64, identical on every platform ---- */

static unsigned long long rng_state;

static unsigned long long rng_next(void)
{
  unsigned long long z = (rng_state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static double rng_unif(void)
{
  return (double) (rng_next() >> 11) * (1.0 / 9007199254740992.0);
}

static int rng_int(int lo, int hi)   /* inclusive */
{
  return lo + (int) (rng_next() % (unsigned long long) (hi - lo + 1));
}

static double rng_norm(void)
{
  double u = rng_unif(), v = rng_unif();
  if (u < 1e-300) u = 1e-300;
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* n x d row-major points around `clusters` centres. */
static double *clustered_points(int n, int d, int clusters, double spread)
{
  double *centre = malloc(sizeof(double) * (size_t) clusters * d);
  double *x = malloc(sizeof(double) * (size_t) n * d);
  if (!centre || !x) { free(centre); free(x); return NULL; }
  for (size_t t = 0; t < (size_t) clusters * d; t++) centre[t] = 100.0 * rng_unif();
  for (int i = 0; i < n; i++) {
    const double *c = centre + (size_t) rng_int(0, clusters - 1) * d;
    for (int t = 0; t < d; t++) x[(size_t) i * d + t] = c[t] + spread * rng_norm();
  }
  free(centre);
  return x;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int parse_mode(const char *name)
{
  for (int m = 0; m < FL_MODE_COUNT; m++)
    if (strcmp(name, fl_mode_name((fl_mode) m)) == 0) return m;
  return -1;
}

/* Control with the solvers' default relaxation (as facility_control()). */
static fl_control default_control(int mode, int k, int threads)
{
  fl_control c;
  memset(&c, 0, sizeof c);
  c.mode = (fl_mode) mode;
  c.k = k;
  c.threads = threads;
  c.batch = k / 20 > 1 ? k / 20 : 1;
  c.eps = 0.05;
  c.tau = 0.9;
  c.clusters = 32;
  c.group_size = 4;
  c.seed = 1;
  c.epsilon = 0.01;
  return c;
}

/* Settings under which every relaxed mode must reproduce exact greedy. */
static void make_exact(fl_control *c)
{
  c->batch = 1;
  c->eps = 0.0;
  c->tau = 1.0;
  c->epsilon = 0.0;
}

/* Exact: the exact modes, and the others with eps 0, tau 1 and epsilon 0
 * (stochastic needs batch 1; the matrix-free modes commit a round's picks
 * only while no earlier pick can lower their gains, greedy's order at any
 * batch). */
static int is_exact(const fl_control *c)
{
  return c->mode <= FL_MODE_DC ||
    ((c->batch == 1 || c->mode != FL_MODE_STOCHASTIC) && c->eps == 0.0 && c->tau == 1.0 &&
     c->epsilon == 0.0);
}

/* ---- benchmark ---- */

/* n x d doubles, row-major, read from path (as R's writeBin(c(t(X))) writes
 * them): the R package's data sets on a machine without R. */
static double *read_points(const char *path, int n, int d)
{
  FILE *f = fopen(path, "rb");
  double *x = f ? malloc(sizeof(double) * (size_t) n * d) : NULL;
  size_t got = x ? fread(x, sizeof(double), (size_t) n * d, f) : 0;
  if (f) fclose(f);
  if (got != (size_t) n * d) {
    fprintf(stderr, "facloc-bench: cannot read %d x %d doubles from %s\n", n, d, path);
    free(x);
    return NULL;
  }
  return x;
}

/* What a benchmark run measures (the command line's options). */
typedef struct {
  int mode;            /* -1: every mode */
  int threads, n, d, k, clusters, reps, group_size;
  int header, exact, pass, barrier;
  double sigma, spread;
  const char *input;   /* NULL: generated points */
} bench_opts;

/* One exhaustive pass (fl_pass_gains, what facility_pass_time() times),
 * `reps` times: the reference the solvers' times are divided by (issue 9). */
static int bench_pass(const bench_opts *o, const fl_problem *p)
{
  double *gain = malloc(sizeof(double) * (size_t) p->m);
  if (!gain) return 2;
  int rc = 0;
  for (int rep = 0; rep < o->reps && rc == 0; rep++) {
    double t0 = now();
    rc = fl_pass_gains(p, o->threads, gain) != FL_OK;
    double seconds = now() - t0, sum = 0.0;
    for (int j = 0; j < p->m; j++) sum += gain[j];
    printf("pass,%d,%d,%d,%d,%.6f,%d,%.0f,%.10g,NA\n", o->threads, p->n, p->d, o->k, seconds,
           p->m, (double) p->n * p->m, sum);
    fflush(stdout);
  }
  free(gain);
  return rc;
}

/* The seconds per episode of nhpc's group barrier (fl_barrier) met by
 * `threads` threads, over BARRIER_EPISODES of them, `reps` times: what
 * each of a group's three meetings a step costs at least.  On a VM it
 * follows how far apart the host runs the vCPUs (two-thread-pairs.sh). */
#define BARRIER_EPISODES 100000
static int bench_barrier(const bench_opts *o)
{
  for (int rep = 0; rep < o->reps; rep++) {
    fl_barrier bar;
    fl_barrier_init(&bar);
    double t0 = now();
#ifdef _OPENMP
#pragma omp parallel num_threads(o->threads)
#endif
    {
      int team = fl_team_size();
      for (int e = 0; e < BARRIER_EPISODES; e++) fl_barrier_wait(&bar, team);
    }
    printf("barrier,%d,%d,0,0,%.9f,0,0,NA,NA\n", o->threads, BARRIER_EPISODES,
           (now() - t0) / BARRIER_EPISODES);
    fflush(stdout);
  }
  return 0;
}

/* Runs every mode asked for `reps` times (one CSV row a run) on the points
 * of `input` or generated ones; with exact, the matrix-free modes run with
 * batch 1, eps 0, tau 1 (exact greedy's selection: the quality reference);
 * with pass, one exhaustive pass instead. */
static int bench(const bench_opts *o)
{
  const int n = o->n, d = o->d, k = o->k;
  double *x = o->input ? read_points(o->input, n, d)
                       : clustered_points(n, d, o->clusters, o->spread);
  int *sel = malloc(sizeof(int) * (size_t) k);
  double *gain = malloc(sizeof(double) * (size_t) k);
  if (!x || !sel || !gain) {
    fprintf(stderr, "facloc-bench: out of memory generating the data\n");
    free(x); free(sel); free(gain);
    return 2;
  }
  fl_problem p;
  memset(&p, 0, sizeof p);
  p.n = p.m = n;
  p.d = d;
  p.x = p.y = x;
  p.inv2s2 = 1.0 / (2.0 * o->sigma * o->sigma);
  if (o->header) printf("mode,threads,n,d,k,seconds,evaluations,pairs,objective,bound\n");
  int rc = o->pass ? bench_pass(o, &p) : 0;
  for (int mode = 0; mode < FL_MODE_COUNT && !o->pass; mode++) {
    if (o->mode >= 0 && mode != o->mode) continue;
    fl_control c = default_control(mode, k, o->threads);
    if (o->group_size > 0) c.group_size = o->group_size;
    if (o->exact) make_exact(&c);
    for (int rep = 0; rep < o->reps; rep++) {
      fl_result r;
      memset(&r, 0, sizeof r);
      r.selected = sel;
      r.gains = gain;
      double t0 = now();
      int status = fl_solve(&p, &c, &r);
      double seconds = now() - t0;
      if (status != FL_OK) {
        fprintf(stderr, "facloc-bench: mode %s returned status %d\n",
                fl_mode_name((fl_mode) mode), status);
        /* with --mode all, a mode not built yet (FL_ERR_ARG) is only reported */
        if (o->mode >= 0 || status != FL_ERR_ARG) rc = 1;
        break;
      }
      printf("%s,%d,%d,%d,%d,%.6f,%.0f,%.0f,%.10g,%.10g\n", fl_mode_name((fl_mode) mode),
             o->threads, n, d, k, seconds, r.evaluations, r.pairs, r.objective, r.bound);
      fflush(stdout);
    }
  }
  free(x); free(sel); free(gain);
  return rc;
}

/* ---- fuzz: allocation failures and interrupts are injected ---- */

/* Allocation failure injection: the core's object files are linked with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=posix_memalign (see
 * GNUmakefile), so their calls land here.  alloc_countdown > 0 fails the countdown-th allocation. */
void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *ptr, size_t size);
int __real_posix_memalign(void **ptr, size_t align, size_t size);
static long alloc_countdown;   /* 0: never fail */
static long alloc_calls;

static int alloc_should_fail(void)
{
  long calls = __atomic_add_fetch(&alloc_calls, 1, __ATOMIC_RELAXED);
  return alloc_countdown > 0 && calls == alloc_countdown;
}

/* Byte that fills every block malloc() returns, -1 for none: a run whose
 * answer changes with it reads memory it never wrote. */
static int alloc_fill = -1;

void *__wrap_malloc(size_t size)
{
  void *p = alloc_should_fail() ? NULL : __real_malloc(size);
  if (p && alloc_fill >= 0) memset(p, alloc_fill, size);
  return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
  return alloc_should_fail() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *ptr, size_t size)
{
  return alloc_should_fail() ? NULL : __real_realloc(ptr, size);
}

int __wrap_posix_memalign(void **ptr, size_t align, size_t size)
{
  if (alloc_should_fail()) return ENOMEM;
  int rc = __real_posix_memalign(ptr, align, size);
  if (rc == 0 && alloc_fill >= 0) memset(*ptr, alloc_fill, size);
  return rc;
}

/* Interrupt after a given number of checks (0: never). */
static int interrupt_after;
static int interrupt_checks;

static int fake_interrupt(void *ctx)
{
  (void) ctx;
  return interrupt_after > 0 && ++interrupt_checks >= interrupt_after;
}

typedef struct {
  long cases, solves, skipped, failures, nomem, interrupts, ties;
} fuzz_stats;

static fuzz_stats stats;
static int fuzz_threads = 3;

#define FAIL(...) do { \
    fprintf(stderr, "fuzz case %ld: ", stats.cases); \
    fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); \
    stats.failures++; \
  } while (0)

typedef struct {
  int sel[64];
  double gains[64];
  fl_result r;
  int status;
} run_out;

static void run(const fl_problem *p, const fl_control *c, run_out *o)
{
  memset(&o->r, 0, sizeof o->r);
  o->r.selected = o->sel;
  o->r.gains = o->gains;
  o->status = fl_solve(p, c, &o->r);
  stats.solves++;
}

static int same_selection(const run_out *a, const run_out *b)
{
  if (a->r.nselected != b->r.nselected) return 0;
  for (int t = 0; t < a->r.nselected; t++)
    if (a->sel[t] != b->sel[t]) return 0;
  return 1;
}

/* a selects what greedy reference ref selects, up to a tie within
 * rounding: at the first difference both picks gained the same to 1e-12
 * plus `slack`, how far the two kernels' similarities may differ
 * (kernel_slack(): g reads the tiled kernel's, the matrix-free modes take
 * each pair's differences; they also sum in another order, with an exp()
 * within 1 ulp of the C library's).  Seed 16 without OpenMP under ASan,
 * case 16: two gains 7.1e-12 apart, ordered either way. */
static int greedy_equivalent(const run_out *a, const run_out *ref, double slack)
{
  if (same_selection(a, ref)) return 1;
  int t = 0;
  while (t < a->r.nselected && t < ref->r.nselected && a->sel[t] == ref->sel[t]) t++;
  if (t == a->r.nselected || t == ref->r.nselected) return 0;
  double ga = a->gains[t], gr = ref->gains[t];
  if (fabs(ga - gr) > (1e-12 + slack) * fabs(gr)) return 0;
  stats.ties++;
  return 1;
}

static int close_to(double a, double b)
{
  return fabs(a - b) <= 1e-9 * (1.0 + fabs(a) + fabs(b));
}

/* How far two kernels' similarities of the same points may differ,
 * relatively: the tiled kernel's |x|^2 + |y|^2 - 2 x.y about the clients'
 * mean is within (d + 8) eps (A + B)^2 of the pairwise (x - y)^2 (A, B the
 * largest client and candidate norms about that mean; the analysis of
 * cl_post.c's rounding_allowance), which moves exp(-d2 inv2s2) by that
 * times inv2s2, relatively: at exponents near 64 the two differ by 1e-10
 * (fuzz seed 1, 8 threads, case 194).  0 for a similarity matrix. */
static double kernel_slack(const fl_problem *p)
{
  if (p->sim || p->sp_p || !p->x) return 0.0;
  double *mean = calloc((size_t) p->d, sizeof(double)), a = 0.0, b = 0.0;
  if (!mean) return 1.0;
  for (int i = 0; i < p->n; i++)
    for (int t = 0; t < p->d; t++) mean[t] += p->x[(size_t) i * p->d + t] / p->n;
  for (int pass = 0; pass < 2; pass++) {
    const double *pts = pass ? p->y : p->x;
    int cnt = pass ? p->m : p->n;
    for (int i = 0; i < cnt; i++) {
      double r2 = 0.0;
      for (int t = 0; t < p->d; t++) {
        double e = pts[(size_t) i * p->d + t] - mean[t];
        r2 += e * e;
      }
      if (pass) b = fmax(b, sqrt(r2));
      else a = fmax(a, sqrt(r2));
    }
  }
  free(mean);
  return (p->d + 8.0) * DBL_EPSILON * (a + b) * (a + b) * p->inv2s2;
}

/* How far above the double kernel's a similarity of the single-precision
 * matrix may read, relatively (kernel.h, fl_rbf_tile_f): the float tiles
 * lower each squared distance by gamma (|x|^2 + |y|^2), norms about the
 * clients' mean, after their rounding lowered it by up to as much, and
 * the value is rounded up (2^-23 after a 2^-40 margin). */
static double single_inflation(const fl_problem *p)
{
  double *mean = calloc((size_t) p->d, sizeof(double)), xmax = 0.0, ymax = 0.0;
  if (!mean) return INFINITY;
  for (int i = 0; i < p->n; i++)
    for (int t = 0; t < p->d; t++) mean[t] += p->x[(size_t) i * p->d + t] / p->n;
  for (int i = 0; i < p->n || i < p->m; i++) {
    if (i < p->n) xmax = fmax(xmax, fl_sqdist(p->x + (size_t) i * p->d, mean, p->d));
    if (i < p->m) ymax = fmax(ymax, fl_sqdist(p->y + (size_t) i * p->d, mean, p->d));
  }
  free(mean);
  double gamma = (FL_TILE_DEPTH + 3) * 0x1p-24 / (1.0 - (FL_TILE_DEPTH + 3) * 0x1p-24)
    + (p->d / FL_TILE_DEPTH + 8) * 0x1p-53;
  /* lowered by gamma (|x|^2 + |y|^2) after an error of up to as much */
  return expm1(2.0 * gamma * (xmax + ymax) * p->inv2s2) * (1.0 + 0x1p-40) * (1.0 + 0x1p-23)
    + 0x1p-40 + 0x1p-23;
}

/* Invariants of any successful run: distinct in-range picks that are not
 * initially open, objective = f(initial + picks) = f(initial) + sum gains,
 * and bound >= objective. */
static void check_result(const fl_problem *p, const fl_control *c, const run_out *o,
                         const char *what)
{
  const fl_result *r = &o->r;
  int expect = c->k < p->m - p->ninitial ? c->k : p->m - p->ninitial;
  if (r->nselected != expect)
    FAIL("%s: %d selected, expected %d", what, r->nselected, expect);
  int all[128];
  int nall = 0;
  for (int t = 0; t < p->ninitial; t++) all[nall++] = p->initial[t];
  for (int t = 0; t < r->nselected; t++) {
    if (o->sel[t] < 0 || o->sel[t] >= p->m) { FAIL("%s: index %d out of range", what, o->sel[t]); return; }
    for (int u = 0; u < nall; u++)
      if (all[u] == o->sel[t]) FAIL("%s: candidate %d picked twice or initially open", what, o->sel[t]);
    all[nall++] = o->sel[t];
  }
  fl_problem q = *p;
  q.initial = NULL;
  q.ninitial = 0;
  double f_all = 0.0, f_init = 0.0;
  if (fl_objective(&q, all, nall, 1, &f_all) != FL_OK ||
      fl_objective(&q, all, p->ninitial, 1, &f_init) != FL_OK) {
    FAIL("%s: fl_objective failed", what);
    return;
  }
  double sum = f_init;
  for (int t = 0; t < r->nselected; t++) sum += o->gains[t];
  if (!close_to(r->objective, f_all))
    FAIL("%s: objective %.17g but f(S) = %.17g", what, r->objective, f_all);
  /* in single precision each gain reads up to single_inflation() of the
   * similarities and coverage it sums high (exact_state.h), each at most
   * the total weight */
  double total = 0.0;
  for (int i = 0; i < p->n; i++) total += p->weight ? p->weight[i] : 1.0;
  int gains_close = c->single
    ? fabs(sum - f_all) <= (2.0 * c->k + 2.0) * single_inflation(p) * total + 1e-9 * (1.0 + f_all)
    : close_to(sum, f_all);
  if (!gains_close)
    FAIL("%s: f(initial) + gains = %.17g but f(S) = %.17g", what, sum, f_all);
  if (!(r->bound >= r->objective))
    FAIL("%s: bound %.17g below objective %.17g", what, r->bound, r->objective);
  if (!(r->evaluations >= 0) || !(r->pairs >= 0))
    FAIL("%s: negative counters", what);
}

/* A random instance: points (n x d), or the same as a dense matrix. */
typedef struct {
  fl_problem p;
  double *x, *y, *sim, *weight;
  int initial[8];
} instance;

static void instance_free(instance *in)
{
  free(in->x); free(in->y); free(in->sim); free(in->weight);
}

static int random_instance(instance *in)
{
  memset(in, 0, sizeof *in);
  fl_problem *p = &in->p;
  /* sometimes many tight blobs in more dimensions, whose leaves mix them:
   * the matrix-free modes then skip by bounds alone (FL_MIXED_SHARE) */
  int blobs = rng_unif() < 0.15;
  p->n = blobs ? rng_int(150, 240) : rng_int(1, 40);
  p->d = blobs ? rng_int(12, 20) : rng_int(1, 5);
  int own_candidates = rng_unif() < 0.3;
  p->m = own_candidates ? rng_int(1, 30) : p->n;
  int clusters = blobs ? p->n / 3 : rng_int(1, 4);
  double spread = blobs ? 0.5 : rng_unif() < 0.1 ? 0.0 : rng_unif() * 5.0;  /* 0: all identical per cluster */
  in->x = clustered_points(p->n, p->d, clusters, spread);
  if (own_candidates) in->y = clustered_points(p->m, p->d, clusters, spread);
  /* duplicate some points exactly: ties must go to the lowest index */
  for (int t = 0; in->x && t < p->n / 4; t++) {
    int a = rng_int(0, p->n - 1), b = rng_int(0, p->n - 1);
    memcpy(in->x + (size_t) a * p->d, in->x + (size_t) b * p->d, sizeof(double) * p->d);
  }
  p->x = in->x;
  p->y = own_candidates ? in->y : in->x;
  double sigma = exp(rng_unif() * 8.0 - 4.0);
  p->inv2s2 = 1.0 / (2.0 * sigma * sigma);
  if (rng_unif() < 0.3) {
    in->weight = malloc(sizeof(double) * p->n);
    for (int i = 0; in->weight && i < p->n; i++)
      in->weight[i] = rng_unif() < 0.2 ? 0.0 : rng_unif() * 3.0;
    p->weight = in->weight;
  }
  if (p->m > 2 && rng_unif() < 0.3) {
    p->ninitial = rng_int(1, p->m / 2 < 8 ? p->m / 2 : 8);
    for (int t = 0; t < p->ninitial; t++) {
      int j, dup;
      do {
        j = rng_int(0, p->m - 1);
        dup = 0;
        for (int u = 0; u < t; u++) dup |= in->initial[u] == j;
      } while (dup);
      in->initial[t] = j;
    }
    p->initial = in->initial;
  }
  return in->x && (!own_candidates || in->y) && (!p->weight || in->weight);
}

/* Dense copy of the instance's similarity (for the similarity= input),
 * built by the core itself so that both views hold the same bits. */
static int dense_view(const instance *in, instance *out)
{
  *out = *in;
  out->x = out->y = out->weight = NULL;
  fl_problem points = in->p;
  points.initial = NULL;
  points.ninitial = 0;
  fl_state s;
  if (fl_state_init(&s, &points, 1, 1) != FL_OK) return 0;
  out->sim = s.W;       /* taken over from the state */
  s.W = NULL;
  fl_state_free(&s);
  out->p.x = out->p.y = NULL;
  out->p.d = 0;
  out->p.sim = out->sim;
  out->p.initial = out->initial;
  return 1;
}

/* Copy of n x d values shifted by offset, NULL for NULL. */
static double *shifted(const double *v, int n, int d, double offset)
{
  if (!v) return NULL;
  double *out = malloc(sizeof(double) * (size_t) n * d);
  for (size_t i = 0; out && i < (size_t) n * d; i++) out[i] = v[i] + offset;
  return out;
}

/* Exact partial gain of yj over chunk ch (double kernel, all clients). */
static double exact_chunk_gain(const fl_clusters *cl, int ch, const double *yj)
{
  double g = 0.0;
  for (int i = cl->chunk[ch].lo; i < cl->chunk[ch].hi; i++) {
    double diff = fl_rbf(cl->xs + (size_t) i * cl->d, yj, cl->d, cl->inv2s2) - cl->cover[i];
    if (diff > 0) g += cl->ws[i] * diff;
  }
  return g;
}

/* Invariant 8: the post-selection pass raises exactly the coverage that
 * the double-precision kernel would, with the same marginal gain, also
 * where single precision lets it pass a chunk by (may_raise in
 * cl_post.c): coverage set at, just above and, for one client of
 * every third chunk, 1e-9 below each client's similarity to the pick. */
static void check_post(fl_clusters *cl, const fl_cand *pick, double offset)
{
  unsigned char *skip = calloc((size_t) cl->K, 1);
  if (!skip) { FAIL("post: out of memory"); return; }
  for (int ch = 0; ch < cl->nchunks; ch++) {
    const fl_chunk *c = &cl->chunk[ch];
    const int cnt = c->hi - c->lo;
    double s[FL_CHUNK], keep[FL_CHUNK], want[FL_CHUNK], g = 0.0, part = -1.0;
    double *cover = cl->cover + c->lo;
    fl_rbf_rows(cl->xs + (size_t) c->lo * cl->d, cnt, pick->yc, cl->d, cl->inv2s2, s);
    for (int t = 0; t < cnt; t++) {
      keep[t] = cover[t];
      cover[t] = ch % 3 == 0 && t == (ch / 3) % cnt ? s[t] * (1.0 - 1e-9)
        : s[t] * (1.0 + 1e-6 * (t % 4));
      want[t] = s[t] > cover[t] ? s[t] : cover[t];
      if (s[t] - cover[t] > 0) g += cl->ws[c->lo + t] * (s[t] - cover[t]);
    }
    fl_clusters_post_chunk(cl, ch, pick, 1, skip, &part, 1, 0, 0);
    for (int t = 0; t < cnt; t++) {
      if (cover[t] != want[t])
        FAIL("post (offset %g): chunk %d client %d coverage %.17g, want %.17g", offset, ch, t,
             cover[t], want[t]);
      cover[t] = keep[t];
    }
    if (part != g) FAIL("post (offset %g): chunk %d gain %.17g, want %.17g", offset, ch, part, g);
  }
  free(skip);
}

/* Exact gain of yj over the clients of leaf k (double kernel). */
static double exact_leaf_gain(const fl_clusters *cl, int k, const double *yj)
{
  double g = 0.0;
  for (int ch = cl->first[k]; ch < cl->first[k + 1]; ch++) g += exact_chunk_gain(cl, ch, yj);
  return g;
}

/* Invariant 9: a plan's return value bounds the exact gain of the leaves
 * it leaves out, for every kind of cold test and several thresholds
 * (the clients' coverage set beforehand, the leaves' summaries made from
 * it; nothing pruned). */
static void check_plan(fl_clusters *cl, const fl_cand *cand, double offset)
{
  float *df = malloc(sizeof(float) * (size_t) cl->krow);
  int *eval = calloc((size_t) cl->krow + 4, sizeof(int));
  double *leaf = malloc(sizeof(double) * (size_t) cl->K), total = 0.0;
  if (!df || !eval || !leaf) { FAIL("plan: out of memory"); free(df); free(eval); free(leaf); return; }
  for (int k = 0; k < cl->K; k++) total += leaf[k] = exact_leaf_gain(cl, k, cand->yc);
  const double scale[] = { 1e-3, 0.1, 1.0 };
  const fl_cold colds[] = { FL_COLD_NONE, FL_COLD_OWNER, FL_COLD_ALL };
  for (int t = 0; t < 3; t++)
    for (int c = 0; c < 3; c++) {
      fl_clusters_distances(cl, 1, &cand, df);
      double left = fl_clusters_plan(cl, cand, df, scale[t] * total, 0, colds[c], eval, NULL);
      double out = 0.0;
      for (int k = 0; k < cl->K; k++) out += eval[k] ? 0.0 : leaf[k];
      if (!(out <= left))
        FAIL("plan (offset %g, threshold %g of the gain, cold %d): leaves out %.17g, bound %.17g",
             offset, scale[t], c, out, left);
    }
  free(df); free(eval); free(leaf);
}

/* Invariant 7b: the chord bounds (cl_chords.c) bound every candidate's
 * similarity mass sum_i w_i (1 - m_i) s_ij, against the coverage set. */
static void check_chords(const fl_clusters *cl, double offset)
{
  fl_chords ch;
  int *idx = malloc(sizeof(int) * (size_t) cl->m);
  double *ub = malloc(sizeof(double) * (size_t) cl->m);
  if (!idx || !ub || fl_chords_init(cl, &ch) != FL_OK) {
    FAIL("chords: out of memory");
    free(idx); free(ub);
    return;
  }
  for (int j = 0; j < cl->m; j++) idx[j] = j;
  if (fl_chords_bound(cl, &ch, idx, cl->m, ub) != FL_OK) FAIL("chords: out of memory");
  else
    for (int j = 0; j < cl->m; j++) {
      double mass = 0.0;
      for (int i = 0; i < cl->n; i++)
        mass += cl->ws[i] * (1.0 - cl->cover[i]) *
          fl_rbf(cl->xs + (size_t) i * cl->d, cl->y + (size_t) j * cl->d, cl->d, cl->inv2s2);
      if (!(mass <= ub[j]))
        FAIL("chords (offset %g): mass %.17g of candidate %d above its bound %.17g",
             offset, mass, j, ub[j]);
    }
  fl_chords_free(&ch);
  free(idx); free(ub);
}

/* Invariant 7: what the matrix-free modes compute in single precision
 * holds against the exact kernel, also with every coordinate shifted far
 * from 0, where single precision rounds the most: the cluster bounds bound
 * every candidate's similarity to every client of each leaf, and a chunk's
 * gain plus its allowance bounds the exact partial gain (against random
 * coverage), from which it differs by little. */
static void check_reach(const instance *in)
{
  const double offsets[] = { 0.0, 1e4, -3e6 };
  for (int o = 0; o < 3; o++) {
    fl_problem p = in->p;
    p.initial = NULL;
    p.ninitial = 0;
    double *x = shifted(p.x, p.n, p.d, offsets[o]), *y = shifted(in->y, p.m, p.d, offsets[o]);
    fl_control c = default_control(FL_MODE_HC, 1, 1);
    c.clusters = rng_int(1, 8);
    fl_clusters cl;
    if (!x || (in->y && !y) || (p.x = x, p.y = in->y ? y : x,
                                fl_clusters_init(&cl, &p, &c, 0) != FL_OK)) {
      FAIL("reach: out of memory");
      free(x); free(y);
      return;
    }
    for (int i = 0; i < p.n; i++)   /* without rng_unif(): the cases stay as they were */
      cl.cover[i] = i % 2 ? 0.0 : (double) (((unsigned) i * 2654435761u) % 1000) / 1000;
    check_chords(&cl, offsets[o]);
    double *hw = malloc(sizeof(double) * cl.K), *dist = malloc(sizeof(double) * cl.K);
    float *yo = malloc(sizeof(float) * p.d * FL_DOT_BATCH);
    fl_cand cand[FL_DOT_BATCH];
    const fl_cand *batch[FL_DOT_BATCH];
    /* the chunk gains of 1 to FL_DOT_BATCH candidates at once, in turn */
    for (int j0 = 0, nb = 1; hw && dist && yo && j0 < p.m; j0 += nb, nb = nb % FL_DOT_BATCH + 1) {
      if (nb > p.m - j0) nb = p.m - j0;
      for (int q = 0; q < nb; q++) {
        const double *yj = p.y + (size_t) (j0 + q) * p.d;
        fl_clusters_offset(&cl, yj, yo + (size_t) q * p.d, &cand[q]);
        batch[q] = &cand[q];
        fl_clusters_reach(&cl, &cand[q], hw, dist);
        for (int k = 0; k < cl.K; k++)
          for (int ch = cl.first[k]; ch < cl.first[k + 1]; ch++)
            for (int i = cl.chunk[ch].lo; i < cl.chunk[ch].hi; i++) {
              double s = fl_rbf(cl.xs + (size_t) i * p.d, yj, p.d, p.inv2s2);
              if (!(s <= hw[k]))
                FAIL("reach (offset %g): similarity %.17g above the bound %.17g of its leaf",
                     offsets[o], s, hw[k]);
            }
      }
      for (int ch = 0; ch < cl.nchunks; ch++) {
        double g[FL_DOT_BATCH], slack[FL_DOT_BATCH], wsum = 0.0;
        fl_clusters_chunk_gains(&cl, ch, nb, batch, 1, g, slack);
        for (int i = cl.chunk[ch].lo; i < cl.chunk[ch].hi; i++) wsum += cl.ws[i];
        for (int q = 0; q < nb; q++) {
          double exact = exact_chunk_gain(&cl, ch, cand[q].yc);
          /* 1e-30: the single-precision exp() stops at exp(-87) */
          if (!(exact <= g[q] + slack[q] && fabs(g[q] - exact) <= slack[q] + 1e-30 * wsum))
            FAIL("chunk gain (offset %g, %d of %d): %.17g with allowance %.17g, exact %.17g",
                 offsets[o], q + 1, nb, g[q], slack[q], exact);
        }
      }
    }
    if (yo) {
      fl_clusters_offset(&cl, p.y, yo, &cand[0]);
      check_post(&cl, &cand[0], offsets[o]);
      /* the leaves' summaries of this coverage, for the plans */
      for (int ch = 0; ch < cl.nchunks; ch++)
        fl_clusters_post_chunk(&cl, ch, NULL, 0, NULL, NULL, 0, 1, 0);
      fl_clusters_reduce(&cl);
      for (int j = 0; j < p.m && j < 8; j++) {
        fl_clusters_offset(&cl, p.y + (size_t) j * p.d, yo, &cand[0]);
        check_plan(&cl, &cand[0], offsets[o]);
      }
    }
    free(hw); free(dist); free(yo);
    fl_clusters_free(&cl);
    free(x); free(y);
  }
}

/* Invariants checked on one random instance:
 *  1. every mode, threads 1..fuzz_threads: check_result();
 *  2. exact modes g, c, dc select exactly the same candidates for every
 *     thread count, from points and from the dense matrix;
 *  3. matrix-free modes with eps 0, tau 1 (any batch) select what g
 *     selects, up to ties within rounding (greedy_equivalent());
 *  4. relaxed runs are deterministic for a fixed thread count, also with
 *     every malloc() block filled with a byte pattern (no answer may
 *     depend on memory the solver never wrote) and every parallel region
 *     run on one thread (as under load: fl_team()), and their objective
 *     is at most g's bound;
 *  5. an allocation failure anywhere returns FL_ERR_NOMEM (or succeeds when
 *     the allocation was optional), never crashes or leaks;
 *  6. an interrupt returns FL_INTERRUPTED with a consistent partial result;
 *  7. check_reach(), with check_post() and check_plan();
 *  8. the exact modes with their matrix in single precision (fuzz_single). */
/* The float tiles against the double tiles on every pair of the instance:
 * never below, at most single_inflation() above (relatively; rounding to
 * float aside). */
static void check_single_tiles(const fl_problem *p)
{
  fl_tiles td, tf;
  if (fl_tiles_init(&td, p, 1, 0) != FL_OK) { FAIL("tiles: out of memory"); return; }
  if (fl_tiles_init(&tf, p, 1, 1) != FL_OK) { fl_tiles_free(&td); FAIL("tiles: out of memory"); return; }
  int mc = fl_tile_candidates(p->d);
  void *yd = malloc(fl_tiles_packed_bytes(&td, mc, p->d)), *yf = malloc(fl_tiles_packed_bytes(&tf, mc, p->d));
  double *sd = malloc(sizeof(double) * (size_t) mc * FL_TILE_CLIENTS);
  double *sf = malloc(sizeof(double) * (size_t) mc * FL_TILE_CLIENTS);
  double room = single_inflation(p) - 0x1p-23;   /* no rounding to float here */
  for (int j0 = 0; yd && yf && sd && sf && j0 < p->m; j0 += mc) {
    int cnt = p->m - j0 < mc ? p->m - j0 : mc;
    fl_tiles_pack(&td, p, j0, cnt, yd);
    fl_tiles_pack(&tf, p, j0, cnt, yf);
    for (int i0 = 0; i0 < p->n; i0 += FL_TILE_CLIENTS) {
      int nc = p->n - i0 < FL_TILE_CLIENTS ? p->n - i0 : FL_TILE_CLIENTS;
      fl_tiles_block(&td, p, j0, cnt, yd, sd, FL_TILE_CLIENTS, i0, nc);
      fl_tiles_block(&tf, p, j0, cnt, yf, sf, FL_TILE_CLIENTS, i0, nc);
      for (int a = 0; a < cnt; a++)
        for (int i = 0; i < nc; i++) {
          double d = sd[(size_t) a * FL_TILE_CLIENTS + i], s = sf[(size_t) a * FL_TILE_CLIENTS + i];
          if (!(s >= d) || !(s == d || s <= d * (1.0 + room) + 1e-300))
            FAIL("float tile %.17g against double %.17g (client %d, candidate %d)", s, d, i0 + i, j0 + a);
        }
    }
  }
  free(yd); free(yf); free(sd); free(sf);
  fl_tiles_free(&td);
  fl_tiles_free(&tf);
}

/* The symmetric matrix, filled in halves and mirrored where the candidates
 * are the clients, against the whole fill of the same points given as
 * separate candidates: the same bits, at a random thread count. */
static void check_mirror(const fl_problem *p)
{
  if (p->y != p->x || p->m != p->n) return;
  size_t cells = (size_t) p->n * (size_t) p->n;
  int single = rng_int(0, 1), threads = rng_int(1, 4);
  size_t bytes = cells * (single ? sizeof(float) : sizeof(double));
  fl_problem q = *p;
  void *half = malloc(bytes), *whole = malloc(bytes);
  double *y = malloc(sizeof(double) * (size_t) p->n * (size_t) p->d);
  if (half && whole && y) {
    memcpy(y, p->x, sizeof(double) * (size_t) p->n * (size_t) p->d);
    q.y = y;
    if (fl_similarity_fill(p, threads, 0, single ? NULL : half, single ? half : NULL) != FL_OK ||
        fl_similarity_fill(&q, threads, 0, single ? NULL : whole, single ? whole : NULL) != FL_OK)
      FAIL("mirror: fill failed");
    else if (memcmp(half, whole, bytes) != 0)
      FAIL("mirror: the halves differ from the whole fill (n %d, d %d, %d threads, %s)", p->n,
           p->d, threads, single ? "single" : "double");
  }
  free(half); free(whole); free(y);
}

/* The exact modes with c.single at a random thread count: a valid answer
 * whose f(S) (recomputed in double) is at most g's bound and whose bound
 * is at least g's f(S) (the matrix is rounded up, so bounds stay true),
 * and every allocation failure reported. */
static void fuzz_single(const instance *in, int k, const run_out *ref, double room)
{
  for (int mode = 0; mode <= FL_MODE_DC; mode++) {
    char what[64];
    run_out o, o2;
    fl_control c = default_control(mode, k, rng_int(1, fuzz_threads));
    c.single = 1;
    snprintf(what, sizeof what, "%s/%d single", fl_mode_name((fl_mode) mode), c.threads);
    run(&in->p, &c, &o);
    if (o.status != FL_OK) { FAIL("%s: status %d", what, o.status); continue; }
    check_result(&in->p, &c, &o, what);
    if (!(o.r.objective <= ref->r.bound * room) || !(o.r.bound >= ref->r.objective / room))
      FAIL("%s: objective %.17g or bound %.17g outside g's [%.17g, %.17g]", what,
           o.r.objective, o.r.bound, ref->r.objective, ref->r.bound);
    for (long fail = 1; fail <= 40; fail++) {
      alloc_calls = 0;
      alloc_countdown = fail;
      run(&in->p, &c, &o2);
      alloc_countdown = 0;
      if (alloc_calls < fail) break;
      if (o2.status == FL_ERR_NOMEM) stats.nomem++;
      else if (o2.status != FL_OK) FAIL("%s: status %d after failed allocation %ld", what, o2.status, fail);
      else check_result(&in->p, &c, &o2, what);
    }
  }
}

static void fuzz_one(void)
{
  instance in, dense;
  stats.cases++;
  if (!random_instance(&in)) { FAIL("out of memory"); instance_free(&in); return; }
  int free_m = in.p.m - in.p.ninitial;
  int k = rng_int(1, free_m < 20 ? free_m : 20);
  run_out ref, o, o2;
  fl_control c = default_control(FL_MODE_G, k, 1);
  run(&in.p, &c, &ref);
  if (ref.status != FL_OK) { FAIL("g status %d", ref.status); instance_free(&in); return; }
  check_result(&in.p, &c, &ref, "g/1");
  const double room = 1 + 1e-12 + kernel_slack(&in.p);   /* over g's bound */
  int have_dense = dense_view(&in, &dense);
  for (int mode = 0; mode < FL_MODE_COUNT; mode++) {
    int exact = mode <= FL_MODE_DC;
    for (int threads = 1; threads <= fuzz_threads; threads++) {
      char what[64];
      c = default_control(mode, k, threads);
      if (!exact && rng_unif() < 0.5) make_exact(&c);
      /* rounds of several picks: hc and hpc then refresh their heaps in
       * two phases at 2 or 3 threads */
      if (!exact && rng_unif() < 0.5) c.batch = rng_int(2, 4);
      /* dc computing its gains from the points in one case of two */
      if (mode == FL_MODE_DC) c.stream = rng_unif() < 0.5;
      c.stream_lists = 1e5;   /* room for a few lists of live clients */
      int exact_run = is_exact(&c);
      c.clusters = rng_int(1, 8);
      c.group_size = rng_int(1, 3);
      snprintf(what, sizeof what, "%s/%d%s%s", fl_mode_name((fl_mode) mode), threads,
               exact_run ? "" : " relaxed", c.stream ? " streamed" : "");
      run(&in.p, &c, &o);
      if (!exact && o.status == FL_ERR_ARG) { stats.skipped++; continue; }  /* not built yet */
      if (o.status != FL_OK) { FAIL("%s: status %d", what, o.status); continue; }
      check_result(&in.p, &c, &o, what);
      if (exact_run && !greedy_equivalent(&o, &ref, room - 1.0))
        FAIL("%s: selection differs from g", what);
      if (!(o.r.objective <= ref.r.bound * room))
        FAIL("%s: objective %.17g above g's bound %.17g", what, o.r.objective, ref.r.bound);
      alloc_fill = 0x7f;
      fl_team_policy(FL_TEAM_ONE);
      run(&in.p, &c, &o2);
      fl_team_policy(FL_TEAM_FULL);
      alloc_fill = -1;
      if (o2.status != FL_OK || !same_selection(&o, &o2) || o.r.objective != o2.r.objective)
        FAIL("%s: not deterministic (malloc blocks filled, one-thread teams)", what);
      if (exact && have_dense) {
        run(&dense.p, &c, &o2);
        if (o2.status != FL_OK || !same_selection(&o2, &ref))
          FAIL("%s: dense input selects differently", what);
      }
      /* 5: fail each allocation of this run in turn (first 40); with
       * more threads in one case of four, which keeps runs short */
      int inject = threads == 1 || stats.cases % 4 == 0;
      for (long fail = 1; inject && fail <= 40; fail++) {
        alloc_calls = 0;
        alloc_countdown = fail;
        run(&in.p, &c, &o2);
        alloc_countdown = 0;
        if (alloc_calls < fail) break;      /* fewer allocations than that */
        if (o2.status == FL_ERR_NOMEM) stats.nomem++;
        else if (o2.status != FL_OK) FAIL("%s: status %d after failed allocation %ld", what, o2.status, fail);
        else {
          check_result(&in.p, &c, &o2, what);
          if (exact_run && !same_selection(&o2, &o))
            FAIL("%s: wrong answer after failed allocation %ld", what, fail);
        }
      }
      /* 6: interrupt at the j-th check */
      c.interrupted = fake_interrupt;
      interrupt_after = rng_int(1, k + 1);
      interrupt_checks = 0;
      run(&in.p, &c, &o2);
      /* the exact modes check once per pick; relaxed ones once per round,
       * and again for a round that runs again without a pick, so a request
       * after the k-th check may still come */
      int expect = interrupt_after <= k, requested = interrupt_checks >= interrupt_after;
      if (o2.status == FL_INTERRUPTED) {
        stats.interrupts++;
        if (!requested) FAIL("%s: interrupted without a request", what);
        if (o2.r.nselected > k) FAIL("%s: %d selected after interrupt", what, o2.r.nselected);
      } else if (o2.status != FL_OK || (expect && exact)) {
        FAIL("%s: status %d, expected an interrupt", what, o2.status);
      } else {
        check_result(&in.p, &c, &o2, what);
      }
      interrupt_after = 0;
    }
  }
  fuzz_single(&in, k, &ref, room);
  check_single_tiles(&in.p);
  check_mirror(&in.p);
  check_reach(&in);
  if (have_dense) free(dense.sim);
  instance_free(&in);
}

static int fuzz(long iterations)
{
  fl_team_policy(FL_TEAM_FULL);   /* teams of every size asked for, loaded or not */
  for (long it = 0; it < iterations; it++) fuzz_one();
  printf("fuzz: %ld cases, %ld solves, %ld skipped (mode not built), %ld injected "
         "allocation failures, %ld interrupts, %ld ties within rounding, %ld failures\n",
         stats.cases, stats.solves, stats.skipped, stats.nomem, stats.interrupts, stats.ties,
         stats.failures);
  return stats.failures > 0;
}

static void usage(void)
{
  fprintf(stderr,
          "usage: facloc-bench [--mode g|c|dc|hc|hpc|nhpc|all] [--threads T] [--n N]\n"
          "                    [--d D] [--k K] [--sigma S] [--clusters C] [--spread S]\n"
          "                    [--seed SEED] [--no-header] [--input FILE] [--reps R]\n"
          "                    [--exact] [--group-size M] [--pass] [--barrier]\n"
          "       facloc-bench --fuzz ITER [--seed SEED] [--threads T]\n");
}

int main(int argc, char **argv)
{
  bench_opts o = {.mode = -1, .threads = 1, .n = 4000, .d = 32, .k = 100, .clusters = 50,
                  .reps = 1, .header = 1, .sigma = 20.0, .spread = 3.0};
  long fuzz_iter = 0;
  unsigned long long seed = 1;
  for (int a = 1; a < argc; a++) {
    const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
    if (strcmp(arg, "--no-header") == 0) { o.header = 0; continue; }
    if (strcmp(arg, "--exact") == 0) { o.exact = 1; continue; }
    if (strcmp(arg, "--pass") == 0) { o.pass = 1; continue; }
    if (strcmp(arg, "--barrier") == 0) { o.barrier = 1; continue; }
    if (!val) { usage(); return 2; }
    a++;
    if (strcmp(arg, "--mode") == 0) {
      o.mode = strcmp(val, "all") == 0 ? -1 : parse_mode(val);
      if (o.mode < 0 && strcmp(val, "all") != 0) { usage(); return 2; }
    }
    else if (strcmp(arg, "--threads") == 0) o.threads = atoi(val);
    else if (strcmp(arg, "--n") == 0) o.n = atoi(val);
    else if (strcmp(arg, "--d") == 0) o.d = atoi(val);
    else if (strcmp(arg, "--k") == 0) o.k = atoi(val);
    else if (strcmp(arg, "--sigma") == 0) o.sigma = atof(val);
    else if (strcmp(arg, "--clusters") == 0) o.clusters = atoi(val);
    else if (strcmp(arg, "--spread") == 0) o.spread = atof(val);
    else if (strcmp(arg, "--seed") == 0) seed = strtoull(val, NULL, 10);
    else if (strcmp(arg, "--fuzz") == 0) fuzz_iter = atol(val);
    else if (strcmp(arg, "--input") == 0) o.input = val;
    else if (strcmp(arg, "--reps") == 0) o.reps = atoi(val);
    else if (strcmp(arg, "--group-size") == 0) o.group_size = atoi(val);
    else { usage(); return 2; }
  }
  rng_state = seed;
  if (fuzz_iter > 0) {
    if (o.threads > 1) fuzz_threads = o.threads;
    return fuzz(fuzz_iter);
  }
  if (o.threads < 1 || o.n < 1 || o.d < 1 || o.k < 1 || o.k > o.n || o.clusters < 1 ||
      !(o.sigma > 0) || o.reps < 1 || o.group_size < 0) {
    usage();
    return 2;
  }
  if (o.barrier) {
    if (o.header) printf("mode,threads,n,d,k,seconds,evaluations,pairs,objective,bound\n");
    return bench_barrier(&o);
  }
  return bench(&o);
}
