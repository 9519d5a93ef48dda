// odori for JavaScript: MikuMikuDance models dancing exactly as MikuMikuDance plays them.
// A thin layer over the wasm module's raw classes (odori-web's `library`): it loads the wasm
// (from the package, a URL or bytes), turns errors into OdoriError, gathers files from the
// shapes a web developer holds, and hands out results as typed-array views into wasm memory.

import initWasm, {
  RawCamera, RawFiles, RawInstance, RawModel, RawMotion, framesPerSecond as wasmFps,
} from './wasm/odori_web.js';

/** The wasm module's exports, once `init` has run. */
let wasm = null;
let loading = null;

/** A file odori could not read (the message names the file, the section and the byte
 * offset), or a request it refuses. */
export class OdoriError extends Error {
  constructor(message) {
    super(message);
    this.name = 'OdoriError';
  }
}

function odoriError(e) {
  if (e instanceof OdoriError) return e;
  return new OdoriError(e instanceof Error ? e.message : String(e));
}

/** Run `f`, its errors thrown as OdoriError. */
function guard(f) {
  try {
    return f();
  } catch (e) {
    throw odoriError(e);
  }
}

/**
 * Load the wasm module. Called by every `load`; call it yourself to choose where the wasm
 * comes from: a URL, a Response, bytes or a compiled WebAssembly.Module. By default it is
 * the package's own file: fetched beside this module in a browser or bundler, read from disk
 * in Node.
 */
export async function init(source) {
  if (wasm) return;
  if (!loading) {
    loading = (async () => {
      let from = source;
      if (from === undefined) {
        const url = new URL('./wasm/odori_web_bg.wasm', import.meta.url);
        if (url.protocol === 'file:') {
          const fs = 'node:fs/promises';
          const { readFile } = await import(/* @vite-ignore */ fs);
          from = await readFile(url);
        } else {
          from = url;
        }
      }
      wasm = await initWasm({ module_or_path: from });
    })().catch((e) => {
      loading = null;
      throw odoriError(e);
    });
  }
  await loading;
}

function ready() {
  if (!wasm) throw new OdoriError('odori is not loaded yet: await init() (or a load) first');
}

/** Bytes from what a caller may hold. */
function bytesOf(data, path) {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new OdoriError(`${path}: expected bytes (Uint8Array or ArrayBuffer), got ${typeof data}`);
}

/** Entries (path, bytes) of a Map, a plain object of path → bytes, or an array of pairs. */
function entriesOf(files) {
  if (!files) return [];
  if (files instanceof Map || Array.isArray(files)) return [...files];
  return Object.entries(files);
}

/** `entriesOf(files)`, or bytes alone as one file named `name`. */
function entriesOrBytes(files, name) {
  return files instanceof ArrayBuffer || ArrayBuffer.isView(files) ? [[name, files]] : entriesOf(files);
}

function rawFiles(entries) {
  const raw = new RawFiles();
  for (const [path, data] of entries) guard(() => raw.add(path, bytesOf(data, path)));
  return raw;
}

/** A copy of a wasm-bindgen string list as a plain array. */
const list = (a) => Array.from(a);

/** A PMX or PMD model, read and compiled once; share it between motions and instances. */
export class Model {
  /** @internal */
  constructor(raw) {
    this.raw = raw;
    this.materials = JSON.parse(raw.materialsJson());
  }

  /**
   * Read a model from its bytes. Its textures come from `files` (a Map, an object or an
   * array of [path, bytes], paths relative to the model's folder; a `.zip` among them is
   * opened) and, for the names not found there, from `resolve(name)` (sync or async,
   * returning bytes or undefined).
   */
  static async load(bytes, { name = 'model.pmx', files, resolve } = {}) {
    await init();
    const raw = rawFiles([[name, bytes], ...entriesOf(files)]);
    try {
      if (resolve) {
        const have = new Set(list(raw.paths()).map(normalise));
        for (const t of list(guard(() => RawModel.textureNames(name, raw)))) {
          if (have.has(normalise(t))) continue;
          const got = await resolve(t);
          if (got) guard(() => raw.add(t, bytesOf(got, t)));
        }
      }
      return new Model(guard(() => RawModel.load(name, raw)));
    } finally {
      raw.free();
    }
  }

  /**
   * Read the model among `files` (a folder as a Map, an object or pairs of path → bytes, or
   * a zip among them): the one model there, or the one at `path`.
   */
  static async fromFiles(files, { path } = {}) {
    await init();
    const raw = rawFiles(entriesOf(files));
    try {
      const models = list(RawModel.modelPaths(raw));
      const chosen = path ?? (models.length === 1 ? models[0] : undefined);
      if (chosen === undefined) {
        throw new OdoriError(
          models.length === 0
            ? `no model (PMX or PMD) among the files given (${list(raw.paths()).slice(0, 5).join(', ')})`
            : `${models.length} models among the files given (${models.join(', ')}): say which with { path }`,
        );
      }
      return new Model(guard(() => RawModel.load(chosen, raw)));
    } finally {
      raw.free();
    }
  }

  /** odori's embedded demo character (generated in code): something to dance with no files. */
  static async demo() {
    await init();
    return new Model(RawModel.demo());
  }

  get name() { return this.raw.name; }
  get boneNames() { return list(this.raw.boneNames); }
  /** Each bone's parent index, -1 for a root. */
  get parents() { return this.raw.parents; }
  get morphNames() { return list(this.raw.morphNames); }
  get vertexCount() { return this.raw.vertexCount; }
  /** What was repaired or dropped while reading, each line naming the file. */
  get warnings() { return list(this.raw.warnings); }

  /** The mesh at rest, for an engine of your own; `mirror`: right-handed (three.js). */
  geometry({ mirror = false } = {}) {
    const r = this.raw;
    return {
      positions: r.positions(mirror),
      normals: r.normals(mirror),
      uvs: r.uvs(),
      indices: r.indices(mirror),
      skinIndices: r.skinIndices(),
      skinWeights: r.skinWeights(),
      edgeScales: r.edgeScales(),
      restBonePositions: r.restBonePositions(mirror),
    };
  }

  /** The morphs that move vertices (indices into `morphNames`). */
  vertexMorphs() { return this.raw.vertexMorphs(); }

  /** Morph `morph`'s offsets, x, y, z per vertex. */
  vertexMorphOffsets(morph, { mirror = false } = {}) {
    return guard(() => this.raw.vertexMorphOffsets(morph, mirror));
  }

  /**
   * Material `material`'s image `slot` ('texture', 'sphere' or 'toon'), decoded by odori
   * (TGA, BMP, DDS, PNG, JPEG...) as { width, height, pixels } (RGBA8, straight alpha, top
   * row first), or null.
   */
  image(material, slot) {
    const img = guard(() => this.raw.image(material, slot));
    if (!img) return null;
    const out = { width: img.width, height: img.height, pixels: img.pixels() };
    img.free();
    return out;
  }

  dispose() { this.raw.free(); }
}

/** Motions (VMD) or poses (VPD), merged in order and bound to one model. */
export class Motion {
  /** @internal */
  constructor(raw) { this.raw = raw; }

  /**
   * Read motion files (bytes, or path → bytes as a Map, an object or pairs; bytes alone are
   * taken as a VMD) and bind them to `model`.
   */
  static async load(model, files) {
    await init();
    const raw = rawFiles(entriesOrBytes(files, 'motion.vmd'));
    try {
      return new Motion(guard(() => RawMotion.load(model.raw, raw)));
    } finally {
      raw.free();
    }
  }

  /** The embedded demo's dance, for `Model.demo()`. */
  static demo(model) {
    ready();
    return new Motion(RawMotion.demo(model.raw));
  }

  /** The last keyed frame (30 frames a second). */
  get endFrame() { return this.raw.endFrame; }
  /** Bone and morph names of the motion the model lacks. */
  get unmatched() { return list(this.raw.unmatched); }
  get warnings() { return list(this.raw.warnings); }
  dispose() { this.raw.free(); }
}

/** A VMD's camera keys. */
export class Camera {
  /** @internal */
  constructor(raw) { this.raw = raw; }

  /** Read the camera keys of a VMD (bytes, or path → bytes: the first VMD with camera keys). */
  static async load(files) {
    await init();
    const raw = rawFiles(entriesOrBytes(files, 'camera.vmd'));
    try {
      return new Camera(guard(() => RawCamera.load(raw)));
    } finally {
      raw.free();
    }
  }

  /** The embedded demo's camera. */
  static async demo() {
    await init();
    return new Camera(guard(() => RawCamera.demo()));
  }

  get endFrame() { return this.raw.endFrame; }

  /**
   * The camera at `frame`: `matrixWorld` (camera to world, column-major; with `mirror`, a
   * right-handed camera looking down -Z as three.js's are), `fov` (vertical, radians),
   * `distance` and `orthographic`.
   */
  at(frame, { mirror = false } = {}) {
    const s = this.raw.sample(frame, mirror);
    return { matrixWorld: s.subarray(0, 16), fov: s[16], distance: s[17], orthographic: s[18] === 1 };
  }

  dispose() { this.raw.free(); }
}

/**
 * A model dancing a motion (or standing at rest), with MMD's IK, append transforms and
 * rigid-body physics. Results are views into wasm memory, valid until the next evaluation.
 */
export class Instance {
  /**
   * `physics`: simulate the model's rigid bodies (on by default); `mirror`: results in a
   * right-handed frame (three.js, glTF).
   */
  constructor(model, motion = null, { physics = true, mirror = false } = {}) {
    ready();
    this.model = model;
    this.raw = guard(() => (motion
      ? RawInstance.dancing(model.raw, motion.raw, physics, mirror)
      : new RawInstance(model.raw, physics, mirror)));
    this.bones = model.raw.boneNames.length;
    this.#buffer = null;
  }

  #buffer;
  #world;
  #skinning;
  #morphs;
  #diffuse;

  /** Re-make the views when wasm memory grew (its old buffer is then detached). */
  #views() {
    const buffer = wasm.memory.buffer;
    if (buffer === this.#buffer) return;
    const r = this.raw;
    this.#world = new Float32Array(buffer, r.worldPtr(), this.bones * 16);
    this.#skinning = new Float32Array(buffer, r.skinningPtr(), this.bones * 16);
    this.#morphs = new Float32Array(buffer, r.morphWeightsPtr(), r.morphCount());
    this.#diffuse = new Float32Array(buffer, r.diffusePtr(), this.model.materials.length * 4);
    this.#buffer = buffer;
  }

  /** Whether physics is on and the model has rigid bodies. */
  get hasPhysics() { return this.raw.hasPhysics; }
  /** The current frame (MMD's, 30 a second). */
  get position() { return this.raw.position; }
  /** The motion's last keyed frame. */
  get endFrame() { return this.raw.endFrame; }

  /** Jump to `frame` (physics restarts there unless it follows on). */
  seek(frame) { this.raw.seek(frame); }
  /** Move to `frame` as playing does: up to 3 s forward is played through, so physics steps on. */
  playTo(frame) { this.raw.playTo(frame); }
  /** Move the clock on by `seconds` of real time, as playing does. */
  advance(seconds) { this.raw.advance(seconds); }

  /** Evaluate the current frame, or `frame` after `seek(frame)`. */
  evaluate(frame) {
    if (frame !== undefined) this.raw.seek(frame);
    this.raw.evaluate();
  }

  /** Each bone's world matrix (16 floats a bone, column-major). */
  get worldMatrices() { this.#views(); return this.#world; }
  /** Each bone's skinning matrix (world × inverse bind pose, 16 floats a bone). */
  get skinningMatrices() { this.#views(); return this.#skinning; }
  /** Each morph's weight (group morphs resolved). */
  get morphWeights() { this.#views(); return this.#morphs; }
  /** Each material's diffuse RGBA after material morphs. */
  get materialDiffuse() { this.#views(); return this.#diffuse; }
  /** Whether the model is shown (VMD's visibility keys). */
  get visible() { return this.raw.visible; }

  dispose() { this.raw.free(); }
}

/** A texture name as MMD compares them: '/' or '\' alike, any case. */
function normalise(path) {
  return path.replaceAll('\\', '/').toLowerCase();
}

/** MMD's frames a second (30: VMD keys count frames at this rate). */
export function framesPerSecond() {
  ready();
  return wasmFps();
}
