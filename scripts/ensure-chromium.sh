#!/usr/bin/env bash
# Browser tests drive Debian's Chromium through playwright-core (never a downloaded browser).
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then exit 0; fi
echo "browser: installing Debian's chromium for the browser tests" >&2
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
$SUDO apt-get update -qq >&2 || true
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >&2
