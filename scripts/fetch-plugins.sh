#!/usr/bin/env bash
# Shop-plugin code whose licence does not let it into this repository (docs/plugins.md), fetched
# at pinned commits and checked by SHA-256 into test-output/plugins/. With these present,
# src/compat/php-plugins.e2e.test.ts also runs them; without (the default, `make test` never needs
# the internet) those cases are skipped and the same calls are tested by their wire format.
set -euo pipefail
dest="${1:-test-output/plugins}"
# name | repository | commit | path | sha256
pins=(
  "caihong-sdk-api|jasonpan168/ajie-shop|76aca198e6a6db45b5a64adec6278811d7c8e388|lib/EpayCore.class.php|e66339f8f9f8ebcf550451c60d00c623a1113077f652000f6d6fa1a12d35bfc5"
  "caihong-sdk-query|Skywalker2333/guojam-cashier|f4790f6116251ab6e216493c84eeaf97d8e5d8aa|lib/EpayCore.class.php|bc290349823e1f00bcd62ee023aec14250e7ea20f025c378d5dc1e5d733de0bb"
  "donghan-epusdt|DongHan-2002/EpusdtForV2Board|6236f07363bbeb5b10c9e7d108aa0596d6f864f1|Epusdt.php|f4f4b03b318a5bb0d2d793720fad4a78525455dee2f9f0c4e5ada67174255615"
)
for pin in "${pins[@]}"; do
  IFS='|' read -r name repo commit path sum <<<"$pin"
  out="$dest/$name/$(basename "$path")"
  mkdir -p "$(dirname "$out")"
  curl -fsSL "https://raw.githubusercontent.com/$repo/$commit/$path" -o "$out.tmp"
  if [ "$(sha256sum "$out.tmp" | cut -c1-64)" != "$sum" ]; then
    rm -f "$out.tmp"
    echo "fetch-plugins: $repo@$commit:$path does not match its pinned SHA-256" >&2
    exit 1
  fi
  mv "$out.tmp" "$out"
  echo "fetch-plugins: $name ← $repo@${commit:0:12}:$path"
done
