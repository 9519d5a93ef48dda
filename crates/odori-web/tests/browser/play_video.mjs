// Plays an MP4 in headless Chromium, as a person opening the file would, for the tests that
// join MP4 segments: node play_video.mjs VIDEO.mp4
// Prints one JSON line: the video's size and duration as Chromium reads them, the frames it
// decoded playing it through to the end, whether it ended, any media error, and the mean
// brightness of the frame shown at one second (drawn onto a canvas). Asserts nothing: the
// Rust test judges the figures.
import { chromium } from "playwright-core";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [video] = process.argv.slice(2);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "odori-video-"));
fs.copyFileSync(video, path.join(dir, "v.mp4"));
fs.writeFileSync(path.join(dir, "index.html"),
  "<!doctype html><video id=v src=v.mp4 muted playsinline></video><canvas id=c></canvas>");
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--headless", "--disable-gpu", "--autoplay-policy=no-user-gesture-required",
    "--allow-file-access-from-files"],
});
const result = {};
try {
  const page = await browser.newPage();
  await page.goto("file://" + path.join(dir, "index.html"));
  Object.assign(result, await page.evaluate(() => new Promise((resolve) => {
    const v = document.getElementById("v");
    const out = {};
    v.onerror = () => resolve({ error: v.error ? `${v.error.code}: ${v.error.message}` : "error" });
    const loaded = async () => {
      out.width = v.videoWidth;
      out.height = v.videoHeight;
      out.duration = v.duration;
      v.currentTime = Math.min(1, v.duration / 2);
      await new Promise((r) => { v.onseeked = r; });
      const c = document.getElementById("c");
      c.width = v.videoWidth; c.height = v.videoHeight;
      const g = c.getContext("2d");
      g.drawImage(v, 0, 0);
      const px = g.getImageData(0, 0, c.width, c.height).data;
      let sum = 0;
      for (let i = 0; i < px.length; i += 4) sum += px[i] + px[i + 1] + px[i + 2];
      out.meanAtOneSecond = sum / (px.length / 4) / 3;
      v.currentTime = 0;
      await new Promise((r) => { v.onseeked = r; });
      v.onended = () => {
        out.ended = true;
        out.decodedFrames = v.getVideoPlaybackQuality().totalVideoFrames;
        resolve(out);
      };
      v.play().catch((e) => resolve({ ...out, error: String(e) }));
    };
    // The page may have loaded the video before this runs.
    if (v.readyState >= 2) loaded(); else v.onloadeddata = loaded;
    setTimeout(() => resolve({ ...out, error: "timed out" }), 60000);
  })));
} catch (e) {
  result.error = String(e);
} finally {
  await browser.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify(result));
