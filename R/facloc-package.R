#' facloc: parallel greedy facility location and optimistic concurrency clustering
#'
#' Greedy maximisation of the facility location objective
#' \eqn{f(S) = \sum_i \max_{j \in S} \exp(-\|x_i - x_j\|^2 / (2\sigma^2))} with
#' six solver generations ([facility_greedy()]), and optimistic concurrency
#' control versions of DP-means, online facility location and BP-means.
#'
#' Threads are set once for the package with [facloc_threads()].
#'
#' @keywords internal
#' @useDynLib facloc, .registration = TRUE, .fixes = "C_"
"_PACKAGE"
