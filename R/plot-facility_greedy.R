# plot() of a facility_greedy result: the objective and the bound against
# |S|, or the map of the selection (clients coloured by their facility).

#' Plot a facility location result
#'
#' `type = "objective"` (the default without points) draws two panels:
#' \eqn{f(S_t)} against \eqn{t = |S_t|}, from the open `initial`
#' facilities at \eqn{t = 0}, with the bound known after each pick (see
#' [facility_bound()]) as a dashed line where the mode gives one, and the
#' marginal gain of each pick. The y-axis is on the scale of \eqn{f(S)}
#' and every bound drawn is capped by what no set can exceed (\eqn{f(V)},
#' or the clients' total weight), so early, loose bounds leave the top of
#' the panel; the bound's last level is the one `print()` gives, named in
#' the legend. A result stopped by a `coverage` is drawn up to the size it
#' reached.
#'
#' `type = "map"` (the default when the points `y` are given) draws the
#' clients, each coloured by the facility that serves it
#' ([predict.facility_greedy()]), and the facilities as filled diamonds
#' labelled by their pick order (the first 30 picks, where there are more). Points of two columns are drawn as they
#' are, one column against the row number, points of [geo_points()] by
#' longitude and latitude, and others on their first two principal
#' components (stated in the subtitle). Many points are drawn small and
#' transparent, so 1e5 clients still show where they lie. The map needs a
#' fit on points: one computed from a `similarity` or a `dist` has no
#' kernel to assign the clients by.
#'
#' @param x A `facility_greedy` result.
#' @param y The clients the result was computed for (its `X`), needed by
#'   `type = "map"`.
#' @param type `"objective"` or `"map"`; by default `"map"` when `y` is
#'   given.
#' @param ... Further graphical parameters passed to [graphics::plot()];
#'   they override the method's own (`main`, `ylim`, ...).
#' @return Invisibly, what was drawn. For `"objective"`: a list with `size`,
#'   `objective` and `bound` (capped at `cap`, `NA` where there is none),
#'   `cap`, `ylim`, the panel's `title` and the `legend` text. For `"map"`: a list with the
#'   clients' coordinates `x`, `y`, their `facility` (pick order) and
#'   colour `col`, the `facilities` (a data frame of `x`, `y`, `order`,
#'   `col` and the `label` drawn, `NA` for none), the axis labels `xlab`, `ylab` and `projection`
#'   (`"columns"`, `"row"`, `"longitude and latitude"` or
#'   `"principal components"`).
#' @export
#' @examples
#' fit <- facility_greedy(faithful, k = 4, threads = 1)
#' plot(fit)
#' drawn <- plot(fit, faithful)   # the map: clients coloured by facility
#' table(drawn$facility)
plot.facility_greedy <- function(x, y = NULL, type = if (is.null(y)) "objective" else "map",
                                 ...) {
  type <- check_choice(type, c("objective", "map"), "type")
  if (type == "map") plot_map(x, y, ...) else plot_objective(x, ...)
}

plot_objective <- function(x, ...) {
  s <- as.data.frame(x)
  # starting the curve at |S| = 0 gives a fit without picks (a budget below
  # every cost) something to draw and both panels a finite range
  size <- c(0L, s$order)
  objective <- c(start_objective(x), s$objective)
  cap <- objective_cap(x)
  bound <- drawn_bound(x, length(size), cap)
  # the scale of f(S): loose early bounds leave the panel at its top
  ylim <- c(0, max(objective, utils::tail(bound, 1L), na.rm = TRUE) * 1.08)
  title <- sprintf("Objective, bound on sets of %d", bound_size(x))
  legend <- c("f(S)", if (any(!is.na(bound))) sprintf("bound = %.6g", utils::tail(bound, 1L)))
  xlim <- c(0, max(1L, nrow(s)))
  many <- nrow(s) > 60L   # 200 spikes, or points, fill a panel black
  old <- graphics::par(mfrow = c(1, 2))
  on.exit(graphics::par(old))
  plot_with_defaults(list(x = size, y = objective, type = if (many) "l" else "b",
                          pch = 20, xlim = xlim,
                          ylim = ylim, xlab = "|S|", ylab = "f(S)",
                          main = title), ...)
  if (length(legend) > 1L) graphics::lines(size, bound, type = "s", lty = 2)
  graphics::legend("bottomright", legend = legend, lty = c(1, 2)[seq_along(legend)],
                   pch = c(if (many) NA else 20, NA)[seq_along(legend)], bty = "n", cex = 0.8)
  plot_with_defaults(list(x = s$order, y = s$gain, type = if (many) "l" else "h", xlim = xlim,
                          ylim = range(0, s$gain), xlab = "|S|",
                          ylab = "marginal gain", main = "Gain of each pick"), ...)
  invisible(list(size = size, objective = objective, bound = bound, cap = cap,
                 ylim = ylim, title = title, legend = legend))
}

# f(S_0): the open `initial` facilities' coverage, exactly 0 without them
# (x$objective - sum(gains) leaves a rounding error of the sums).
start_objective <- function(x) {
  if (length(x$initial)) x$objective - sum(x$gains) else 0
}

# What no set exceeds: f(V) where known, else the clients' total weight
# (every similarity of the kernel is at most 1); Inf when neither is known.
objective_cap <- function(x) {
  if (isTRUE(is.finite(x$objective_all))) return(x$objective_all)
  if (identical(x$source, "points") && !is.null(x$total_weight)) x$total_weight else Inf
}

# The bound after each of `steps` sizes, no higher than `cap`, its last level
# the printed x$bound; NA throughout where the mode gives none.
drawn_bound <- function(x, steps, cap) {
  bound <- if (length(x$trace$bound) == steps) x$trace$bound else rep(x$bound, steps)
  bound[steps] <- x$bound
  bound[!is.finite(bound)] <- NA
  pmin(bound, cap)
}

# The picks the map labels by their order.
max_labels <- 30L

plot_map <- function(x, y, ...) {
  if (is.null(y))
    abort_argument("y", "must be given for `type = \"map\"`: the clients `X` of the fit")
  if (!identical(x$source, "points"))
    abort_argument("x", sprintf("was computed from a %s: the map needs a fit on points, whose kernel assigns the clients",
                                if (identical(x$source, "dist")) "`dist`" else "`similarity`"))
  clients <- check_points(y, "y")
  if (nrow(clients) != x$n)
    abort_argument("y", sprintf("must hold the %d clients of the fit, not %d rows", x$n, nrow(clients)))
  served <- stats::predict(x, clients, threads = x$threads)$facility
  at <- map_coordinates(clients, x, is_geo(y) || isTRUE(x$geo))
  colours <- grDevices::hcl.colors(max(1L, length(x$selected)), "Dark 3")
  # unserved: clients of the `initial` facilities, in grey
  col <- ifelse(is.na(served), "grey50", colours[served])
  n <- nrow(clients)
  alpha <- min(1, max(0.15, 400 / n))   # transparency shows density at 1e5 points
  plot_with_defaults(list(x = at$clients[, 1], y = at$clients[, 2], pch = 16,
                          cex = if (n > 5000) 0.3 else if (n > 500) 0.6 else 1,
                          col = grDevices::adjustcolor(col, alpha),
                          xlab = at$xlab, ylab = at$ylab, asp = at$asp,
                          main = sprintf("%d facilit%s for %d clients", length(x$selected),
                                         if (length(x$selected) == 1L) "y" else "ies", n),
                          sub = at$note), ...)
  k <- length(x$selected)
  # more than 30 labels overlap; the first picks matter most
  facilities <- data.frame(x = at$facilities[, 1], y = at$facilities[, 2], order = seq_len(k),
                           col = colours[seq_len(k)],
                           label = ifelse(seq_len(k) <= max_labels, as.character(seq_len(k)), NA))
  graphics::points(facilities$x, facilities$y, pch = 23, cex = if (k > max_labels) 1 else 1.4,
                   bg = facilities$col)
  labelled <- !is.na(facilities$label)
  graphics::text(facilities$x[labelled], facilities$y[labelled], facilities$label[labelled],
                 pos = 3, cex = 0.75, font = 2)
  invisible(list(x = at$clients[, 1], y = at$clients[, 2], facility = served, col = col,
                 facilities = facilities, xlab = at$xlab, ylab = at$ylab,
                 projection = at$projection))
}

# Where clients and facilities are drawn: the two columns, a column against
# the row number, longitude and latitude on the sphere, or the first two
# principal components of the clients (the facilities projected alike).
map_coordinates <- function(clients, x, geo) {
  facilities <- x$facilities
  names <- colnames(clients)
  if (is.null(names)) names <- paste0("X[, ", seq_len(ncol(clients)), "]")
  if (geo && ncol(clients) == 3L) {
    at <- geo_degrees(clients)
    # points across the 180th meridian (quakes off Fiji) stay together on
    # longitudes 0 to 360
    wrap <- diff(range(at[, "longitude"] %% 360)) < diff(range(at[, "longitude"]))
    xy <- function(P) {
      P <- geo_degrees(P)
      cbind(if (wrap) P[, "longitude"] %% 360 else P[, "longitude"], P[, "latitude"])
    }
    return(list(clients = xy(clients), facilities = xy(facilities), xlab = "longitude",
                ylab = "latitude", asp = 1 / cos(mean(range(at[, "latitude"])) * pi / 180),
                projection = "longitude and latitude", note = NULL))
  }
  if (ncol(clients) == 1L)
    return(list(clients = cbind(clients[, 1], seq_len(nrow(clients))),
                facilities = cbind(facilities[, 1], x$selected), xlab = names, ylab = "row",
                asp = NA, projection = "row", note = NULL))
  if (ncol(clients) == 2L)
    return(list(clients = clients, facilities = facilities, xlab = names[1], ylab = names[2],
                asp = NA, projection = "columns", note = NULL))
  pca <- stats::prcomp(clients)
  share <- pca$sdev[1:2]^2 / sum(pca$sdev^2)
  project <- function(P) scale(P, pca$center, FALSE) %*% pca$rotation[, 1:2]
  list(clients = pca$x[, 1:2], facilities = project(facilities), xlab = "PC1", ylab = "PC2",
       asp = NA, projection = "principal components",
       note = sprintf("first two principal components of the %d columns (%.0f%% and %.0f%% of the variance)",
                      ncol(clients), 100 * share[1], 100 * share[2]))
}
