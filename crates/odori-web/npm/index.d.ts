// Types of odori's npm package (index.js).

/** Bytes as a caller may hold them. */
export type Bytes = Uint8Array | ArrayBuffer | ArrayBufferView;

/**
 * Files by path: a Map, a plain object or an array of [path, bytes] pairs. Paths are
 * relative to the model's folder, `/` or `\` between folders; a `.zip` among them is opened.
 */
export type FileSet = Map<string, Bytes> | Record<string, Bytes> | Array<[string, Bytes]>;

/** A file odori could not read (the message names the file, the section and the byte
 * offset), or a request it refuses. */
export class OdoriError extends Error {
  readonly name: 'OdoriError';
}

/**
 * Load the wasm module (every `load` does; call it to choose where the wasm comes from). By
 * default the package's own file: fetched beside the module in a browser or bundler, read
 * from disk in Node.
 */
export function init(source?: URL | string | Response | Bytes | WebAssembly.Module): Promise<void>;

/** MMD's frames a second (30). */
export function framesPerSecond(): number;

/** A material as the model file gives it. */
export interface Material {
  name: string;
  diffuse: [number, number, number, number];
  specular: [number, number, number];
  specularPower: number;
  ambient: [number, number, number];
  doubleSided: boolean;
  groundShadow: boolean;
  castShadow: boolean;
  receiveShadow: boolean;
  edge: boolean;
  edgeColor: [number, number, number, number];
  edgeSize: number;
  texture: string | null;
  sphere: string | null;
  sphereMode: 'none' | 'multiply' | 'add' | 'subtexture';
  /** null, one of MMD's ten shared ramps (0–9), or a file name. */
  toon: number | string | null;
  /** First index of its triangles in `geometry().indices`. */
  start: number;
  /** How many indices (three a triangle). */
  count: number;
}

/** The mesh at rest, ready for an engine's buffers. */
export interface Geometry {
  /** x, y, z per vertex. */
  positions: Float32Array;
  normals: Float32Array;
  /** u, v per vertex (v down). */
  uvs: Float32Array;
  /** Three per triangle, in material order. */
  indices: Uint32Array;
  /** Four bones per vertex (a linear blend skin). */
  skinIndices: Uint16Array;
  skinWeights: Float32Array;
  /** PMX's per-vertex edge scale. */
  edgeScales: Float32Array;
  /** x, y, z per bone: the bind pose (skinning = world × translation(−rest)). */
  restBonePositions: Float32Array;
}

/** An image odori decoded: RGBA8, straight alpha, top row first. */
export interface DecodedImage {
  width: number;
  height: number;
  pixels: Uint8Array;
}

/** Where a model's textures come from. */
export interface ModelOptions {
  /** The model's file name (its extension says PMX or PMD). Default 'model.pmx'. */
  name?: string;
  /** Its folder's other files (textures), or a zip. */
  files?: FileSet;
  /** Asked for each texture name not in `files`; return its bytes, or undefined. */
  resolve?: (name: string) => Bytes | undefined | null | Promise<Bytes | undefined | null>;
}

/** Coordinates: MMD's left-handed frame, or mirrored into a right-handed one (three.js). */
export interface MirrorOption {
  mirror?: boolean;
}

/** A PMX or PMD model, read and compiled once; share it between motions and instances. */
export class Model {
  static load(bytes: Bytes, options?: ModelOptions): Promise<Model>;
  /** The one model among `files` (a folder or a zip), or the one at `path`. */
  static fromFiles(files: FileSet, options?: { path?: string }): Promise<Model>;
  /** odori's embedded demo character: something to dance with no files. */
  static demo(): Promise<Model>;
  readonly name: string;
  readonly boneNames: string[];
  /** Each bone's parent, -1 for a root. */
  readonly parents: Int32Array;
  readonly morphNames: string[];
  readonly vertexCount: number;
  readonly materials: Material[];
  /** What was repaired or dropped while reading, each line naming the file. */
  readonly warnings: string[];
  geometry(options?: MirrorOption): Geometry;
  /** The morphs that move vertices (indices into `morphNames`). */
  vertexMorphs(): Uint32Array;
  /** x, y, z offset per vertex (zero where the morph leaves a vertex alone). */
  vertexMorphOffsets(morph: number, options?: MirrorOption): Float32Array;
  /** A material's image, decoded by odori (TGA, BMP, DDS, PNG, JPEG...); null when absent. */
  image(material: number, slot: 'texture' | 'sphere' | 'toon'): DecodedImage | null;
  dispose(): void;
}

/** Motions (VMD) or poses (VPD), merged in order and bound to one model. */
export class Motion {
  /** Bytes alone are read as a VMD. */
  static load(model: Model, files: Bytes | FileSet): Promise<Motion>;
  /** The embedded demo's dance, for `Model.demo()`. */
  static demo(model: Model): Motion;
  /** The last keyed frame (30 a second). */
  readonly endFrame: number;
  /** The motion's bone and morph names the model lacks. */
  readonly unmatched: string[];
  readonly warnings: string[];
  dispose(): void;
}

/** A camera at one frame. */
export interface CameraState {
  /** Camera to world, column-major (mirrored: a right-handed camera looking down −Z). */
  matrixWorld: Float32Array;
  /** Vertical field of view, radians. */
  fov: number;
  distance: number;
  orthographic: boolean;
}

/** A VMD's camera keys. */
export class Camera {
  static load(files: Bytes | FileSet): Promise<Camera>;
  /** The embedded demo's camera. */
  static demo(): Promise<Camera>;
  readonly endFrame: number;
  at(frame: number, options?: MirrorOption): CameraState;
  dispose(): void;
}

export interface InstanceOptions extends MirrorOption {
  /** Simulate the model's rigid bodies (default true). */
  physics?: boolean;
}

/**
 * A model dancing a motion (or standing at rest) with MMD's IK, append transforms and
 * physics. The arrays are views into wasm memory, refreshed by each evaluation: read or copy
 * them before the next.
 */
export class Instance {
  constructor(model: Model, motion?: Motion | null, options?: InstanceOptions);
  readonly model: Model;
  readonly hasPhysics: boolean;
  /** The current frame. */
  readonly position: number;
  readonly endFrame: number;
  /** Jump to `frame` (physics restarts there unless it follows on). */
  seek(frame: number): void;
  /** Move to `frame` as playing does (up to 3 s forward is played through). */
  playTo(frame: number): void;
  /** Move the clock on by `seconds`, as playing does. */
  advance(seconds: number): void;
  /** Evaluate the current frame, or `frame` after seeking to it. */
  evaluate(frame?: number): void;
  /** 16 floats a bone, column-major. */
  readonly worldMatrices: Float32Array;
  /** World × inverse bind pose, 16 floats a bone. */
  readonly skinningMatrices: Float32Array;
  readonly morphWeights: Float32Array;
  /** RGBA a material, after material morphs. */
  readonly materialDiffuse: Float32Array;
  readonly visible: boolean;
  dispose(): void;
}
