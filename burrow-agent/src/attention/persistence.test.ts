import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeNotification } from './notification.js';
import { restoreAlert, serializeAlert } from './persistence.js';

describe('persistence', () => {
  it('round-trips todo, the notification and the diagnostic status', () => {
    const state = {
      todo: true,
      notification: { source: 'osc9' as const, title: null, body: 'hi' },
      status: 'ALERT_RINGING',
    };
    expect(restoreAlert(JSON.parse(JSON.stringify(serializeAlert(state))))).toEqual(state);
  });

  it('reads a notification this build cannot validate as none, keeping the TODO', () => {
    expect(restoreAlert({ todo: true, notification: { source: 'speech', title: 'x', body: null } })).toEqual({
      todo: true,
      notification: null,
    });
    expect(
      restoreAlert({ todo: true, notification: { source: 'osc9', title: 1, body: 'x' } }).notification,
    ).toBeNull();
    expect(
      restoreAlert({ todo: true, notification: { source: 'osc9', title: ' ', body: '' } }).notification,
    ).toBeNull();
  });

  it('trims restored fields and keeps null for empty ones', () => {
    expect(normalizeNotification({ source: 'exit', title: ' Command finished ', body: '' })).toEqual({
      source: 'exit',
      title: 'Command finished',
      body: null,
    });
  });

  it('anything malformed reads as no TODO', () => {
    for (const raw of [null, 1, 'x', [], { todo: 'yes' }])
      expect(restoreAlert(raw)).toEqual({ todo: false, notification: null });
  });

  it('never throws on random input', () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        const r = restoreAlert(raw);
        expect(typeof r.todo).toBe('boolean');
      }),
      { seed: 3, numRuns: 1000 },
    );
  });
});
