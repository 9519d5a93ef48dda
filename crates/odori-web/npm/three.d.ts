// Types of odori's three.js adapter (three.js).
import type { Bone, Color, PerspectiveCamera, ShaderMaterial, Skeleton, SkinnedMesh, Vector3 } from 'three';
import type { Camera, Instance, Model, Motion } from './index.js';

export interface DancerOptions {
  /** Simulate the model's rigid bodies (default true). */
  physics?: boolean;
  /** Draw MMD's outlines (default true). */
  edges?: boolean;
}

/** An MMD model dancing in a three.js scene. */
export class Dancer {
  constructor(model: Model, motion?: Motion | null, options?: DancerOptions);
  readonly model: Model;
  /** odori's instance, mirrored into three.js's right-handed frame. */
  readonly instance: Instance;
  /** Add this to your scene. */
  readonly mesh: SkinnedMesh;
  /** The outlines (a child of `mesh`), when `edges` is on. */
  readonly edges?: SkinnedMesh;
  readonly skeleton: Skeleton;
  /** One per odori bone, flat under `mesh`, at its model-space pose. */
  readonly bones: Bone[];
  readonly materials: ShaderMaterial[];
  readonly edgeMaterials: ShaderMaterial[];
  /** Morph target k of the mesh is odori's morph `morphIndices[k]`. */
  readonly morphIndices: number[];
  bone(name: string): Bone | undefined;
  /** Pose at MMD frame `frame` (30 a second). */
  update(frame: number): void;
  /** Hand the instance's last evaluation to three.js (`update` does). */
  apply(): void;
  /** MMD's light: colour and direction in MMD's frame. */
  setLight(color: Color, direction: Vector3): void;
  dispose(): void;
}

/** Put `camera` where `cameraMotion` has it at `frame`. */
export function applyCamera(camera: PerspectiveCamera, cameraMotion: Camera, frame: number): void;

/** Something that keeps time in seconds: an HTMLMediaElement, for one. */
export interface TimeSource {
  currentTime: number;
  /** While false (and no error), the clock follows `currentTime`. */
  paused?: boolean;
  error?: unknown;
}

export interface PlayerOptions {
  dancers?: Dancer[];
  camera?: PerspectiveCamera | null;
  cameraMotion?: Camera | null;
  /** When given, the clock follows it while it plays. */
  audio?: TimeSource | null;
}

/** Dancers and a camera moved together, following the song while it plays. */
export class Player {
  constructor(options?: PlayerOptions);
  dancers: Dancer[];
  camera: PerspectiveCamera | null;
  cameraMotion: Camera | null;
  audio: TimeSource | null;
  /** Seconds since frame 0. */
  time: number;
  readonly frame: number;
  /** Move on by `delta` seconds, or by the real time since the last call. */
  update(delta?: number): void;
  seek(seconds: number): void;
}
