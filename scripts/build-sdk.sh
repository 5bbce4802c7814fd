#!/usr/bin/env bash
# Builds the merchant SDK package in src/sdk/dist: one ESM bundle (bun build)
# and its type declarations (tsc, NodeNext). `make sdk` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
BUN="${BUN:-bun}"
rm -rf src/sdk/dist
"$BUN" build src/sdk/index.ts --outdir src/sdk/dist --target node --format esm >/dev/null
"$BUN" x tsc -p src/sdk/tsconfig.build.json
echo "built src/sdk/dist ($(cd src/sdk && node -p 'require("./package.json").name')@$(cd src/sdk && node -p 'require("./package.json").version'))"
