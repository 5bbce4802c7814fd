#!/usr/bin/env bash
# While stablegate is unreleased there is one migration, 0000_init, regenerated
# from src/db/schema.ts (drizzle-kit) and embedded into migrations/index.ts.
# From the first release on, add migrations instead of regenerating.
set -euo pipefail
cd "$(dirname "$0")/.."
BUN="$(./scripts/bootstrap-bun.sh)"
rm -rf migrations/0000_init.sql migrations/meta
"$BUN" x drizzle-kit generate --name init >/dev/null
"$BUN" scripts/embed-migrations.ts
