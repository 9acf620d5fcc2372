// The task page: the starter-style picker, and Run / Submit without leaving the page.
//
// Without JavaScript the page still works: the style links reload the page with that starter,
// and the form posts (Run on samples / Submit use formaction) and redirects to the result.
// With it, the form is posted with fetch (FormData: source, csrf_token, assessment_id), the
// answer {id, status, url, status_url} starts KernelPathReport.watch, and a refusal
// {message, field} is shown next to the editor.
(function () {
  "use strict";

  var form = document.getElementById("solve-form");
  if (!form) return;
  var textarea = document.getElementById("source");
  var errorBox = document.getElementById("form-error");
  var statusLine = document.getElementById("run-status");
  var result = document.getElementById("result");
  var runBtn = document.getElementById("run-btn");
  var submitBtn = document.getElementById("submit-btn");
  var starters = JSON.parse(document.getElementById("starters").textContent || "{}");
  var labels = JSON.parse(document.getElementById("style-labels").textContent || "{}");
  var closed = !!(submitBtn && submitBtn.disabled);

  function getCode() { return textarea.value; }

  function setCode(text) {
    if (window.KernelPathEditor && window.KernelPathEditor.get(textarea)) {
      window.KernelPathEditor.setValue(textarea, text);
    } else {
      textarea.value = text;
    }
  }

  function isStarterOrEmpty(code) {
    if (!code.trim()) return true;
    for (var style in starters) {
      if (Object.prototype.hasOwnProperty.call(starters, style) && starters[style] === code) return true;
    }
    return false;
  }

  function sentence(text) {
    text = String(text || "");
    if (!text) return text;
    text = text.charAt(0).toUpperCase() + text.slice(1);
    return /[.!?]$/.test(text) ? text : text + ".";
  }

  function showError(message) {
    errorBox.innerHTML = "";
    if (!message) return;
    var p = document.createElement("p");
    p.className = "error";
    p.textContent = sentence(message);
    errorBox.appendChild(p);
  }

  // ---- the style picker ----------------------------------------------------------------------

  var help = document.getElementById("style-help");
  var languageEditors = {python: "python", cpp: "cpp"};
  Array.prototype.forEach.call(form.querySelectorAll("[data-style]"), function (link) {
    link.addEventListener("click", function (event) {
      var style = link.getAttribute("data-style");
      if (!Object.prototype.hasOwnProperty.call(starters, style)) return;  // let the link load it
      event.preventDefault();
      var code = getCode();
      var name = (labels[style] || [style])[0];
      if (code !== starters[style] && !isStarterOrEmpty(code) &&
          !window.confirm("Replace your code with the " + name + " starter? Your changes will be lost.")) {
        return;
      }
      setCode(starters[style]);
      // A task written in one of several languages: the starters are per language.
      var language = document.getElementById("language");
      if (language && languageEditors[style]) {
        language.value = style;
        if (window.KernelPathEditor && window.KernelPathEditor.setLanguage) {
          window.KernelPathEditor.setLanguage(textarea, languageEditors[style]);
        }
      }
      Array.prototype.forEach.call(form.querySelectorAll("[data-style]"), function (other) {
        if (other === link) other.setAttribute("aria-current", "true");
        else other.removeAttribute("aria-current");
      });
      if (help && labels[style]) {
        help.textContent = labels[style][1] + ". Choosing a " + (languageEditors[style] ? "language" : "style") +
          " replaces the code in the editor " +
          "(you are asked first if you changed it).";
      }
    });
  });

  // ---- Run and Submit ------------------------------------------------------------------------

  var lastClicked = null;
  [runBtn, submitBtn].forEach(function (btn) {
    if (btn) btn.addEventListener("click", function () { lastClicked = btn; });
  });

  function setBusy(busy) {
    if (runBtn) runBtn.disabled = busy;
    if (submitBtn) submitBtn.disabled = busy || closed;
    form.setAttribute("aria-busy", busy ? "true" : "false");
  }

  function refusal(status) {
    if (status === 400) return "The form expired: copy your code, reload the page and try again.";
    if (status === 401) return "You are signed out: sign in again (in another tab), then retry.";
    if (status === 413) return "Your code is too large.";
    if (status === 429) return "Too many runs and submissions in a short time: wait a minute and try again.";
    return "The server answered " + status + ": please try again.";
  }

  form.addEventListener("submit", function (event) {
    var button = event.submitter || lastClicked || submitBtn;
    if (!window.fetch || !window.FormData) return;  // old browser: the plain POST works
    event.preventDefault();
    var url = (button && button.getAttribute("formaction")) || form.getAttribute("action");
    var isRun = url === form.getAttribute("data-runs");
    var data = new FormData(form);
    data.set("source", getCode());
    showError("");
    setBusy(true);
    statusLine.textContent = isRun ? "Sending your code to run on the samples…" : "Submitting…";
    fetch(url, {
      method: "POST", body: data, credentials: "same-origin",
      headers: { Accept: "application/json" },
    }).then(function (resp) {
      var type = resp.headers.get("Content-Type") || "";
      if (type.indexOf("application/json") === -1) {
        return { ok: false, status: resp.status, body: { message: refusal(resp.status) } };
      }
      return resp.json().then(function (body) { return { ok: resp.ok, status: resp.status, body: body }; });
    }).then(function (answer) {
      setBusy(false);
      if (!answer.ok) {
        statusLine.textContent = "";
        showError(answer.body.message || refusal(answer.status));
        return;
      }
      var sub = answer.body;
      var label = (sub.kind === "run" ? "Sample run #" : "Submission #") + sub.id;
      window.KernelPathReport.watch({
        statusUrl: sub.status_url, statusEl: statusLine, resultEl: result, label: label,
        link: { href: sub.url, text: "Open its page" },
      });
    }).catch(function () {
      setBusy(false);
      statusLine.textContent = "";
      showError("Could not reach the server: check your connection and try again.");
    });
  });

  document.addEventListener("kp:deadline", function () {
    closed = true;
    if (submitBtn) submitBtn.disabled = true;
  });
})();
