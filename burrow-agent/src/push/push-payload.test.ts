/**
 * Issue 23: the push body is the ring's detail — the program's words, else the screen's — bounded like any push
 * text; the fixed body only when the ring has no words.
 */
import { PUSH_TEXT_MAX_CODE_POINTS } from '@burrow/crypto';
import { decodePushNotification } from '@burrow/protocol';
import { describe, expect, it } from 'vitest';
import { publicNotification } from '../attention-host/public-state.js';
import { buildPushPayload, PUSH_BODIES, pushBodyOf } from './push-payload.js';

const decode = (bytes: Uint8Array) => decodePushNotification(bytes);

describe('the push body (issue 23)', () => {
  it("is the ring's detail as the directory shows it: title, then body and the screen's words", () => {
    const n = publicNotification({
      source: 'watching',
      title: 'claude went quiet',
      body: null,
      context: 'touch approved.txt · Do you want to proceed?',
    });
    expect(n?.body).toBe('touch approved.txt · Do you want to proceed?');
    expect(pushBodyOf(n)).toBe('claude went quiet: touch approved.txt · Do you want to proceed?');
    const exit = publicNotification({
      source: 'exit',
      title: 'Command finished',
      body: 'make (exit 2)',
      context: 'Error 2',
    });
    expect(exit?.body).toBe('make (exit 2) — Error 2');
    expect(pushBodyOf(null)).toBeNull();
    expect(pushBodyOf({ title: ' ', body: '' })).toBeNull();
  });

  it('is bounded with an ellipsis, sanitized, and falls back to the fixed body only without words', () => {
    const long = buildPushPayload({
      sessionId: 's1',
      label: 'x',
      reason: 'report',
      body: 'y'.repeat(500),
      now: 1,
    });
    const body = decode(long).body;
    expect(Array.from(body)).toHaveLength(PUSH_TEXT_MAX_CODE_POINTS);
    expect(body.endsWith('…')).toBe(true);
    const bidi = buildPushPayload({
      sessionId: 's1',
      label: 'x',
      reason: 'report',
      body: 'a\u202eb',
      now: 1,
    });
    expect(decode(bidi).body).toBe('ab');
    for (const body of [undefined, null, '', '\u200b'])
      expect(
        decode(buildPushPayload({ sessionId: 's1', label: 'x', reason: 'exit', body, now: 1 })).body,
      ).toBe(PUSH_BODIES.exit);
  });
});
