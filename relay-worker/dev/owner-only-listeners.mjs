// @ts-check
/**
 * Every TCP server this Node process opens answers only its own OS user (issue 24.1). `serve-relay.mjs` calls
 * `restrictListenersToOwner()` before it loads wrangler.
 *
 * Why: wrangler's dev server runs miniflare in this process, and miniflare opens a loopback HTTP server (one
 * per Miniflare instance, a random 127.0.0.1 port) that workerd calls back into (`#handleLoopback` in
 * miniflare's dist/src/index.js). It has no authentication, and it is not only for logs: `/core/store-temp-file`
 * writes a request body to a path the request chooses, as this user; `/core/log` writes lines into the relay's
 * log; `/core/dev-registry`, `/core/do-storage/…` and `/browser/…` list and launch things. Any local user could
 * reach it (`tests/integration/attack-local.test.ts` wrote a file as root through it). wrangler and miniflare
 * have no option to bind it elsewhere or to require a secret, and workerd is the only legitimate caller: it runs
 * as this user. So each accepted connection's peer is looked up in the kernel's socket table, and a peer socket
 * that belongs to another user — or that cannot be found — is closed before a byte is read.
 *
 * How the peer is found (Linux): `/proc/net/tcp` and `/proc/net/tcp6` list every TCP socket of this network
 * namespace with the uid that created it. For a loopback connection the peer's socket is the row whose local
 * port is our remote port and whose remote port is our local port. That uid is the creator's; a process cannot
 * forge it. Every such row must be ours (ports alone could in theory match two sockets on different loopback
 * addresses: then both must be ours), and at least one must exist. Unix-domain sockets are not checked: their
 * file modes guard them. On a system without `/proc/net/tcp` every TCP connection is refused, and the refusal
 * is reported, so the relay fails loudly instead of serving anyone.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';

/** `/proc/net/tcp` state codes that hold no live peer: TIME_WAIT (uid 0 there) and LISTEN. */
const STALE_STATES = new Set(['06', '0A']);

/**
 * @typedef {{ localPort: number, remotePort: number, state: string, uid: number }} TcpRow
 */

/**
 * The rows of a `/proc/net/tcp` or `/proc/net/tcp6` table (its header line skipped; malformed lines ignored).
 * @param {string} text
 * @returns {TcpRow[]}
 */
export function parseTcpTable(text) {
  /** @type {TcpRow[]} */
  const rows = [];
  for (const line of text.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 8) continue;
    const local = cols[1]?.split(':');
    const remote = cols[2]?.split(':');
    const uid = Number(cols[7]);
    if (local?.length !== 2 || remote?.length !== 2 || !Number.isInteger(uid)) continue;
    rows.push({
      localPort: Number.parseInt(local[1] ?? '', 16),
      remotePort: Number.parseInt(remote[1] ?? '', 16),
      state: cols[3] ?? '',
      uid,
    });
  }
  return rows;
}

/** @returns {TcpRow[]} every TCP socket of this network namespace */
function readTcpTables() {
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((table) => parseTcpTable(readFileSync(table, 'utf8')));
}

/**
 * Whether the peer of an accepted loopback connection (our `localPort`, its `remotePort`) belongs to `uid`:
 * every live socket row that can be the peer is `uid`'s, and there is at least one.
 * @param {readonly TcpRow[]} rows
 * @param {{ localPort: number, remotePort: number }} ends
 * @param {number} uid
 */
export function peerBelongsTo(rows, ends, uid) {
  const peers = rows.filter(
    (r) => r.localPort === ends.remotePort && r.remotePort === ends.localPort && !STALE_STATES.has(r.state),
  );
  return peers.length > 0 && peers.every((r) => r.uid === uid);
}

const GUARDED = Symbol('burrow.ownerOnly');

/**
 * From now on every `net.Server` (http servers included) this process starts listening closes TCP connections
 * from other users at once. Call before anything opens a server. Returns a function that stops guarding
 * servers that start listening later (for tests; serve-relay.mjs never calls it).
 * @param {{ onRefused?: (detail: string) => void, readRows?: () => TcpRow[] }} [options]
 * @returns {() => void}
 */
export function restrictListenersToOwner(options = {}) {
  if (typeof process.getuid !== 'function') throw new Error('owner-only listeners need a POSIX system');
  const uid = process.getuid();
  const readRows = options.readRows ?? readTcpTables;
  const onRefused = options.onRefused ?? (() => {});
  /** @param {net.Socket} socket */
  const guard = (socket) => {
    // A Unix-domain socket has no ports; its file's mode guards it.
    if (socket.remotePort === undefined || socket.localPort === undefined) return;
    const ends = { localPort: socket.localPort, remotePort: socket.remotePort };
    let ok = false;
    try {
      ok = peerBelongsTo(readRows(), ends, uid);
    } catch (error) {
      onRefused(`cannot read the socket table: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (ok) return;
    onRefused(
      `closed a connection to port ${ends.localPort} from another user (peer port ${ends.remotePort})`,
    );
    socket.destroy();
  };
  const listen = net.Server.prototype.listen;
  /** @this {net.Server & { [GUARDED]?: boolean }} */
  function ownerOnlyListen(/** @type {any[]} */ ...args) {
    if (!this[GUARDED]) {
      this[GUARDED] = true;
      // First among the 'connection' listeners: the socket is closed before http's parser reads from it.
      this.prependListener('connection', guard);
    }
    return Reflect.apply(listen, this, args);
  }
  net.Server.prototype.listen = /** @type {typeof listen} */ (/** @type {unknown} */ (ownerOnlyListen));
  return () => {
    net.Server.prototype.listen = listen;
  };
}
