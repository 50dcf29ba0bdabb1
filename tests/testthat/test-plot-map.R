# plot() of facility_greedy fits: the objective panel on the scale of f(S)
# with its bounds capped, and the map of the selection, for points in 2-D,
# in more dimensions, on the globe, with weights and stopped by a coverage.

two_clusters <- function(n = 200, d = 2) {
  set.seed(3)
  rbind(matrix(rnorm(n / 2 * d, 0, 0.4), ncol = d), matrix(rnorm(n / 2 * d, 4, 0.4), ncol = d))
}

with_null_device <- function(code) {
  pdf(NULL)
  on.exit(dev.off())
  code
}

test_that("the map of 2-D points draws the columns, coloured by facility", {
  X <- two_clusters()
  colnames(X) <- c("east", "north")
  fit <- facility_greedy(X, k = 3, threads = 1)
  drawn <- with_null_device(plot(fit, X))
  expect_identical(drawn$projection, "columns")
  expect_identical(c(drawn$xlab, drawn$ylab), c("east", "north"))
  expect_equal(cbind(drawn$x, drawn$y), X, ignore_attr = TRUE)
  expect_identical(drawn$facility, predict(fit, X)$facility)
  # one colour per facility: the clients take their facility's
  expect_identical(drawn$col, drawn$facilities$col[drawn$facility])
  expect_length(unique(drawn$facilities$col), 3L)
  expect_equal(as.matrix(drawn$facilities[c("x", "y")]), X[fit$selected, ], ignore_attr = TRUE)
  expect_identical(drawn$facilities$order, 1:3)
  expect_identical(drawn$facilities$label, c("1", "2", "3"))
  # the default type with points is the map; without them the objective
  expect_identical(with_null_device(plot(fit, X, type = "map")), drawn)
  expect_named(with_null_device(plot(fit)), c("size", "objective", "bound", "cap", "ylim", "title", "legend"))
})

test_that("the map of 3-D points draws their first two principal components", {
  X <- two_clusters(d = 3)
  fit <- facility_greedy(X, k = 2, threads = 1)
  drawn <- with_null_device(plot(fit, X))
  expect_identical(drawn$projection, "principal components")
  pca <- prcomp(X)
  expect_equal(abs(drawn$x), abs(pca$x[, 1]), ignore_attr = TRUE)
  # a facility is drawn where its own row is
  expect_equal(drawn$facilities$x, drawn$x[fit$selected])
  expect_equal(drawn$facilities$y, drawn$y[fit$selected])
  # the clusters lie apart along the first component
  expect_gt(abs(diff(drawn$facilities$x)), 5)
  expect_identical(drawn$col, drawn$facilities$col[drawn$facility])
})

test_that("the map of geographic points draws longitude and latitude", {
  g <- geo_points(quakes$lat, quakes$long)
  fit <- facility_greedy(g, k = 4, threads = 1)
  drawn <- with_null_device(plot(fit, g))
  expect_identical(drawn$projection, "longitude and latitude")
  expect_identical(c(drawn$xlab, drawn$ylab), c("longitude", "latitude"))
  # quakes' longitudes run 165 to 188: past 180 they are not wrapped to -180
  expect_equal(drawn$x, quakes$long, tolerance = 1e-9)
  expect_equal(drawn$y, quakes$lat, tolerance = 1e-9)
  expect_equal(drawn$facilities$x, quakes$long[fit$selected], tolerance = 1e-9)
  expect_identical(drawn$col, drawn$facilities$col[drawn$facility])
})

test_that("the objective panel draws every bound no higher than the cap", {
  X <- two_clusters()
  w <- rep(c(1, 3), each = 100)
  fit <- facility_greedy(X, k = 5, weights = w, threads = 1)
  drawn <- with_null_device(plot(fit))
  expect_identical(drawn$cap, sum(w))
  expect_true(all(drawn$bound <= drawn$cap))
  expect_gt(fit$trace$bound[1], sum(w))   # the trace's first bound is looser
  # the last level is the printed bound, named in the legend
  expect_identical(drawn$bound[6], fit$bound)
  expect_identical(drawn$legend[2], sprintf("bound = %.6g", fit$bound))
  expect_output(print(fit), sprintf("bound = %.6g", fit$bound), fixed = TRUE)
  expect_identical(drawn$objective[1], 0)
  expect_equal(drawn$objective[6], fit$objective)
  # on the scale of f(S)
  expect_lt(drawn$ylim[2], 1.1 * max(fit$objective, fit$bound))
  # the weighted map colours the clients of the weighted fit
  map <- with_null_device(plot(fit, X))
  expect_identical(map$facility, predict(fit, X)$facility)
})

test_that("a coverage result plots against the size it reached", {
  X <- two_clusters()
  fit <- facility_greedy(X, coverage = 0.6, threads = 1)
  size <- length(fit$selected)
  expect_lt(size, 200L)
  drawn <- with_null_device(plot(fit))
  expect_identical(drawn$size, 0:size)
  expect_true(all(drawn$bound <= fit$objective_all))
  expect_identical(drawn$title, sprintf("Objective, bound on sets of %d", size))
  expect_output(print(summary(fit)), sprintf("selected: %d to reach coverage 0.6", size))
  expect_false(any(grepl("k: 200", capture.output(print(summary(fit))), fixed = TRUE)))
})

test_that("the map refuses what it cannot draw", {
  X <- two_clusters()
  fit <- facility_greedy(X, k = 2, threads = 1)
  expect_user_call(expect_arg_error(plot(fit, type = "map"), "y"), "plot.facility_greedy")
  expect_arg_error(plot(fit, X[1:10, ]), "y")
  expect_arg_error(plot(fit, X, type = "pie"), "type")
  sim <- facility_greedy(similarity = exp(-as.matrix(dist(X))), k = 2, threads = 1)
  expect_arg_error(with_null_device(plot(sim, X)), "x", "similarity")
  placed <- facility_greedy(X, similarity = exp(-as.matrix(dist(X))), k = 2, threads = 1)
  expect_arg_error(with_null_device(plot(placed, X)), "x", "similarity")
  expect_arg_error(with_null_device(plot(facility_greedy(dist(X), k = 2, threads = 1), X)),
                   "x", "dist")
})

test_that("geo_points() gives chords that order pairs as great circles do", {
  paris_london <- geo_points(c(48.8566, 51.5074), c(2.3522, -0.1278))
  expect_lt(abs(dist(paris_london)[1] - 343.5), 2)
  expect_identical(attr(paris_london, "latitude"), c(48.8566, 51.5074))
  set.seed(11)
  n <- 400
  lat <- runif(n, -90, 90)
  long <- runif(n, -180, 180)
  g <- geo_points(lat, long)
  expect_equal(sqrt(rowSums(g^2)), rep(6371.0088, n))
  chord <- sqrt(rowSums((g[1:200, ] - g[201:400, ])^2))
  # haversine great-circle distance
  rad <- pi / 180
  h <- sin((lat[201:400] - lat[1:200]) * rad / 2)^2 +
    cos(lat[1:200] * rad) * cos(lat[201:400] * rad) * sin((long[201:400] - long[1:200]) * rad / 2)^2
  great <- 2 * 6371.0088 * asin(sqrt(h))
  expect_identical(order(chord), order(great))
  expect_equal(chord, 2 * 6371.0088 * sin(great / (2 * 6371.0088)))
  # degrees back from the coordinates
  expect_equal(facloc:::geo_degrees(g), cbind(latitude = lat, longitude = long))
  expect_arg_error(geo_points(91, 0), "lat")
  expect_arg_error(geo_points(c(1, 2), 0), "long")
})

test_that("as.data.frame() of a fit on geo_points() gives the picks' latitude and longitude", {
  g <- geo_points(quakes$lat, quakes$long)
  fit <- facility_greedy(g, k = 3, threads = 1)
  picks <- as.data.frame(fit)
  expect_equal(picks$latitude, quakes$lat[fit$selected])
  expect_equal(picks$longitude %% 360, quakes$long[fit$selected])
  expect_identical(rownames(picks), as.character(1:3))
})

test_that("print() hints at scale() when the columns' variances differ 100-fold", {
  fit <- facility_greedy(quakes[c("lat", "long", "depth")], k = 3, threads = 1)
  expect_gt(fit$spread, 100)
  expect_output(print(fit), "scale(X)", fixed = TRUE)
  expect_output(print(facility_greedy(USArrests, k = 3, threads = 1)), "scale(X)", fixed = TRUE)
  expect_false(any(grepl("scale(", capture.output(print(facility_greedy(iris[1:4], k = 3, threads = 1))),
                         fixed = TRUE)))
  scaled <- facility_greedy(scale(quakes[c("lat", "long", "depth")]), k = 3, threads = 1)
  expect_false(any(grepl("scale(", capture.output(print(scaled)), fixed = TRUE)))
})

test_that("size 0 has f(S) = 0 and unnamed rows give no name column", {
  X <- two_clusters()
  fit <- facility_greedy(X, k = 4, threads = 1, mode = "g")
  expect_identical(fit$trace$objective[1], 0)
  framed <- as.data.frame(X)
  rownames(framed) <- as.character(seq_len(nrow(X)))
  expect_null(as.data.frame(facility_greedy(framed, k = 2, threads = 1))$name)
  expect_null(as.data.frame(facility_greedy(dist(framed), k = 2, threads = 1))$name)
  expect_null(as.data.frame(facility_greedy(similarity = exp(-as.matrix(dist(framed))), k = 2,
                                            threads = 1))$name)
  # row numbers of a reordered data frame name the original rows: kept
  shuffled <- framed[rev(seq_len(nrow(framed))), ]
  fit <- facility_greedy(shuffled, k = 2, threads = 1)
  expect_identical(as.data.frame(fit)$name, rownames(shuffled)[fit$selected])
  named <- X
  rownames(named) <- paste0("site", seq_len(nrow(X)))
  expect_identical(as.data.frame(facility_greedy(named, k = 2, threads = 1))$name,
                   paste0("site", facility_greedy(named, k = 2, threads = 1)$selected))
})

test_that("print() hints at a column that counts the rows", {
  with_id <- cbind(id = seq_len(150), iris[1:4])
  fit <- facility_greedy(with_id, k = 3, threads = 1)
  expect_identical(fit$id_columns, "id")
  expect_output(print(fit), "column 'id' counts the rows", fixed = TRUE)
  expect_length(facility_greedy(iris[1:4], k = 3, threads = 1)$id_columns, 0L)
  # a row-number column among unnamed columns is named by its number
  expect_identical(facility_greedy(cbind(matrix(rnorm(40), 20), 1:20), k = 2,
                                   threads = 1)$id_columns, "3")
})

test_that("the map labels the first 30 picks of many", {
  X <- two_clusters(400)
  fit <- facility_greedy(X, k = 40, threads = 1)
  drawn <- with_null_device(plot(fit, X))
  expect_identical(drawn$facilities$label, c(as.character(1:30), rep(NA, 10)))
  expect_length(unique(drawn$facilities$col), 40L)
})
