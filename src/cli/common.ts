// Shared bits of the CLI command groups.

export type CliFlags = Record<string, string | true>;

/**
 * A refusal the user can fix (bad arguments, invalid transition): the message
 * goes to stderr and the exit code is 2. `showUsage` prints the command list too.
 */
export class CliUsageError extends Error {
  constructor(message: string, readonly showUsage = true) {
    super(message);
  }
}
