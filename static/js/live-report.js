// Live status of a submission or sample run: polls its status URL (a page endpoint answering
// JSON {status, verdict, final, title, html}) once a second while it is queued or running, puts
// the rendered report into the result element and a one-line summary into the status line
// (role="status", so screen readers hear "Accepted" without the whole report being read).
//
//   KernelPathReport.watch({statusUrl, statusEl, resultEl, label, link})
// Elements with data-status-url and data-final="false" start watching on load (the submission
// page); the task page calls watch() after each Run or Submit.
(function () {
  "use strict";

  var current = null;  // one watch per result element at a time

  function upgradeEditors(root) {
    if (window.KernelPathEditor && window.KernelPathEditor.upgrade) {
      window.KernelPathEditor.upgrade(root);
    }
  }

  function say(statusEl, text, link) {
    if (!statusEl) return;
    statusEl.textContent = text;
    if (link) {
      statusEl.appendChild(document.createTextNode(" "));
      var a = document.createElement("a");
      a.href = link.href;
      a.textContent = link.text;
      statusEl.appendChild(a);
    }
  }

  function summary(label, data) {
    if (data.status === "queued") return label + ": queued, waiting for a grader…";
    if (data.status === "running") return label + ": running…";
    if (data.status === "failed") return label + ": grading failed.";
    return label + ": " + data.title + ".";
  }

  function watch(opts) {
    if (current && current.resultEl === opts.resultEl) current.stopped = true;
    var state = { resultEl: opts.resultEl, stopped: false, lastHtml: null, failures: 0 };
    current = state;
    var label = opts.label || "Status";

    function poll() {
      if (state.stopped) return;
      fetch(opts.statusUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (resp) {
          if (!resp.ok) throw new Error("status " + resp.status);
          return resp.json();
        })
        .then(function (data) {
          if (state.stopped) return;
          state.failures = 0;
          if (data.html !== state.lastHtml) {
            state.lastHtml = data.html;
            opts.resultEl.innerHTML = data.html;
            upgradeEditors(opts.resultEl);
          }
          opts.resultEl.setAttribute("aria-busy", data.final ? "false" : "true");
          say(opts.statusEl, summary(label, data), opts.link);
          if (data.final) {
            if (opts.onFinal) opts.onFinal(data);
          } else {
            setTimeout(poll, 1000);
          }
        })
        .catch(function () {
          if (state.stopped) return;
          state.failures += 1;
          say(opts.statusEl, label + ": lost contact with the server, retrying…", opts.link);
          setTimeout(poll, Math.min(10000, 1000 * Math.pow(2, state.failures)));
        });
    }

    poll();
    return state;
  }

  window.KernelPathReport = { watch: watch };

  function start() {
    Array.prototype.forEach.call(
      document.querySelectorAll("[data-status-url][data-final='false']"),
      function (el) {
        watch({
          statusUrl: el.getAttribute("data-status-url"),
          resultEl: el,
          statusEl: document.getElementById(el.getAttribute("data-status-line")),
          label: el.getAttribute("data-label") || "Status",
        });
      });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
