// Where the last failed rates fetch is noted in `settings` (the rate_stale alert names it); read
// and written by both engines' stores (rates/store.ts and its .pg.ts side).
export const LAST_ERROR_KEY = "rates_last_error";
