// The one stylesheet and the one (optional) script of the back office, served
// as same-origin files so the CSP needs no inline allowances. Pages work
// without the script; it only adds conveniences.
import { SUBMIT_ONCE_JS } from "../../once/submit-script";
export const APP_CSS = `
:root{color-scheme:light dark;--fg:#0f172a;--muted:#475569;--bg:#f8fafc;--card:#fff;--field:#fff;--line:#cbd5e1;--rowline:#e2e8f0;--thbg:#f1f5f9;--navbg:#e2e8f0;--badgebg:#e2e8f0;--accent:#1d4ed8;--btn:#1d4ed8;--dangerbtn:#991b1b;--ok:#166534;--okbg:#dcfce7;--bad:#991b1b;--badbg:#fee2e2;--warn:#854d0e;--warnbg:#fef9c3}
/* Dark theme follows the system setting; every pair below keeps WCAG AA contrast (axe checks it in theme.browser.test.ts). */
@media (prefers-color-scheme:dark){:root{--fg:#e2e8f0;--muted:#a8b3c4;--bg:#0b1220;--card:#151f32;--field:#0b1220;--line:#475569;--rowline:#2a364b;--thbg:#1e2a40;--navbg:#1e293b;--badgebg:#334155;--accent:#93c5fd;--btn:#1d4ed8;--dangerbtn:#b91c1c;--ok:#86efac;--okbg:#14532d;--bad:#fca5a5;--badbg:#7f1d1d;--warn:#fde68a;--warnbg:#713f12}}
*{box-sizing:border-box}
html{font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
body{margin:0}
a{color:var(--accent)}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:var(--card);padding:8px;z-index:9}
.top{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;padding:8px 12px;background:#0f172a;color:#fff}
.top a.brand{color:#fff;font-weight:700;text-decoration:none}
.top .search{display:flex;gap:6px;align-items:center;flex:1 1 260px;order:3;min-width:0}
.top .search label{color:#e2e8f0}
.top .search input{flex:1;min-width:0}
.top .signout{margin-left:auto;display:flex;gap:8px;align-items:center}
.top .who{color:#e2e8f0;font-size:.9rem}
.top button.link{background:none;border:1px solid #94a3b8;color:#fff}
.nav{background:var(--navbg);overflow-x:auto}
.nav ul{display:flex;flex-wrap:wrap;gap:0 2px;margin:0;padding:0 8px;list-style:none;white-space:nowrap}
.nav a{display:block;padding:10px 8px;color:var(--fg);text-decoration:none}
.nav a[aria-current=page]{font-weight:700;border-bottom:3px solid var(--accent)}
main{padding:12px;max-width:1280px;margin:0 auto}
h1{font-size:1.4rem;margin:.4em 0 .6em;overflow-wrap:anywhere}
.card p{overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:1.2em 0 .5em}
input,select,textarea,button{font:inherit;padding:8px 10px;border:1px solid var(--line);border-radius:6px;background:var(--field);color:var(--fg);min-height:40px}
button{background:var(--btn);color:#fff;border-color:var(--btn);cursor:pointer}
button.secondary{background:var(--card);color:var(--accent)}
button.danger{background:var(--dangerbtn);border-color:var(--dangerbtn)}
.stack{display:flex;flex-direction:column;gap:6px;max-width:420px}
.stack label{font-weight:600;margin-top:6px}
.inline{display:inline-flex;flex-wrap:wrap;gap:6px;align-items:center;margin:2px 0}
.filters{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:8px;align-items:end;margin-bottom:12px}
.filters label{display:flex;flex-direction:column;font-size:.9rem;font-weight:600;gap:2px}
/* A hint inside a filter-style form (the refund form's) spans the whole row instead of one narrow column. */
.filters>p{grid-column:1/-1;margin:0}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:10px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px}
.card .n{font-size:1.6rem;font-weight:700}
.card a{text-decoration:none}
.table-wrap{position:relative;overflow-x:auto;background:var(--card);border:1px solid var(--line);border-radius:8px;margin-bottom:12px}
table{border-collapse:collapse;width:100%;font-size:.92rem}
th,td{text-align:left;padding:7px 9px;border-bottom:1px solid var(--rowline);vertical-align:top}
th{background:var(--thbg);white-space:nowrap}
td.mono,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem;word-break:break-all}
/* Ids in a table stay on one line (the table scrolls sideways on a phone); broken mid-id they were unreadable. */
td.mono,td .mono{white-space:nowrap;word-break:normal}td .badge{white-space:nowrap}
/* On a phone a table scrolls sideways rather than squeezing dates and amounts into columns one word wide; long prose cells (class wrap) still wrap. */
td.wrap{white-space:normal;min-width:14em}td.mono.wrap{word-break:break-all}
@media (max-width:700px){td{white-space:nowrap}td.wrap{white-space:normal}}
/* table.rowcards: on a phone each row is a card, every cell on its own line under its column's name (data-label), so state and actions never sit off-screen. */
@media (max-width:700px){table.rowcards thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}table.rowcards,table.rowcards tbody,table.rowcards tr,table.rowcards td{display:block}table.rowcards tr{border-bottom:1px solid var(--line);padding:6px 0}table.rowcards td{border:0;padding:3px 10px;white-space:normal}table.rowcards td:empty{display:none}table.rowcards td[data-label]::before{content:attr(data-label) ": ";font-weight:600;color:var(--muted)}table.rowcards td .mono{white-space:normal;word-break:break-all}}
dl.kv{display:grid;grid-template-columns:minmax(110px,max-content) 1fr;gap:4px 12px;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px}
dl.kv dt{font-weight:600;color:var(--muted)}dl.kv dd{margin:0;overflow-wrap:anywhere}
.badge{display:inline-block;padding:1px 8px;border-radius:999px;background:var(--badgebg);font-size:.85rem}
.s-completed,.s-confirmed,.s-delivered,.s-active,.s-resolved{background:var(--okbg);color:var(--ok)}
.s-failed,.s-firing,.s-frozen_abnormal,.s-disabled,.s-reverted,.s-cancelled{background:var(--badbg);color:var(--bad)}
.s-risk_settled,.s-expired,.s-pending,.s-unmatched{background:var(--warnbg);color:var(--warn)}
.notice{padding:10px 12px;border-radius:8px;background:var(--okbg);color:var(--ok)}
.notice.error{background:var(--badbg);color:var(--bad)}
fieldset.checks{border:1px solid var(--line);border-radius:6px;padding:6px 10px;margin:6px 0 0}fieldset.checks legend{font-weight:600;padding:0 4px}
/* The guided resolution (pages/refunds.tsx): each radio with its label beside it and what it produces under the label; beside "Resolve" the consequence of the choice made. */
.choice{display:grid;grid-template-columns:auto 1fr;gap:2px 10px;align-items:center;margin:8px 0}.choice input{min-height:auto;width:20px;height:20px;margin:0}.choice label{font-weight:600}.choice p{grid-column:2;margin:0}
.resolve-go{display:flex;flex-wrap:wrap;gap:8px 12px;align-items:center;margin-top:10px}.resolve-go .consequence{flex:1 1 280px;margin:0}
.consequence [data-for]{display:none}form:has(input[name=choice]:checked) .consequence .none{display:none}
form:has(#resolve-accept:checked) .consequence [data-for=accept],form:has(#resolve-refund_all:checked) .consequence [data-for=refund_all],form:has(#resolve-refund_difference:checked) .consequence [data-for=refund_difference]{display:inline}
.stack .check,.check{display:flex;align-items:center;gap:8px;min-height:40px;font-weight:400}.check input{min-height:auto;width:20px;height:20px}
.qr-box svg{width:220px;height:220px;background:#fff;padding:6px;border-radius:8px}
.secret{font-family:ui-monospace,monospace;background:var(--card);border:2px dashed var(--accent);padding:10px;word-break:break-all}
ol.timeline{list-style:none;padding:0;margin:0;border-left:3px solid var(--line)}
ol.timeline li{padding:4px 0 10px 14px;position:relative}
ol.timeline li::before{content:"";position:absolute;left:-8px;top:9px;width:13px;height:13px;border-radius:50%;background:var(--accent)}
.chart{width:100%;height:auto;background:var(--card);border:1px solid var(--line);border-radius:8px}
.chart-box{margin:0}.chart-axis{font-size:.85rem;color:var(--muted);margin:.25rem 0}.chart-days{display:flex;justify-content:space-between}
.muted{color:var(--muted)}
ul.plain{list-style:none;margin:0;padding:0}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.actions{display:flex;flex-wrap:wrap;gap:8px;align-items:flex-end;margin:8px 0}
.pager{display:flex;gap:12px;margin:8px 0}
.qr{width:200px;height:200px}
@media (min-width:900px){main{padding:20px}.top .search{order:0;max-width:560px}}
code{overflow-wrap:anywhere}
.menu-link{display:none}
/* Phone: the tabs are a menu at the foot of the page (the header's "Menu" jumps there) and every
   table row is a card, each value under its column's name (data-label, views/common.tsx), so status
   and actions are on screen without scrolling sideways. */
@media (max-width:700px){
body{display:flex;flex-direction:column;min-height:100vh}
.top{order:0}main{order:1;width:100%}.nav{order:2;overflow:visible;padding:8px 0 16px}
.top a.menu-link{display:inline-block;color:#fff;border:1px solid #94a3b8;border-radius:6px;padding:6px 12px;text-decoration:none}
.nav ul{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:4px;padding:0 12px;white-space:normal}
.nav a{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:9px 12px}
.nav a[aria-current=page]{border:2px solid var(--accent)}
.table-wrap{overflow:visible;background:none;border:0;border-radius:0}
.table-wrap table,.table-wrap tbody,.table-wrap tr,.table-wrap td{display:block;width:auto}
.table-wrap thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.table-wrap tr{background:var(--card);border:1px solid var(--line);border-radius:8px;margin:0 0 8px;padding:4px 0}
.table-wrap td,.table-wrap td.mono,.table-wrap td .mono{border:0;padding:3px 10px;white-space:normal;overflow-wrap:anywhere;word-break:break-word;min-width:0}
.table-wrap td.mono,.table-wrap td .mono{word-break:break-all}
.table-wrap td[data-label]{display:flex;flex-wrap:wrap;align-items:baseline;column-gap:8px}
.table-wrap td[data-label]>*{min-width:0;max-width:100%}
.table-wrap td[data-label]::before{content:attr(data-label);flex:0 1 auto;min-width:7.5em;max-width:50%;font:600 .8rem/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--muted);word-break:normal;overflow-wrap:normal}
.table-wrap td:empty{display:none}
dl.kv{grid-template-columns:minmax(5.5em,35%) minmax(0,1fr)}
}
`;

export const APP_JS = `
// Progressive enhancement only: live dashboard counters; "select all" boxes for bulk actions.
(function () {
  var live = document.querySelector("[data-live]");
  if (!live || !window.fetch) return;
  setInterval(function () {
    if (document.hidden) return;
    fetch(live.getAttribute("data-live"), { credentials: "same-origin", redirect: "error" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (c) {
        if (!c) return;
        live.querySelectorAll("[data-count]").forEach(function (el) {
          var v = c[el.getAttribute("data-count")];
          // Counts stop at 1,000 (one more means "more").
          if (typeof v === "number") el.textContent = v > 1000 ? "1,000+" : v.toLocaleString("en-US");
        });
      })
      .catch(function () {});
  }, 10000);
})();
document.addEventListener("change", function (e) {
  var t = e.target;
  if (!t || !t.matches || !t.matches("input[data-select-all]")) return;
  var form = t.closest("form");
  if (!form) return;
  form.querySelectorAll("input[type=checkbox][name='" + t.getAttribute("data-select-all") + "']").forEach(function (b) { b.checked = t.checked; });
});

// "Copy" buttons of secrets shown once: shown only when this script runs.
document.querySelectorAll("button[data-copy]").forEach(function (b) { b.hidden = false; });
document.addEventListener("click", function (e) {
  var b = e.target && e.target.closest ? e.target.closest("button[data-copy]") : null;
  if (!b) return;
  var id = b.getAttribute("data-copy");
  var el = document.getElementById(id);
  var status = document.querySelector("[data-copy-status='" + id + "']");
  if (!el) return;
  var text = el.textContent.trim();
  var said = function (msg) { if (status) status.textContent = msg; };
  var bySelection = function () {
    var r = document.createRange();
    r.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(r);
    said(document.execCommand && document.execCommand("copy") ? "Copied." : "Selected: press Ctrl+C (or Cmd+C) to copy.");
  };
  if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(function () { said("Copied."); }, bySelection);
  else bySelection();
});

// Forms send once: a form being sent disables its buttons (src/once/submit-script.ts).
${SUBMIT_ONCE_JS}
`;
