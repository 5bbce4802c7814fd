// The script every page with a POST form carries (the back office's app.js, the hosted pages'
// nonce'd script): a form being sent disables its submit buttons and says it is busy, so a second
// click sends nothing (the form's one-time token makes a second POST harmless anyway: src/once/once.ts).
// The buttons are disabled in the submit event; the clicked button's name and value go with the
// form as a hidden field (a disabled button's would not). A page shown again from the back/forward cache takes its forms again.
// Plain ES5: any browser runs it; without it the forms still work.
export const SUBMIT_ONCE_JS = String.raw`(function () {
  function buttons(f) { return Array.prototype.slice.call(f.querySelectorAll("button, input[type=submit]")).filter(function (b) { return !b.type || b.type === "submit"; }); }
  document.addEventListener("submit", function (e) {
    var f = e.target;
    if (!f || !f.getAttribute || (f.getAttribute("method") || "get").toLowerCase() !== "post" || e.defaultPrevented) return;
    if (f.getAttribute("data-sending")) { e.preventDefault(); return; }
    f.setAttribute("data-sending", "1");
    f.setAttribute("aria-busy", "true");
    // A disabled button's name and value would not be sent: the clicked one's go as a hidden field.
    var s = e.submitter;
    if (s && s.name) {
      var h = document.createElement("input");
      h.type = "hidden";
      h.name = s.name;
      h.value = s.value;
      h.setAttribute("data-submitter", "");
      f.appendChild(h);
    }
    buttons(f).forEach(function (b) { b.disabled = true; });
  });
  window.addEventListener("pageshow", function (e) {
    if (!e.persisted) return;
    Array.prototype.slice.call(document.querySelectorAll("form[data-sending]")).forEach(function (f) {
      f.removeAttribute("data-sending");
      f.removeAttribute("aria-busy");
      Array.prototype.slice.call(f.querySelectorAll("input[data-submitter]")).forEach(function (h) { f.removeChild(h); });
      buttons(f).forEach(function (b) { b.disabled = false; });
    });
  });
})();`;
