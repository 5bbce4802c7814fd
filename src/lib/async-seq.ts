// Array callbacks that await (DESIGN 22: stores return promises). Each runs the callbacks
// one after another, in order, like the synchronous method it replaces: inside a
// transaction the writes keep their order, and nothing interleaves. The async-stores
// codemod (scripts/codemods/async-stores.ts) rewrites `xs.map(async …)` to `mapSeq(xs, …)`.
type Cb<T, R> = (value: T, index: number, array: readonly T[]) => Promise<R> | R;

export async function mapSeq<T, R>(xs: readonly T[], fn: Cb<T, R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < xs.length; i++) out.push(await fn(xs[i]!, i, xs));
  return out;
}

export async function flatMapSeq<T, R>(xs: readonly T[], fn: Cb<T, R | readonly R[]>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < xs.length; i++) {
    const r = await fn(xs[i]!, i, xs);
    if (Array.isArray(r)) out.push(...(r as R[]));
    else out.push(r as R);
  }
  return out;
}

export async function forEachSeq<T>(xs: readonly T[], fn: Cb<T, unknown>): Promise<void> {
  for (let i = 0; i < xs.length; i++) await fn(xs[i]!, i, xs);
}

export async function filterSeq<T>(xs: readonly T[], fn: Cb<T, unknown>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < xs.length; i++) if (await fn(xs[i]!, i, xs)) out.push(xs[i]!);
  return out;
}

export async function someSeq<T>(xs: readonly T[], fn: Cb<T, unknown>): Promise<boolean> {
  for (let i = 0; i < xs.length; i++) if (await fn(xs[i]!, i, xs)) return true;
  return false;
}

export async function everySeq<T>(xs: readonly T[], fn: Cb<T, unknown>): Promise<boolean> {
  for (let i = 0; i < xs.length; i++) if (!(await fn(xs[i]!, i, xs))) return false;
  return true;
}

export async function findSeq<T>(xs: readonly T[], fn: Cb<T, unknown>): Promise<T | undefined> {
  for (let i = 0; i < xs.length; i++) if (await fn(xs[i]!, i, xs)) return xs[i];
  return undefined;
}

export async function findIndexSeq<T>(xs: readonly T[], fn: Cb<T, unknown>): Promise<number> {
  for (let i = 0; i < xs.length; i++) if (await fn(xs[i]!, i, xs)) return i;
  return -1;
}

export async function reduceSeq<T, A>(xs: readonly T[], fn: (acc: A, value: T, index: number, array: readonly T[]) => Promise<A> | A, init: A): Promise<A> {
  let acc = init;
  for (let i = 0; i < xs.length; i++) acc = await fn(acc, xs[i]!, i, xs);
  return acc;
}
