// KernelPath code editor: upgrades every <textarea data-code-editor> into a CodeMirror 6 editor.
//
// Built into static/vendor/editor.js by `make static/vendor/editor.js` (esbuild, IIFE, no
// runtime downloads). The textarea stays in the form, hidden, and always holds the current
// code, so a plain form POST sends it; without the bundle the textarea simply works as is.
//
// HTML contract
//   <label for="code">Your kernel</label>
//   <textarea id="code" name="code" data-code-editor rows="24">...</textarea>
//     data-code-editor            Python, with CUDA C++ highlighted inside kernel strings
//     data-code-editor="python"   the same
//     data-code-editor="cpp"      C++ / CUDA source ("cuda" is accepted too)
//     data-code-editor="verilog"  Verilog / SystemVerilog ("systemverilog" is accepted too)
//     data-code-editor="yaml"     YAML (alerting rules)
//     data-code-editor="plain"    no highlighting (PTX / SASS listings, logs)
//     readonly (or disabled)      read-only viewer: select, search and copy, no editing
//     rows="N"                    minimum height in lines (the editor grows to 75% of the viewport)
//     placeholder="..."           shown while the editor is empty
//   The accessible name comes from the textarea's <label>, aria-label or aria-labelledby.
//
// JS API (window.KernelPathEditor)
//   get(textarea)             -> the EditorView, or null when that textarea was not upgraded
//   setValue(textarea, text)  replace the whole content (textarea.value follows; no input event)
//   setLanguage(textarea, kind) highlight as another language (the data-code-editor values)
//   upgrade(root = document)  upgrade textareas added to the page later (idempotent)
// Include it with <script src="/static/vendor/editor.js" defer></script>; page scripts that
// use the API run after it (defer, or on DOMContentLoaded) and test `window.KernelPathEditor`
// first, falling back to textarea.value when the bundle is absent.
// Every edit by the user updates textarea.value and fires a bubbling "input" event on it.
//
// Typing: the editor inserts only what is typed (no auto-closed brackets or quotes, no automatic
// indentation), so typing a file key by key gives that file.
// Keyboard: Tab / Shift-Tab indent and dedent. Escape then Tab (or Shift-Tab) moves focus
// out of the editor; Ctrl-M (Shift-Alt-M on macOS) toggles Tab between indenting and moving
// focus. Ctrl/Cmd-F searches, Ctrl/Cmd-Z / Shift-Ctrl/Cmd-Z undo and redo.

import {
  EditorView, keymap, lineNumbers, highlightActiveLineGutter, highlightSpecialChars,
  drawSelection, dropCursor, rectangularSelection, crosshairCursor, highlightActiveLine,
  placeholder,
} from "@codemirror/view";
import { EditorState, Annotation, Compartment } from "@codemirror/state";
import {
  defaultKeymap, history, historyKeymap, indentWithTab, insertNewline,
} from "@codemirror/commands";
import {
  indentUnit, bracketMatching, syntaxHighlighting, defaultHighlightStyle, LanguageSupport,
  StreamLanguage,
} from "@codemirror/language";
import { search, searchKeymap, highlightSelectionMatches } from "@codemirror/search";
import { python, pythonLanguage } from "@codemirror/lang-python";
import { cpp, cppLanguage } from "@codemirror/lang-cpp";
import { parseMixed } from "@lezer/common";
import { verilog } from "@codemirror/legacy-modes/mode/verilog";
import { yaml } from "@codemirror/legacy-modes/mode/yaml";

// ---- Languages ---------------------------------------------------------------------------

// A Python string is CUDA source when it is a multi-line raw string (r"""...""", the usual
// way to write a cupy.RawKernel) or when its text looks like C++ (kernel qualifiers, extern "C",
// #include), whatever its quotes.
const STRING_START = /^([rRbBuU]{0,2})("""|'''|"|')/;
const LOOKS_LIKE_CUDA = /__global__|__device__|__shared__|extern\s+"C"|#\s*include\s*[<"]/;

function cudaInPythonStrings(node, input) {
  if (node.name !== "String") return null;
  const head = input.read(node.from, Math.min(node.to, node.from + 5));
  const m = STRING_START.exec(head);
  if (!m) return null;
  const from = node.from + m[0].length;
  const to = node.to - m[2].length;
  if (to <= from) return null;
  const body = input.read(from, to);
  const raw = /[rR]/.test(m[1]);
  if (!(LOOKS_LIKE_CUDA.test(body) || (raw && m[2].length === 3 && body.includes("\n")))) return null;
  return { parser: cppLanguage.parser, overlay: [{ from, to }] };
}

const pythonWithCuda = pythonLanguage.configure({ wrap: parseMixed(cudaInPythonStrings) });

function languageFor(kind) {
  switch ((kind || "").trim().toLowerCase()) {
    case "plain":
    case "text":
      return [];
    case "cpp":
    case "c++":
    case "cuda":
      return cpp();
    case "verilog":
    case "systemverilog":
      return StreamLanguage.define(verilog);
    case "yaml":
      return StreamLanguage.define(yaml);
    default: // "", "python"
      return new LanguageSupport(pythonWithCuda, python().support);
  }
}

// ---- Look ---------------------------------------------------------------------------------

const MONO = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace';

const kernelPathTheme = EditorView.theme({
  "&": {
    backgroundColor: "#ffffff",
    border: "1px solid #c9d1d9",
    borderRadius: "4px",
    fontSize: "14px",
    maxHeight: "75vh",
  },
  // A clearly visible focus ring (WCAG 2.4.7): the editor's content element has the focus,
  // the ring is drawn on the whole editor.
  "&.cm-focused": {
    outline: "3px solid #1f6feb",
    outlineOffset: "1px",
  },
  ".cm-scroller": { fontFamily: MONO, lineHeight: "1.45", overflow: "auto" },
  ".cm-gutters": { backgroundColor: "#f6f8fa", color: "#57606a", borderRight: "1px solid #e3e6ea" },
  ".cm-activeLineGutter": { backgroundColor: "#e8f1ff", color: "#1b1f24" },
  ".cm-activeLine": { backgroundColor: "#f5f9ff" },
  "&.cm-focused .cm-matchingBracket": { backgroundColor: "#d7f0c2", outline: "1px solid #76b900" },
  "&.cm-focused .cm-nonmatchingBracket": { backgroundColor: "#ffd8d8" },
  ".cm-panels": { fontFamily: "system-ui, sans-serif" },
});

const readOnlyTheme = EditorView.theme({
  "&": { backgroundColor: "#f6f8fa" },
  ".cm-activeLine": { backgroundColor: "transparent" },
});

// ---- Upgrade ------------------------------------------------------------------------------

const views = new WeakMap();
const programmatic = Annotation.define();

function collapse(text) {
  return (text || "").replace(/\s+/g, " ").trim();
}

function accessibleName(textarea) {
  const own = textarea.getAttribute("aria-label");
  if (own) return { "aria-label": own };
  const by = textarea.getAttribute("aria-labelledby");
  if (by) return { "aria-labelledby": by };
  const labels = textarea.labels ? Array.from(textarea.labels) : [];
  const text = collapse(labels.map((l) => l.textContent).join(" "));
  if (text) return { "aria-label": text };
  const title = textarea.getAttribute("title") || textarea.getAttribute("placeholder");
  return { "aria-label": collapse(title) || "Code editor" };
}

function minHeightFor(textarea, readOnly) {
  const rows = parseInt(textarea.getAttribute("rows") || "", 10);
  const lines = rows > 0 ? rows : (readOnly ? 4 : 20);
  return `${(lines * 1.45).toFixed(2)}em`;
}

// The highlighting language, swappable when a task takes several (Python or C++).
const languages = new Compartment();

function upgradeOne(textarea) {
  if (views.has(textarea)) return views.get(textarea);
  const readOnly = textarea.readOnly || textarea.disabled;

  // tabindex: the content is focusable anyway (contenteditable); saying so lets checkers such
  // as axe see that the scrolling editor is reachable by keyboard.
  const contentAttributes = Object.assign(
    { spellcheck: "false", autocorrect: "off", autocapitalize: "off", translate: "no", tabindex: "0" },
    accessibleName(textarea),
  );
  const describedBy = textarea.getAttribute("aria-describedby");
  if (describedBy) contentAttributes["aria-describedby"] = describedBy;
  if (readOnly) contentAttributes["aria-readonly"] = "true";
  if (textarea.required) contentAttributes["aria-required"] = "true";

  const extensions = [
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightSpecialChars(),
    history(),
    drawSelection(),
    dropCursor(),
    EditorState.allowMultipleSelections.of(true),
    EditorState.tabSize.of(4),
    indentUnit.of("    "),
    syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
    bracketMatching(),
    rectangularSelection(),
    crosshairCursor(),
    highlightActiveLine(),
    highlightSelectionMatches(),
    search({ top: true }),
    languages.of(languageFor(textarea.getAttribute("data-code-editor"))),
    EditorView.contentAttributes.of(contentAttributes),
    kernelPathTheme,
    EditorView.theme({ ".cm-content, .cm-gutter": { minHeight: minHeightFor(textarea, readOnly) } }),
    EditorView.updateListener.of((update) => {
      if (!update.docChanged) return;
      textarea.value = update.state.doc.toString();
      const fromPage = update.transactions.some((tr) => tr.annotation(programmatic));
      if (!fromPage) textarea.dispatchEvent(new Event("input", { bubbles: true }));
    }),
  ];
  if (readOnly) {
    // Still focusable and selectable (keyboard users can scroll, search and copy);
    // Tab is left to the browser, so it always moves focus.
    extensions.push(EditorState.readOnly.of(true), readOnlyTheme,
      keymap.of([...defaultKeymap, ...searchKeymap]));
  } else {
    const text = textarea.getAttribute("placeholder");
    if (text) extensions.push(placeholder(text));
    // What is typed is what the file holds: no closing brackets or quotes added, no automatic
    // indentation on Enter or re-indenting as you type (typed indentation would be doubled and
    // typed closers left over). Tab and Shift-Tab indent and dedent a line or a selection.
    extensions.push(keymap.of([
      { key: "Enter", run: insertNewline },
      ...defaultKeymap, ...searchKeymap, ...historyKeymap,
      // Tab indents. CodeMirror's documented escape hatch stays on: Escape then Tab moves
      // focus out, and Ctrl-M / Shift-Alt-M toggles Tab focus mode.
      indentWithTab,
    ]));
  }

  const view = new EditorView({
    state: EditorState.create({ doc: textarea.value, extensions }),
  });
  view.dom.classList.add("kp-code-editor");
  if (readOnly) view.dom.classList.add("kp-code-editor-readonly");
  textarea.insertAdjacentElement("afterend", view.dom);
  textarea.style.display = "none";
  textarea.setAttribute("data-code-editor-ready", "");
  views.set(textarea, view);

  // Clicking the label focuses the editor (the textarea itself is hidden).
  if (textarea.labels) {
    for (const label of textarea.labels) label.addEventListener("click", () => view.focus());
  }
  // A required, empty textarea blocks the submit: bring the candidate to the editor.
  textarea.addEventListener("invalid", () => view.focus());
  // form.reset() restores the textarea's default text: show it in the editor too.
  if (textarea.form) {
    textarea.form.addEventListener("reset", () => setTimeout(() => setValue(textarea, textarea.value), 0));
  }
  return view;
}

function upgrade(root) {
  const scope = root || document;
  const found = [];
  if (scope.matches && scope.matches("textarea[data-code-editor]")) found.push(scope);
  if (scope.querySelectorAll) found.push(...scope.querySelectorAll("textarea[data-code-editor]"));
  return found.map(upgradeOne);
}

function get(textarea) {
  return views.get(textarea) || null;
}

function setValue(textarea, text) {
  const value = text == null ? "" : String(text);
  const view = views.get(textarea);
  if (!view) {
    textarea.value = value;
    return;
  }
  view.dispatch({
    changes: { from: 0, to: view.state.doc.length, insert: value },
    selection: { anchor: 0 },
    scrollIntoView: true,
    annotations: programmatic.of(true),
  });
  textarea.value = value; // also when the text did not change
}

function setLanguage(textarea, kind) {
  textarea.setAttribute("data-code-editor", kind || "");
  const view = views.get(textarea);
  if (view) view.dispatch({ effects: languages.reconfigure(languageFor(kind)) });
}

window.KernelPathEditor = { get, setValue, setLanguage, upgrade };

// Upgrade what is already parsed (so a script right after this one can call get()), and
// whatever follows once the document is complete (upgrading twice is a no-op).
upgrade(document);
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => upgrade(document));
}
