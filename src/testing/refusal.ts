// What a refused call threw, as a table row can state it: the DomainError subclass, its code and
// parameters (every problem, when it carries several). A call that succeeds, or throws anything
// else, fails the test with what it did.
import { DomainError, type DomainCode, type DomainParams } from "../errors";

export interface Refusal {
  /** The class the caller catches (RefundRefused, BatchFileError, …). */
  kind: string;
  code: DomainCode;
  params: DomainParams;
  /** Every problem's code, in order (one for most refusals). */
  codes: DomainCode[];
}

export async function refusalOf(fn: () => unknown): Promise<Refusal> {
  try {
    await fn();
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    return { kind: e.constructor.name, code: e.code, params: e.params, codes: e.problems.map((p) => p.code) };
  }
  throw new Error("expected a refusal, but the call succeeded");
}
