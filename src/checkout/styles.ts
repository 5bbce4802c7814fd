// The pages' one stylesheet, inlined with the CSP nonce. Phone first; the
// card simply stops growing on wide screens. Colours meet WCAG AA contrast.
import { chainModules } from "../chains/registry";

// Each chain's dot colour comes from its module.
export const STYLES = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;min-height:100vh;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue","PingFang SC","Noto Sans CJK SC","Microsoft YaHei",sans-serif;
  font-size:16px;line-height:1.5;color:#0f172a;background:#eef2f7 linear-gradient(180deg,#1e293b 0,#1e293b 196px,#eef2f7 196px) no-repeat}
.wrap{max-width:440px;margin:0 auto;padding:16px 16px 32px}
.top{display:flex;align-items:center;justify-content:space-between;gap:12px;color:#fff;min-height:48px}
.merchant{display:flex;align-items:center;gap:12px;min-width:0}
.avatar{flex:none;width:44px;height:44px;border-radius:12px;background:#334155;color:#fff;display:grid;place-items:center;font-weight:700;font-size:20px}
.eyebrow{margin:0;font-size:13px;color:#cbd5e1}
.merchant h1{margin:0;font-size:18px;line-height:1.3;font-weight:650;overflow-wrap:anywhere}
.lang{flex:none;color:#fff;text-decoration:none;font-size:14px;padding:8px 12px;border-radius:999px;border:1px solid #64748b}
.lang:hover{background:#334155}
.badges{display:flex;gap:8px;margin:12px 0 0;min-height:0}
.badge{display:inline-flex;align-items:center;gap:6px;font-size:12px;font-weight:700;letter-spacing:.04em;text-transform:uppercase;padding:4px 10px;border-radius:999px;background:#fde68a;color:#713f12}
.card{background:#fff;border-radius:20px;box-shadow:0 10px 30px rgba(15,23,42,.12),0 1px 3px rgba(15,23,42,.08);margin-top:16px;overflow:hidden}
.section{padding:20px}
.section+.section{border-top:1px solid #e2e8f0}
.label{margin:0 0 4px;font-size:13px;font-weight:600;color:#475569;text-transform:none}
.amount-row{display:flex;align-items:center;justify-content:space-between;gap:12px;flex-wrap:wrap}
.amount{margin:0;font-size:clamp(26px,8vw,34px);line-height:1.15;font-weight:750;letter-spacing:-.02em;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.amount .sym{font-size:.6em;font-weight:650;color:#334155;letter-spacing:0}
.pill{display:inline-flex;align-items:center;gap:8px;margin:12px 0 0;padding:6px 12px;border-radius:999px;background:#f1f5f9;font-size:14px;font-weight:600;color:#0f172a}
.dot{width:10px;height:10px;border-radius:50%;background:#64748b}
${chainModules().map((m) => `.dot-${m.code}{background:${m.color}}`).join("")}
.state{display:flex;gap:14px;align-items:flex-start}
.state[hidden],[hidden]{display:none!important}
.icon{flex:none;width:40px;height:40px;border-radius:50%;display:grid;place-items:center}
.icon svg{width:22px;height:22px}
.i-wait{background:#e0e7ff;color:#3730a3}
.i-busy{background:#dbeafe;color:#1d4ed8}
.i-ok{background:#16a34a;color:#fff}
.i-warn{background:#fef3c7;color:#92400e}
.i-bad{background:#fee2e2;color:#b91c1c}
.state h2{margin:0;font-size:18px;line-height:1.35}
.state p{margin:4px 0 0;color:#475569;font-size:15px;overflow-wrap:anywhere}
.spin{animation:spin 1.1s linear infinite}
@keyframes spin{to{transform:rotate(360deg)}}
@media (prefers-reduced-motion:reduce){.spin{animation:none}}
.timer{display:flex;justify-content:space-between;align-items:center;margin-top:14px;padding:10px 14px;border-radius:12px;background:#f8fafc;font-size:14px;color:#334155}
.timer strong{font-size:18px;font-variant-numeric:tabular-nums;color:#0f172a}
.timer.low strong{color:#b91c1c}
.progress{margin-top:12px}
.progress-row{display:flex;justify-content:space-between;font-size:14px;color:#334155}
.progress-row strong{font-variant-numeric:tabular-nums;color:#0f172a}
progress{display:block;width:100%;height:8px;margin-top:6px;border:0;border-radius:999px;background:#e2e8f0;overflow:hidden;-webkit-appearance:none;appearance:none}
progress::-webkit-progress-bar{background:#e2e8f0;border-radius:999px}
progress::-webkit-progress-value{background:#2563eb;border-radius:999px}
progress::-moz-progress-bar{background:#2563eb;border-radius:999px}
.qr-box{display:flex;flex-direction:column;align-items:center;gap:12px}
.qr-alt{display:flex;flex-direction:column;align-items:center;gap:8px;font-size:14px;color:#475569;text-align:center}
.qr-alt summary{cursor:pointer;text-decoration:underline}
.links{margin:12px 0 0;font-size:14px;text-align:right}
.links a{color:#1d4ed8}
.qr-alt[open] .qr{margin:8px auto 0}
.qr{display:block;width:212px;height:212px;border-radius:12px;border:1px solid #e2e8f0;padding:6px;background:#fff}
.addr{margin:0;padding:12px 14px;border-radius:12px;background:#f8fafc;border:1px solid #e2e8f0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:15px;line-height:1.5;word-break:break-all;user-select:all;color:#0f172a}
.row{display:flex;gap:10px;margin-top:10px;flex-wrap:wrap}
.btn{appearance:none;display:inline-flex;align-items:center;justify-content:center;gap:8px;min-height:44px;padding:10px 16px;border-radius:12px;border:1px solid #cbd5e1;background:#fff;color:#0f172a;font:inherit;font-size:15px;font-weight:600;text-decoration:none;cursor:pointer}
.btn:hover{background:#f1f5f9}
.btn-primary{background:#4338ca;border-color:#4338ca;color:#fff}
.btn-primary:hover{background:#3730a3}
.btn-block{width:100%}
.btn-sm{min-height:40px;padding:6px 12px;font-size:14px;border-radius:10px}
.btn-sim{background:#b45309;border-color:#b45309;color:#fff}
.btn-sim:hover{background:#92400e}
.btn[disabled]{opacity:.65;cursor:progress}
.btn svg{width:18px;height:18px}
.grow{flex:1 1 auto;min-width:0}
:focus-visible{outline:3px solid #6366f1;outline-offset:2px}
.lang:focus-visible{outline-color:#a5b4fc}
.form{display:flex;flex-direction:column;gap:6px}
.field{margin-top:10px;font-size:14px;font-weight:600;color:#334155}
.input{width:100%;min-height:48px;padding:10px 12px;border-radius:12px;border:1px solid #64748b;background:#fff;color:#0f172a;font-size:16px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.input[aria-invalid="true"]{border-color:#b91c1c}
.send{margin-top:16px}
.feedback{min-height:1.5em;margin:6px 0 0;font-size:14px;font-weight:600;color:#15803d}
.feedback.err{color:#b91c1c}
.feedback:empty{min-height:0;margin:0}
.stack{display:grid;gap:8px;margin-top:8px}
summary.btn{list-style:none;cursor:pointer}
summary.btn::-webkit-details-marker{display:none}
.warn{display:flex;gap:12px;margin-top:14px;padding:14px;border-radius:12px;background:#fffbeb;border:1px solid #f59e0b;color:#78350f}
.warn svg{flex:none;width:22px;height:22px;margin-top:1px}
.warn h3{margin:0;font-size:15px;line-height:1.4}
.warn p{margin:4px 0 0;font-size:14px}
.sandbox-note{margin:0 0 12px;font-size:14px;color:#713f12}
.details{margin:0;display:grid;gap:8px;font-size:14px}
.details>div{display:flex;justify-content:space-between;align-items:baseline;gap:16px}
.details dt{color:#475569}
.details dd{margin:0;text-align:right;overflow-wrap:anywhere;font-variant-numeric:tabular-nums}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
.foot{margin:16px 4px 0;text-align:center;font-size:13px;color:#475569}
.foot p{margin:4px 0}
.offline{color:#b91c1c;font-weight:600}
.deposits{list-style:none;margin:0;padding:0}
.deposits li{display:flex;justify-content:space-between;gap:12px;padding:10px 0;border-bottom:1px solid #e2e8f0}
.deposits li:last-child{border-bottom:0}
.deposits .amt{font-weight:700;font-variant-numeric:tabular-nums}
.deposits .meta{font-size:13px;color:#475569}
.tag{align-self:center;font-size:12px;font-weight:700;padding:3px 10px;border-radius:999px;background:#e2e8f0;color:#334155;white-space:nowrap}
.tag-completed{background:#dcfce7;color:#166534}
.tag-detected,.tag-confirming{background:#dbeafe;color:#1e40af}
.tag-frozen_abnormal,.tag-risk_settled{background:#fef3c7;color:#92400e}
.sub{margin:8px 0 0;font-size:14px;color:#475569}
.empty{margin:0;font-size:14px;color:#475569}
.notfound{text-align:center;padding:36px 24px}
.notfound .icon{margin:0 auto 16px;width:56px;height:56px}
.notfound h1{margin:0 0 8px;font-size:22px}
.notfound p{margin:0;color:#475569}
.h2{margin:0;font-size:18px;line-height:1.35}
.hint{margin:4px 0 12px;color:#475569;font-size:15px}
.desc{margin:8px 0 0;color:#334155;font-size:15px;overflow-wrap:anywhere}
.nets{list-style:none;margin:0;padding:0;display:grid;gap:10px}
.net{justify-content:flex-start;min-height:52px;font-size:16px}
.net .tag{margin-left:auto;padding:2px 8px;border-radius:999px;background:#e0e7ff;color:#3730a3;font-size:12px}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
@media (min-width:600px){.wrap{padding-top:40px}body{background:#eef2f7 linear-gradient(180deg,#1e293b 0,#1e293b 230px,#eef2f7 230px) no-repeat}}
`;
