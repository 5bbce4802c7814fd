-- Solana carries more than one SPL token (USDC, USDT; issue 25): a receiving address's row in
-- sol_token_accounts says which mints its finished state (created / existed) covers. A row whose
-- mints differ from the configured ones (NULL: a row from before, which covered USDC only) is
-- queued again, so an address made before a token was added gets that token's account too.
ALTER TABLE sol_token_accounts ADD COLUMN mints text;
