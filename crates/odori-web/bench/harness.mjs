// What the measurement scripts (run.mjs, ab.mjs, profile.mjs) share: a static server for
// folders under URL prefixes, headless Chromium with the browser test's flags and a fresh
// profile, and the files of Gene_light × wavefile_v2 as a file input takes them.
import { chromium } from "playwright-core";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm",
  ".css": "text/css", ".png": "image/png", ".json": "application/json" };

// Serve each folder of `roots` ({ prefix: dir }) at /prefix/ from a free local port; never a
// path with `..`. Returns { base, close }.
export async function serve(roots) {
  const server = http.createServer((req, res) => {
    const [, top, ...rest] = decodeURIComponent(req.url.split("?")[0]).split("/");
    const root = roots[top];
    const file = root && path.join(root, rest.join("/") || "index.html");
    if (!file || rest.includes("..") || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[path.extname(file)] || "application/octet-stream" });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { base: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

// The system Chromium, headless, WebGL2 on SwiftShader, with a fresh profile that `close`
// removes. Returns { context, close }.
export async function launch(viewport = { width: 1000, height: 700 }) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "odori-bench-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    viewport,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--enable-unsafe-swiftshader"],
  });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Gene_light.pmx, its texture folder and wavefile_v2.vmd under ASSETS_DIR (../shared/assets).
export function geneFiles(assetsDir) {
  const gene = path.join(assetsDir, "gene");
  return [path.join(gene, "Gene_light.pmx"), path.join(assetsDir, "wavefile", "wavefile_v2.vmd"),
    ...fs.readdirSync(path.join(gene, "light")).map((f) => path.join(gene, "light", f))];
}
