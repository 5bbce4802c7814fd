// The EVM adapter with BSC's profile (src/chains/evm/adapter.ts is the implementation).
import { createEvmAdapter, type EvmAdapter, type EvmAdapterOptions, type EvmTxMeta } from "../evm/adapter";
import { BSC_PROFILE } from "./index";

export { TransferWouldRevertError, TRANSFER_TOPIC, isRangeRefusal, type NativeTransferRequest } from "../evm/adapter";
export type BscAdapter = EvmAdapter;
export type BscAdapterOptions = EvmAdapterOptions;
export type BscTxMeta = EvmTxMeta;

export function createBscAdapter(opts: BscAdapterOptions): BscAdapter {
  return createEvmAdapter(BSC_PROFILE, opts);
}
