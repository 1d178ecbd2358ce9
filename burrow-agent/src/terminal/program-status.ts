/**
 * OSC 7501, the program status protocol (revision 0.2; Codex writes it at an approval prompt and at the end
 * of a turn): `OSC 7501 ; key=value:key=value… ST`. Keys are `[a-z]+` (at most 16 bytes), values
 * `[A-Za-z0-9_.,+/=-]*`, so a value never needs escaping.
 *
 * | key      | meaning                                                                            |
 * | -------- | ---------------------------------------------------------------------------------- |
 * | state    | idle, working, done, blocked, error, clear — required; an unknown one rejects it    |
 * | id       | the record, segments `[A-Za-z0-9_.+-]{1,32}` joined by `/` (≤ 8, ≤ 128 bytes)       |
 * | kind     | permission, question, auth — only with `blocked`, ignored otherwise                |
 * | progress | 0–100 with working / blocked; anything else is absent                              |
 * | app      | a stable program name `[A-Za-z0-9_.+-]{1,32}`                                      |
 * | title    | base64 UTF-8, ≤ 256 bytes encoded, ≤ 192 decoded                                   |
 * | msg      | base64 UTF-8, ≤ 2732 bytes encoded, ≤ 2048 decoded                                 |
 *
 * A malformed pair is skipped and an unknown key ignored; the last duplicate wins. Invalid base64, a control
 * character in decoded text, or any exceeded limit discards the whole report. `OSC 7501 ; ?` asks whether the
 * terminal supports the protocol: Burrow does, and answers with the same bytes (capability-replies.ts).
 *
 * Decoded text is sanitized and bounded here (alert-spec "Text And Security") like every other report.
 */
import { sanitizeText } from '@burrow/crypto';
import type { BlockedKind, ProgramState, TerminalEvent } from './events.js';
import { NOTIFY_BODY_MAX_CODE_POINTS, NOTIFY_TITLE_MAX_CODE_POINTS } from './limits.js';
import { decodeUtf8 } from './text-decoding.js';

/** The protocol's hard caps (revision 0.2 "Limits"). The OSC itself is bounded by the parser (OSC_MAX_BYTES). */
export const PROGRAM_STATUS_LIMITS = Object.freeze({
  /** Bytes of the report after `7501;`. */
  body: 4096,
  key: 16,
  msgEncoded: 2732,
  msgDecoded: 2048,
  titleEncoded: 256,
  titleDecoded: 192,
  app: 32,
  id: 128,
  segment: 32,
  depth: 8,
});

const STATES: readonly ProgramState[] = ['idle', 'working', 'done', 'blocked', 'error', 'clear'];
const KINDS: readonly BlockedKind[] = ['permission', 'question', 'auth'];
const KEY = /^[a-z]+$/;
const VALUE = /^[A-Za-z0-9_.,+/=-]*$/;
const SEGMENT = /^[A-Za-z0-9_.+-]{1,32}$/;
const APP = /^[A-Za-z0-9_.+-]{1,32}$/;
const PROGRESS = /^[0-9]{1,3}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const FATAL_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Discards the whole report (the spec's "any exceeded limit discards the whole report"). */
class Rejected extends Error {}

function validId(id: string): boolean {
  if (id.length > PROGRAM_STATUS_LIMITS.id) return false;
  const segments = id.split('/');
  return segments.length <= PROGRAM_STATUS_LIMITS.depth && segments.every((s) => SEGMENT.test(s));
}

/** A base64 text field: decoded, refused when malformed, too long or holding control characters. */
function decodeText(value: string, maxEncoded: number, maxDecoded: number): string {
  if (value.length > maxEncoded || !BASE64.test(value)) throw new Rejected();
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length > maxDecoded) throw new Rejected();
  let text: string;
  try {
    text = FATAL_UTF8.decode(bytes);
  } catch {
    throw new Rejected();
  }
  if (CONTROL.test(text)) throw new Rejected();
  return text;
}

/**
 * Reads one OSC 7501 payload (everything after `7501;`) and pushes what it means: a `capability-query` for
 * `?`, a `program-status` for a valid report, nothing for an invalid one.
 */
export function dispatchProgramStatus(payload: Uint8Array, events: TerminalEvent[]): void {
  if (payload.length === 1 && payload[0] === 0x3f /* ? */) {
    events.push({ type: 'capability-query', protocol: 'osc7501', id: '' });
    return;
  }
  if (payload.length > PROGRAM_STATUS_LIMITS.body) return;
  const fields = new Map<string, string>();
  for (const pair of decodeUtf8(payload).split(':')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue; // malformed pair: skipped
    const key = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    if (key.length > PROGRAM_STATUS_LIMITS.key) return; // an exceeded limit
    if (!KEY.test(key) || !VALUE.test(value)) continue;
    fields.set(key, value); // the last duplicate wins
  }
  const state = fields.get('state') as ProgramState | undefined;
  if (state === undefined || !STATES.includes(state)) return;
  try {
    const id = fields.get('id') ?? '';
    if (id !== '' && !validId(id)) return;
    const app = fields.get('app') ?? null;
    if (app !== null && !APP.test(app)) return;
    const kindValue = fields.get('kind');
    const kind =
      state === 'blocked' && kindValue !== undefined && KINDS.includes(kindValue as BlockedKind)
        ? (kindValue as BlockedKind)
        : null;
    const progressValue = fields.get('progress');
    const progress =
      (state === 'working' || state === 'blocked') &&
      progressValue !== undefined &&
      PROGRESS.test(progressValue) &&
      Number(progressValue) <= 100
        ? Number(progressValue)
        : null;
    const title = fields.has('title')
      ? decodeText(
          fields.get('title')!,
          PROGRAM_STATUS_LIMITS.titleEncoded,
          PROGRAM_STATUS_LIMITS.titleDecoded,
        )
      : '';
    const msg = fields.has('msg')
      ? decodeText(fields.get('msg')!, PROGRAM_STATUS_LIMITS.msgEncoded, PROGRAM_STATUS_LIMITS.msgDecoded)
      : '';
    events.push({
      type: 'program-status',
      state,
      id,
      kind,
      app,
      progress,
      title: sanitizeText(title, NOTIFY_TITLE_MAX_CODE_POINTS),
      msg: sanitizeText(msg, NOTIFY_BODY_MAX_CODE_POINTS),
    });
  } catch (err) {
    if (!(err instanceof Rejected)) throw err;
  }
}
