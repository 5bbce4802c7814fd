import { explorerUrl, type DisplayCtx } from "../format";

/** A hash or address, linked to the chain's explorer when there is one. */
export function ChainRef(p: { ctx: DisplayCtx; chain: string; kind: "tx" | "address"; value: string | null | undefined }): JSX.Element {
  if (!p.value) return <span>—</span>;
  const url = explorerUrl(p.ctx, p.chain, p.kind, p.value);
  return url ? (
    <a class="mono" href={url} rel="noopener noreferrer" target="_blank" safe>
      {p.value}
    </a>
  ) : (
    <span class="mono" safe>
      {p.value}
    </span>
  );
}
