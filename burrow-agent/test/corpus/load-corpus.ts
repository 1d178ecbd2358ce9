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

/** Events without the per-chunk output counts, plus their sum as one trailing output (if any). */
export function normalizeOutput(events: readonly TerminalEvent[]): TerminalEvent[] {
  let output = 0;
  const rest: TerminalEvent[] = [];
  for (const event of events) {
    if (event.type === 'output') output += event.bytes;
    else rest.push(event);
  }
  return output > 0 ? [...rest, { type: 'output', bytes: output }] : rest;
}
