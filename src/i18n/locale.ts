// The languages the hosted pages and the back office speak, and the choice between them: one for
// both presentation layers (src/checkout/i18n.ts and src/backoffice/i18n.ts re-export it).

export type Locale = "en" | "zh";

export { fillTemplate, type DomainParams as TextParams } from "../errors";

/** An explicit ?lang= wins; else the best-weighted supported Accept-Language entry; else English. */
export function pickLocale(acceptLanguage: string | null | undefined, explicit?: string | null): Locale {
  if (explicit === "en" || explicit === "zh") return explicit;
  if (!acceptLanguage) return "en";
  let best: { locale: Locale; q: number } | null = null;
  for (const part of acceptLanguage.split(",")) {
    const [rawTag, ...params] = part.trim().split(";");
    const tag = rawTag!.trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const [k, v] = p.trim().split("=");
      if (k === "q") q = Number.parseFloat(v ?? "");
    }
    if (!Number.isFinite(q) || q <= 0) continue;
    const primary = tag.split("-")[0];
    const locale: Locale | null = primary === "zh" ? "zh" : primary === "en" ? "en" : null;
    // Header order breaks ties, so only a strictly higher q replaces the current pick.
    if (locale && (!best || q > best.q)) best = { locale, q };
  }
  return best?.locale ?? "en";
}
