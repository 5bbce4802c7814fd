#!/usr/bin/env bash
# `make test-fast`: the pure tests, those that start no gateway or CLI process, no chain node
# and no browser (docs/testing.md "Fast tests"). Test files are named by cost: `.test.ts` pure,
# `.e2e.test.ts` starts a gateway or a node, `.browser.test.ts` a browser. Every `*.test.ts`
# is taken except those two kinds and the files listed in NOT_PURE below. Extra arguments go to
# `bun test` (a filter: `make test-fast ARGS=-t pickLocale`).
set -uo pipefail
BUN="${BUN:-bun}"
cd "$(dirname "$0")/.."

# `.test.ts` files that still start a process, a node or a browser, until they are renamed
# `.e2e.test.ts` / `.browser.test.ts` (found by grepping for the helpers of src/testing that
# start them: startGatewayProcess and runCli (process.ts), startAnvil (anvil.ts),
# startTronNode (tron-node.ts), startSolanaRpc (solana-rpc.ts), the chain fixtures built on
# them (tron-, sol-, bsc-fixture.ts), launchBrowser (browser.ts), and Bun.spawn of src/main.ts
# or of npm CLIs). A name here that no longer exists is harmless.
NOT_PURE=(
  # gateway or CLI processes (src/main.ts)
  src/backup/backup.test.ts
  src/callbacks/crash.test.ts
  src/callbacks/held.test.ts
  src/callbacks/worker.test.ts
  src/cli/binary.test.ts
  src/cli/cli.test.ts
  src/cli/lists.test.ts
  src/cli/operator.test.ts
  src/cli/users.test.ts
  src/db/group-commit.test.ts
  src/merchants/key-cache.test.ts
  src/ops/alerts/alerts.test.ts
  src/payin/restart.test.ts
  src/restore/restore.test.ts
  # npm CLIs (redocly, openapi-typescript)
  src/http/openapi-tools.test.ts
  # chain nodes: anvil, the TRON test node, LiteSVM behind Solana RPC
  src/chains/bsc/adapter.test.ts
  src/chains/bsc/payout.test.ts
  src/chains/bsc/scan.test.ts
  src/chains/evm/reconcile.test.ts
  src/chains/json-rpc.test.ts
  src/chains/sol/adapter.test.ts
  src/chains/sol/block-scan.test.ts
  src/chains/sol/token-accounts.test.ts
  src/chains/tron/adapter.test.ts
  src/chains/tron/payout.test.ts
  src/chains/tron/scan.test.ts
  src/testing/anvil.test.ts
  src/testing/solana-rpc.test.ts
  src/testing/tron-node.test.ts
)

declare -A skip=()
for f in "${NOT_PURE[@]}"; do skip[$f]=1; done
files=()
while IFS= read -r f; do
  [[ -n "${skip[$f]:-}" ]] || files+=("./$f") # ./: a path, not a name filter
done < <(find src scripts -name '*.test.ts' ! -name '*.e2e.test.ts' ! -name '*.browser.test.ts' -not -path '*/node_modules/*' | sort)

# A pure-named file that calls one of those helpers is reported: rename it or list it above.
helpers='startGatewayProcess|runCli\(|startAnvil|startTronNode|startSolanaRpc|startTronFixture|startSolFixture|startBscFixture|startBscChain|startEvmChain|startTronChain|startSolChain|launchBrowser|crashGateway'
late=$(grep -lE "$helpers" "${files[@]}" 2>/dev/null)
if [[ -n "$late" ]]; then
  echo "test-fast: these start a process, a node or a browser; name them .e2e.test.ts or list them in scripts/test-fast.sh:" >&2
  echo "$late" | sed 's/^/  /' >&2
fi

echo "test-fast: ${#files[@]} files" >&2
start=$(date +%s)
"$BUN" test --timeout 60000 "${files[@]}" "$@"
status=$?
echo "test-fast: $(( $(date +%s) - start )) s" >&2
exit "$status"
