/**
 * Table test over the corpus of real sequences (terminal-reports.json), and chunking invariance: every entry
 * split at every byte boundary (and byte by byte) yields the same events, with the same total output count.
 */
import { describe, expect, it } from 'vitest';
import type { TerminalEvent } from '../../src/terminal/events.js';
import { TerminalParser } from '../../src/terminal/parser.js';
import { type CorpusEntry, corpus, corpusBytes, normalizeOutput as normalize } from './load-corpus.js';

function parse(entry: CorpusEntry, parts: Uint8Array[]): TerminalEvent[] {
  const parser = new TerminalParser({ nonce: entry.nonce ?? null, now: () => 0 });
  return parts.flatMap((part) => parser.feed(part));
}

describe('terminal corpus', () => {
  it('has entries, each with a source', () => {
    expect(corpus.length).toBeGreaterThan(20);
    for (const entry of corpus) expect(entry.source.length).toBeGreaterThan(10);
  });

  for (const entry of corpus) {
    it(`parses: ${entry.name}`, () => {
      expect(parse(entry, [corpusBytes(entry)])).toEqual(entry.expected);
    });

    it(`is split-invariant: ${entry.name}`, () => {
      const bytes = corpusBytes(entry);
      for (let cut = 0; cut <= bytes.length; cut++) {
        const events = parse(entry, [bytes.subarray(0, cut), bytes.subarray(cut)]);
        expect(normalize(events), `split at ${cut}`).toEqual(entry.expected);
      }
      const single = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
      expect(normalize(parse(entry, single)), 'byte by byte').toEqual(entry.expected);
    });
  }
});
