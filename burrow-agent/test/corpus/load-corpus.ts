/** Loads terminal-reports.json, the corpus of real sequences, for the table and property tests. */
import { readFileSync } from 'node:fs';
import type { TerminalEvent } from '../../src/terminal/events.js';

export interface CorpusEntry {
  readonly name: string;
  readonly source: string;
  readonly input?: string;
  readonly hex?: string;
  readonly nonce?: string;
  readonly expected: TerminalEvent[];
}

export const corpus: readonly CorpusEntry[] = (
  JSON.parse(readFileSync(new URL('./terminal-reports.json', import.meta.url), 'utf8')) as {
    entries: CorpusEntry[];
  }
).entries;

export function corpusBytes(entry: CorpusEntry): Uint8Array {
  if (entry.hex !== undefined) return Uint8Array.from(Buffer.from(entry.hex, 'hex'));
  return new TextEncoder().encode(entry.input ?? '');
}

/**
 * Events with adjacent `output` events merged: a read boundary may cut one run of text in two, but output
 * stays where it occurred among the other events (events.ts: byte order), so that is all chunking changes.
 */
export function normalizeOutput(events: readonly TerminalEvent[]): TerminalEvent[] {
  const out: TerminalEvent[] = [];
  for (const event of events) {
    const last = out[out.length - 1];
    if (event.type === 'output' && last?.type === 'output') {
      out[out.length - 1] = { type: 'output', bytes: last.bytes + event.bytes };
    } else out.push(event);
  }
  return out;
}
