// Countdowns to a deadline: every element with data-deadline="2025-01-31T12:00:00Z" (UTC, from
// the server) shows the time left in its .countdown-left child, once a second. The server
// enforces the deadline anyway; this only tells the candidate. When the time is up the element
// says so (data-over-text) and the document receives a "kp:deadline" event. Screen readers hear
// the time left at 10, 5 and 1 minutes through a polite live region, not every second.
(function () {
  "use strict";

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function format(ms) {
    var s = Math.max(0, Math.floor(ms / 1000));
    var d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60;
    s = s % 60;
    if (d > 0) return d + " d " + h + " h " + pad(m) + " min";
    return (h > 0 ? h + ":" + pad(m) : m) + ":" + pad(s);
  }

  function spoken(ms) {
    var m = Math.round(ms / 60000);
    return m <= 1 ? "One minute left." : m + " minutes left.";
  }

  function watch(el) {
    var deadline = Date.parse(el.getAttribute("data-deadline"));
    if (isNaN(deadline)) return;
    var left = el.querySelector(".countdown-left");
    var live = document.createElement("span");
    live.className = "visually-hidden";
    live.setAttribute("aria-live", "polite");
    el.parentNode.insertBefore(live, el.nextSibling);
    var announced = {};
    var timer = null;

    function update() {
      var ms = deadline - Date.now();
      if (ms <= 0) {
        if (timer) clearInterval(timer);
        el.classList.add("over");
        el.classList.remove("soon");
        el.textContent = el.getAttribute("data-over-text") || "Time is up: submissions are closed.";
        live.textContent = "Time is up.";
        document.dispatchEvent(new CustomEvent("kp:deadline", { detail: { element: el } }));
        return;
      }
      if (left) left.textContent = format(ms);
      el.classList.toggle("soon", ms < 5 * 60 * 1000);
      [10, 5, 1].forEach(function (mark) {
        if (ms <= mark * 60000 && ms > (mark - 1) * 60000 && !announced[mark]) {
          announced[mark] = true;
          live.textContent = spoken(ms);
        }
      });
    }

    if (!el.classList.contains("over")) {
      update();
      timer = setInterval(update, 1000);
    }
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-deadline]"), watch);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
