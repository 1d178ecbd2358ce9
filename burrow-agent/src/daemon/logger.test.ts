import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LOG_MESSAGE_MAX_CHARS, stderrLogger } from './logger.js';

function logged(message: string): string {
  const stream = new PassThrough();
  let out = '';
  stream.on('data', (d: Buffer) => {
    out += d.toString('utf8');
  });
  stderrLogger(stream, () => new Date(0))('warn', message);
  return out;
}

describe('stderrLogger (issue 24.4)', () => {
  it('writes what a relay or a phone said as visible escapes, one line per entry', () => {
    const hostile = 'the relay refused: \x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x9b31m\u202eevil\r\nfake: ok';
    const line = logged(hostile);
    expect(line).toBe(
      '1970-01-01T00:00:00.000Z warn  the relay refused: \\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J\\u009b31m\\u202eevil\\r\\nfake: ok\n',
    );
    // Nothing a terminal would act on is left: no C0 but the final newline, no DEL, no C1.
    expect(line.slice(0, -1)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it('cuts a message over its bound and says how much was left out', () => {
    const line = logged('x'.repeat(LOG_MESSAGE_MAX_CHARS + 10));
    expect(line.endsWith('… (10 more characters)\n')).toBe(true);
  });
});
