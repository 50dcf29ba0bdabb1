/* Every tunable of the solvers in one place, each with what it trades.
 * The measurements behind each value are in
 * inst/bench/results/tunables.md, under the constant's name; changing one
 * means rerunning what is recorded there, and, for those ?facility_control
 * quotes (facloc_tunables() in r_facloc.c), its help: a test compares
 * them.  Constants that only make room for rounding stay beside their
 * code. */
#ifndef FL_TUNE_H
#define FL_TUNE_H

/* -- Speed only: any value gives the same picks ----------------------- */

/* Candidates a nhpc leader posts per lane and step, at least FL_POST_MIN,
 * doubling each step up to FL_POST_MAX: fewer barriers and shared chunk
 * reads against evaluating tops lazy greedy might not need. */
#define FL_POST_PER_LANE 2
#define FL_POST_MIN 16
#define FL_POST_MAX 64
/* Candidates evaluated together by one thread in the first evaluations,
 * and by the team for the first threshold and the final bound. */
#define FL_TEAM_BATCH 16
/* Candidates per parallel region of the first evaluations: how soon an
 * interrupt is seen against one more region. */
#define FL_FIRST_SLICE 8192
/* Heaps per group when there are several groups: balance of the round's
 * uneven CELF chains against more heap tops to merge. */
#define FL_HEAPS_PER_GROUP 4
/* Evaluation steps a heap may take in a round's first phase: a long CELF
 * chain finishes in the second phase, shared by all groups. */
#define FL_FIRST_PHASE_STEPS 16
/* How a pair of lanes' share follows their measured speeds: the step
 * towards even finishing, the least share, and the least work per lane
 * (plans, client visits) for a step to count. */
#define FL_BALANCE_GAIN 0.5
#define FL_BALANCE_FLOOR 0.25
#define FL_BALANCE_PLANS 4
#define FL_BALANCE_VISITS 4096
/* Sample points per task of the k-means++ seeding's distance updates, and
 * points per task of a k-means assignment (each point on its own):
 * scheduling per task against balance. */
#define FL_LOWER_BLOCK 64
#define FL_ASSIGN_RANGE 512

/* The tiled kernel (kernel_tile.c): candidates per block, as many as
 * fit FL_TILE_DOUBLES coordinates (their rows stay in the core's L2
 * while every client meets them), at most FL_TILE_MAX_ROWS; clients per
 * fl_rbf_tile() call (the tile of similarities stays in L1/L2 between the
 * dot products and the exp()).  Each client coordinate read from memory
 * meets every candidate of the block, so the block sets the pass's flops
 * per byte: at d >= 128, 30 candidates a block ran out of memory
 * bandwidth at two threads (d = 1024, n = 10000: 104 GFLOP/s, 1.96 s),
 * 126 reached 134 to 167 GFLOP/s (1.53 to 1.22 s over the day's runs),
 * 0.64 to 0.80 of the two cores' peak; 252 was no faster; at d = 32 the
 * same or faster (2026-12-07, 2-core EPYC). */
#ifndef FL_TILE_DOUBLES
#define FL_TILE_DOUBLES 16384
#endif
/* The LP dual's leaf tiles (mf_dual.c) meet a leaf's few clients at a
 * time: there blocks of at most 64 candidates certified 8 to 13% faster
 * than the 126 above (nhpc, certify = 5, n = 4000, d = 32, 2 threads). */
#define FL_TILE_LEAF_DOUBLES 4096
#define FL_TILE_LEAF_MAX_ROWS 64
#ifndef FL_TILE_DEPTH
#define FL_TILE_DEPTH 128
#endif
#define FL_TILE_MAX_ROWS 128
#define FL_TILE_CLIENTS 256
/* Clients a tile's mirror (the symmetric matrix's other half) writes at a
 * time: a cache line of the tile's doubles (measured:
 * inst/bench/results/tunables.md, mirror). */
#ifndef FL_MIRROR_CLIENTS
#define FL_MIRROR_CLIENTS 8
#endif

/* A thread waiting at a group barrier (fl_barrier.c) spins
 * FL_BARRIER_SPINS pauses (about 30 ns each on the test machine), then
 * yields its core FL_BARRIER_YIELDS times, then sleeps: on cores of its
 * own, waits the spins cover against, beside other work, cores taken
 * from the thread it waits for.  Both may be set on the compiler's
 * command line (inst/bench's `make barrier-tsan` sets them low so that
 * nearly every wait sleeps). */
#ifndef FL_BARRIER_SPINS
#define FL_BARRIER_SPINS 2048
#endif
#ifndef FL_BARRIER_YIELDS
#define FL_BARRIER_YIELDS 4
#endif

/* Teams under load (fl_threads.c): a window of FL_LOAD_WINDOW seconds in
 * which the calling thread waited for a processor more than FL_LOAD_SHARE
 * of the time holds teams at one thread for FL_LOAD_HOLD_MIN seconds,
 * doubling up to FL_LOAD_HOLD_MAX while full teams keep meeting the load.
 * The window: several of the scheduler's time slices (a few ms each),
 * against the time a new load runs on a full team.  The share: above what
 * an idle machine shows, below what one more runnable thread than
 * processors causes (measured: inst/bench/results/tunables.md).  The
 * hold: how long a process stays on one thread after the load is gone,
 * against the windows full teams spend probing a load that stays. */
#define FL_LOAD_WINDOW 0.01
#define FL_LOAD_SHARE 0.1
#define FL_LOAD_HOLD_MIN 0.05
#define FL_LOAD_HOLD_MAX 1.0

/* -- Blocks, batches and samples of the kernels and scans: cache and
 * register reuse against work per block --------------------------------- */

/* Clients per chunk (a multiple of FL_COLS_PAD), the unit of skipping, of
 * partial sums and of lanes' shared work: finer skips against overhead. */
#define FL_CHUNK 64
/* Most candidates fl_gain_dot_f() takes in one call: four share each
 * load of a client coordinate, and up to 16 read the chunk while it is in
 * the core's caches (at d = 384 its columns outgrow L1: 16 was 19% faster
 * than 4, same bits): client loads against registers and stack. */
#define FL_DOT_BATCH 16
/* Clients per block of fl_gain_dot_f(): overlapping exp() chains against
 * a longer block on the stack. */
#define FL_GAIN_BLOCK 64
/* A candidate keeps its live clients (exact_gain.c) from its third gain
 * on, once at most 1 / FL_LIVE_SHARE of its column is live, while the
 * lists (12 bytes a client) take at most 1 / FL_LIVE_SHARE of the
 * matrix's bytes: memory against scans of whole columns. */
#define FL_LIVE_SHARE 8
/* Mode dc takes the online bound of every round up to FL_TRACE_ROUNDS
 * picks, beyond them of every ceil(k / FL_TRACE_ROUNDS)-th round: each
 * walks the k largest keys (measured: inst/bench/results/tunables.md). */
#define FL_TRACE_ROUNDS 100
/* Rows per block of fl_nearest_row() (distances on the stack): loop
 * overhead against stack. */
#define FL_NEAREST_BLOCK 64
/* Candidates per register tile of kernel_tile.c (6 FL_TNV sums: 12 of
 * AVX2's 16 registers, 24 of AVX-512's 32): loads reused against spills. */
#define FL_TILE_ROWS 6
/* Clients per block of the LP dual's top-two pass (their m1, m2 stay in
 * L1 while the columns stream by): cache hits against passes. */
#define FL_DUAL_BLOCK 1024
/* Clients per fl_rbf_rows() call of the matrix-free LP dual's oracle (a
 * leaf is cut into runs of this many): similarities on the stack against
 * calls. */
#define FL_DUAL_ROWS 256
/* Values per block of all_finite_real() (r_util.c): a vectorised sum
 * against how late a non-finite value stops the scan. */
#define FL_FINITE_BLOCK 4096
/* Gains per thread between two checks of stochastic greedy's lazy stopping
 * rule: fewer checks against gains evaluated past the stop. */
#define FL_LAZY_BATCH 4
/* Largest batch whose floor mf_heaps.c's batch_floor() finds (larger: no
 * floor): a floor for larger batches against a larger stack array. */
#define FL_MAX_FLOOR 256
/* Points knn_balls.c's k-means sees (every point then joins its nearest
 * centre; balls need compact groups, not converged ones): set-up time
 * against tighter balls. */
#define FL_BALLS_SAMPLE 20000
/* k-means (kmeans.c) keeps a point's center while hi stays below lo by
 * this fraction of their sum: distances skipped against a margin over the
 * rounding of the single-precision bounds. */
#define FL_KMEANS_MARGIN 1e-3f

/* -- Serial cut-offs: below them a parallel region costs more than it
 * saves (fl_par_threads() in fl_omp.h takes the work and one of these) -- */

/* points of a loop over clients or data points (coverage and reach
 * updates, OCC passes, the k-means seeding's distance updates) */
#define FL_PAR_MIN_CLIENTS 4096
/* client-candidate pairs of a stochastic greedy step */
#define FL_PAR_MIN_PAIRS 100000.0
/* kernel pairs plus clients of an nhpc round (the last round's,
 * fl_mf_team() in mf.h): below it the next round runs on one thread */
#ifndef FL_PAR_MIN_ROUND_WORK
#define FL_PAR_MIN_ROUND_WORK 30000.0
#endif
/* values of a column-major to row-major copy (r_util.c) */
#define FL_PAR_MIN_VALUES 100000.0
/* distance work (coordinates times centers) of an OCC proposal step:
 * OFL's epochs are short in points but each point meets many facilities */
#define FL_PAR_MIN_DISTANCE_WORK 65536.0

/* -- The cluster layout: with eps = 0 the picks are greedy's whatever
 * these are; they move the work, and with eps > 0 the picks ---------- */

/* Clients per leaf, FL_LEAF_SCALE sqrt(n) and at least FL_LEAF_MIN:
 * tighter balls and sharper estimates against one distance per leaf in
 * every evaluation and smaller chunks. */
#define FL_LEAF_SCALE 0.35
#define FL_LEAF_MIN 8
/* Leaves per top-level cluster at most: past this, leaves are finer than
 * the structure the bounds can use and every evaluation pays for them. */
#define FL_MAX_LEAVES 64
/* Lloyd iterations: the bounds need compact clusters, not a converged
 * optimum, and each iteration is a pass of n K distances. */
#define FL_KMEANS_ITER 12
/* Points the k-means++ seeding samples at most: seeding time against
 * seeds drawn from fewer points. */
#define FL_KMEANS_SAMPLE 20000
/* The k-means center sums are FL_SUM_BLOCKS fixed blocks of points summed
 * in parallel from FL_SUM_MIN_POINTS points on, one block below: the
 * centers' bits follow these, never the thread count. */
#define FL_SUM_BLOCKS 16
#define FL_SUM_MIN_POINTS 4096
/* Initial facilities opened per post-selection pass: fewer passes over
 * the clients against a larger skip table. */
#define FL_INIT_BATCH 16

/* Mode dc without its matrix (celf_stream.c): candidates a thread in the
 * first batch of a refresh, evaluated together against one read of the
 * packed clients (a multiple of FL_TILE_ROWS: larger, more gains taken
 * ahead of need), and doublings of it while the top stays stale (larger:
 * fewer reads of the clients, more room for the candidates' lists, 12 n
 * bytes a candidate a thread); and blocks per thread of the first gains
 * between two checks for an interrupt. */
#define FL_STREAM_ROWS (2 * FL_TILE_ROWS)
#define FL_STREAM_GROWTH 2
#define FL_STREAM_SLICE 16

/* -- Bound effort: tighter `bound` against more evaluations ------------ */

/* Kernel evaluations allowed to tighten the final bound of the matrix-free
 * modes (the lazy refresh of the largest gain bounds after the last
 * round): FL_BOUND_EFFORT times the solve's, and at least what
 * FL_REFINE_PER_PICK k + FL_REFINE_EXTRA evaluations cost at the solve's
 * average.  A count, not a time, so the bound is the same on a busy
 * machine; kernel evaluations, not candidates, since an exact evaluation
 * costs several of the solve's coarse ones. */
#define FL_BOUND_EFFORT 0.5
#define FL_REFINE_PER_PICK 8
#define FL_REFINE_EXTRA 64
/* Step lengths the LP dual tries per step (alpha, alpha / 2, alpha / 4),
 * all in one pass of its oracle: better steps against values per pass. */
#define FL_DUAL_TRIALS 3
/* A dual step whose B is within this fraction of the last one ends the
 * search: a tighter bound against more steps. */
#define FL_DUAL_TOL 1e-12
/* After an LP-dual step that every trial refuses, up to FL_DUAL_RISES
 * steps that only raise u (cheap: dual.c), while each lowers B by at
 * least FL_DUAL_RAISE_GAIN of it: a tighter bound a step against the
 * rises' evaluations. */
#ifndef FL_DUAL_RISES
#define FL_DUAL_RISES 8
#endif
#ifndef FL_DUAL_RAISE_GAIN
#define FL_DUAL_RAISE_GAIN 1e-4
#endif
/* The matrix-free oracle's top_two may leave out similarities below this
 * fraction of u_i (the step's direction only; dual.h, prune): fewer
 * leaves visited against a coarser direction. */
#define FL_DUAL_MF_PRUNE 0.5

/* -- Quality against work (eps > 0 only; with eps = 0 the picks are
 * greedy's whatever these are) ---------------------------------------- */

/* Clients covered above tau leave the evaluations only while their total
 * slack, sum w (1 - m), what they can add at most to any candidate's
 * gain, stays within FL_PRUNE_SHARE eps of the gain of the pick being
 * made; else they come back (fl_mf_merge).  So pruning costs a pick at
 * most that fraction of its gain, whatever the kernel width: smaller,
 * more readmissions and fewer clients pruned. */
#define FL_PRUNE_SHARE 0.02
/* A pick is evaluated exactly, with every candidate keyed within
 * FL_CONTEST eps of its gain whose bound reaches it (mf_contest.c), and
 * the best exact gain wins: near-ties decided as greedy decides them
 * against up to FL_TEAM_BATCH - 1 exact evaluations a round. */
#define FL_CONTEST 0.02
/* Before that contest, this many candidates whose certified bound most
 * exceeds the pick's gain are evaluated without estimates (the loose
 * contest, mf_contest.c), each once per coarse evaluation: a candidate
 * whose coarse key fell far below its gain (estimates that failed) is
 * caught within a few picks.  Larger: more evaluations a pick. */
#define FL_LOOSE_RIVALS 4
/* ... while the loose contests' kernel evaluations are at most this
 * fraction of the solve's others: they add at most that much work. */
#define FL_LOOSE_SHARE 0.1

/* Round 0 evaluates only the candidates whose chord bounds reach the best
 * first gain (mf_first.c) where their evaluations, at up to n pairs each,
 * would cost at most this share of the first evaluations they spare (an
 * evaluation through the heaps costs about 2.5 times the pairs' time of
 * the first evaluations', medium, median sigma, one thread). */
#define FL_LAZY_SHARE 0.25
/* ... measured on every this-many-th open candidate first. */
#define FL_LAZY_SAMPLE 16
/* ... and only where the best first gain found is at least this share of
 * the clients' room (the kernel is wide: after the first pick most gains
 * change anyway). */
#define FL_LAZY_COVER 0.5

/* The first evaluations, with nothing covered, skip the clusters later
 * ones would skip at this many times their threshold, keyed with the
 * mass estimate of what they skip. */
#define FL_FIRST_COARSE 3.0
/* Coarse gains are keyed up by this fraction and the leaders and picks
 * evaluated finely: picks are greedy's unless a coarse gain falls short
 * by more.  Larger: more fine evaluations. */
#define FL_TIE 0.05
/* A fine evaluation skips what a coarse one would at this fraction of
 * the skip threshold. */
#define FL_FINE_FRACTION 0.01
/* A leaf is skipped only if its mass estimate is below this fraction of
 * the skip threshold (the mass test of fl_clusters_plan): fewer pairs
 * against keys below their gains. */
#define FL_EST_FRACTION 0.01
/* The same fraction where the skipped leaves' mass estimates are added to
 * the key (the first evaluations): a skipped leaf costs only its
 * estimate's error. */
#define FL_GUESS_EST_FRACTION (1.0 / 30)
/* Standard deviations of a leaf's spread by which the cold tests call it
 * covered already: fewer pairs against leaves wrongly skipped. */
#define FL_COLD_SD 3.0
/* Variance ratio (largest eigenvalue over rms2 / d) past which the
 * bisector test takes a leaf's largest spread instead of a random
 * direction's: elongated leaves kept against fewer skips. */
#define FL_ISOTROPIC 6.0
/* A leaf looks mixed (parts of several of the data's clusters) when it
 * spreads FL_MIXED_EXCESS times past an isotropic sample's edge along a
 * direction and two groups split along it explain FL_MIXED_SPLIT of its
 * variance; past FL_MIXED_SHARE of the leaves mixed, the evaluations skip
 * by bounds alone: greedy's picks against more pairs. */
#define FL_MIXED_EXCESS 2.0
#define FL_MIXED_SPLIT 0.85
#define FL_MIXED_SHARE 0.12
/* A coarse evaluation skips a leaf it would visit whose gain estimate is
 * below this fraction of the skip threshold (fine evaluations, estimates
 * not added): fewer pairs against gains that fall short. */
#define FL_GAIN_FRACTION 0.001
/* The same fraction where the dropped leaves' estimates are added to the
 * key (coarse evaluations, the picks evaluated finely). */
#define FL_GUESS_GAIN_FRACTION 0.1
/* The gain estimate and the near-point test (fl_clusters_plan) drop no
 * leaf whose bound exceeds FL_DROP_CAP times the skip threshold: what one
 * dropped leaf can hide is at most that
 * (half the last gain at eps = 0.05).  The estimate takes a leaf's offsets
 * as normal, which grids, repeated rows and leaves of a few clients are
 * not.  Chosen on the presets (the cost at sigma = 20); smaller, more
 * pairs. */
#define FL_DROP_CAP 10.0
/* Power iterations for a leaf's largest variance (FL_ISOTROPIC), and
 * steps of the one-dimensional two-means that judges a leaf mixed:
 * set-up time against leaves misjudged. */
#define FL_POWER_STEPS 3
#define FL_SPLIT_STEPS 4

#endif
