#!/usr/bin/env bash
# Browser tests drive Debian's Chromium through playwright-core (never a downloaded browser).
# A small CJK font comes along so screenshots of the Chinese pages show real glyphs.
set -euo pipefail
need=()
if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then need+=(chromium fonts-wqy-microhei)
elif command -v fc-list >/dev/null 2>&1 && [ -z "$(fc-list :lang=zh 2>/dev/null | head -1)" ]; then need+=(fonts-wqy-microhei); fi
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
echo "browser: installing ${need[*]} for the browser tests" >&2
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
$SUDO apt-get update -qq >&2 || true
if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >&2; then
  # The font is a nicety; only a missing browser is fatal.
  [ -x /usr/bin/chromium ] || exit 1
fi
