#!/usr/bin/env bash
# Builds the merchant SDK package in src/sdk/dist for both module systems:
#   dist/index.js (+ .d.ts)          ESM, for `import` (the package is "type": "module")
#   dist/cjs/index.js (+ .d.ts)      CommonJS, for `require`; dist/cjs/package.json
#                                    says "commonjs", so Node and TypeScript (NodeNext)
#                                    read both the code and its declarations as CJS.
# `make sdk` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
BUN="${BUN:-bun}"
rm -rf src/sdk/dist
"$BUN" build src/sdk/index.ts --outdir src/sdk/dist --target node --format esm >/dev/null
"$BUN" x tsc -p src/sdk/tsconfig.build.json
mkdir -p src/sdk/dist/cjs
"$BUN" build src/sdk/index.ts --outfile src/sdk/dist/cjs/index.js --target node --format cjs >/dev/null
cp src/sdk/dist/*.d.ts src/sdk/dist/cjs/
echo '{ "type": "commonjs" }' > src/sdk/dist/cjs/package.json
echo "built src/sdk/dist ($(cd src/sdk && node -p 'require("./package.json").name')@$(cd src/sdk && node -p 'require("./package.json").version'))"
