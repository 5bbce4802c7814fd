// Errors a back-office handler throws to get a plain page instead of a 500.
/** Missing, or another merchant's: the same 404 either way (DESIGN 10). */
export class NotFound extends Error {}
export class Forbidden extends Error {}
