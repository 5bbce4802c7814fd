# stablegate: every target bootstraps what it needs (a pinned bun from npm
# when none is on PATH, dependencies, Chromium for browser tests, php-cli for
# the shop-plugin tests, Debian's PostgreSQL for the PostgreSQL tests).
SHELL := /bin/bash
BUN = $(shell ./scripts/bootstrap-bun.sh)
ARGS ?=

.PHONY: run test test-fast build bench deps migrate typecheck clean browser php postgres sdk plugins

deps:
	@"$(BUN)" install --frozen-lockfile >/dev/null

# Start the gateway on the embedded default (all chains in sandbox mode, data in ./data).
# BUN_JSC_forceRAMSize: JavaScriptCore's heap sized as on a 256 MiB machine (src/lib/jsc-heap.ts); yours wins.
run: deps
	@BUN_JSC_forceRAMSize="$${BUN_JSC_forceRAMSize:-268435456}" "$(BUN)" src/main.ts serve --demo $(ARGS)

migrate: deps
	@"$(BUN)" src/main.ts migrate $(ARGS)

# Every test, browser tests and the real shop plugins in PHP included.
test: deps browser php postgres
	@BUN="$(BUN)" ./scripts/test.sh $(ARGS)

# The pure tests only (no gateway or CLI process, chain node or browser): under 90 s on a quiet machine.
test-fast: deps
	@BUN="$(BUN)" ./scripts/test-fast.sh $(ARGS)

browser:
	@./scripts/ensure-chromium.sh

php:
	@./scripts/ensure-php.sh

# The PostgreSQL server binaries; scripts/test.sh starts a throwaway cluster from them for the run.
postgres:
	@./scripts/ensure-postgres.sh

# Optional (needs the internet): the shop plugins whose licence keeps them out of the
# repository, pinned and checked, into test-output/plugins; `make test` then runs them too.
plugins:
	@./scripts/fetch-plugins.sh

typecheck: deps
	@"$(BUN)" x tsc --noEmit

# A single executable that runs without bun.
build: deps
	@mkdir -p dist
	@"$(BUN)" build src/main.ts --compile --minify --sourcemap=none --outfile dist/stablegate >/dev/null
	@echo "built dist/stablegate"

# The merchant SDK package (@stablegate/sdk) in src/sdk/dist; install it with
# `npm install /path/to/stablegate/src/sdk` (or `npm pack` it there first).
sdk: deps
	@BUN="$(BUN)" ./scripts/build-sdk.sh

bench: deps postgres
	@"$(BUN)" scripts/bench.ts $(ARGS)

clean:
	rm -rf dist test-output src/sdk/dist
