// The pages' only script, inlined under the CSP nonce. Plain ES2017 so any
// phone browser of the last years runs it; it reads its settings from data-*
// attributes and writes text only through textContent (never innerHTML).
export const CLIENT_SCRIPT = String.raw`(function () {
  "use strict";
  var textEl = document.getElementById("sg-text");
  var T = textEl ? JSON.parse(textEl.textContent || "{}") : {};
  var FINAL = { completed: 1, risk_settled: 1, cancelled: 1 };
  var SLOW = { expired: 1, frozen_abnormal: 1 };
  var note = document.querySelector("[data-testid=live-note]");

  function $all(root, sel) { return Array.prototype.slice.call(root.querySelectorAll(sel)); }
  function setText(root, bind, value) {
    $all(root, "[data-bind=" + bind + "]").forEach(function (el) { el.textContent = value; });
  }
  function showRow(root, name, value) {
    $all(root, "[data-row=" + name + "]").forEach(function (row) { row.hidden = !value; });
  }
  function displayAmount(a) {
    var parts = String(a).split(".");
    var frac = (parts[1] || "").replace(/0+$/, "");
    while (frac.length < 2) frac += "0";
    return parts[0] + "." + frac;
  }
  function localTime(iso, lang) {
    var d = new Date(iso);
    if (isNaN(d.getTime())) return iso;
    try { return d.toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" }); } catch (e) { return d.toLocaleString(); }
  }
  function countdown(ms) {
    var total = Math.max(0, Math.floor(ms / 1000));
    var h = Math.floor(total / 3600), m = Math.floor((total % 3600) / 60), s = total % 60;
    var ss = (s < 10 ? "0" : "") + s;
    if (h > 0) return h + ":" + (m < 10 ? "0" : "") + m + ":" + ss;
    return (m < 10 ? "0" : "") + m + ":" + ss;
  }
  function setOffline(off) { if (note) { note.textContent = off ? T.offline : ""; note.className = off ? "offline" : ""; } }

  // Copy buttons: the Clipboard API, else a hidden textarea and execCommand.
  function fallbackCopy(value) {
    var ta = document.createElement("textarea");
    ta.value = value; ta.setAttribute("readonly", ""); ta.className = "sr-only";
    document.body.appendChild(ta); ta.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(ta);
    return ok;
  }
  $all(document, "[data-copy]").forEach(function (btn) {
    btn.addEventListener("click", function () {
      var value = btn.getAttribute("data-copy") || "";
      var fb = document.getElementById(btn.getAttribute("data-feedback") || "");
      function done(ok) {
        if (!fb) return;
        fb.textContent = ok ? T.copied : T.copyFailed;
        fb.classList.toggle("err", !ok);
        clearTimeout(fb._t);
        fb._t = setTimeout(function () { fb.textContent = ""; }, 2500);
      }
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(value).then(function () { done(true); }, function () { done(fallbackCopy(value)); });
      } else {
        done(fallbackCopy(value));
      }
    });
  });

  $all(document, "time[datetime]").forEach(function (el) {
    var card = document.querySelector("[data-lang]");
    el.textContent = localTime(el.getAttribute("datetime"), card ? card.getAttribute("data-lang") : undefined);
  });

  function poller(url, interval, onData) {
    var delay = interval, stopped = false, timer = 0;
    function tick() {
      timer = 0;
      fetch(url, { cache: "no-store", headers: { accept: "application/json" } })
        .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
        .then(function (data) {
          setOffline(false);
          delay = onData(data);
          if (delay > 0 && !stopped) timer = setTimeout(tick, delay);
        })
        .catch(function () {
          setOffline(true);
          delay = Math.min(Math.max(delay, interval) * 2, 30000);
          if (!stopped) timer = setTimeout(tick, delay);
        });
    }
    return {
      start: function () { if (!timer) timer = setTimeout(tick, interval); },
      now: function () { if (timer) clearTimeout(timer); tick(); },
    };
  }

  // ---- checkout page ----
  var co = document.getElementById("checkout");
  if (co) {
    var d = co.dataset;
    var interval = Math.max(100, Number(d.poll) || 2000);
    var skew = Number(d.serverTime) - Date.now();
    var expireAt = d.expireAt ? Date.parse(d.expireAt) : NaN;
    var status = d.status;
    var lang = d.lang;
    var clock = 0;

    function render(s) {
      var shown = s;
      var serverNow = Date.now() + skew;
      // The expiry job may lag a little; the payer should not keep paying past the deadline.
      if (s === "waiting_payment" && !isNaN(expireAt) && serverNow >= expireAt) shown = "expired";
      // Announce state changes only: the panels hold a ticking timer, so they are not a live region themselves.
      if (shown !== co.getAttribute("data-shown") && co.hasAttribute("data-shown")) {
        var title = co.querySelector("[data-state=" + shown + "] h2");
        setText(co, "announce", title ? title.textContent : "");
      }
      co.setAttribute("data-status", s);
      co.setAttribute("data-shown", shown);
      $all(co, "[data-state]").forEach(function (el) { el.hidden = el.getAttribute("data-state") !== shown; });
      $all(co, "[data-pay]").forEach(function (el) { el.hidden = shown !== "waiting_payment"; });
      $all(co, "[data-unpay]").forEach(function (el) { el.hidden = shown === "waiting_payment"; });
      $all(co, "[data-paid]").forEach(function (el) { el.hidden = !(shown === "completed" || shown === "risk_settled"); });
      $all(co, "[data-claim]").forEach(function (el) { el.hidden = !(shown === "waiting_payment" || shown === "expired"); });
      if (shown === "waiting_payment" && !isNaN(expireAt)) {
        var left = expireAt - serverNow;
        setText(co, "countdown", countdown(left));
        $all(co, ".timer").forEach(function (el) { el.classList.toggle("low", left < 5 * 60 * 1000); });
      }
    }
    function apply(j) {
      status = j.status;
      if (typeof j.serverTime === "number") skew = j.serverTime - Date.now();
      if (j.expireAt) expireAt = Date.parse(j.expireAt);
      setText(co, "confirmations", String(j.confirmations));
      setText(co, "required", String(j.requiredConfirmations));
      $all(co, "[data-bind=progress]").forEach(function (el) {
        el.max = Math.max(1, j.requiredConfirmations);
        el.value = Math.min(j.confirmations, j.requiredConfirmations);
      });
      var paid = j.paidAmount ? displayAmount(j.paidAmount) + " " + j.tokenSymbol : "";
      setText(co, "paid-amount", paid); showRow(co, "paid-amount", paid);
      setText(co, "tx-hash", j.txHash || ""); showRow(co, "tx-hash", j.txHash);
      var ex = co.querySelector("[data-bind-href=explorer]");
      if (ex && d.explorer && j.txHash) ex.setAttribute("href", d.explorer.replace("{tx}", encodeURIComponent(j.txHash)));
      showRow(co, "explorer", d.explorer && j.txHash);
      var done = j.completedAt ? localTime(j.completedAt, lang) : "";
      setText(co, "completed-at", done); showRow(co, "completed-at", done);
      render(status);
    }
    var completedEl = co.querySelector("[data-bind=completed-at]");
    if (completedEl && completedEl.textContent) completedEl.textContent = localTime(completedEl.textContent, lang);

    var p = poller(d.statusUrl, interval, function (j) {
      apply(j);
      if (FINAL[j.status]) { clearInterval(clock); return 0; }
      return SLOW[j.status] ? Math.max(interval * 5, 10000) : interval;
    });
    render(status);
    if (!FINAL[status]) {
      clock = setInterval(function () { render(status); }, 1000);
      p.start();
    }

    var sim = co.querySelector("[data-action=simulate]");
    if (sim) {
      var label = sim.querySelector("[data-label]");
      sim.addEventListener("click", function () {
        sim.disabled = true;
        if (label) label.textContent = T.simulating;
        setText(co, "simulate-error", "");
        fetch(d.simulateUrl, { method: "POST", headers: { accept: "application/json" } })
          .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); })
          .then(function () { p.now(); })
          .catch(function () {
            sim.disabled = false;
            if (label) label.textContent = T.simulate;
            setText(co, "simulate-error", T.simulateFailed);
          });
      });
    }
  }

  // ---- deposit page ----
  var dep = document.getElementById("deposit");
  if (dep) {
    var list = dep.querySelector("[data-testid=deposits]");
    var empty = dep.querySelector("[data-testid=no-deposits]");
    var dlang = dep.getAttribute("data-lang");
    var dInterval = Math.max(100, Number(dep.getAttribute("data-poll")) || 2000) * 2;
    function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text != null) e.textContent = text; return e; }
    poller(dep.getAttribute("data-status-url"), dInterval, function (j) {
      var frag = document.createDocumentFragment();
      (j.recentDeposits || []).forEach(function (r) {
        var li = el("li"), left = el("div");
        left.appendChild(el("div", "amt", displayAmount(r.amount) + " " + j.tokenSymbol));
        var meta = el("div", "meta"), time = el("time", null, localTime(r.createdAt, dlang));
        time.setAttribute("datetime", r.createdAt);
        meta.appendChild(time); left.appendChild(meta); li.appendChild(left);
        li.appendChild(el("span", "tag tag-" + String(r.status).replace(/[^a-z_]/g, ""), (T.status && T.status[r.status]) || r.status));
        frag.appendChild(li);
      });
      list.textContent = "";
      list.appendChild(frag);
      empty.hidden = (j.recentDeposits || []).length > 0;
      return dInterval;
    }).start();
  }
})();`;
