/**
 * Length-prefixed frames on the control socket: a 4-byte big-endian length, then that many bytes: one type
 * byte and the payload. The length is checked against the reader's bound before any payload is buffered, so
 * a peer cannot make us hold more than one frame's worth (vscode-host-spec: bound every frame before parsing).
 */

export const FrameType = {
  /** UTF-8 JSON: handshake, requests, responses, events. */
  Json: 0x01,
  /** Client → daemon: raw bytes for the attached PTY. */
  Input: 0x02,
  /** Daemon → client: 8-byte big-endian stream offset, then raw PTY bytes. */
  Output: 0x03,
  /** Daemon → client: 4-byte header length, JSON header (size, offset), then the snapshot's UTF-8 bytes. */
  Snapshot: 0x04,
} as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

const KNOWN_TYPES = new Set<number>(Object.values(FrameType));
export const FRAME_HEADER_BYTES = 5;

/** Bound on frames before the handshake completes (a hello is ~150 bytes). */
export const MAX_HANDSHAKE_FRAME_BYTES = 4 * 1024;
/** Bound on frames a client may send the daemon after the handshake (input is ≤ 64 KiB per frame). */
export const MAX_CLIENT_FRAME_BYTES = 1024 * 1024;
/** Bound on frames the daemon sends a client (a snapshot of a large screen plus scrollback). */
export const MAX_DAEMON_FRAME_BYTES = 16 * 1024 * 1024;

export class FrameError extends Error {
  override readonly name = 'FrameError';
}

export interface Frame {
  readonly type: FrameType;
  readonly payload: Uint8Array;
}

export function encodeFrame(type: FrameType, payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.byteLength);
  out.writeUInt32BE(payload.byteLength + 1, 0);
  out[4] = type;
  out.set(payload, FRAME_HEADER_BYTES);
  return out;
}

export function encodeJson(value: unknown): Buffer {
  return encodeFrame(FrameType.Json, Buffer.from(JSON.stringify(value), 'utf8'));
}

/** Bytes in front of an output frame's data: the frame header and the 8-byte offset. */
const OUTPUT_HEAD_BYTES = FRAME_HEADER_BYTES + 8;

/**
 * One allocation and one copy of `data` (this runs for every batch `burrow attach` is sent): the header and the
 * offset are written in front of it in place, not built as a payload that encodeFrame would copy again.
 */
export function encodeOutput(offset: number, data: Uint8Array): Buffer {
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new RangeError('output offset must be a non-negative safe integer');
  const out = Buffer.allocUnsafe(OUTPUT_HEAD_BYTES + data.byteLength);
  out.writeUInt32BE(1 + 8 + data.byteLength, 0);
  out[4] = FrameType.Output;
  // The offset as two 32-bit halves: a safe integer is below 2^53, and this avoids a BigInt per frame.
  out.writeUInt32BE(Math.floor(offset / 2 ** 32), FRAME_HEADER_BYTES);
  out.writeUInt32BE(offset >>> 0, FRAME_HEADER_BYTES + 4);
  out.set(data, OUTPUT_HEAD_BYTES);
  return out;
}

export function decodeOutput(payload: Uint8Array): { offset: number; data: Uint8Array } {
  if (payload.byteLength < 8) throw new FrameError('output frame shorter than its offset');
  const offset = Buffer.from(payload.buffer, payload.byteOffset, 8).readBigUInt64BE(0);
  if (offset > BigInt(Number.MAX_SAFE_INTEGER)) throw new FrameError('output offset out of range');
  return { offset: Number(offset), data: payload.subarray(8) };
}

export function encodeSnapshot(header: unknown, data: string): Buffer {
  const h = Buffer.from(JSON.stringify(header), 'utf8');
  const d = Buffer.from(data, 'utf8');
  const payload = Buffer.allocUnsafe(4 + h.byteLength + d.byteLength);
  payload.writeUInt32BE(h.byteLength, 0);
  payload.set(h, 4);
  payload.set(d, 4 + h.byteLength);
  return encodeFrame(FrameType.Snapshot, payload);
}

export function decodeSnapshot(payload: Uint8Array): { header: unknown; data: string } {
  if (payload.byteLength < 4) throw new FrameError('snapshot frame shorter than its header length');
  const buf = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const hlen = buf.readUInt32BE(0);
  if (hlen > buf.byteLength - 4) throw new FrameError('snapshot header length past the frame');
  return { header: parseJsonPayload(buf.subarray(4, 4 + hlen)), data: utf8(buf.subarray(4 + hlen)) };
}

const fatalDecoder = new TextDecoder('utf-8', { fatal: true });

function utf8(bytes: Uint8Array): string {
  try {
    return fatalDecoder.decode(bytes);
  } catch {
    throw new FrameError('frame is not valid UTF-8');
  }
}

/** Parses a JSON frame payload; FrameError on bad UTF-8 or JSON. */
export function parseJsonPayload(payload: Uint8Array): unknown {
  const text = utf8(payload);
  try {
    return JSON.parse(text);
  } catch {
    throw new FrameError('frame is not valid JSON');
  }
}

/** Incremental reader; `push` returns complete frames and throws FrameError on an oversized or unknown frame. */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private failed = false;

  constructor(private maxFrameBytes: number) {
    if (!Number.isSafeInteger(maxFrameBytes) || maxFrameBytes < 1) throw new RangeError('bad frame bound');
  }

  /** Raise or lower the bound (after the handshake). */
  setLimit(maxFrameBytes: number): void {
    this.maxFrameBytes = maxFrameBytes;
  }

  push(chunk: Uint8Array): Frame[] {
    if (this.failed) throw new FrameError('decoder already failed');
    this.chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.buffered += chunk.byteLength;
    const frames: Frame[] = [];
    while (this.buffered >= 4) {
      const head = this.peek(FRAME_HEADER_BYTES > this.buffered ? 4 : FRAME_HEADER_BYTES);
      const len = head.readUInt32BE(0);
      if (len < 1 || len - 1 > this.maxFrameBytes) {
        this.failed = true;
        throw new FrameError(`frame of ${len} bytes is outside 1..${this.maxFrameBytes + 1}`);
      }
      if (this.buffered < 4 + len) break;
      const all = this.take(4 + len);
      const type = all[4]!;
      if (!KNOWN_TYPES.has(type)) {
        this.failed = true;
        throw new FrameError(`unknown frame type ${type}`);
      }
      frames.push({ type: type as FrameType, payload: all.subarray(FRAME_HEADER_BYTES) });
    }
    return frames;
  }

  private peek(n: number): Buffer {
    if (this.chunks[0]!.byteLength < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]!.subarray(0, n);
  }

  private take(n: number): Buffer {
    const joined = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const out = Buffer.from(joined.subarray(0, n));
    const rest = joined.subarray(n);
    this.chunks = rest.byteLength > 0 ? [rest] : [];
    this.buffered -= n;
    return out;
  }
}
