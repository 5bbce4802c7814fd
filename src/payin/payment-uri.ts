// Wallet-launch URIs per chain (DESIGN 5): each chain module builds its own.
import type { ChainCode, TokenInfo } from "../chains/types";
import { chainModule } from "../chains/registry";

export { solanaReference } from "../chains/sol";

export function paymentUri(chain: ChainCode, token: TokenInfo, address: string, amount: bigint | null, orderNo?: string): string {
  return chainModule(chain).paymentUri(token, address, amount, orderNo);
}
