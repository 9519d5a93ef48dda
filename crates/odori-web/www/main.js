// The page around odori's wasm module: clock, controls, files and audio. odori (Rust) poses,
// simulates, deforms and draws; this script owns the clock (the audio's when a soundtrack
// plays, so motion and sound stay together), the controls, and reading dropped files.
import init, { App } from "./odori_web.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const canvas = $("view");
if (params.has("w")) canvas.width = +params.get("w");
if (params.has("h")) canvas.height = +params.get("h");

const state = {
  app: null, playing: !params.has("paused"), last: null, frames: 0,
  audio: null, // { ctx, buffer, source, startedAt (ctx time of frame 0) }
  audioFile: null,
};

function showError(message) {
  const e = $("error");
  e.textContent = message;
  e.hidden = false;
  window.odori.lastError = message;
}

function syncControls() {
  const app = state.app;
  $("timeline").max = Math.max(1, Math.ceil(app.end_frame()));
  $("play").textContent = state.playing ? "Pause" : "Play";
  $("physics").disabled = !app.has_physics();
  $("camera").disabled = !app.has_motion_camera();
}

// The audio clock: the soundtrack's time is the motion's (MMD frame = seconds × 30).
function startAudio() {
  const a = state.audio;
  if (!a) return;
  stopAudio();
  const at = state.app.position() / 30;
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

function tick(now) {
  const app = state.app;
  if (state.playing) {
    const a = state.audio;
    if (a && a.source) {
      app.play_to((a.ctx.currentTime - a.startedAt) * 30);
    } else if (state.last !== null) {
      app.advance(Math.min(0.25, (now - state.last) / 1000));
    }
    if (app.position() > app.end_frame()) { app.seek(0); startAudio(); }
  }
  state.last = now;
  app.render();
  state.frames++;
  if (state.frames === 1) window.odori.firstFrameMs = performance.now();
  $("timeline").value = app.position();
  $("frame").textContent = app.position().toFixed(1);
  const t = app.stage_times();
  $("times").textContent =
    `pose ${t[0].toFixed(2)} physics ${t[1].toFixed(2)} deform ${t[2].toFixed(2)} draw ${t[3].toFixed(2)} ms`;
  requestAnimationFrame(tick);
}

async function loadFiles(list) {
  // list: [{ path, file }]
  $("error").hidden = true;
  let audio = null;
  const app = state.app;
  let n = 0;
  for (const { path, file } of list) {
    if (/\.(mp3|wav|ogg|m4a|aac|flac)$/i.test(path)) { audio = file; continue; }
    app.add_file(path, new Uint8Array(await file.arrayBuffer()));
    n++;
  }
  try {
    if (n > 0) {
      const warnings = app.load();
      if (warnings.length) console.warn(warnings.join("\n"));
      window.odori.warnings = warnings;
      state.last = null;
      if (state.audio) stopAudio();
    }
    if (audio) await loadAudio(audio);
    syncControls();
    $("status").textContent = `${list.map((f) => f.path).join(", ")}`;
    window.odori.loads++;
    if (state.playing) startAudio();
  } catch (e) {
    showError(e.message || String(e));
  }
}

async function loadAudio(file) {
  const ctx = state.audio ? state.audio.ctx : new AudioContext();
  let buffer;
  try {
    buffer = await ctx.decodeAudioData(await file.arrayBuffer());
  } catch (e) {
    throw new Error(`${file.name}: the browser cannot decode this audio (${e.message || e})`);
  }
  stopAudio();
  state.audio = { ctx, buffer, source: null, startedAt: 0 };
}

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

function wireControls() {
  const app = state.app;
  $("play").onclick = () => {
    state.playing = !state.playing;
    state.last = null;
    if (state.playing) startAudio(); else stopAudio();
    syncControls();
  };
  $("timeline").oninput = (e) => { app.seek(+e.target.value); if (state.playing) startAudio(); };
  $("camera").onchange = (e) => app.set_motion_camera(e.target.checked);
  $("physics").onchange = (e) => app.set_physics(e.target.checked);
  $("files").onchange = (e) => loadFiles(filesOf(e.target));
  $("folder").onchange = (e) => loadFiles(filesOf(e.target));
  let drag = null;
  canvas.onpointerdown = (e) => { drag = [e.clientX, e.clientY]; canvas.setPointerCapture(e.pointerId); };
  canvas.onpointermove = (e) => {
    if (!drag) return;
    app.orbit(e.clientX - drag[0], e.clientY - drag[1]);
    drag = [e.clientX, e.clientY];
    $("camera").checked = false;
  };
  canvas.onpointerup = () => { drag = null; };
  canvas.onwheel = (e) => { e.preventDefault(); app.zoom(-Math.sign(e.deltaY)); };
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
  seek(frame) { state.playing = false; stopAudio(); state.app.seek(frame); state.app.render(); syncControls(); },
  play() { state.playing = true; state.last = null; startAudio(); syncControls(); },
  position() { return state.app.position(); },
  times() { return state.app.stage_times(); },
  bench(frames, physics, deform) { return state.app.bench(frames, physics, deform); },
  adapter() { return state.app.adapter(); },
  frames() { return state.frames; },
};

async function main() {
  await init();
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
