#!/usr/bin/env bash
# The shop-plugin tests (src/compat/php-plugins.e2e.test.ts) run real plugins' PHP with Debian's
# php-cli (and its curl module, which the plugins call), installed here when missing.
set -euo pipefail
need=()
if ! command -v php >/dev/null 2>&1 && [ ! -x /usr/bin/php ]; then need+=(php-cli php-curl)
elif ! php -m 2>/dev/null | grep -x curl >/dev/null; then need+=(php-curl); fi
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
echo "php: installing ${need[*]} for the shop-plugin tests" >&2
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
$SUDO apt-get update -qq >&2 || true
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >&2
