// Loads the vector files copied into test/vectors/ (see its README for sources and licences).
import { readFileSync } from 'node:fs';
import { nodeAead } from '../node/node-aead.js';
import { type Aead, nobleAead } from '../src/aead.js';

export function loadVectors<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`./vectors/${name}`, import.meta.url), 'utf8')) as T;
}

export function hex(text: string): Uint8Array {
  if (text.length % 2 !== 0) throw new RangeError('odd hex');
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Every vector suite runs once per AEAD backend. */
export const AEAD_BACKENDS: readonly Aead[] = [nobleAead, nodeAead];

export interface NoiseVector {
  protocol_name: string;
  init_prologue: string;
  init_psks?: string[];
  init_static?: string;
  init_ephemeral: string;
  init_remote_static?: string;
  resp_prologue: string;
  resp_psks?: string[];
  resp_static?: string;
  resp_ephemeral?: string;
  resp_remote_static?: string;
  handshake_hash: string;
  messages: { payload: string; ciphertext: string }[];
}
