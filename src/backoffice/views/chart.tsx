/** @jsxImportSource @kitajs/html */
// Volume per day as a server-rendered SVG bar chart (no script, no inline CSS). The labels are
// HTML beside the SVG: inside it they scale with the viewBox and are unreadable on a phone.
import { fromBaseUnits } from "../../lib/money";
import type { DayVolume, TokenVolume } from "../queries/dashboard";
import { tr, trf } from "../i18n";

/** The window's volume per token ("7,262.50 USDT, 1.00 USDC"): the bars add tokens at face value, this says which. */
export function perTokenText(tokens: TokenVolume[]): string {
  return tokens.length ? tokens.map((t) => `${fromBaseUnits(t.micro, 6, 2)} ${t.token}`).join(tr(", ")) : tr("none");
}

export function VolumeChart({ days, tokens }: { days: DayVolume[]; tokens: TokenVolume[] }): JSX.Element {
  const W = 720;
  const H = 200;
  const pad = { l: 8, r: 8, t: 8, b: 8 };
  const max = days.reduce((m, d) => (d.micro > m ? d.micro : m), 0n);
  const bw = (W - pad.l - pad.r) / days.length;
  const ih = H - pad.t - pad.b;
  const total = days.reduce((s, d) => s + d.micro, 0n);
  const fmt = (micro: bigint) => fromBaseUnits(micro, 6, 2);
  const units = tokens.length ? tokens.map((t) => t.token).join(" + ") : tr("stablecoins");
  const label = trf("Completed volume per day for the last {days} days: {total} in total ({perToken}; {units} at face value), highest day {max}", { days: days.length, total: fmt(total), perToken: perTokenText(tokens), units, max: fmt(max) });
  return (
    <figure class="chart-box">
      <figcaption class="chart-axis" safe>{trf("Per token: {perToken} · max {max} {units} / day", { perToken: perTokenText(tokens), max: fmt(max), units })}</figcaption>
    <svg class="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label} xmlns="http://www.w3.org/2000/svg">
      <line x1={String(pad.l)} y1={String(H - pad.b)} x2={String(W - pad.r)} y2={String(H - pad.b)} stroke="#94a3b8" stroke-width="1" />
      {days.map((d, i) => {
        const h = max > 0n ? Number((d.micro * 10_000n) / max) / 10_000 * ih : 0;
        return (
          <rect x={(pad.l + i * bw + 1).toFixed(1)} y={(H - pad.b - h).toFixed(1)} width={Math.max(bw - 2, 1).toFixed(1)} height={h.toFixed(1)} fill="#1d4ed8">
            <title safe>{trf("{day}: {amount} ({orders} orders)", { day: d.day, amount: fmt(d.micro), orders: d.orders })}</title>
          </rect>
        );
      })}
    </svg>
      <div class="chart-axis chart-days">
        <span safe>{days[0]?.day ?? ""}</span>
        <span safe>{days.at(-1)?.day ?? ""}</span>
      </div>
    </figure>
  );
}
