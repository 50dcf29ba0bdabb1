# Two commands for a fresh machine (see README.md):
#   make demo   install what is missing, install facloc, run the main job
#   make check  install what is missing, R CMD build + R CMD check --as-cran
#   make sanitize / make valgrind   ASan+UBSan / memcheck runs of the C core's
#                   fuzz harness and the tests (TESTS=REGEX picks test files)
.PHONY: deps demo check document sanitize valgrind

deps:
	bash tools/install-deps.sh

demo: deps
	rm -rf check/demo && mkdir -p check/demo
	cd check/demo && R CMD build --no-build-vignettes --no-manual ../.. >/dev/null
	R CMD INSTALL check/demo/facloc_*.tar.gz
	Rscript tools/demo.R

check: deps
	bash tools/check.sh

document:
	bash tools/dev-document.sh

sanitize: deps
	bash tools/sanitize.sh '$(TESTS)'

valgrind: deps
	bash tools/valgrind.sh '$(TESTS)'
