// Drives odori's npm package with three.js in headless Chromium for tests/three.rs:
//   node three.mjs PROJECT_DIR OUT_DIR GENE_DIR VMD CAMERA_VMD FRAME
// PROJECT_DIR holds the packed package and three installed (node_modules) and the pages
// (example.html: the package's one-file example; three.html: the test page); they are served
// from it through Playwright's request routing, Gene's folder under gene/. Writes into OUT_DIR:
// example.png (the example after two seconds), gene_three.png (three.js's frame FRAME at
// 640×360) and result.json. Asserts nothing: the Rust test judges.
import { chromium } from "playwright-core";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [project, out, geneDir, vmd, cameraVmd, frame] = process.argv.slice(2)
  .map((a, i) => (i < 5 ? path.resolve(a) : a));
const W = 640;
const H = 360;
const TIMED = 600;
const ORIGIN = "http://odori.test";
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm" };

function walk(dir, root = dir, found = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, root, found);
    else found.push(path.relative(root, p));
  }
  return found;
}

const profile = fs.mkdtempSync(path.join(os.tmpdir(), "odori-three-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1000, height: 700 },
  args: ["--no-sandbox", "--headless", "--disable-gpu", "--enable-unsafe-swiftshader",
    "--disable-background-networking", "--disable-component-update", "--no-first-run"],
});
await context.route(`${ORIGIN}/**`, (route) => {
  const rel = decodeURIComponent(new URL(route.request().url()).pathname).slice(1);
  const file = rel.startsWith("gene/") ? path.join(geneDir, rel.slice(5))
    : rel === "dance.vmd" ? vmd
      : rel === "camera.vmd" ? cameraVmd
        : path.join(project, rel);
  if (!file.startsWith(project) && !file.startsWith(geneDir) && file !== vmd && file !== cameraVmd) {
    return route.fulfill({ status: 403 });
  }
  if (!fs.existsSync(file)) return route.fulfill({ status: 404 });
  return route.fulfill({
    status: 200,
    contentType: TYPES[path.extname(file)] || "application/octet-stream",
    body: fs.readFileSync(file),
  });
});
const page = context.pages()[0] || (await context.newPage());
const log = [];
page.on("console", (m) => log.push(`${m.type()}: ${m.text()}`));
page.on("pageerror", (e) => log.push(`pageerror: ${e.message}`));
const result = {};
try {
  // The one-file example: the demo through the package, no files.
  await page.setViewportSize({ width: W, height: H });
  await page.goto(`${ORIGIN}/example.html`);
  await page.waitForFunction(() => window.odoriExample && window.odoriExample.frame() > 30,
    null, { timeout: 120000, polling: 100 });
  result.exampleFrame = await page.evaluate(() => window.odoriExample.frame());
  await page.locator("#view").screenshot({ path: path.join(out, "example.png") });

  // Gene through the adapter.
  await page.goto(`${ORIGIN}/three.html`);
  const files = walk(geneDir).filter((f) => !f.endsWith(".pmd"));
  Object.assign(result, await page.evaluate((args) => window.runGene(args), {
    files, dance: "dance.vmd", cameraVmd: "camera.vmd", frame: Number(frame), width: W, height: H, timed: TIMED,
  }));
  await page.locator("#view").screenshot({ path: path.join(out, "gene_three.png") });
} catch (e) {
  result.error = String(e && e.stack || e);
} finally {
  result.log = log;
  fs.writeFileSync(path.join(out, "result.json"), JSON.stringify(result));
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
