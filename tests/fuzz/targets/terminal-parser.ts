/**
 * Target: the streaming terminal parser (burrow-agent/src/terminal, DESIGN §5 "Parsing").
 *
 * Feeds random bytes, dense runs of escape-sequence fragments, long OSCs around OSC_MAX_BYTES, and mutated
 * corpus entries, each in random chunk splits, with a clock that jumps (kitty chunk expiry).
 * Expected rejection: none — the parser takes any bytes. Findings: any exception; `retainedBytes()` over
 * PARSER_RETAINED_BYTES_LIMIT after any chunk (also on one long-lived parser fed every case); a text field
 * that is not its own sanitized form within its cap; different events for a different chunking; and heap
 * per parser, in the worst case for held state, far above what `retainedBytes()` says (memory amplification).
 */

import { sanitizeText } from '@burrow/crypto';
import fc from 'fast-check';
import type { TerminalEvent } from '../../../burrow-agent/src/terminal/events.js';
import {
  COMMAND_LINE_MAX_CODE_POINTS,
  CWD_MAX_CODE_POINTS,
  KITTY_MAX_BYTES_PER_ID,
  KITTY_MAX_OPEN_IDS,
  NOTIFY_BODY_MAX_CODE_POINTS,
  NOTIFY_TITLE_MAX_CODE_POINTS,
  OSC_MAX_BYTES,
  PARSER_RETAINED_BYTES_LIMIT,
  PROPERTY_KEY_MAX_CODE_POINTS,
  PROPERTY_VALUE_MAX_CODE_POINTS,
  TITLE_MAX_CODE_POINTS,
} from '../../../burrow-agent/src/terminal/limits.js';
import { TerminalParser } from '../../../burrow-agent/src/terminal/parser.js';
import { escapeFragmentInput } from '../../../burrow-agent/test/corpus/escape-fragments.js';
import { corpus, corpusBytes, normalizeOutput } from '../../../burrow-agent/test/corpus/load-corpus.js';
import { fullGc } from '../fuzz-runner.js';
import { FuzzFinding, type FuzzTarget, invariant } from '../fuzz-target.js';
import { chunkCuts, mutatedBytes, splitAt } from '../mutate.js';

const NONCE = 'fuzz-nonce';
const encoder = new TextEncoder();
/** Heap a parser may take per byte it reports as retained, plus its fixed part (OSC buffer, maps). */
const HEAP_PER_RETAINED_BYTE = 4;
const HEAP_FIXED_BYTES = 64 * 1024;
/** Parsers built for the amplification measurement (averaged). */
const AMPLIFICATION_PARSERS = 16;

const fragments = escapeFragmentInput(NONCE, 200);
/** An OSC of about OSC_MAX_BYTES (either side of it), kitty or plain, maybe unterminated. */
const longOsc = fc
  .tuple(
    fc.constantFrom('9;', '99;i=7:d=0;', '633;E;', '0;', '7;file://h/'),
    fc.integer({ min: OSC_MAX_BYTES - 8, max: OSC_MAX_BYTES + 8 }),
    fc.constantFrom('\x07', '\x1b\\', ''),
  )
  .map(([head, n, end]) => encoder.encode(`\x1b]${head}${'x'.repeat(n)}${end}`));
/** Many kitty ids opened and fed byte by byte: the held-state worst case. */
const kittyFlood = fc
  .tuple(fc.integer({ min: 1, max: KITTY_MAX_OPEN_IDS + 4 }), fc.integer({ min: 1, max: 300 }))
  .map(([ids, chunks]) => {
    const parts: string[] = [];
    for (let k = 0; k < chunks; k++) parts.push(`\x1b]99;i=${k % ids}:d=0;${k % 2 ? 'p=body;' : ''}z\x07`);
    return encoder.encode(parts.join('').replaceAll(';p=body;', ':p=body;'));
  });
/** The parser's own corpus of real sequences (burrow-agent/test/corpus), as the mutation seeds. */
const corpusEntries = corpus.map(corpusBytes);
const mutatedCorpus = mutatedBytes(fc.constantFrom(...corpusEntries)).map((m) => m.bytes);

interface Case {
  readonly bytes: Uint8Array;
  readonly cuts: readonly number[];
  /** Clock step before each chunk, ms (kitty expiry is KITTY_PENDING_TTL_MS). */
  readonly steps: readonly number[];
}

const input: fc.Arbitrary<Case> = fc.record({
  bytes: fc.oneof(
    { weight: 2, arbitrary: fc.uint8Array({ maxLength: 2048 }) },
    { weight: 3, arbitrary: fragments },
    { weight: 1, arbitrary: longOsc },
    { weight: 1, arbitrary: kittyFlood },
    { weight: 3, arbitrary: mutatedCorpus },
  ),
  cuts: chunkCuts,
  steps: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40_000 })), { maxLength: 8 }),
});

function checkText(text: string, cap: number, what: string): void {
  invariant(sanitizeText(text, cap) === text, `${what} is not its own sanitized form within ${cap}`);
}

function checkEvent(event: TerminalEvent): void {
  switch (event.type) {
    case 'notify':
      checkText(event.title, NOTIFY_TITLE_MAX_CODE_POINTS, 'notify.title');
      checkText(event.body, NOTIFY_BODY_MAX_CODE_POINTS, 'notify.body');
      break;
    case 'title':
      checkText(event.title, TITLE_MAX_CODE_POINTS, 'title');
      break;
    case 'cwd':
      checkText(event.cwd, CWD_MAX_CODE_POINTS, 'cwd');
      break;
    case 'command-start':
      if (event.commandLine !== null) {
        // Each line sanitized on its own, joined with '\n' (shell-integration.ts sanitizeCommandLine, issue 13).
        invariant(
          Array.from(event.commandLine).length <= COMMAND_LINE_MAX_CODE_POINTS,
          'commandLine over its cap',
        );
        for (const line of event.commandLine.split('\n'))
          checkText(line, COMMAND_LINE_MAX_CODE_POINTS, 'commandLine line');
      }
      break;
    case 'property':
      checkText(event.key, PROPERTY_KEY_MAX_CODE_POINTS, 'property.key');
      checkText(event.value, PROPERTY_VALUE_MAX_CODE_POINTS, 'property.value');
      break;
    case 'progress':
      invariant(
        event.value === null || (Number.isInteger(event.value) && event.value >= 0 && event.value <= 100),
        'progress value outside 0..100',
      );
      break;
    case 'output':
      invariant(event.bytes > 0, 'output event of 0 bytes');
      break;
    default:
      break;
  }
}

/** Feeds `parts` with the clock stepping; checks the bound after every chunk. */
function feed(
  parser: TerminalParser,
  parts: readonly Uint8Array[],
  clock: { now: number },
  steps: readonly number[],
) {
  const events: TerminalEvent[] = [];
  parts.forEach((part, i) => {
    clock.now += steps[i] ?? 0;
    for (const event of parser.feed(part)) events.push(event);
    invariant(
      parser.retainedBytes() <= PARSER_RETAINED_BYTES_LIMIT,
      `retainedBytes ${parser.retainedBytes()} over PARSER_RETAINED_BYTES_LIMIT`,
    );
  });
  return events;
}

/** The input that makes a parser hold the most: every kitty id full, a pending command line, a split OSC. */
function worstCaseFlood(): Uint8Array {
  const parts: string[] = [];
  for (let id = 0; id < KITTY_MAX_OPEN_IDS; id++)
    for (let k = 0; k < KITTY_MAX_BYTES_PER_ID; k++) parts.push(`\x1b]99;i=${id}:d=0;x\x07`);
  parts.push(`\x1b]633;E;${'c'.repeat(COMMAND_LINE_MAX_CODE_POINTS)};${NONCE}\x07`);
  parts.push(`\x1b]99;i=x;${'y'.repeat(OSC_MAX_BYTES - 8)}`);
  return encoder.encode(parts.join(''));
}

function usedMemory(): number {
  fullGc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** Heap (JS + array buffers) per parser holding the most state a program can make it hold. */
function heapPerWorstCaseParser(): { heap: number; retained: number } {
  const flood = worstCaseFlood();
  const parsers: TerminalParser[] = [];
  const before = usedMemory();
  for (let i = 0; i < AMPLIFICATION_PARSERS; i++) {
    const parser = new TerminalParser({ nonce: NONCE, now: () => 0 });
    parser.feed(flood);
    parsers.push(parser);
  }
  const heap = (usedMemory() - before) / AMPLIFICATION_PARSERS;
  return { heap, retained: parsers[0]!.retainedBytes() };
}

export const terminalParserTarget: FuzzTarget<Case> = {
  name: 'terminal-parser',
  about:
    'TerminalParser.feed: random / fragment / long-OSC / kitty-flood / mutated-corpus bytes in random chunks',
  async: false,
  testRuns: 1_000,
  async start() {
    const worst = heapPerWorstCaseParser();
    const longLived = { clock: { now: 0 }, parser: null as TerminalParser | null };
    longLived.parser = new TerminalParser({ nonce: NONCE, now: () => longLived.clock.now });
    let amplificationReported = false;
    return {
      input,
      isExpected: () => false,
      run({ bytes, cuts, steps }) {
        const clock = { now: 1_000 };
        const split = feed(
          new TerminalParser({ nonce: NONCE, now: () => clock.now }),
          splitAt(bytes, cuts),
          clock,
          steps,
        );
        for (const event of split) checkEvent(event);
        if (steps.every((s) => s === 0)) {
          // Same clock throughout, so chunking is the only difference: the events must match.
          const whole = feed(new TerminalParser({ nonce: NONCE, now: () => 0 }), [bytes], { now: 0 }, []);
          const a = JSON.stringify(normalizeOutput(split));
          const b = JSON.stringify(normalizeOutput(whole));
          invariant(a === b, 'chunking changed the events');
        }
        feed(longLived.parser!, [bytes], longLived.clock, steps.slice(0, 1));
        return 'accepted';
      },
      afterBatch() {
        if (amplificationReported) return;
        amplificationReported = true;
        if (worst.heap > HEAP_FIXED_BYTES + HEAP_PER_RETAINED_BYTE * worst.retained) {
          throw new FuzzFinding(
            `a parser holding ${worst.retained} retained bytes takes ${Math.round(worst.heap)} bytes of heap`,
          );
        }
      },
      figures: () => ({
        'worst-case heap per parser (bytes)': Math.round(worst.heap),
        'worst-case retainedBytes': worst.retained,
      }),
    };
  },
};
