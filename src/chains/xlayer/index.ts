// X Layer: USDT0/USDC, an EVM profile (OKX's OP-stack L2, chain id 196, OKB pays gas).
import { evmChainModule, type EvmChainProfile } from "../evm/module";

export const XLAYER_PROFILE: EvmChainProfile = {
  chain: "XLAYER",
  name: "X Layer",
  chainId: 196,
  nativeSymbol: "OKB",
  bip44Account: 7,
  uriScheme: "ethereum",
  label: { network: "X Layer", standard: "ERC20" },
  color: "#000000",
  // One trusted sequencer's unsafe head plus 20 blocks of 1 s; "safe"/"finalized" wait for L1 (docs/networks.md, "Finality per network").
  finality: "confirmations",
  // Type 2 by detection; an OP-stack chain: the L1 data fee from the GasPriceOracle predeploy, as on Base (docs/payouts.md).
  l1Fee: "op-stack",
  defaults: {
    enabled: false,
    confirmations: 20,
    blockTime: "1s",
    tokens: [
      // USDT0 and Circle's native USDC; the older bridged USDT and USDC are not these (docs/networks.md, "Token contracts").
      { chain: "XLAYER", symbol: "USDT", contract: "0x779Ded0c9e1022225f8E0630b35a9b54bE713736", decimals: 6 },
      { chain: "XLAYER", symbol: "USDC", contract: "0xB6CEceAB302E2E4948951eE7843FC24E92933061", decimals: 6 },
    ],
  },
  explorer: { name: "OKX Explorer", tx: "https://www.okx.com/web3/explorer/xlayer/tx/{tx}", address: "https://www.okx.com/web3/explorer/xlayer/address/{address}" },
};

export const xlayerChain = evmChainModule(XLAYER_PROFILE);
