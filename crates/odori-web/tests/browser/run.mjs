// Drives odori's web page in Chromium for tests/browser.rs:
//   node run.mjs URL OUT_DIR [GENE_DIR VMD] [--bench]
// ODORI_WEB_BACKEND=webgl (default): headless, WebGL2 on SwiftShader. =webgpu: a window on
// $DISPLAY (Xvfb), WebGPU on SwiftShader's Vulkan (headless Chromium loses a WebGPU device at
// its first frame on a canvas); after demo.png the page's device is destroyed as a browser
// losing it would, and demo_recovered.png is the demo at the same frame on the canvas the page
// reopened with WebGL2.
// URL serves the built page. Writes into OUT_DIR: demo.png (the canvas at frame DEMO_FRAME,
// paused), gene.png (Gene_light.pmx with its textures, then wavefile_v2, loaded through the
// file input, at frame GENE_FRAME), error.png (after a truncated PMX), and result.json with what
// the page reported. Asserts nothing: the Rust test judges the figures.
import { chromium } from "playwright-core";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [url, out, geneDir, vmd, ...flags] = process.argv.slice(2);
const bench = flags.includes("--bench") || geneDir === "--bench";
const DEMO_FRAME = 120;
const GENE_FRAME = 300;
// Frames whose pose the test holds to native's: without physics, with (tests/browser.rs).
const [POSE_FRAMES, PHYSICS_FRAMES] = (process.env.ODORI_WEB_DIGEST || "300,200").split(",").map(Number);
// ODORI_WEB_SIZE=1280x720 for measurements (the Rust test compares at 640×360).
const [W, H] = (process.env.ODORI_WEB_SIZE || "640x360").split("x").map(Number);
const MSAA = +(process.env.ODORI_WEB_MSAA || 4);
// ODORI_WEB_DECODE=browser: PNG/JPEG textures decoded by the browser (createImageBitmap).
const DECODE = process.env.ODORI_WEB_DECODE ? `&decode=${process.env.ODORI_WEB_DECODE}` : "";
const BACKEND = process.env.ODORI_WEB_BACKEND || "webgl";
const result = { backend: BACKEND };

const profile = fs.mkdtempSync(path.join(os.tmpdir(), "odori-web-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: "/usr/bin/chromium",
  headless: BACKEND === "webgl",
  viewport: { width: 1000, height: 700 },
  args: ["--no-sandbox", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--enable-unsafe-swiftshader",
    ...(BACKEND === "webgl" ? ["--headless", "--disable-gpu"]
      : ["--enable-unsafe-webgpu", "--enable-features=Vulkan", "--use-vulkan=swiftshader"])],
});
const page = context.pages()[0] || (await context.newPage());
const log = [];
page.on("console", (m) => log.push(`${m.type()}: ${m.text()}`));
page.on("pageerror", (e) => log.push(`pageerror: ${e.message}`));
const requests = [];
page.on("request", (r) => requests.push(r.url()));
const wait = (fn, arg, timeout = 120000) => page.waitForFunction(fn, arg, { timeout, polling: 100 });
const canvasShot = (file) => page.locator("#view").screenshot({ path: path.join(out, file) });

try {
  const t0 = Date.now();
  const backendParam = BACKEND === "webgl" ? "&backend=webgl" : "";
  await page.goto(`${url}?w=${W}&h=${H}${backendParam}&msaa=${MSAA}${DECODE}`);
  await wait(() => window.odori && (window.odori.firstFrameMs !== null || window.odori.lastError));
  result.firstFrameWallMs = Date.now() - t0;
  result.firstFrameMs = await page.evaluate(() => window.odori.firstFrameMs);
  result.startError = await page.evaluate(() => window.odori.lastError);
  if (result.startError) throw new Error(result.startError);
  result.adapter = await page.evaluate(() => window.odori.adapter());
  result.webgpu = await page.evaluate(() => window.odori.webgpu());
  // The demo plays on its own: its position moves on from frame 0 over animation frames.
  await wait(() => window.odori.position() > 3 && window.odori.frames() > 3);
  result.demoPosition = await page.evaluate(() => window.odori.position());
  await page.evaluate((f) => window.odori.seek(f), DEMO_FRAME);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  result.demoFrame = await page.evaluate(() => window.odori.position());
  await canvasShot("demo.png");
  result.demoTimes = await page.evaluate(() => window.odori.times());
  result.recoveriesBefore = await page.evaluate(() => window.odori.recoveries());
  if (BACKEND === "webgl") {
    // Paused, the page draws nothing until something changes; a drag on the canvas (orbit)
    // draws the new view. (Not in the WebGPU run, whose frame after recovery is compared.)
    const p0 = await page.evaluate(() => window.odori.frames());
    await page.waitForTimeout(1000);
    result.pausedDrawn = (await page.evaluate(() => window.odori.frames())) - p0;
    const box = await page.locator("#view").boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 40, box.y + box.height / 2, { steps: 4 });
    await page.mouse.up();
    const p1 = await page.evaluate(() => window.odori.frames());
    await wait((p) => window.odori.frames() > p, p0);
    await page.waitForTimeout(500);
    result.draggedDrawn = [p1 - p0, (await page.evaluate(() => window.odori.frames())) - p0];
  }

  if (BACKEND === "webgpu") {
    // The device lost: the page reopens on a fresh canvas with WebGL2 and draws on.
    await page.evaluate(() => { window.odori.play(); window.odori.loseDevice(); });
    await wait(() => window.odori.recoveries() >= 1 && window.odori.ready);
    result.recoveredAdapter = await page.evaluate(() => window.odori.adapter());
    result.recoveredWebGpu = await page.evaluate(() => window.odori.webgpu());
    result.recoveryMessage = await page.evaluate(() => window.odori.lastError);
    const f0 = await page.evaluate(() => window.odori.frames());
    await wait((f) => window.odori.frames() > f + 3, f0);
    await page.evaluate((f) => window.odori.seek(f), DEMO_FRAME);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    result.recoveredFrame = await page.evaluate(() => window.odori.position());
    // The message box above the canvas goes, so the page's layout is the first shot's.
    await page.evaluate(() => { document.getElementById("error").hidden = true; });
    await canvasShot("demo_recovered.png");
  }

  if (geneDir && geneDir !== "--bench") {
    // The model with its textures first (the browser decodes the PNGs: hashed for the test),
    // then the motion on its own, which goes to the model already there.
    const files = [path.join(geneDir, "Gene_light.pmx"),
      ...fs.readdirSync(path.join(geneDir, "light")).map((f) => path.join(geneDir, "light", f))];
    // ODORI_WEB_HASH=0 (timing the load): no hashing in the page.
    await page.evaluate((h) => { window.odori.hashDecoded = h; }, process.env.ODORI_WEB_HASH !== "0");
    await page.setInputFiles("#files", files);
    await wait(() => window.odori.loads >= 1 || window.odori.lastError);
    result.geneError = await page.evaluate(() => window.odori.lastError);
    result.geneWarnings = await page.evaluate(() => window.odori.warnings);
    result.geneDecoded = await page.evaluate(() => window.odori.decoded);
    result.geneLoadMs = await page.evaluate(() => window.odori.loadMs);
    result.geneDecodeMs = await page.evaluate(() => window.odori.decodeMs);
    result.geneEndBefore = await page.evaluate(() => window.odori.endFrame());
    await page.setInputFiles("#files", [vmd]);
    await wait(() => window.odori.loads >= 2 || window.odori.lastError);
    result.motionError = await page.evaluate(() => window.odori.lastError);
    result.geneEndAfter = await page.evaluate(() => window.odori.endFrame());
    // What the page shows of it: the warnings above the picture, the header's scene line and
    // its file list.
    result.geneShown = await page.evaluate(() => ({
      warnings: [...document.querySelectorAll("#warnings li")].map((li) => li.textContent),
      warningsHidden: document.getElementById("warnings").hidden,
      status: document.getElementById("status").textContent,
      files: [...document.querySelectorAll("#filelist li")].map((li) => li.textContent),
    }));
    // Pose, and pose with physics, of as many frames as the test asks (ODORI_WEB_DIGEST), for
    // it to hold to native's.
    result.poseDigest = await page.evaluate((n) => window.odori.poseDigest(n, false), POSE_FRAMES);
    result.physicsDigest = await page.evaluate((n) => window.odori.poseDigest(n, true), PHYSICS_FRAMES);
    // ODORI_WEB_SONG_ZIP: a zip holding only a song, dropped on the dancing model. Its sound
    // is held back as a browser holds it until the page is clicked (headless Chromium lets
    // it start, so the page's context is suspended by hand): the wall clock drives the
    // picture meanwhile; after a click, the sound's clock drives it.
    if (process.env.ODORI_WEB_SONG_ZIP) {
      await page.setInputFiles("#files", [process.env.ODORI_WEB_SONG_ZIP]);
      await wait(() => window.odori.loads >= 3 || window.odori.lastError);
      result.songError = await page.evaluate(() => window.odori.lastError);
      result.songEnd = await page.evaluate(() => window.odori.endFrame());
      await page.evaluate(() => window.odori.holdSound());
      await wait(() => window.odori.song().state === "suspended");
      result.songHeld = await page.evaluate(() => window.odori.song());
      await page.evaluate(() => window.odori.play());
      const q0 = await page.evaluate(() => window.odori.position());
      await wait((q) => window.odori.position() > q + 3, q0);
      result.songHeldMoved = [q0, await page.evaluate(() => window.odori.position())];
      await page.locator(".hint").click();
      await wait(() => window.odori.song().state === "running" && window.odori.song().playing);
      // Some frames on the sound's clock, then where sound and picture are.
      const f0 = await page.evaluate(() => window.odori.frames());
      await wait((f) => window.odori.frames() > f + 10, f0);
      result.songRunning = await page.evaluate(() => new Promise((r) =>
        requestAnimationFrame(() => r(window.odori.song()))));
      await page.evaluate(() => window.odori.seek(0));
    }
    // Plays: the position moves on from where the load left it.
    await page.evaluate(() => window.odori.play());
    const p0 = await page.evaluate(() => window.odori.position());
    await wait((p) => window.odori.position() > p + 3, p0);
    result.genePlayedFrom = p0;
    result.genePlayedTo = await page.evaluate(() => window.odori.position());
    result.geneTimes = await page.evaluate(() => window.odori.times());
    await page.evaluate((f) => window.odori.seek(f), GENE_FRAME);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    result.geneFrame = await page.evaluate(() => window.odori.position());
    await canvasShot("gene.png");

    if (bench) {
      // Gene × wavefile_v2: mean µs per frame over frames 1..N in order, nothing drawn.
      const n = 600;
      result.bench = {};
      for (let round = 0; round < 2; round++) {
        for (const [name, physics, deform] of [["pose", false, false], ["pose+physics", true, false], ["pose+physics+skinning", true, true]]) {
          const us = await page.evaluate(([n, p, d]) => window.odori.bench(n, p, d), [n, physics, deform]);
          (result.bench[name] ||= []).push(us);
        }
      }
      // Drawing while playing at this size: frames per second over 5 s of animation frames.
      await page.evaluate(() => window.odori.play());
      const f0 = await page.evaluate(() => window.odori.frames());
      await page.waitForTimeout(5000);
      result.playFps = ((await page.evaluate(() => window.odori.frames())) - f0) / 5;
    }

    // A truncated PMX: the page says what is wrong with which file, and plays on.
    const truncated = path.join(out, "truncated.pmx");
    fs.writeFileSync(truncated, fs.readFileSync(path.join(geneDir, "Gene_light.pmx")).subarray(0, 100000));
    await page.evaluate(() => window.odori.play());
    await page.setInputFiles("#files", [truncated]);
    await wait(() => window.odori.lastError);
    result.truncatedError = await page.evaluate(() => window.odori.lastError);
    result.errorShown = await page.evaluate(() => !document.getElementById("error").hidden
      && document.getElementById("error").textContent);
    const [f1, q1] = await page.evaluate(() => [window.odori.frames(), window.odori.position()]);
    await wait(([f, q]) => window.odori.frames() > f + 5 && window.odori.position() > q + 1, [f1, q1]);
    result.afterError = await page.evaluate(() => [window.odori.frames(), window.odori.position()]);
    result.afterErrorFrom = [f1, q1];
    await canvasShot("error.png");
    await page.screenshot({ path: path.join(out, "error_page.png") });

    // Clear: the dropped files are forgotten and the demo plays (dropped models join the
    // others, so this is how a user starts over).
    result.endBeforeClear = await page.evaluate(() => window.odori.endFrame());
    await page.click("#clear");
    await wait(() => document.getElementById("status").textContent.startsWith("embedded demo"));
    result.cleared = await page.evaluate(() => ({
      status: document.getElementById("status").textContent,
      filesHidden: document.getElementById("filelist").hidden,
      song: window.odori.song(),
      endFrame: window.odori.endFrame(),
    }));
    await canvasShot("cleared.png");
  }
} catch (e) {
  result.failure = String(e && e.stack || e);
}
result.log = log;
const origin = new URL(url).origin;
result.foreignRequests = requests.filter((r) => !r.startsWith(origin) && !r.startsWith("data:") && !r.startsWith("blob:"));
fs.writeFileSync(path.join(out, "result.json"), JSON.stringify(result, null, 1));
await context.close();
fs.rmSync(profile, { recursive: true, force: true });
