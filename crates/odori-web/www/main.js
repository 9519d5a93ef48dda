// The page around odori's wasm module: clock, controls, files and audio. odori (Rust) poses,
// simulates, deforms and draws; this script owns the clock (the audio's when a soundtrack
// plays, so motion and sound stay together), the controls, and reading dropped files.
import init, { App, framesPerSecond } from "./odori_web.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
let canvas = $("view"); // replaced by a fresh one when the GPU device is lost
if (params.has("w")) canvas.width = +params.get("w");
if (params.has("h")) canvas.height = +params.get("h");

const state = {
  app: null, playing: !params.has("paused"), last: null, frames: 0, loading: false,
  recoveries: 0, // times the page reopened on a new canvas after losing its GPU device
  // Something changed what a paused picture shows (a seek, the camera, files): draw it. A
  // paused page draws nothing else, as the window does (a software-drawn frame costs a core).
  dirty: true,
  audio: null, // { ctx, buffer, source, startedAt (ctx time of frame 0) }
  audioFile: null,
  fps: { since: null, frames: 0, value: 0 }, // frames drawn over the last second
};

function showError(message) {
  const e = $("error");
  e.textContent = message;
  e.hidden = false;
  window.odori.lastError = message;
}

// Warnings of the last load (a texture not found, motion tracks that match nothing), one line
// each, over the picture until dismissed.
function showWarnings(warnings) {
  const box = $("warnings");
  const list = box.querySelector("ul");
  list.replaceChildren(...warnings.map((w) => Object.assign(document.createElement("li"), { textContent: w })));
  box.hidden = warnings.length === 0;
}

// The header's line: what plays, compactly (the scene's models as loaded, then motions, camera
// and song by file name), with every file loaded behind a disclosure. Every drop joins the list
// (a dropped model joins the others); Clear empties it.
let sceneFiles = [];
function showScene(drop) {
  sceneFiles = [...sceneFiles, ...drop];
  const list = sceneFiles;
  const name = (p) => p.split(/[\\/]/).pop();
  const of = (re) => list.map((f) => f.path).filter((p) => re.test(p)).map(name);
  const parts = [];
  // The models the scene holds (a PMD twin of a PMX, or a file that failed, is not among them).
  const models = state.app.model_names();
  const motions = of(/\.(vmd|vpd)$/i);
  const songs = of(AUDIO);
  if (models.length) parts.push(models.join(", "));
  if (motions.length) parts.push(motions.length > 2 ? `${motions.length} motions` : motions.join(", "));
  if (songs.length) parts.push(`♪ ${songs.join(", ")}`);
  const adapter = $("status").textContent.split(" — ").pop();
  $("status").textContent = `${parts.join(" · ") || "files"} — ${adapter}`;
  const files = $("filelist");
  files.querySelector("summary").textContent = `${list.length} file${list.length === 1 ? "" : "s"}`;
  files.querySelector("ul").replaceChildren(
    ...list.map((f) => Object.assign(document.createElement("li"), { textContent: f.path })));
  files.hidden = false;
}

// The switches the user wants (a switch that does not apply to the scene shows unticked and
// disabled, and comes back as the user left it when a scene it applies to is loaded).
const wanted = { physics: true, camera: true };

function syncControls() {
  const app = state.app;
  $("timeline").max = Math.max(1, Math.ceil(app.end_frame()));
  $("play").textContent = state.playing ? "Pause" : "Play";
  for (const [id, on] of [["physics", app.has_physics()], ["camera", app.has_motion_camera()]]) {
    $(id).disabled = !on;
    $(id).checked = on && wanted[id];
  }
}

// The audio clock: the soundtrack's time is the motion's (MMD frame = seconds × MMD's frames
// a second, framesPerSecond(), set once the module is loaded).
let FPS = 0;
function startAudio() {
  const a = state.audio;
  if (!a) return;
  stopAudio();
  const at = state.app.position() / FPS;
  if (at >= a.buffer.duration) return;
  a.source = a.ctx.createBufferSource();
  a.source.buffer = a.buffer;
  a.source.connect(a.ctx.destination);
  a.source.start(0, at);
  a.startedAt = a.ctx.currentTime - at;
}
function stopAudio() {
  const a = state.audio;
  if (a && a.source) { a.source.stop(); a.source = null; }
}

// Most reopenings after lost devices before the page gives up (a browser that keeps losing them).
const MOST_RECOVERIES = 3;

// The GPU device is gone (the browser reset it, or never could present with it: headless
// Chromium on SwiftShader loses a WebGPU device at its first frame): the same scene, clock
// and settings go on on a fresh canvas, with WebGL2, which any browser running this has.
async function recover(why) {
  const old = state.app;
  state.app = null;
  window.odori.ready = false;
  if (++state.recoveries > MOST_RECOVERIES) {
    showError(`The GPU device was lost again (${why}); reload the page.`);
    return;
  }
  const fresh = canvas.cloneNode(false);
  canvas.replaceWith(fresh);
  canvas = fresh;
  wireCanvas();
  try {
    state.app = await App.reopen(old, canvas, true);
  } catch (e) {
    showError(`The GPU device was lost (${why}) and WebGL2 cannot draw either: ${e.message || e}`);
    return;
  }
  showError(`The GPU device was lost (${why}); drawing with WebGL2 from here.`);
  state.dirty = true;
  $("status").textContent = `${$("status").textContent.split(" — ")[0]} — ${state.app.adapter()}`;
  state.last = null;
  window.odori.ready = true;
  requestAnimationFrame(tick);
}

function tick(now) {
  const app = state.app;
  if (!app) return; // reopening: recover() starts the ticks again
  if (state.loading) {
    requestAnimationFrame(tick);
    return;
  }
  const lost = app.device_lost();
  if (lost) {
    recover(lost);
    return;
  }
  if (state.playing) {
    const a = state.audio;
    if (a && a.source && a.ctx.state === "running") {
      app.play_to((a.ctx.currentTime - a.startedAt) * FPS);
    } else if (state.last !== null) {
      app.advance(Math.min(0.25, (now - state.last) / 1000));
    }
    if (app.position() > app.end_frame()) { app.seek(0); startAudio(); }
  }
  state.last = now;
  if (!state.playing && !state.dirty) {
    requestAnimationFrame(tick);
    return;
  }
  state.dirty = false;
  app.render();
  state.frames++;
  if (state.frames === 1) window.odori.firstFrameMs = performance.now();
  $("timeline").value = app.position();
  $("frame").textContent = app.position().toFixed(1);
  // Stage times averaged over the last second's frames (one reading is too coarse: the
  // browser's clock has 0.1 ms steps), and "other", what the frame took beyond them (the
  // browser's compositing, the page, waiting), so the line adds up to the frame.
  const fps = state.fps;
  if (fps.since === null) fps.since = now;
  fps.frames++;
  const t = app.stage_times();
  fps.sums = (fps.sums || [0, 0, 0, 0]).map((v, i) => v + t[i]);
  if (now - fps.since >= 1000) {
    fps.value = (fps.frames * 1000) / (now - fps.since);
    fps.mean = fps.sums.map((v) => v / fps.frames);
    fps.since = now;
    fps.frames = 0;
    fps.sums = [0, 0, 0, 0];
  }
  const m = fps.mean || t;
  const other = fps.value > 0 ? Math.max(0, 1000 / fps.value - m.reduce((a, b) => a + b, 0)) : 0;
  const held = state.audio && state.audio.ctx.state === "suspended" ? " · sound: click to start" : "";
  $("times").textContent = `${fps.value.toFixed(1)} fps · ms: pose ${m[0].toFixed(2)} physics ${m[1].toFixed(2)}` +
    ` deform ${m[2].toFixed(2)} draw ${m[3].toFixed(2)} other ${other.toFixed(1)}${held}`;
  requestAnimationFrame(tick);
}

// Who decodes PNG, JPEG, GIF and WebP textures. `?decode=browser`: the browser's own decoders
// (createImageBitmap, off the main thread) with the pixels read back exactly through WebGL2;
// odori decodes the rest (BMP with MMD's alpha rule, TGA, DDS, SPH/SPA) and anything the
// browser refuses. By default odori decodes everything: in headless Chromium on SwiftShader
// the browser's path (decode + read back) took longer than odori's wasm decoders (README).
const BROWSER_DECODES = params.get("decode") === "browser" ? /\.(png|jpe?g|gif|webp)$/i : null;
const AUDIO = /\.(mp3|wav|ogg|m4a|aac|flac)$/i;
let decoder = null; // a WebGL2 context, to read decoded pixels back exactly

// The file decoded by the browser (off the main thread), or null when it cannot decode it.
async function decodeBitmap(path, file) {
  try {
    return await createImageBitmap(file, {
      premultiplyAlpha: "none", colorSpaceConversion: "none", imageOrientation: "none",
    });
  } catch (e) {
    console.warn(`${path}: the browser did not decode it (${e.message || e}); odori will`);
    return null;
  }
}

// A decoded image's RGBA8 pixels, straight alpha, top row first, as stored: WebGL's unpack
// flags keep the bytes (a 2D canvas would premultiply and round).
function pixelsOf(bitmap) {
  const gl = decoder ||= new OffscreenCanvas(1, 1).getContext("webgl2");
  if (!gl) throw new Error("no WebGL2 to read decoded images");
  const { width: w, height: h } = bitmap;
  const tex = gl.createTexture();
  const fb = gl.createFramebuffer();
  try {
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_COLORSPACE_CONVERSION_WEBGL, gl.NONE);
    gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, w, h, 0, gl.RGBA, gl.UNSIGNED_BYTE, bitmap);
    gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
    const rgba = new Uint8Array(w * h * 4);
    gl.pixelStorei(gl.PACK_ALIGNMENT, 1);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, rgba);
    if (gl.getError() !== gl.NO_ERROR) throw new Error("WebGL could not read the image back");
    return { w, h, rgba };
  } finally {
    gl.deleteFramebuffer(fb);
    gl.deleteTexture(tex);
  }
}

// FNV-1a over bytes, for the tests' check that the browser's pixels are odori's.
function fnv1a(bytes) {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

async function loadFiles(list) {
  // list: [{ path, file }]
  const app = state.app;
  if (!app) {
    showError("odori is opening a new canvas; drop the files again in a moment.");
    return;
  }
  $("error").hidden = true;
  $("warnings").hidden = true;
  const t0 = performance.now();
  // Drawing pauses while the files are read: every await would otherwise let a frame draw
  // (hundreds of ms each on a software rasteriser) between two files. All files are read,
  // and the browser's decodes run, at once.
  state.loading = true;
  try {
    const audio = list.find(({ path }) => AUDIO.test(path));
    const rest = list.filter(({ path }) => !AUDIO.test(path));
    const bytesOf = async (file) => new Uint8Array(await file.arrayBuffer());
    const read = await Promise.all(rest.map(async ({ path, file }) => {
      const bitmap = BROWSER_DECODES && BROWSER_DECODES.test(path) ? await decodeBitmap(path, file) : null;
      return { path, file, bitmap, bytes: bitmap ? null : await bytesOf(file) };
    }));
    window.odori.decodeMs = performance.now() - t0;
    const decoded = [];
    for (const { path, file, bitmap, bytes } of read) {
      let pixels = null;
      if (bitmap) {
        try {
          pixels = pixelsOf(bitmap);
        } catch (e) {
          console.warn(`${path}: ${e.message || e}; odori decodes it`);
        } finally {
          bitmap.close();
        }
      }
      if (pixels) {
        app.add_image(path, pixels.w, pixels.h, pixels.rgba);
        decoded.push({ path, w: pixels.w, h: pixels.h, fnv: window.odori.hashDecoded ? fnv1a(pixels.rgba) : null });
      } else {
        app.add_file(path, bytes || await bytesOf(file));
      }
    }
    window.odori.decoded = decoded;
    if (read.length > 0) {
      const warnings = app.load();
      window.odori.loadMs = performance.now() - t0;
      if (warnings.length) console.warn(warnings.join("\n"));
      window.odori.warnings = warnings;
      showWarnings(warnings);
      if (state.audio) stopAudio();
    }
    if (audio) {
      await loadAudio(audio.path, await audio.file.arrayBuffer());
    } else if (read.length > 0 && app.song_name()) {
      // A song inside a zip: odori found it, the browser decodes it.
      const name = app.song_name();
      await loadAudio(name, app.take_song().buffer);
    }
    syncControls();
    showScene(list);
    window.odori.loads++;
    if (state.playing) startAudio();
  } catch (e) {
    app.discard_pending();
    showError(e.message || String(e));
  } finally {
    state.loading = false;
    state.last = null;
    state.dirty = true;
  }
}

// Start over with the demo: the dropped models, motions, camera and song are forgotten.
function clearScene() {
  if (!state.app || state.loading) return;
  stopAudio();
  state.audio = null;
  state.app.clear();
  sceneFiles = [];
  $("filelist").hidden = true;
  $("error").hidden = true;
  $("warnings").hidden = true;
  const adapter = $("status").textContent.split(" — ").pop();
  $("status").textContent = `embedded demo — ${adapter}`;
  syncControls();
  state.last = null;
  state.dirty = true;
}

async function loadAudio(name, bytes) {
  const ctx = state.audio ? state.audio.ctx : new AudioContext();
  let buffer;
  try {
    buffer = await ctx.decodeAudioData(bytes);
  } catch (e) {
    throw new Error(`${name}: the browser cannot decode this audio (${e.message || e})`);
  }
  stopAudio();
  state.audio = { ctx, buffer, source: null, startedAt: 0, name };
  // Browsers hold sound back until the page has been clicked or typed on (a drop does not
  // count): until then the wall clock moves the picture, and the sound starts where the
  // picture is once the context runs.
  ctx.onstatechange = () => { if (ctx.state === "running" && state.playing) startAudio(); };
  ctx.resume().catch(() => {});
}

// The first click or key on the page lets a held-back sound start.
function resumeAudio() {
  const a = state.audio;
  if (a && a.ctx.state === "suspended") a.ctx.resume().catch(() => {});
}
document.addEventListener("pointerdown", resumeAudio, true);
document.addEventListener("keydown", resumeAudio, true);

function filesOf(input) {
  return [...input.files].map((file) => ({ path: file.webkitRelativePath || file.name, file }));
}

// Folders dropped: walk them (webkitGetAsEntry), keeping paths relative to what was dropped.
async function entries(items) {
  const out = [];
  const walk = async (entry, prefix) => {
    if (entry.isFile) {
      const file = await new Promise((ok, err) => entry.file(ok, err));
      out.push({ path: prefix + entry.name, file });
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((ok, err) => reader.readEntries(ok, err));
        if (!batch.length) break;
        for (const e of batch) await walk(e, prefix + entry.name + "/");
      }
    }
  };
  const roots = [...items].map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean);
  for (const r of roots) await walk(r, "");
  return out;
}

// The canvas's own handlers: orbit by dragging, zoom by the wheel (again on a fresh canvas).
function wireCanvas() {
  let drag = null;
  canvas.onpointerdown = (e) => { drag = [e.clientX, e.clientY]; canvas.setPointerCapture(e.pointerId); };
  canvas.onpointermove = (e) => {
    if (!drag || !state.app) return;
    state.app.orbit(e.clientX - drag[0], e.clientY - drag[1]);
    state.dirty = true;
    drag = [e.clientX, e.clientY];
    $("camera").checked = false;
    wanted.camera = false;
  };
  canvas.onpointerup = () => { drag = null; };
  canvas.onwheel = (e) => {
    e.preventDefault();
    if (state.app) state.app.zoom(-Math.sign(e.deltaY));
    state.dirty = true;
  };
}

// The controls act on whichever app is current (a lost device replaces it).
function wireControls() {
  $("play").onclick = () => {
    if (!state.app) return;
    state.playing = !state.playing;
    state.last = null;
    if (state.playing) startAudio(); else stopAudio();
    syncControls();
  };
  $("timeline").oninput = (e) => {
    if (!state.app) return;
    state.app.seek(+e.target.value);
    state.dirty = true;
    if (state.playing) startAudio();
  };
  $("camera").onchange = (e) => {
    wanted.camera = e.target.checked;
    if (state.app) state.app.set_motion_camera(e.target.checked);
    state.dirty = true;
  };
  $("physics").onchange = (e) => {
    wanted.physics = e.target.checked;
    if (state.app) state.app.set_physics(e.target.checked);
    state.dirty = true;
  };
  $("dismiss").onclick = () => { $("warnings").hidden = true; };
  $("clear").onclick = () => clearScene();
  $("files").onchange = (e) => loadFiles(filesOf(e.target));
  $("folder").onchange = (e) => loadFiles(filesOf(e.target));
  wireCanvas();
  const drop = $("drop");
  drop.ondragover = (e) => { e.preventDefault(); drop.classList.add("dragging"); };
  drop.ondragleave = () => drop.classList.remove("dragging");
  drop.ondrop = async (e) => {
    e.preventDefault();
    drop.classList.remove("dragging");
    loadFiles(await entries(e.dataTransfer.items));
  };
}

// The hooks tests and measurements use: exact frames, paused.
window.odori = {
  ready: false, loads: 0, lastError: null, firstFrameMs: null, warnings: [],
  // Set by tests: hash each browser-decoded image into `decoded`, and how long a load took.
  hashDecoded: false, decoded: [], loadMs: null, decodeMs: 0,
  seek(frame) { state.playing = false; stopAudio(); state.app.seek(frame); state.app.render(); syncControls(); },
  play() { state.playing = true; state.last = null; startAudio(); syncControls(); },
  position() { return state.app.position(); },
  endFrame() { return state.app.end_frame(); },
  times() { return state.app.stage_times(); },
  poseDigest(frames, physics) { return state.app.pose_digest(frames, physics); },
  bench(frames, physics, deform) { return state.app.bench(frames, physics, deform); },
  adapter() { return state.app.adapter(); },
  webgpu() { return state.app.is_webgpu(); },
  recoveries() { return state.recoveries; },
  // Hold the sound back as a browser does before the page is clicked (for tests).
  holdSound() { return state.audio && state.audio.ctx.suspend(); },
  // The song: its name, length in seconds, and whether its clock drives the picture.
  song() {
    const a = state.audio;
    return a && {
      name: a.name, duration: a.buffer.duration, state: a.ctx.state, playing: !!a.source,
      // The MMD frame the sound is at, and the picture's.
      soundFrame: a.source ? (a.ctx.currentTime - a.startedAt) * FPS : null, picture: state.app.position(),
    };
  },
  loseDevice() { state.app.lose_device(); },
  clear() { clearScene(); },
  frames() { return state.frames; },
  fps() { return state.fps.value; },
};

async function main() {
  await init();
  FPS = framesPerSecond();
  try {
    state.app = await App.create(canvas, params.get("backend") === "webgl", +(params.get("msaa") || 4));
  } catch (e) {
    $("status").textContent = "";
    showError(`odori cannot start: ${e.message || e}`);
    return;
  }
  $("status").textContent = `embedded demo — ${state.app.adapter()}`;
  wireControls();
  syncControls();
  window.odori.ready = true;
  requestAnimationFrame(tick);
}
main();
