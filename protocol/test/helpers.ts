import { expect } from 'vitest';
import { ProtocolError } from '../src/remote/index.js';

/** Asserts `run` throws a ProtocolError for `rule` (and, when given, that fatality / code match). */
export function expectRule(
  run: () => unknown,
  rule: string,
  extra: { fatal?: boolean; code?: string; rid?: number } = {},
): ProtocolError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected ProtocolError ${rule}`).toBeInstanceOf(ProtocolError);
  const error = caught as ProtocolError;
  expect(error.rule).toBe(rule);
  if (extra.fatal !== undefined) expect(error.fatal).toBe(extra.fatal);
  if (extra.code !== undefined) expect(error.code).toBe(extra.code);
  if (extra.rid !== undefined) expect(error.rid).toBe(extra.rid);
  return error;
}

const encoder = new TextEncoder();

/** A CONTROL frame around arbitrary JSON text (for hand-made malformed messages). */
export function controlFrame(json: string): Uint8Array {
  const body = encoder.encode(json);
  const frame = new Uint8Array(1 + body.length);
  frame[0] = 0x01;
  frame.set(body, 1);
  return frame;
}

export function controlOf(value: unknown): Uint8Array {
  return controlFrame(JSON.stringify(value));
}

/** Seeded, bounded fast-check settings: failures reproduce, and runs stay cheap on a shared machine. */
export const FC = { seed: 0x5eed_b0, numRuns: 60 } as const;
