// Builds one ChainAdapter per enabled chain from config.
import type { AppContext } from "../app/context";
import type { ChainAdapter, ChainCode } from "./types";

export function makeChains(_ctx: Omit<AppContext, "chains">): Map<ChainCode, ChainAdapter> {
  return new Map();
}
