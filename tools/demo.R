# The main job on a built-in synthetic data set: 100 representatives out of
# the 12,000-point "medium" preset with the default solver and the
# specification's sigma = 20.
library(facloc)
X <- facility_data("medium")
cat(sprintf("facloc demo: %d points in %d dimensions, %d threads\n",
            nrow(X), ncol(X), facloc_threads()))
fit <- facility_greedy(X, k = 100, sigma = 20)
print(summary(fit))
