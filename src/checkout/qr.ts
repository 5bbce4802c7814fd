// QR code of a payment URI as inline SVG, rendered on the server (no external service).
import { encode } from "uqr";
import { escapeHtml } from "./escape";

/** The QR matrix of `text` as one SVG path of dark modules (horizontal runs merged) and its size. */
export function qrPath(text: string): { size: number; d: string } {
  const qr = encode(text, { ecc: "M", border: 2 });
  let d = "";
  for (let y = 0; y < qr.size; y++) {
    const row = qr.data[y];
    for (let x = 0; x < qr.size; x++) {
      // Merge horizontal runs so the path stays small.
      if (!row[x]) continue;
      let run = 1;
      while (x + run < qr.size && row[x + run]) run++;
      d += `M${x} ${y}h${run}v1h-${run}z`;
      x += run - 1;
    }
  }
  return { size: qr.size, d };
}

/** One <svg> with a single path of dark modules; crisp at any size. */
export function qrSvg(text: string, label: string): string {
  const { size, d } = qrPath(text);
  return (
    `<svg class="qr" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" ` +
    `role="img" aria-label="${escapeHtml(label)}" shape-rendering="crispEdges">` +
    `<rect width="${size}" height="${size}" fill="#fff"/>` +
    `<path fill="#0f172a" d="${d}"/></svg>`
  );
}
