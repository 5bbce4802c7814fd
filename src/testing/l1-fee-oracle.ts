// A stand-in for the OP-stack GasPriceOracle predeploy (0x420000000000000000000000000000000000000F),
// placed on anvil with anvil_setCode: getL1Fee(bytes) answers a fixed, known fee; any other call
// reverts, so a wrong selector shows. Hand-assembled (no compiler needed):
//   PUSH1 0 CALLDATALOAD PUSH1 0xe0 SHR PUSH4 0x49948e0e EQ PUSH1 0x13 JUMPI   selector check
//   PUSH1 0 DUP1 REVERT                                                        anything else
//   JUMPDEST PUSH32 <fee> PUSH1 0 MSTORE PUSH1 0x20 PUSH1 0 RETURN              return fee (uint256)
import { GAS_PRICE_ORACLE } from "../chains/evm/adapter";
import type { AnvilNode } from "./anvil";

/** The L1 data fee (wei) the stand-in answers on an anvil started as an OP-stack chain (startAnvil, BASE). */
export const TEST_L1_FEE = 20_000_000_000_000n;

export function l1FeeOracleBytecode(fee: bigint): `0x${string}` {
  const word = fee.toString(16).padStart(64, "0");
  return `0x600035${"60e0"}1c6349948e0e14601357600080fd5b7f${word}60005260206000f3`;
}

/** Puts the oracle answering `fee` wei at the predeploy's address. */
export async function placeL1FeeOracle(node: AnvilNode, fee: bigint): Promise<void> {
  await node.rpc("anvil_setCode", [GAS_PRICE_ORACLE, l1FeeOracleBytecode(fee)]);
}
