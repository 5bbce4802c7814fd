-- A paced sandbox chain's head follows the clock (chains/sandbox/chain.ts headOf): head = height +
-- floor((now - paced_at) / block_time). Empty blocks no longer cost a write every block_time (issue 37:
-- the idle background); a write that mines a block (a transfer, a broadcast, /sandbox/blocks, a reorg)
-- stores the head it reached and re-anchors paced_at. NULL: not anchored yet (set when the chain starts).
ALTER TABLE sandbox_chains ADD COLUMN paced_at INTEGER;
