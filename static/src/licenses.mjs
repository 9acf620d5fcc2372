// Writes the license texts of every npm package that esbuild put into a bundle.
// Usage: node static/src/licenses.mjs <esbuild metafile> <output .txt>
// (CodeMirror and Lezer ship no license comments in their sources, so the bundle's
// banner points to this file instead.)
import { readFileSync, writeFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";

const [metaPath, outPath] = process.argv.slice(2);
if (!metaPath || !outPath) {
  console.error("usage: node static/src/licenses.mjs META.json OUT.txt");
  process.exit(2);
}
const meta = JSON.parse(readFileSync(metaPath, "utf8"));
const roots = new Set();
for (const input of Object.keys(meta.inputs)) {
  const m = /^(.*?node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (m) roots.add(m[1]);
}

const sections = [];
const unlicensed = [];
for (const root of [...roots].sort()) {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const file = readdirSync(root).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  const text = file && existsSync(join(root, file)) ? readFileSync(join(root, file), "utf8").trim() : "";
  if (!text) unlicensed.push(`${pkg.name}@${pkg.version}`);
  sections.push(`${pkg.name}@${pkg.version} (${pkg.license || "see package"})\n\n${text || "(no license file in the package)"}`);
}

const header = "Third-party software in static/vendor/editor.js (KernelPath code editor).\n" +
  "Generated at build time from the installed npm packages.";
writeFileSync(outPath, [header, ...sections].join("\n\n" + "-".repeat(72) + "\n\n") + "\n");
if (unlicensed.length) console.warn("licenses: no license file in " + unlicensed.join(", "));
console.log(`licenses: ${roots.size} packages -> ${outPath}`);
