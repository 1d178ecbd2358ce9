/**
 * Issue 24.4: text a relay sends must not reach the daemon's log raw. A hostile relay (a local stand-in: it
 * enrolls the Burrow, then answers every other request with an error whose message is escape sequences — an
 * OSC 52 clipboard write, a screen clear, a C1 CSI, a bidi override and a line break with a fake log line
 * behind it) against a real `burrow daemon`. The daemon logs the refusals it gets (relay tickets it could not
 * publish); before, the escapes went into the log as they came, so `tail -f` on the log ran them.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BurrowDaemon, until } from '../helpers/burrow-daemon.js';
import { figure } from '../helpers/fault-fixture.js';

/** What the hostile relay says in every refusal (JSON-escaped on the wire, as any relay error). */
const HOSTILE =
  '\x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J\x1b[H\x9b31m\u202eterces\r\n2099-01-01T00:00:00.000Z info  all is well';

let relay: Server;
let relayUrl: string;
let daemon: BurrowDaemon;
let refusals = 0;

beforeAll(async () => {
  const b64 = (n: number) => randomBytes(n).toString('base64url');
  relay = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/v1/burrows') {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ burrowId: b64(16), burrowToken: b64(32) }));
      return;
    }
    refusals++;
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'bad_request', message: HOSTILE } }));
  });
  // The agent socket's upgrade: refused with the same body.
  relay.on('upgrade', (_req, socket) => {
    refusals++;
    const body = JSON.stringify({ error: { code: 'unauthorized', message: HOSTILE } });
    socket.end(
      `HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
  daemon = await BurrowDaemon.start();
}, 120_000);

afterAll(async () => {
  await daemon?.stop();
  await new Promise((r) => relay?.close(r));
});

describe('a hostile relay’s words in the daemon log', () => {
  it('are written as visible escapes: no control character, no second line', async () => {
    const enrolled = await daemon.cli('enroll', '--relay', relayUrl);
    expect(enrolled.code).toBe(0);
    await until(
      () => daemon.log.includes('relay tickets: could not publish'),
      'the refusal in the log',
      20_000,
    );
    const lines = daemon.log.split('\n').filter((l) => l !== '');
    const quoting = lines.filter((l) => l.includes('could not publish'));
    expect(quoting.length).toBeGreaterThan(0);
    // Every line of the log is a log entry (no line the relay made up), and none holds a control character.
    const entry = /^\d{4}-\d\d-\d\dT[\d:.]+Z (info |warn |error|debug)/;
    const notEntries = lines.filter((l) => !entry.test(l) || l.startsWith('2099-'));
    const withControls = lines.filter((l) =>
      /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/.test(l),
    );
    figure('attack-log-injection', {
      relayRefusals: refusals,
      logLines: lines.length,
      linesQuotingTheRelay: quoting.length,
      linesWithControlCharacters: withControls.length,
      linesNotALogEntry: notEntries.length,
    });
    expect({ withControls, notEntries }).toEqual({ withControls: [], notEntries: [] });
    // The relay's words are still there to read, shown.
    expect(quoting[0]).toContain('\\x1b]52;c;cm0gLXJmIH4K\\x07');
    expect(quoting[0]).toContain('\\r\\n2099-01-01T00:00:00.000Z info  all is well');
  });
});
