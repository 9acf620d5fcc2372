// The API docs page: Swagger UI (static/vendor/swagger-ui/) on the page's OpenAPI document.
(function () {
  "use strict";

  function label(el, name) {
    if (name && !el.hasAttribute("aria-label")) el.setAttribute("aria-label", name);
  }

  // Names and keyboard access Swagger UI 5 leaves out, found by axe-core (button-name, label,
  // select-name, label-content-name-mismatch, scrollable-region-focusable); set again as it renders.
  var FIXES = [
    ["tr[data-param-name] :is(input, select, textarea)", function (el) {
      label(el, el.closest("tr").dataset.paramName);
    }],
    ["tr[data-property-name] :is(input, select, textarea)", function (el) {
      label(el, el.closest("tr").dataset.propertyName);
    }],
    ["textarea.body-param__text", function (el) { label(el, "Request body"); }],
    [".model-box-control", function (el) {
      var row = el.closest("tr.property-row");
      if (!el.textContent.trim() && row) label(el, "Details of " + row.firstChild.firstChild.textContent);
    }],
    [".close-modal", function (el) { label(el, "Close"); }],
    [".auth-btn-wrapper button[aria-label]", function (el) {
      // "Apply credentials" on a button that reads "Authorize": speech users say what they see.
      if (el.getAttribute("aria-label").indexOf(el.textContent.trim()) < 0) el.removeAttribute("aria-label");
    }],
    ["pre.microlight:not([tabindex])", function (el) { el.tabIndex = 0; }],
  ];

  function fix(root) {
    FIXES.forEach(function (entry) {
      root.querySelectorAll(entry[0]).forEach(entry[1]);
    });
  }

  function start() {
    var root = document.getElementById("swagger-ui");
    if (!root || typeof window.SwaggerUIBundle !== "function") return;
    new MutationObserver(function () { fix(root); }).observe(root, {childList: true, subtree: true});
    window.apiDocs = window.SwaggerUIBundle({
      url: root.dataset.specUrl,
      domNode: root,
      presets: [window.SwaggerUIBundle.presets.apis],
      layout: "BaseLayout",          // no top bar: the document is this page's own
      validatorUrl: null,            // the default badge would send the document to swagger.io
      // No deep links: they put a link inside each operation's toggle button (nested controls).
      deepLinking: false,
      docExpansion: "list",
      defaultModelRendering: "model",  // request bodies open on their fields, the example a tab away
      defaultModelExpandDepth: 2,
      defaultModelsExpandDepth: 0,   // the schemas list stays folded: each operation shows its own
      syntaxHighlight: {theme: "idea"},  // dark-on-light colours (the default's numbers are 3.5:1)
      displayRequestDuration: true,
      persistAuthorization: false,   // a pasted token is not kept in localStorage
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
