# facility_greedy(): validation, the .Call, and the result object.

# The modes of kind `kind` ("exact", "matrix-free", "sampled"; all by
# default), from the C core's one table of them (src/fl_solve.c).
facility_modes <- function(kind = NULL) {
  table <- .Call(C_facloc_modes)
  if (is.null(kind)) table$name else table$name[table$kind %in% kind]
}

#' Greedy facility location
#'
#' Selects up to `k` facilities (representatives) that maximise the facility
#' location objective
#' \deqn{f(S) = \sum_i w_i \max_{j \in S} s_{ij}, \qquad
#'   s_{ij} = \exp(-\|x_i - y_j\|^2 / (2\sigma^2))}
#' by greedy selection, which reaches at least \eqn{1 - 1/e} of the optimum.
#' By default the clients \eqn{x_i} are the rows of `X`, the candidates
#' \eqn{y_j} are the same rows, and all weights \eqn{w_i} are 1.
#'
#' @section Modes:
#' The six solver generations of the specification:
#' \describe{
#'   \item{`"g"`}{Greedy on the precomputed \eqn{n \times m} similarity
#'     matrix W: every round evaluates every open candidate (threads split
#'     the candidates).}
#'   \item{`"c"`}{Lazy greedy (CELF) on one heap shared by all threads under
#'     a lock; threads race to pop, recompute and push back.}
#'   \item{`"dc"`}{Distributed CELF: candidates split into one block per
#'     thread with a private heap each; the best of the heap tops wins.}
#'   \item{`"hc"`}{Hierarchical CELF without W: the clients are clustered
#'     by a two-level k-means (`clusters` clusters, each split into leaves of
#'     about \eqn{0.35 \sqrt{n}}{0.35 sqrt(n)} clients); each leaf's ball bounds a
#'     candidate's gain on it, and leaves whose bound is below `eps` times
#'     the last gain are skipped. Four heaps per thread, which the threads
#'     take in turn; each round commits up to `batch` picks.}
#'   \item{`"hpc"`}{`"hc"` plus progressive coverage pruning (clients
#'     covered above `tau` leave later evaluations) and a fused
#'     post-selection pass (coverage, pruning and cluster summaries in one
#'     loop), one parallel region per round.}
#'   \item{`"nhpc"`}{`"hpc"` with nested parallelism: groups of
#'     `group_size` threads, the threads of a group splitting the clients
#'     of one gain evaluation and meeting at their own barriers. One
#'     heap when there is one group; with several, four heaps per group,
#'     which the groups take in turn.}
#' }
#' A seventh mode, `"stochastic"`, is stochastic greedy (Mirzasoleiman et
#' al., 2015): each step evaluates only \eqn{\lceil (m/k) \log(1/\epsilon)
#' \rceil}{ceiling((m/k) log(1/epsilon))} candidates drawn at random from the
#' open ones (`epsilon` and `seed` of [facility_control()]) and takes the best
#' of them, which reaches \eqn{1 - 1/e - \epsilon} of the optimum in
#' expectation. Sampled candidates whose last computed gain (an upper
#' bound) cannot beat the best gain found are not evaluated again, which
#' saves work without changing the picks. It needs no matrix (gains are computed from the points, or
#' read from `similarity`), its sample depends only on the seed, never on the
#' number of threads, which split the gains of the sample. Its `bound` is
#' the LP dual (`certify` steps) with a `similarity`, and on points only the
#' cap (the clients' total weight): [facility_bound()] certifies its
#' answer more tightly.
#'
#' The modes `"g"`, `"c"` and `"dc"` are exact: they return the selection of
#' sequential greedy, ties broken by the lowest index, for any number of
#' threads. They need the dense similarity matrix (8 n m bytes, and up to an
#' eighth more for the lists of the clients each candidate can still
#' improve, which later gains read instead of the whole column), checked
#' against [facloc_memory_limit()] before it is allocated. Where that
#' matrix would exceed the limit, and in a default call where it would
#' exceed 1 GiB or a quarter of the limit, `"dc"` on points holds none: it
#' computes each gain from the points, a batch of candidates at a time
#' through the same tiled kernel, so its picks and gains are those of
#' `"dc"` with the matrix, bit for bit, in memory linear in n + m. That
#' costs one exhaustive pass for the first gains and one read of the
#' points per batch of refreshed gains; its `bound` is the online bound of
#' its rounds (an LP-dual step would be another pass). The result's
#' `streamed` says which ran. The
#' matrix-free modes relax greedy through `control` (batches, pruning)
#' under rules whose loss per pick is bounded (see `eps` and `tau` of
#' [facility_control()]). Measured at the defaults a user gets
#' (`inst/bench/quality-sweep.R`: every numeric data set of R's base and
#' recommended packages with at least 100 complete rows, the presets at
#' n = 4000 and eight geometries unlike Gaussian blobs; 0.1 to 2 times the
#' median-heuristic sigma; k = 5 to 100; 1 and 2 threads; 14,700 runs):
#' median 1.000000 of greedy's f(S), 69 runs below 0.999, the worst
#' 0.9964 (an integer grid in the plane at a tenth of the median sigma,
#' `"hpc"`; on R's data sets 0.9968, `MASS::crabs`, `"nhpc"`); the
#' presets at least 0.9993. Those figures were 0.999997, 5171 and 0.9713
#' before the rules were bounded. No pick has zero gain while another
#' candidate's is positive: once a pick's gain reads 0 in single precision
#' (below 1e-6 of the first pick's), every candidate that may still gain is
#' evaluated exactly in double precision before the next pick, so the
#' duplicates' jitter (gains of 1e-12 of the first) is still told apart.
#' Where the
#' leaves of their clustering hold parts of several of the data's clusters
#' (small data sets of many small clusters), the modes skip leaves by
#' their bounds alone, at a few times the work; these figures are
#' measurements, not guarantees. With
#' `facility_control(batch = 1, eps = 0, tau = 1)` they are exact too, for
#' any number of threads, up to ties within rounding: they add the same
#' similarities in another order, with an `exp()` within one unit in the
#' last place of the C library's, so two candidates whose gains differ
#' only in the last bits may be taken in either order.
#'
#' Under relaxed settings the matrix-free modes can give a different answer
#' for a different number of threads (never for the same one): the
#' candidates are split into four heaps per thread (`"hc"`, `"hpc"`) or per
#' group of `group_size` threads (`"nhpc"`, one heap for one group), and which approximate gains
#' get evaluated in a round depends on that split. Gains themselves are
#' summed in a fixed order, so with one heap (`"nhpc"` with `threads <=
#' group_size`, by default up to 4 threads) the thread count does not
#' matter, nor does how the group's threads share each evaluation step (two
#' by two, from both ends of the step, each taking more as it finishes what
#' it holds, so that a thread on a core slowed by other work does not hold
#' the others up). Their `bound` is a true
#' upper bound but looser than the exact modes' in high dimension: it adds
#' the cluster bounds of every client a gain evaluation skipped. The
#' distances behind those cluster bounds are computed in single precision
#' (each evaluation needs one per leaf) and enlarged by their worst-case
#' rounding. With `eps > 0` (the default), gain evaluations also run in
#' single precision (faster; measured in `inst/bench/results/`): each
#' similarity is computed from
#' the client's and candidate's offsets to their leaf's centre, and every
#' upper bound adds the worst-case rounding of what was evaluated, so
#' `bound` stays a true bound. With `eps = 0` gains are evaluated in double
#' precision, which `batch = 1, eps = 0, tau = 1` needs to reproduce exact
#' greedy. `objective`, the gains reported in `gains` and `bound` are always
#' double precision.
#'
#' @param X Numeric matrix or data frame of numeric columns, one client
#'   per row (a factor or character column is refused by name), or a
#'   [stats::dist()] object of the distances between the clients, which are
#'   then also the candidates: it is turned into the dense similarity
#'   matrix \eqn{\exp(-d_{ij}^2 / (2\sigma^2))}{exp(-d_ij^2 / (2 sigma^2))}
#'   (8 \eqn{n^2} bytes), which the exact modes and `"stochastic"` optimise
#'   (the default mode is then `"dc"`), and the result has no coordinates.
#'   May be omitted when `similarity` is given.
#' @param k Number of facilities to select, a whole number from 1 to the
#'   number of candidates (less those in `initial`). With a `budget` or a
#'   `coverage`, a cap on the number of picks that may be omitted.
#' @param mode Solver generation, one of `"g"`, `"c"`, `"dc"`, `"hc"`,
#'   `"hpc"`, `"nhpc"`, or `"stochastic"` (see Modes). `NULL` (the
#'   default) picks the exact `"dc"` where the n x m similarity matrix has
#'   at most 1e7 entries (80 MB); in 128 or more dimensions whatever n,
#'   holding the matrix where it fits in 1 GiB and a quarter of
#'   [facloc_memory_limit()] and computing its gains from the points
#'   beyond, since there the matrix-free modes' cluster bounds prune little
#'   and `"dc"` was as fast or faster (embeddings: up to 11 times with its
#'   matrix at n = 10,000; without it at n = 100,000, d = 128, k = 100,
#'   144 s against 152 s at 2 threads); for a precomputed `similarity` or
#'   `dist`, and with a `budget` or `cost`.
#'   `"nhpc"` for other, larger sets of points.
#' @param threads Number of threads, by default [facloc_threads()]; capped at
#'   the available processors.
#' @param sigma Kernel width \eqn{\sigma}, a positive number, or `NULL`
#'   (the default) for the median heuristic of [facility_sigma()]: the
#'   median Euclidean distance between the rows of `X` (the clients), on a
#'   seeded sample of at most 2000 of them, or the median entry of a `dist`.
#'   The result states the value used and how it was chosen. The default
#'   was 20 before, the specification's width for its 32-dimensional
#'   benchmarks, which [facility_benchmark()], [facility_pass_time()] and
#'   the scripts in `inst/bench` keep.
#' @param similarity Optional precomputed similarity: a non-negative numeric
#'   matrix, clients in rows and candidates in columns (square when `X` is
#'   given without `candidates`), or a sparse `Matrix::dgCMatrix` (any
#'   sparse `Matrix` is converted to one) such as [knn_similarity()] makes:
#'   entries not stored are 0, and the solvers read the non-zeros in place,
#'   in memory proportional to their number. Used by the exact modes and
#'   `"stochastic"`, which then optimise it instead of the RBF kernel of
#'   `X` (`X` then only gives the facilities' coordinates, and `sigma` is
#'   ignored: the result's is `NA`); the matrix-free modes refuse it.
#'   Column names, when present, name the candidates in
#'   [as.data.frame.facility_greedy()].
#' @param verbose Print progress (round, number selected, f(S)) from the
#'   main thread.
#' @param control Solver settings from [facility_control()].
#' @param candidates Optional matrix of candidate sites with the columns of
#'   `X`; `selected` then indexes its rows. Default: the clients themselves.
#' @param weights Optional non-negative weight per client.
#' @param initial Optional indices of candidates that are already open:
#'   greedy starts from their coverage and adds `k` new facilities.
#' @param cost,budget Optional budget constraint: `cost` gives a positive
#'   cost per candidate (default 1 each) and the new facilities must cost at
#'   most `budget` in total (the `initial` ones are free). With a budget,
#'   `k` is only a cap on the number of picks and may be omitted. Honoured
#'   by the exact modes `"g"`, `"c"` and `"dc"`, which all run the pair of
#'   lazy greedy algorithms of Leskovec et al. (2007): unit cost (largest
#'   gain that fits) and cost-benefit (largest gain / cost that fits), each
#'   until nothing that fits adds anything, returning the better (the
#'   unit-cost one on ties). That is within \eqn{(1 - 1/e)/2} of the best
#'   selection within the budget. `bound` is then \eqn{f(S)} plus the
#'   fractional knapsack of the candidates' gains with respect to the
#'   result, an upper bound on that optimum.
#' @param kernel `"gaussian"` (the default): \eqn{s_{ij} = \exp(-\|x_i -
#'   y_j\|^2 / (2\sigma^2))}. `"cosine"`: \eqn{s_{ij} = \max(0, \cos(x_i,
#'   y_j))}, the similarity of embeddings (see [cosine_similarity()] for why
#'   this form), for points `X` only, without `sigma`; the exact modes
#'   `"g"`, `"c"` or `"dc"` (the default) run on the \eqn{n \times m} matrix,
#'   built by the tiled kernel. The result's `kernel` says which.
#' @param ... Reserved for future arguments; must be empty.
#' @return An object of class `facility_greedy`, a list with
#'   \item{selected}{1-based indices of the selected candidates, in
#'     selection order.}
#'   \item{gains}{Marginal gain of each pick when it was made.}
#'   \item{objective}{\eqn{f(S)}, including any `initial` facilities.}
#'   \item{bound}{An upper bound on the optimum over sets of `k` (plus
#'     `initial`), or of the size returned when a `coverage` stopped the
#'     solve: `objective / bound` certifies the answer. It is the
#'     smallest of the bounds described in [facility_bound()]: the online
#'     bound, the LP dual (with `certify` steps, see [facility_control()])
#'     and, for points, the clients' total weight, which no set can cover
#'     more of (every similarity is at most 1).}
#'   \item{bound_online, bound_dual}{The online bound (the smallest over the
#'     rounds) and the LP dual's best value; `Inf` where not computed. The
#'     matrix-free modes end by refreshing the largest gain bounds exactly
#'     (lazily, largest first) within half the solve's kernel evaluations:
#'     where that makes the k largest all fresh, the online bound is
#'     \eqn{f(S)} plus the k largest final gains.}
#'   \item{bound_cap}{The cap, the clients' total weight (`NA` with a
#'     `similarity`); print() says when `bound` is no better than it.}
#'   \item{weights, candidates}{The `weights` and `candidates` given (or
#'     `NULL`), so that `facility_bound(X, fit)` certifies the problem
#'     solved.}
#'   \item{trace}{A data frame: `size` \eqn{t}, `objective`
#'     \eqn{f(S_t)} and `bound`, the best bound known after \eqn{t} picks
#'     (`Inf` before any), its last row the final `bound`.}
#'   \item{dual_trace}{The LP dual's value after each of its steps (first
#'     its starting value), `NA` where not run.}
#'   \item{bound_seconds, bound_evaluations, dual_steps}{Time and
#'     candidate evaluations of the final bound, and the dual's steps that
#'     lowered it.}
#'   \item{mode, threads, k, sigma}{The settings used (`threads` after
#'     capping; `sigma` is `NA` when a `similarity` was optimised).}
#'   \item{sigma_rule}{How `sigma` was chosen: `"median heuristic"` or
#'     `"given"` (`NA` with a `similarity`).}
#'   \item{source}{What the similarities came from: `"points"`,
#'     `"similarity"` or `"dist"`.}
#'   \item{precision}{`"single"` where an exact mode held its matrix of
#'     points' similarities in single precision (`precision` of
#'     [facility_control()]), else `"double"`.}
#'   \item{streamed}{`TRUE` where `"dc"` held no matrix and computed its
#'     gains from the points (see Modes), else `FALSE`.}
#'   \item{objective_all, coverage}{\eqn{f(V)}, the objective with every
#'     candidate open (`NA` for points with separate `candidates` unless a
#'     `coverage` was asked for; see the section "Choosing k by
#'     coverage"), and the `coverage` asked for (`NULL` if none).}
#'   \item{labels}{The candidates' names (row names of `candidates` or
#'     `X`, column names of `similarity`, labels of a `dist`), or `NULL`.}
#'   \item{seconds}{Elapsed solver time, building W included.}
#'   \item{evaluations}{Marginal-gain evaluations performed. In mode `"c"`
#'     with several threads they can differ by a few from run to run: the
#'     threads race for the heap's tops, and one may evaluate a top that
#'     another's evaluation then makes unneeded. Everything else is the
#'     same on every run.}
#'   \item{pairs}{Client-candidate similarities computed with the kernel.}
#'   \item{rounds, n, m, initial, facilities, control}{Rounds of selection,
#'     numbers of clients and candidates, the initial set, the coordinates
#'     of the selected facilities (when points were given) and the control.}
#'   \item{initial_facilities}{Coordinates of the `initial` facilities (when
#'     points were given), used by [predict.facility_greedy()].}
#'   \item{total_weight}{The clients' total weight (their number without
#'     `weights`).}
#'   \item{geo, spread}{Whether `X` came from [geo_points()], and how many
#'     times the widest column's variance is the narrowest's (`NA` for one
#'     column, `NULL` for a similarity, a `dist` or [geo_points()]):
#'     `print()` hints at [scale()] beyond 100.}
#'   \item{id_columns}{The columns of `X` that count its rows (1, 2, 3,
#'     ...), identifiers rather than features, of which `print()` warns.}
#'   \item{budget, spent, rule}{With a budget: the budget, the total cost of
#'     the new picks, and the rule that won (`"unit-cost"` or
#'     `"cost-benefit"`).}
#' @seealso [facility_objective()], [facility_control()], [facloc_threads()],
#'   [facility_sigma()], [as.data.frame.facility_greedy()]
#' @export
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(300 * 4), ncol = 4)
#' fit <- facility_greedy(X, k = 5, mode = "dc", sigma = 1, threads = 1)
#' fit
#' summary(fit)
#' plot(fit)
#'
#' # the default sigma (median heuristic) and k chosen by coverage
#' fit <- facility_greedy(iris[1:4], coverage = 0.8, threads = 1)
#' fit
#' as.data.frame(fit)
#' table(predict(fit, iris[1:4])$facility, iris$Species)
facility_greedy <- function(X, k, mode = NULL, threads = facloc_threads(),
                            sigma = NULL, similarity = NULL, verbose = FALSE,
                            control = facility_control(), candidates = NULL,
                            weights = NULL, initial = NULL, cost = NULL,
                            budget = NULL, cl = NULL, coverage = NULL,
                            kernel = c("gaussian", "cosine"), ...) {
  check_dots_empty(...)
  has_points <- !missing(X) && !is.null(X)
  kernel <- check_choice(kernel, c("gaussian", "cosine"), "kernel")
  if (kernel == "cosine") {
    check_cosine_call(has_points, X, sigma, similarity, cl, mode)
    similarity <- cosine_similarity(X, candidates, threads)
    if (is.null(mode)) mode <- "dc"
  }
  verbose <- check_flag(verbose, "verbose")
  coverage <- check_coverage(coverage)
  if (!is.null(cl))   # distributed GreeDi, R/greedi.R
    return(facility_greedi(if (has_points) X, k, mode, threads, sigma, control, cl, weights,
                           list(similarity = similarity, candidates = candidates,
                                initial = initial, cost = cost, budget = budget,
                                coverage = coverage, verbose = if (verbose) TRUE)))
  check_instance(has_points, similarity)
  threads <- resolve_threads(threads)
  input <- facility_input(if (has_points) X, sigma, similarity, candidates, threads)
  check_control(control)

  problem <- facility_problem(input$X, input$sigma, threads, input$similarity, candidates,
                              weights, initial)
  defaulted <- is.null(mode)
  if (defaulted) mode <- default_mode(input$source, problem, budget, cost, control)
  mode <- check_choice(mode, facility_modes(), "mode")
  if (is.null(problem$x) && mode %in% facility_modes("matrix-free"))
    abort_argument("mode", sprintf("\"%s\" needs points `X`; with only a `similarity` matrix or a `dist` use \"g\", \"c\" or \"dc\"", mode))
  check_features(mode, problem, cost, budget)
  if (length(problem$initial) == problem$m)
    abort_argument("initial", sprintf("must leave a candidate to select; it holds all %d", problem$m))
  if (missing(k)) k <- NULL
  if (!is.null(coverage)) k <- coverage_k(coverage, k, mode, problem, cost, budget)
  if (!is.null(budget) && is.null(k)) k <- problem$m - length(problem$initial)
  k <- check_k(k, problem)
  problem <- add_budget(problem, cost, budget)
  total <- objective_all(problem, input, threads, needed = !is.null(coverage))
  target <- coverage_target(coverage, total)
  ctrl <- solver_control(control, mode, k, threads, verbose, target)
  ctrl <- stream_dc(ctrl, input$source, problem, defaulted)
  bytes <- .Call(C_facloc_solve_bytes, problem, ctrl)
  check_memory(bytes, sprintf("mode \"%s\" on %d clients and %d candidates", mode,
                              problem$n, problem$m),
               if (mode %in% facility_modes("exact")) "the matrix-free modes \"hpc\" and \"nhpc\" need no n x m matrix"
               else "use fewer points")

  started <- proc.time()[["elapsed"]]
  out <- .Call(C_facloc_solve, problem, ctrl)
  seconds <- proc.time()[["elapsed"]] - started
  check_status(out$status, sprintf("facility_greedy(mode = \"%s\")", mode))

  fit <- new_facility_greedy(out, problem, mode, threads, k, input, seconds, control)
  fit$kernel <- kernel
  fit$precision <- if (matrix_precision(control) == "single" && input$source == "points" &&
                       mode %in% facility_modes("exact") && !ctrl$stream) "single" else "double"
  fit$streamed <- ctrl$stream
  fit$objective_all <- total
  fit["coverage"] <- list(coverage)
  fit["candidates"] <- list(candidates)   # with weights and sigma: facility_bound(X, fit)
  if (!is.null(problem$cost)) fit <- add_budget_result(fit, problem, out)
  warn_coverage(fit, target)
}

# kernel = "cosine": points (not a `dist`), no similarity, sigma, cluster
# or relaxed mode; the exact modes then run on cosine_similarity().
check_cosine_call <- function(has_points, X, sigma, similarity, cl, mode) {
  if (!has_points || inherits(X, "dist"))
    abort_argument("X", "must hold points (rows) for kernel = \"cosine\"")
  if (!is.null(similarity))
    abort_argument("similarity", "must be NULL with kernel = \"cosine\", which gives the similarities")
  if (!is.null(sigma)) abort_argument("sigma", "must be NULL with kernel = \"cosine\", which has no width")
  if (!is.null(cl)) abort_argument("cl", "must be NULL with kernel = \"cosine\"")
  if (!is.null(mode) && !mode %in% facility_modes("exact"))
    abort_argument("mode", sprintf("\"%s\" evaluates the Gaussian kernel; with kernel = \"cosine\" use \"g\", \"c\" or \"dc\"", mode))
}

#' Settings of the relaxed solvers
#'
#' @param batch Most facilities committed per round by the matrix-free
#'   modes; `NULL` means the specification's `max(1, floor(k / 20))`, or 1
#'   with a `coverage` of [facility_greedy()], where `k` is only a cap. A
#'   round's later picks must pass the overlap test described under `eps`,
#'   whose bound is loose in high dimension: on the 13 benchmark presets (d
#'   = 32, `sigma = 20`, k = 100, `batch` 5) no round of `"hc"`, `"hpc"` or
#'   `"nhpc"` committed a second pick, at 1 or 2 threads, so those solves
#'   took one round per pick. Committing `batch` picks per round without
#'   the test, as the specification does, left `"nhpc"` at 0.64 to 0.97 of
#'   greedy's objective there.
#' @param eps Relaxation of modes `"hc"`, `"hpc"`, `"nhpc"`, in \eqn{[0, 1]}:
#'   a leaf cluster of clients is skipped for a candidate when its upper
#'   bound is below `eps` times the last committed gain (the first round
#'   uses the best gain among the candidates nearest to the centers of the
#'   densest leaf clusters, a lower bound on its best gain that depends
#'   only on the data) and an estimate of its
#'   similarity mass (Jensen's lower bound, which is close to it in high
#'   dimension where the ball bounds are loose) is below `eps / 100` times
#'   that gain, or when it is most likely covered already (the similarity
#'   of the candidate to a point three standard deviations of the leaf's
#'   spread nearer than its typical client is at most the leaf's lowest
#'   coverage, or the leaf lies beyond the bisector of the candidate and
#'   the open facility nearest to the leaf's center by three standard
#'   deviations of its spread along the line joining them, with the
#'   candidate outside the leaf), or when an estimate of its gain is small
#'   (each client's gain is at most what the candidate offers beyond that
#'   owner, whose ratio to it depends on the client's offset along the
#'   same line, taken as normal): below 10% of the threshold, the
#'   estimates of the leaves so skipped then added to the coarse gain, and
#'   only for leaves whose bound is at most 10 times the threshold (so no
#'   leaf this estimate drops can hold more than `10 * eps` of the last
#'   gain: on grids, repeated rows and leaves of a few clients the normal
#'   offsets fail, and a dropped leaf had cost up to 0.4% of f(S)).
#'   The first evaluations, while no client is covered, visit every leaf
#'   whose ball holds the candidate and, of the others, those whose mass
#'   estimate is at least 1/10 of the threshold (their bounds are loose),
#'   and add the skipped leaves' mass estimates to the gain. Where the
#'   kernel is wide beside the leaves, most candidates skip their first
#'   evaluation altogether: each is keyed by an upper bound on its first
#'   gain from the leaves' first two moments (over a leaf, exp(-a) lies
#'   below its chord over the leaf's range of exponents, and the chord's
#'   weighted mean is exact), a few percent above the gain, and only the
#'   candidates whose bound reaches the best gain found are evaluated
#'   before the first pick (wherever that pick covers at least half of
#'   the clients' weight, as the best gain found before it does, and
#'   those candidates' evaluations, at up to one pair per client each,
#'   would cost at most a quarter of the first evaluations they spare, as
#'   measured on one in 16); the rest are evaluated together after the
#'   first round's picks, whose coverage changes their gains anyway. Where more
#'   than 12% of the leaves look like parts of several of the data's
#'   clusters (they spread along one direction more than twice as much as
#'   an isotropic sample of their size could, and two groups split along
#'   it explain more than 85% of that spread), leaves are skipped by their
#'   bounds alone: no skips by estimates and no "covered" tests. A round's
#'   later picks are
#'   committed only while the earlier picks of the round can have lowered
#'   their gains by at most `eps` of them. Such coarse gains can fall a few
#'   percent short, so a candidate must pass a fine evaluation before it
#'   is picked, against the others' coarse gains raised by 5% (with
#'   several heaps, only those raised above the fine gain of the best
#'   candidate any heap found in the round): it skips only the leaves bounded below 1%
#'   of the threshold with an estimated mass below 1/100 of that, those
#'   beyond the bisector, and those whose gain estimate is below 0.1% of
#'   that 1% (the estimates not added). Last, before a pick is committed,
#'   it is evaluated exactly (every leaf of positive bound) together with
#'   every candidate keyed within `eps / 50` of its gain whose certified
#'   upper bound still reaches that gain (up to 15 of them), and the best
#'   exact gain wins, lowest index on ties: so no skipped leaf decides a
#'   near-tie (regular grids, repeated rows, the flat gains of a wide
#'   kernel), where a path turned at the second pick had cost 1.3% of
#'   f(S) by the fifth (`beaver2` at a tenth of the median-heuristic
#'   sigma). Before that contest, the few candidates whose certified upper
#'   bounds most exceed the pick's gain, each once after every coarse
#'   evaluation of it, are evaluated without estimates (leaves skipped by
#'   their bounds alone, below `eps` times the last gain), and one that
#'   gains more takes the pick's place (while these evaluations have
#'   visited at most a tenth of the pairs the solve's others did): a
#'   candidate whose coarse gain the estimates above put far below its
#'   true gain (far outliers of heavy-tailed data, where `"hc"` had stayed
#'   0.3% to 0.6% below greedy) is caught within a few picks. 0 disables
#'   all of this. The default
#'   0.05 was chosen by measurement: on the benchmark presets it keeps
#'   f(S) within 0.04% of greedy while visiting about half the pairs of
#'   `eps = 0.01`; on points near a low-dimensional subspace, where
#'   near-ties decide greedy's path, `"hc"` at one and two threads stayed
#'   within 0.06% (up to 0.70% below greedy without the fine evaluations)
#'   and so did `"hpc"` and `"nhpc"` but for `tau`
#'   (`inst/bench/bench-lowdim.R`).
#' @param tau Coverage pruning threshold of modes `"hpc"` and `"nhpc"`:
#'   clients covered above `tau` leave later evaluations, but only while
#'   what they could still add to any candidate's gain, their total slack
#'   \eqn{\sum_i a_i (1 - m_i)}{sum_i a_i (1 - m_i)} (weights \eqn{a_i},
#'   coverage \eqn{m_i}), is at most `eps / 50` of the gain of the pick
#'   being made. When it is more, the pruned clients are readmitted, every
#'   candidate's key is raised by that slack (so keys stay upper bounds)
#'   and `tau` moves halfway to 1 for the rest of the solve. The bound:
#'   pruning lowers no pick's gain by more than `eps / 50` (0.1% at the
#'   default `eps`) of it below the best gain over the clients evaluated,
#'   at any kernel width, and never picks a candidate of zero gain while
#'   another gains. Under a wide kernel (the median-heuristic default) most
#'   clients are soon covered above 0.9, and the bound readmits them; at
#'   the specification's `sigma = 20` the pruned slack stays small and the
#'   picks are those of unbounded pruning. 1, or `eps = 0`, disables
#'   pruning.
#' @param clusters Number of top-level k-means clusters of the clients (K);
#'   each is split by k-means into leaves of about
#'   \eqn{0.35 \sqrt{n}}{0.35 sqrt(n)} clients, whose balls give the gain
#'   bounds.
#' @param group_size Threads per group (M) in mode `"nhpc"`. `NULL` (the
#'   default) takes the specification's \eqn{M = \min(4, T)}{M = min(4, T)}
#'   for \eqn{T} threads. The lanes of a group plan and evaluate the
#'   candidates their leader posts together, so up to `group_size` threads
#'   keep one heap and the answer does not depend on the thread count.
#'   Several groups take four heaps each, in turn. On 2 cores at n = 30000
#'   (k = 100; `"large"`, `"medium_cluster"`, `"strong_cluster"`),
#'   `group_size = 1` (two groups of one thread, eight heaps) took 12%,
#'   3% and 12% more time than the default's one group of two (medians of
#'   6 alternations, standalone driver).
#' @param seed Seed of the k-means initialisation and of the samples of mode
#'   `"stochastic"` (a whole number), so the same input always gives the
#'   same answer.
#' @param epsilon Accuracy of mode `"stochastic"`, in \eqn{[0, 1]}: each step
#'   samples \eqn{\lceil (m/k) \log(1/\epsilon) \rceil}{ceiling((m/k)
#'   log(1/epsilon))} candidates (at least 1); 0 samples all of them, which
#'   is plain greedy.
#' @param certify Steps of the LP-dual bound's minimisation (see
#'   [facility_bound()]), a whole number from 0; each step costs about one
#'   pass over the candidates that can still enter the top `k`. `NULL` (the
#'   default) takes up to 5 in the exact modes and `"stochastic"`, where the
#'   similarity matrix makes a step cheap (a default [facility_greedy()]
#'   call on a given similarity stays within twice its time without the
#'   bound; `inst/bench/certificate.R`), and stops once the bound proves
#'   f(S) within 1% of the optimum (`objective / bound` at least 0.99), where
#'   more steps could add at most 1% to what it proves: on 10,000
#'   embeddings, none at d = 384 and k = 100 (the online bound gives 0.991;
#'   5 steps took 0.33 s and gave 0.995) and 2 at d = 1024, k = 1000
#'   (0.999). An explicit number runs every step. In the exact modes (and
#'   `"stochastic"` on a similarity) the steps start from the coverage, among the final set's and that of its
#'   first k/2, k/4, ... picks, where the bound is lowest (there it is the
#'   online bound of that round with exact gains; under a narrow kernel the
#'   later picks leave most gains as they were, and it is far lower: sigma
#'   = 20, four presets at n = 4000, 0.72 to 0.95 of the best prefix
#'   against 0.52 to 0.76 at the final set; `inst/bench/dual-starts.R`);
#'   the prefixes follow from the picks alone, so the bound is the same for
#'   any number of threads. 0 in the matrix-free modes,
#'   where a step computes the similarities again and costs several times
#'   the whole solve. With 0 the exact modes still refresh the final gains
#'   once (the online bound of the last round, exact); the matrix-free
#'   modes refresh the largest gain bounds exactly, largest first, within
#'   half as many kernel evaluations as the solve made (a count, so the
#'   bound does not depend on the machine's load), and with steps to take
#'   all of them before the first step.
#' @param precision Precision of the \eqn{n \times m}{n x m} similarity
#'   matrix that the exact modes (`"g"`, `"c"`, `"dc"`) compute from points:
#'   `"double"` (the default) or `"single"`. Single precision takes half the
#'   memory (4 bytes a pair instead of 8), so about 1.4 times as many points
#'   fit, and computes the distances with a single-precision tiled kernel
#'   (twice the values a vector instruction). Each squared distance is
#'   lowered by that kernel's worst-case rounding error, \eqn{\gamma
#'   (|x_i|^2 + |y_j|^2)}{gamma (|x_i|^2 + |y_j|^2)} with \eqn{\gamma =
#'   7.9 \times 10^{-6}}{gamma = 7.9e-6} and norms about the clients' mean,
#'   and each similarity is rounded up: every stored value is at least the
#'   double-precision one and at most \eqn{\exp(2 \gamma (|x_i|^2 +
#'   |y_j|^2) / (2 \sigma^2)) (1 + 2^{-23})}{exp(2 gamma (|x_i|^2 + |y_j|^2) /
#'   (2 sigma^2)) (1 + 2^-23)} times it (the rounding may have lowered the
#'   distance by as much as it is lowered). So f(S) on the stored matrix is
#'   never below the true one, every bound (the online bound, the LP dual,
#'   `bound`) stays a true upper bound on the optimum, and picks can differ
#'   from double precision's only where two gains differ by less than that
#'   rounding of the similarities and coverage they sum. The reported
#'   `objective` is recomputed in double precision from the points (the
#'   value a double matrix gives the same set; k n kernel evaluations);
#'   `gains`, `trace_objective` and the bounds are those of the stored
#'   matrix. Measured (`inst/bench/precision.R`) in mode `"dc"` on 681
#'   runs (135 of R's data sets, eight other geometries and the presets;
#'   k = 20 and 100): f(S) the same as double precision's in 579, at worst
#'   2.7e-6 lower at the median-heuristic sigma and twice it, 2.7e-4 at a
#'   quarter of it (`beaver2`, whose unscaled time column makes the norms
#'   large against sigma); at 2 threads the call took 0.56 to 0.76 times as
#'   long at d = 1024 (n = 10,000), 0.86 to 0.93 at d = 32 and 128, with
#'   half the peak memory. No effect on the matrix-free modes, which
#'   hold no matrix and compute their estimates in single precision already,
#'   on a given `similarity` or with `kernel = "cosine"`.
#' @return An object of class `facility_control`.
#' @export
#' @examples
#' facility_control()
#' facility_control(batch = 1, eps = 0, tau = 1)   # exact greedy
#' facility_control(certify = 50)                  # a tighter bound
#' facility_control(precision = "single")          # half the exact modes' memory
facility_control <- function(batch = NULL, eps = 0.05, tau = 0.9, clusters = 32,
                             group_size = NULL, seed = 1, epsilon = 0.01, certify = NULL,
                             precision = c("double", "single")) {
  structure(list(
    batch = if (is.null(batch)) NULL else check_count(batch, "batch"),
    eps = check_fraction(eps, "eps"),
    tau = check_fraction(tau, "tau", lower_open = TRUE),
    clusters = check_count(clusters, "clusters"),
    group_size = if (is.null(group_size)) NULL else check_count(group_size, "group_size"),
    seed = check_count(seed, "seed", min = 0),
    epsilon = check_fraction(epsilon, "epsilon"),
    certify = if (is.null(certify)) NULL else check_count(certify, "certify", min = 0, max = 1e6),
    precision = check_choice(precision, c("double", "single"), "precision")
  ), class = "facility_control")
}

# k, the number of picks, or the way to do without one: a `coverage` or a
# `budget` chooses how many facilities to open.
check_k <- function(k, problem) {
  hint <- "; or give `coverage =` (a share of f(V), such as 0.9) to choose k"
  if (is.null(k))
    abort_argument("k", paste0("is missing: give the number of facilities to select", hint))
  check_count(k, "k", max = problem$m - length(problem$initial), hint = hint)
}

#' @export
print.facility_control <- function(x, ...) {
  cat("facility_control: batch =", if (is.null(x$batch)) "max(1, floor(k/20))" else x$batch,
      ", eps =", x$eps, ", tau =", x$tau, ", clusters =", x$clusters,
      ", group_size =", if (is.null(x$group_size)) "min(4, threads)" else x$group_size,
      ", seed =", x$seed,
      ", epsilon =", x$epsilon,
      ", certify =", if (is.null(x$certify)) "up to 5, to f/bound 0.99 (0 matrix-free)" else x$certify,
      ", precision =", matrix_precision(x), "\n")
  invisible(x)
}

check_dots_empty <- function(...) {
  if (...length() > 0L) {
    names <- names(list(...))
    abort_argument(if (is.null(names) || !nzchar(names[1])) "..." else names[1],
                   "is not an argument of this function")
  }
}

# target: the f(S) at which to stop (coverage_target()), 0 for none.
solver_control <- function(control, mode, k, threads, verbose, target = 0) {
  batch <- if (!is.null(control$batch)) min(control$batch, k)
           else if (target > 0) 1L else max(1L, k %/% 20L)
  list(mode = mode, k = k, threads = threads,
       batch = as.integer(batch), eps = control$eps, tau = control$tau,
       clusters = control$clusters, group_size = group_size(control, threads),
       seed = as.double(control$seed), epsilon = control$epsilon,
       certify = certify_steps(control, mode), certify_goal = certify_goal(control),
       single = matrix_precision(control) == "single", stream = FALSE, stream_lists = 0,
       verbose = verbose, target = as.double(target))
}

# The default effort's LP-dual steps stop once f(S) / bound reaches this:
# the bound then proves f(S) within 1% of the optimum, and more steps
# could raise that by at most 1%, at about a pass over the similarities
# each.  An explicit `certify` runs its steps.
certify_goal_default <- 0.99

certify_goal <- function(control) {
  if (is.null(control$certify)) certify_goal_default else 0
}

# A control made before `precision` existed (a saved one) holds double.
matrix_precision <- function(control) {
  if (is.null(control$precision)) "double" else control$precision
}

# Steps of the LP dual: the control's, else 5 where the solve holds the
# similarity and 0 in the matrix-free modes (see facility_control()).
certify_steps <- function(control, mode) {
  if (!is.null(control$certify)) return(as.integer(control$certify))
  if (mode %in% facility_modes("matrix-free")) 0L else 5L
}

# Mode NULL: the exact "dc" where its n x m similarity matrix is small
# (the relaxed modes' coverage pruning can cost about 1% of f(S) under a
# wide kernel in low dimension, as on iris with the median heuristic), or
# where only the exact modes serve the input; in exact_default_dim
# dimensions or more whatever n (holding its matrix as stream_dc() says):
# there the cluster bounds prune little, and "nhpc" evaluated 1.4 to 12
# times n^2 pairs and took 0.72 to 2.5 times as long as "dc" on three
# families at n = 5000 and 1.1 to 11 times on unit-length embeddings at
# n = 10000 (inst/bench/results/mode-crossover.csv, embeddings.csv); at
# n = 100,000, d = 128, k = 100, 2 threads, "dc" without its matrix took
# 144 s (4.7 n^2 pairs at 84 GFLOP/s) and "nhpc" 152 s (1.9 n^2 pairs at
# 31 GFLOP/s; embeddings-n100000.csv), the same f(S).  "nhpc" for the
# other point sets.
exact_default_cells <- 1e7
exact_default_dim <- 128L
exact_default_bytes <- 2^30
default_mode <- function(source, problem, budget, cost, control) {
  small <- as.numeric(problem$n) * problem$m <= exact_default_cells
  wide <- problem$d >= exact_default_dim
  if (small || wide || source != "points" || !is.null(budget) || !is.null(cost)) "dc" else "nhpc"
}

# ctrl with "dc" on points computing its gains from the points instead of
# holding the n x m matrix (src/celf_stream.c: the same picks and gains,
# each column computed again when needed, the few live clients of most
# kept in lists of at most a quarter of the memory limit), where the matrix
# would exceed the limit, and in a default call where it would exceed
# exact_default_bytes or a quarter of the limit.
stream_dc <- function(ctrl, source, problem, defaulted) {
  if (ctrl$mode != "dc" || source != "points" || !is.null(problem$cost)) return(ctrl)
  limit <- facloc_memory_limit()
  ctrl$stream <- if (defaulted)
    (if (ctrl$single) 4 else 8) * as.numeric(problem$n) * problem$m > min(exact_default_bytes, limit / 4)
  else .Call(C_facloc_solve_bytes, problem, ctrl) > limit
  if (ctrl$stream) ctrl$stream_lists <- limit / 4
  ctrl
}

group_size <- function(control, threads) {
  if (!is.null(control$group_size)) return(control$group_size)
  as.integer(min(4L, threads))
}

# Validate the instance and lay it out for C: points transposed to d x n so
# each point is contiguous, indices 0-based.  C reads every field by name and
# errors on a missing one (src/r_util.h): keep NULL fields in the list.
facility_problem <- function(X, sigma, threads = 1L, similarity = NULL, candidates = NULL,
                             weights = NULL, initial = NULL) {
  x <- y <- sim <- NULL
  if (!is.null(X)) {
    X <- check_points(X, "X")
    n <- nrow(X)
    d <- ncol(X)
    x <- point_rows(X, threads)
  }
  if (!is.null(candidates)) {
    if (is.null(X)) abort_argument("candidates", "needs points `X`")
    Y <- check_points(candidates, "candidates")
    if (ncol(Y) != d)
      abort_argument("candidates", sprintf("must have the %d columns of `X`, not %d", d, ncol(Y)))
    y <- point_rows(Y, threads)
    m <- nrow(Y)
  } else if (!is.null(X)) {
    m <- n
  }
  sparse <- NULL
  if (!is.null(similarity)) {
    sigma <- 1   # unused: the similarity replaces the kernel
    if (inherits(similarity, "sparseMatrix")) {
      sparse <- check_sparse_similarity(similarity)
    } else {
      sim <- check_similarity(similarity)
    }
    dims <- dim(if (is.null(sparse)) sim else sparse)
    if (!is.null(X) && dims[1] != n)
      abort_argument("similarity", sprintf("must have one row per row of `X` (%d), not %d", n, dims[1]))
    if (!is.null(candidates) && dims[2] != m)
      abort_argument("similarity", sprintf("must have one column per candidate (%d), not %d", m, dims[2]))
    if (!is.null(X) && is.null(candidates) && dims[1] != dims[2])
      abort_argument("similarity", sprintf("must be square (clients are the candidates), not %d x %d",
                                           dims[1], dims[2]))
    n <- dims[1]
    m <- dims[2]
    if (is.null(X)) d <- 0L
  }
  list(n = as.integer(n), m = as.integer(m), d = as.integer(d), x = x, y = y,
       sim = sim, sp_p = if (!is.null(sparse)) sparse@p,
       sp_i = if (!is.null(sparse)) sparse@i, sp_x = if (!is.null(sparse)) sparse@x,
       sigma = sigma,
       weight = if (!is.null(weights)) check_weights(weights, n, "weights"),
       initial = if (length(initial)) check_indices(initial, m, "initial") - 1L,
       cost = NULL, budget = NULL)   # add_budget() sets them
}

check_similarity <- function(similarity, arg = "similarity") {
  if (is.data.frame(similarity) || inherits(similarity, "Matrix"))
    similarity <- as.matrix(similarity)
  if (!is.matrix(similarity) || !is.numeric(similarity))
    abort_argument(arg, "must be a numeric matrix")
  if (nrow(similarity) < 1L || ncol(similarity) < 1L)
    abort_argument(arg, "must not be empty")
  if (!.Call(C_facloc_all_finite, similarity))
    abort_argument(arg, "must not contain NA, NaN or infinite values")
  if (any(similarity < 0))
    abort_argument(arg, "must be non-negative")
  if (!is.double(similarity)) storage.mode(similarity) <- "double"   # else a copy
  similarity
}

# The cap on any bound: with points every similarity is at most 1, so no
# set covers more than the clients' total weight; none for a similarity.
bound_cap <- function(problem) {
  if (is.null(problem$x)) return(NA_real_)
  if (is.null(problem$weight)) as.double(problem$n) else sum(problem$weight)
}

new_facility_greedy <- function(out, problem, mode, threads, k, input, seconds, control) {
  facilities <- NULL
  if (!is.null(problem$x)) {
    points <- if (is.null(problem$y)) problem$x else problem$y
    facilities <- t(points[, out$selected, drop = FALSE])
  }
  # f(S_0) is exactly 0 without `initial` facilities, not the rounding of a
  # difference of sums
  if (is.null(problem$initial) && length(out$trace_objective)) out$trace_objective[1L] <- 0
  structure(list(
    selected = out$selected, gains = out$gains, objective = out$objective,
    bound = out$bound, bound_online = out$bound_online, bound_dual = out$bound_dual,
    trace = data.frame(size = seq_along(out$trace_objective) - 1L,
                       objective = out$trace_objective, bound = out$trace_bound),
    dual_trace = out$dual_trace, bound_seconds = out$bound_seconds,
    bound_evaluations = out$bound_evaluations, dual_steps = out$dual_steps,
    mode = mode, threads = threads, k = k,
    sigma = input$sigma, sigma_rule = input$sigma_rule, source = input$source,
    labels = input$labels, seconds = seconds, evaluations = out$evaluations, pairs = out$pairs,
    rounds = out$rounds, n = problem$n, m = problem$m,
    initial = if (is.null(problem$initial)) integer() else problem$initial + 1L,
    weights = problem$weight, bound_cap = bound_cap(problem),
    facilities = facilities, control = control,
    initial_facilities = if (!is.null(problem$x) && length(problem$initial))
      t(points[, problem$initial + 1L, drop = FALSE]),
    total_weight = if (is.null(problem$weight)) as.double(problem$n) else sum(problem$weight),
    geo = isTRUE(input$geo), spread = input$spread, id_columns = input$id_columns
  ), class = "facility_greedy")
}

#' Facility location objective of a given set
#'
#' Computes \eqn{f(S) = \sum_i w_i \max_{j \in S} s_{ij}} in C for any set
#' of candidates `selected`, with the kernel of [facility_greedy()].
#'
#' @inheritParams facility_greedy
#' @param similarity Optional precomputed similarity, as for
#'   [facility_greedy()]: when given, \eqn{s_{ij}} is read from it instead
#'   of the kernel of `X`.
#' @param sigma Kernel width, as for [facility_greedy()]: `NULL` (the
#'   default) takes the median heuristic of [facility_sigma()] on `X`, the
#'   width of a [facility_greedy()] result with the default, so
#'   `facility_objective(X, fit$selected)` reproduces `fit$objective`.
#' @param selected Indices (1-based) of the candidates in S, no duplicates.
#' @return \eqn{f(S)}, a number.
#' @export
#' @examples
#' X <- matrix(rnorm(200), ncol = 2)
#' fit <- facility_greedy(X, k = 3, mode = "g", sigma = 1)
#' all.equal(facility_objective(X, fit$selected, sigma = 1), fit$objective)
#' fit <- facility_greedy(X, k = 3, mode = "g")   # the median heuristic
#' all.equal(facility_objective(X, fit$selected), fit$objective)
facility_objective <- function(X, selected, sigma = NULL, similarity = NULL,
                               candidates = NULL, weights = NULL,
                               threads = facloc_threads()) {
  has_points <- check_instance(!missing(X) && !is.null(X), similarity)
  threads <- resolve_threads(threads)
  input <- facility_input(if (has_points) X, sigma, similarity, candidates, threads)
  problem <- facility_problem(input$X, input$sigma, threads, input$similarity, candidates,
                              weights)
  selected <- check_indices(selected, problem$m, "selected", allow_empty = TRUE)
  out <- .Call(C_facloc_objective, problem, selected - 1L, threads)
  check_status(out$status, "facility_objective()")
  out$objective
}
