/**
 * The guard that keeps miniflare's loopback server (and every other TCP server in serve-relay's process) to
 * its own OS user (issue 24.1). The other-user case runs for real in tests/integration/attack-local.test.ts;
 * here: the socket-table reading, and that the guard closes a connection whose peer is not ours before the
 * server sees a byte, and keeps ours.
 */
import { readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { parseTcpTable, peerBelongsTo, restrictListenersToOwner } from '../dev/owner-only-listeners.mjs';

/** Two rows as /proc/net/tcp prints them: a listener on 0x8F6D (36717) and a connection to it from 0xA41B. */
const TABLE = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:8F6D 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 144028 1 0000000058808290 100 0 0 10 0
   1: 0100007F:A41B 0100007F:8F6D 01 00000000:00000000 00:00000000 00000000  1001        0 118059 1 000000002756e173 20 4 30 10 -1
   2: 0100007F:8F6D 0100007F:A41B 01 00000000:00000000 00:00000000 00000000     0        0 118060 1 000000002756e173 20 4 30 10 -1
`;

describe('parseTcpTable / peerBelongsTo', () => {
  const rows = parseTcpTable(TABLE);

  it('reads ports (hex), state and uid, skipping the header', () => {
    expect(rows).toEqual([
      { localPort: 36717, remotePort: 0, state: '0A', uid: 0 },
      { localPort: 42011, remotePort: 36717, state: '01', uid: 1001 },
      { localPort: 36717, remotePort: 42011, state: '01', uid: 0 },
    ]);
  });

  it("finds the peer's socket by its ports, and its creator", () => {
    const ends = { localPort: 36717, remotePort: 42011 };
    expect(peerBelongsTo(rows, ends, 1001)).toBe(true);
    // Our own accepted socket (uid 0) is not the peer.
    expect(peerBelongsTo(rows, ends, 0)).toBe(false);
  });

  it('refuses when no row is the peer, and when any candidate is another user’s', () => {
    expect(peerBelongsTo(rows, { localPort: 36717, remotePort: 1 }, 1001)).toBe(false);
    const twice = [...rows, { localPort: 42011, remotePort: 36717, state: '01', uid: 0 }];
    expect(peerBelongsTo(twice, { localPort: 36717, remotePort: 42011 }, 1001)).toBe(false);
    // A TIME_WAIT row (uid 0 in the kernel's table) is no peer.
    const stale = [{ localPort: 42011, remotePort: 36717, state: '06', uid: 1001 }];
    expect(peerBelongsTo(stale, { localPort: 36717, remotePort: 42011 }, 1001)).toBe(false);
  });

  it('ignores malformed lines', () => {
    expect(parseTcpTable('header\nnot a row\n  1: x y\n')).toEqual([]);
  });
});

describe('restrictListenersToOwner', () => {
  const servers: ReturnType<typeof createServer>[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  });

  const serve = async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.end('hello');
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    return { port, requests: () => requests };
  };

  const get = (port: number) =>
    new Promise<string>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () => resolve(body));
      });
      req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      req.end();
    });

  it('keeps connections from this user and closes those whose peer is not ours, unheard', async () => {
    const refused: string[] = [];
    // The socket table as the guard reads it, narrowed to a test switch: the real one sees only this user here.
    let pretendOther = false;
    const real = () =>
      ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((t) => parseTcpTable(readFileSync(t, 'utf8')));
    const undo = restrictListenersToOwner({
      onRefused: (d) => refused.push(d),
      readRows: () => real().map((r) => (pretendOther ? { ...r, uid: r.uid + 1 } : r)),
    });
    const server = await serve();
    undo();
    expect(await get(server.port)).toBe('hello');
    pretendOther = true;
    expect(await get(server.port)).toBe('ECONNRESET');
    expect(server.requests()).toBe(1);
    expect(refused).toEqual([expect.stringMatching(/^closed a connection to port \d+ from another user/)]);
  });
});
