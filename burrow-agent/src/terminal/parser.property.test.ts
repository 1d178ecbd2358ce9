/**
 * Property tests (common rules: every parser, seeded and bounded): random bytes and mutated corpus entries
 * never throw, retained state stays under PARSER_RETAINED_BYTES_LIMIT after every chunk, every text field is
 * already in sanitized form within its cap, and any chunking of the same input gives the same events —
 * output counts included, in place (issue 13: events in byte order; a cut only splits a run of text).
 */
import { sanitizeText } from '@burrow/crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeFragmentInput } from '../../test/corpus/escape-fragments.js';
import { corpus, corpusBytes, normalizeOutput } from '../../test/corpus/load-corpus.js';
import type { TerminalEvent } from './events.js';
import {
  COMMAND_LINE_MAX_CODE_POINTS,
  CWD_MAX_CODE_POINTS,
  NOTIFY_BODY_MAX_CODE_POINTS,
  NOTIFY_TITLE_MAX_CODE_POINTS,
  PARSER_RETAINED_BYTES_LIMIT,
  PROPERTY_KEY_MAX_CODE_POINTS,
  PROPERTY_VALUE_MAX_CODE_POINTS,
  TITLE_MAX_CODE_POINTS,
} from './limits.js';
import { TerminalParser } from './parser.js';

const RUNS = { seed: 0xb0770, numRuns: 300 } as const;
const NONCE = 'prop-nonce';

const fragmentInput = escapeFragmentInput(NONCE, 80);
const randomInput = fc.uint8Array({ maxLength: 400 });

/** A corpus entry with random byte edits: overwrite, insert, delete. */
const mutatedCorpus = fc
  .tuple(
    fc.constantFrom(...corpus.map(corpusBytes)),
    fc.array(
      fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('set', 'insert', 'delete')),
      {
        maxLength: 6,
      },
    ),
  )
  .map(([original, edits]) => {
    const bytes = Array.from(original);
    for (const [at, value, op] of edits) {
      const i = bytes.length === 0 ? 0 : at % (bytes.length + (op === 'insert' ? 1 : 0));
      if (op === 'set' && bytes.length > 0) bytes[i] = value;
      else if (op === 'insert') bytes.splice(i, 0, value);
      else if (op === 'delete') bytes.splice(i, 1);
    }
    return Uint8Array.from(bytes);
  });

const anyInput = fc.oneof(fragmentInput, randomInput, mutatedCorpus);

/**
 * Output as programs write it (issue 26: the fast paths must see long runs): printable runs long enough for the
 * ground skip's `indexOf` (ASCII, multi-byte UTF-8 — including C2 lead bytes and 9C continuations — and CR LF)
 * between escape fragments and random or mutated bytes.
 */
const textRun = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
      fc.constantFrom(
        '\r\n',
        'line 0000000001 abcdefghijklmnopqrstuvwxyz0123456789\r\n',
        '\u009c\u00c2\u011c',
      ),
    ),
    { minLength: 1, maxLength: 60 },
  )
  .map((parts) => new TextEncoder().encode(parts.join('')));

const floodInput = fc
  .array(fc.oneof(textRun, fragmentInput, randomInput, mutatedCorpus), { minLength: 1, maxLength: 6 })
  .map((parts) => Uint8Array.from(parts.flatMap((p) => Array.from(p))));

/** Splits `bytes` at the given (sorted, deduplicated) offsets. */
function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let start = 0;
  for (const p of points) {
    parts.push(bytes.subarray(start, p));
    start = p;
  }
  parts.push(bytes.subarray(start));
  return parts;
}

function run(parts: Uint8Array[]): TerminalEvent[] {
  const parser = new TerminalParser({ nonce: NONCE, now: () => 0 });
  const events: TerminalEvent[] = [];
  for (const part of parts) {
    const batch = parser.feed(part);
    // Output is reported where it occurs, once per stretch between events: never two in a row.
    for (let i = 1; i < batch.length; i++)
      expect(batch[i]!.type === 'output' && batch[i - 1]!.type === 'output').toBe(false);
    events.push(...batch);
    expect(parser.retainedBytes()).toBeLessThanOrEqual(PARSER_RETAINED_BYTES_LIMIT);
  }
  return events;
}

/** Each text field is its own sanitized form under its cap (so it passed sanitizeText with that cap). */
function expectSanitized(text: string, cap: number): void {
  expect(sanitizeText(text, cap)).toBe(text);
}

function checkText(event: TerminalEvent): void {
  switch (event.type) {
    case 'notify':
      expectSanitized(event.title, NOTIFY_TITLE_MAX_CODE_POINTS);
      expectSanitized(event.body, NOTIFY_BODY_MAX_CODE_POINTS);
      expect(event.title !== '' || event.body !== '').toBe(true);
      break;
    case 'title':
      expectSanitized(event.title, TITLE_MAX_CODE_POINTS);
      break;
    case 'cwd':
      expectSanitized(event.cwd, CWD_MAX_CODE_POINTS);
      break;
    case 'command-start':
      if (event.commandLine !== null) {
        // Lines sanitized one by one, joined with '\n' (shell-integration.ts sanitizeCommandLine).
        expect(Array.from(event.commandLine).length).toBeLessThanOrEqual(COMMAND_LINE_MAX_CODE_POINTS);
        for (const line of event.commandLine.split('\n')) expectSanitized(line, COMMAND_LINE_MAX_CODE_POINTS);
      }
      break;
    case 'property':
      expectSanitized(event.key, PROPERTY_KEY_MAX_CODE_POINTS);
      expectSanitized(event.value, PROPERTY_VALUE_MAX_CODE_POINTS);
      break;
    case 'program-status':
      expectSanitized(event.title, NOTIFY_TITLE_MAX_CODE_POINTS);
      expectSanitized(event.msg, NOTIFY_BODY_MAX_CODE_POINTS);
      break;
    case 'progress':
      expect(
        event.value === null || (Number.isInteger(event.value) && event.value >= 0 && event.value <= 100),
      ).toBe(true);
      break;
    case 'output':
      expect(event.bytes).toBeGreaterThan(0);
      break;
    default:
      break;
  }
}

describe('TerminalParser properties', () => {
  it('never throws, stays bounded, and emits sanitized text for any input', () => {
    fc.assert(
      fc.property(anyInput, fc.array(fc.nat(), { maxLength: 5 }), (input, cuts) => {
        const events = run(split(input, cuts));
        for (const event of events) checkText(event);
      }),
      RUNS,
    );
  });

  it('gives the same events for any chunking of the same input', () => {
    fc.assert(
      fc.property(anyInput, fc.array(fc.nat(), { maxLength: 24 }), (input, cuts) => {
        const whole = run([input]);
        expect(normalizeOutput(run(split(input, cuts)))).toEqual(normalizeOutput(whole));
      }),
      RUNS,
    );
  });

  it('the fast paths give the events the byte machine alone gives: one byte at a time, or cut anywhere', () => {
    // A one-byte chunk never takes a fast path (a CSI, an OSC or a text run is never wholly inside it), so
    // this compares the fast paths against the transition table itself.
    fc.assert(
      fc.property(floodInput, fc.array(fc.nat(), { maxLength: 24 }), (input, cuts) => {
        const byteAtATime = normalizeOutput(run(Array.from(input, (_, i) => input.subarray(i, i + 1))));
        expect(normalizeOutput(run([input]))).toEqual(byteAtATime);
        expect(normalizeOutput(run(split(input, cuts)))).toEqual(byteAtATime);
      }),
      RUNS,
    );
  });

  it('names, starts and ends no command unless the input carries the session nonce (issue 24.2)', () => {
    const ATTRIBUTING = new Set(['command-start', 'command-end', 'prompt-start']);
    const other = 'other-nonce';
    const forged = fc.oneof(escapeFragmentInput(other, 80), randomInput, mutatedCorpus);
    fc.assert(
      fc.property(forged, (input) => {
        fc.pre(!Buffer.from(input).includes(NONCE));
        const parser = new TerminalParser({ nonce: NONCE, now: () => 0 });
        expect(parser.feed(input).filter((e) => ATTRIBUTING.has(e.type))).toEqual([]);
      }),
      RUNS,
    );
  });

  it('counts every byte outside control sequences exactly once as output', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (input) => {
        const plain = input.map((b) => (b === 0x1b || b === 0x07 || b === 0x18 || b === 0x1a ? 0x41 : b));
        expect(run([plain])).toEqual(plain.length > 0 ? [{ type: 'output', bytes: plain.length }] : []);
      }),
      RUNS,
    );
  });
});
