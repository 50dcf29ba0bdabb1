#' DP-means clustering, serial or with optimistic concurrency control
#'
#' Minimises the DP-means objective (Kulis and Jordan, 2012)
#' \deqn{\sum_i \|x_i - \mu_{z_i}\|^2 + \lambda^2 K}
#' over the number of clusters \eqn{K}, the assignments \eqn{z} and the
#' means \eqn{\mu}. Here \eqn{\lambda} is a distance: a point whose distance
#' to every center is greater than `lambda` opens a new cluster at itself,
#' and each cluster costs \eqn{\lambda^2}.
#'
#' The serial algorithm passes over the points, each joining its nearest
#' center or opening a cluster, then recomputes the means (dropping empty
#' clusters) and repeats until no assignment changes; the objective never
#' increases. The OCC algorithm (Pan et al., 2013) runs \eqn{P} workers
#' (`threads` workers, as many as asked even where fewer cores run them, so
#' the answer does not depend on the machine, but at most one per row; or
#' the workers of `cl`). Each
#' epoch takes the next \eqn{P} `batch` rows, worker \eqn{p} the `batch` of
#' them from \eqn{(p - 1)} `batch`, and each worker assigns its points
#' against the centers known at the epoch's start, proposing those farther
#' than `lambda` from all of them. The main thread then validates the epoch
#' in row order: a proposal is accepted only if it is still farther than
#' `lambda` from every center, including those accepted earlier in the
#' epoch, and otherwise joins the nearest; once a center has been accepted,
#' the later points that did not propose also move to it if it is nearer.
#' Means are updated in parallel after each pass. The result equals the
#' serial algorithm (`method = "serial"`) on the same rows, whatever the
#' number of workers and `batch` (see [serial_order()]); only the sums of
#' the means are grouped per worker, so the objective may differ from the
#' serial one in the last bits. It never depends on the number of threads
#' doing the arithmetic.
#'
#' @section Running on a cluster:
#' With `cl`, each worker of a `parallel` cluster gets the rows it proposes
#' for (its `batch` rows of every epoch), sent once; they stay on the workers for the whole run. Each
#' epoch sends the new centers to the workers and brings back the proposals;
#' validation runs in the calling session, and each worker uses `threads`
#' threads. The same code runs on several hosts by changing only the cluster:
#' \preformatted{
#' cl <- parallel::makePSOCKcluster(c("node1", "node2"))   # over ssh
#' # or an MPI cluster: cl <- snow::makeMPIcluster(4)
#' fit <- dpmeans(X, lambda = 5, cl = cl, threads = 8)
#' parallel::stopCluster(cl)
#' }
#' A distributed run gives the same result as the threaded OCC run with as
#' many threads as the cluster has workers (same `batch` and `seed`). The
#' `epochs` table then also records the bytes sent and received per epoch.
#' A number instead of a cluster starts that many local workers and always
#' stops them.
#'
#' @param X Numeric matrix or all-numeric data frame, one point per row.
#' @param lambda Distance beyond which a point opens a new cluster (each
#'   cluster costs `lambda^2`); a positive number whose square is finite
#'   (at most about `1.34e154`).
#' @param threads Number of threads, by default [facloc_threads()]. With
#'   `method = "occ"` and no `cl`, also the number of OCC workers \eqn{P},
#'   capped at the number of rows (more workers would hold no rows; the
#'   result is that of one worker per row). With `cl`, the threads of each
#'   worker; a cluster may not have more workers than `X` has rows.
#' @param method `"occ"` (default) or `"serial"`.
#' @param batch Points each worker takes per epoch; `NULL` chooses about 64
#'   epochs per pass, `ceiling(n / (64 P))`.
#' @param max_iter Maximum number of passes.
#' @param seed `NULL` to visit the rows in their order, or a whole number:
#'   the rows are then visited in a random order drawn with this seed (the
#'   result still refers to the rows of `X`). The session's random numbers
#'   are left as they were.
#' @param order Serial method only: the visiting order, a permutation of
#'   the rows or a matrix of them with one column per pass (the last column
#'   is reused), such as [serial_order()] of an OCC result.
#' @param cl A cluster from the `parallel` package, or a number of local
#'   workers to start (and stop) for this call; `NULL` (default) runs on
#'   threads.
#' @return An object of class `c("dpmeans", "occ_fit")`, a list with
#'   \item{cluster}{Cluster of each row (integers from 1), as [kmeans()]
#'     names it.}
#'   \item{centers}{K x d matrix of cluster means.}
#'   \item{size}{Points per cluster.}
#'   \item{objective, objectives}{Final objective and its value after each
#'     pass.}
#'   \item{iterations, converged}{Passes made, and whether the last one
#'     changed nothing.}
#'   \item{epochs}{Data frame with one row per epoch: `iteration`, `epoch`,
#'     `proposed`, `accepted`, `rejected`, `seconds` (serial: one row per
#'     pass), plus `bytes_sent` and `bytes_received` with `cl`. Epochs
#'     after which nothing was accepted may have been proposed together in
#'     one parallel region (the result is the same); they share its time
#'     evenly.}
#'   \item{proposals}{Data frame (`iteration`, `point`) of every proposal in
#'     validation order.}
#'   \item{method, lambda, threads, workers, batch, n, d, max_iter, seed,
#'     seconds}{The settings and elapsed time.}
#'   \item{permutation}{With a `seed` (DP-means, BP-means), the visiting
#'     order it drew: row `permutation[j]` of `X` is visited j-th; `NULL`
#'     without one.}
#'   \item{order}{With `method = "serial"` and `order`, that order as an
#'     integer matrix of 0-based rows, one column per pass; `NULL`
#'     otherwise. [serial_order()] gives the order of any fit as rows of
#'     `X`.}
#'   \item{setup_bytes, collect_bytes}{With `cl` only: the bytes sent to
#'     the workers with their rows at the start, and received from them
#'     with the final assignments at the end.}
#' @references Kulis, B. and Jordan, M. I. (2012). Revisiting k-means: new
#'   algorithms via Bayesian nonparametrics. ICML.
#'
#'   Pan, X., Gonzalez, J. E., Jegelka, S., Broderick, T. and Jordan, M. I.
#'   (2013). Optimistic concurrency control for distributed unsupervised
#'   learning. NeurIPS. arXiv:1307.8049.
#' @seealso [ofl()], [bpmeans()], [serial_order()], [dp_data()]
#' @export
#' @examples
#' sim <- dp_data(1000, seed = 1)
#' fit <- dpmeans(sim$X, lambda = 5, threads = 2)
#' fit
#' adjusted_rand_index(fit$cluster, sim$cluster)
#' plot(fit)
#' predict(fit, sim$X[1:5, ])
dpmeans <- function(X, lambda, threads = facloc_threads(),
                    method = c("occ", "serial"), batch = NULL, max_iter = 100,
                    seed = NULL, order = NULL, cl = NULL) {
  s <- occ_settings("dpmeans", X, lambda, threads, method, batch, max_iter,
                    seed, order, cl)
  occ_fit(s, cl)
}
