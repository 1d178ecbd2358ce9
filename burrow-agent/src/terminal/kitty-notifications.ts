/**
 * Kitty's desktop-notification protocol, OSC 99 (sw.kovidgoyal.net/kitty/desktop-notifications):
 * `OSC 99 ; <key=value:key=value…> ; <payload> ST`. A notification may arrive in chunks sharing an id `i`;
 * `d=0` says more follows, `d=1` (the default) completes it. `p` says what the payload is (`title`, the
 * default, or `body`; `icon` and `buttons` carry no text Burrow shows; `alive` is management and contributes
 * no content). `p=?` asks what the terminal supports: it is reported as a `capability-query`, which Burrow
 * answers truthfully (capability-replies.ts, issue 23: opencode uses OSC 99 only where the terminal says it
 * can). `p=close` with an id withdraws that notification: it is reported as `notify-close`
 * (issue 13: a withdrawn request must stop ringing). `e=1` means the payload is base64; chunks need not be
 * cut at a multiple of 4 characters, so up to 3 characters are carried to the part's next chunk.
 *
 * Incomplete state is bounded (alert-spec "Text And Security": cap and expire incomplete OSC 99 state): at most
 * `KITTY_MAX_OPEN_IDS` ids (the oldest evicted), `KITTY_MAX_BYTES_PER_ID` bytes each, forgotten after
 * `KITTY_PENDING_TTL_MS` on the injected clock.
 */
import { sanitizeText } from '@burrow/crypto';
import type { TerminalEvent } from './events.js';
import {
  KITTY_ID_MAX_BYTES,
  KITTY_MAX_BYTES_PER_ID,
  KITTY_MAX_OPEN_IDS,
  KITTY_PENDING_TTL_MS,
  NOTIFY_BODY_MAX_CODE_POINTS,
  NOTIFY_TITLE_MAX_CODE_POINTS,
} from './limits.js';
import { decodeUtf8 } from './text-decoding.js';

interface Pending {
  readonly startedAt: number;
  readonly title: ChunkBuffer;
  readonly body: ChunkBuffer;
  /** Base64 characters of the last e=1 chunk that did not make a whole 4-character group, per part. */
  titleCarry: string;
  bodyCarry: string;
}

const keptBytes = (p: Pending): number =>
  p.title.length + p.body.length + p.titleCarry.length + p.bodyCarry.length;

/** Characters in one base64 group. */
const BASE64_GROUP = 4;

/** Decodes the whole groups of `carry + text`; returns the bytes and the characters left over (< 4). */
function decodeBase64Chunk(carry: string, text: string): { bytes: Uint8Array; rest: string } {
  // Buffer's decoder skips characters outside the alphabet; count only alphabet characters toward groups.
  const clean = (carry + text).replace(/[^A-Za-z0-9+/_-]/g, '');
  const whole = clean.length - (clean.length % BASE64_GROUP);
  return { bytes: Buffer.from(clean.slice(0, whole), 'base64'), rest: clean.slice(whole) };
}

/**
 * One notification part's bytes, appended in place. Why not an array of chunk copies: a hostile program can
 * send a notification one byte per OSC, and each copy costs a typed-array object (~150 bytes of heap) for one
 * byte of payload; 16 ids × 4096 one-byte chunks held ~13 MB per parser while `retainedBytes()` said 64 KiB
 * (found by tests/fuzz, issue 8). Growth doubles, so memory stays under twice the payload kept.
 */
class ChunkBuffer {
  #bytes: Uint8Array = EMPTY;
  #length = 0;

  get length(): number {
    return this.#length;
  }

  append(data: Uint8Array): void {
    const needed = this.#length + data.length;
    if (needed > this.#bytes.length) {
      const grown = new Uint8Array(
        Math.min(Math.max(needed, this.#bytes.length * 2), KITTY_MAX_BYTES_PER_ID),
      );
      grown.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = grown;
    }
    this.#bytes.set(data, this.#length);
    this.#length = needed;
  }

  /** A view of the bytes kept (valid until the next append). */
  view(): Uint8Array {
    return this.#bytes.subarray(0, this.#length);
  }
}

const EMPTY = new Uint8Array(0);
/** A notification id as the protocol defines it (`[a-zA-Z0-9-_+.]`); a query with another is not answered. */
const KITTY_QUERY_ID = /^[A-Za-z0-9_+.-]*$/;

enum PayloadKind {
  Title = 0,
  Body = 1,
  /** Icon / buttons: no text for Burrow, but the chunk still counts toward completion. */
  NoText = 2,
  /** alive / ? and unknown types: the chunk is ignored entirely. */
  Ignored = 3,
  /** close: the program withdraws the notification with this id. */
  Close = 4,
  /** ?: the program asks which parts of the protocol the terminal implements. */
  Query = 5,
}

function payloadKind(p: string): PayloadKind {
  switch (p) {
    case 'title':
      return PayloadKind.Title;
    case 'body':
      return PayloadKind.Body;
    case 'icon':
    case 'buttons':
      return PayloadKind.NoText;
    case 'close':
      return PayloadKind.Close;
    case '?':
      return PayloadKind.Query;
    default:
      return PayloadKind.Ignored;
  }
}

interface Metadata {
  id: string;
  done: boolean;
  kind: PayloadKind;
  base64: boolean;
}

/** Parses the colon-separated metadata; null when it is malformed (kitty ignores such a sequence). */
function parseMetadata(text: string): Metadata | null {
  const meta: Metadata = { id: '', done: true, kind: PayloadKind.Title, base64: false };
  if (text === '') return meta;
  for (const pair of text.split(':')) {
    const eq = pair.indexOf('=');
    if (eq !== 1) return null; // every key is one letter
    const value = pair.slice(2);
    switch (pair[0]) {
      case 'i':
        if (value.length > KITTY_ID_MAX_BYTES) return null;
        meta.id = value;
        break;
      case 'd':
        meta.done = value !== '0';
        break;
      case 'p':
        meta.kind = payloadKind(value);
        break;
      case 'e':
        meta.base64 = value === '1';
        break;
      default:
        break; // a, c, f, g, n, o, s, t, u, w: urgency, icons, sounds, actions — not shown by Burrow
    }
  }
  return meta;
}

export class KittyNotifications {
  readonly #now: () => number;
  readonly #open = new Map<string, Pending>();

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Payload bytes held for incomplete notifications, plus their ids. */
  retainedBytes(): number {
    let total = 0;
    for (const [id, pending] of this.#open) total += keptBytes(pending) + id.length;
    return total;
  }

  /** Forgets incomplete notifications older than the TTL. Cheap when nothing is open. */
  expire(): void {
    if (this.#open.size === 0) return;
    const now = this.#now();
    for (const [id, pending] of this.#open) {
      if (now - pending.startedAt >= KITTY_PENDING_TTL_MS || now < pending.startedAt) this.#open.delete(id);
    }
  }

  /** OSC 99 ; <payload>: `payload` is everything after `99;`. */
  dispatch(payload: Uint8Array, events: TerminalEvent[]): void {
    const semi = payload.indexOf(0x3b);
    if (semi < 0) return; // both semicolons are mandatory
    const meta = parseMetadata(decodeUtf8(payload.subarray(0, semi)));
    if (meta === null || meta.kind === PayloadKind.Ignored) return;
    if (meta.kind === PayloadKind.Query) {
      // The id is echoed back in the answer: only the protocol's own alphabet is, never anything else.
      if (KITTY_QUERY_ID.test(meta.id))
        events.push({ type: 'capability-query', protocol: 'osc99', id: meta.id });
      return;
    }
    if (meta.kind === PayloadKind.Close) {
      // Withdraws the notification: any half-sent chunks of it go, and the engine is told (an id is needed).
      this.#open.delete(meta.id);
      if (meta.id !== '') events.push({ type: 'notify-close', source: 'osc99', id: meta.id });
      return;
    }
    this.expire();
    let pending = this.#open.get(meta.id);
    if (pending === undefined) {
      if (this.#open.size >= KITTY_MAX_OPEN_IDS) {
        const oldest = this.#open.keys().next().value as string;
        this.#open.delete(oldest);
      }
      pending = {
        startedAt: this.#now(),
        title: new ChunkBuffer(),
        body: new ChunkBuffer(),
        titleCarry: '',
        bodyCarry: '',
      };
      this.#open.set(meta.id, pending);
    }
    if (meta.kind !== PayloadKind.NoText) {
      const isTitle = meta.kind === PayloadKind.Title;
      let data = payload.subarray(semi + 1);
      if (meta.base64) {
        const decoded = decodeBase64Chunk(isTitle ? pending.titleCarry : pending.bodyCarry, decodeUtf8(data));
        data = decoded.bytes;
        if (isTitle) pending.titleCarry = decoded.rest;
        else pending.bodyCarry = decoded.rest;
      }
      const room = KITTY_MAX_BYTES_PER_ID - keptBytes(pending);
      if (room <= 0) {
        // Full: nothing more is kept, carried characters included, so the bound holds.
        pending.titleCarry = '';
        pending.bodyCarry = '';
        data = EMPTY;
      } else if (data.length > room) data = data.subarray(0, room);
      if (data.length > 0) {
        // Copied: `payload` views the parser's OSC buffer or the caller's chunk, and a decoded Buffer may view
        // Node's shared pool slab.
        (isTitle ? pending.title : pending.body).append(data);
      }
    }
    if (!meta.done) return;
    this.#open.delete(meta.id);
    // A last group shorter than 4 characters (unpadded base64) still decodes; it fits, its room was counted.
    if (pending.titleCarry !== '') pending.title.append(Buffer.from(pending.titleCarry, 'base64'));
    if (pending.bodyCarry !== '') pending.body.append(Buffer.from(pending.bodyCarry, 'base64'));
    const title = sanitizeText(decodeUtf8(pending.title.view()), NOTIFY_TITLE_MAX_CODE_POINTS);
    const body = sanitizeText(decodeUtf8(pending.body.view()), NOTIFY_BODY_MAX_CODE_POINTS);
    if (title !== '' || body !== '')
      events.push({ type: 'notify', source: 'osc99', title, body, id: meta.id });
  }
}
