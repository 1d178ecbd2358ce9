/**
 * A private two-host network for the direct path's tests (issue 25: WebRTC in tests never touches the
 * machine's other interfaces): two network namespaces the test creates, `home` (the Burrow) and `phone` (the
 * browser or Node phone), joined by one veth pair of the benchmarking range's addresses, each with a default
 * route on it (without one Chromium gathers no host candidate at all, shared notes). Nothing else is in
 * them: ICE, DTLS and SCTP can only travel home ↔ phone over the veth.
 *
 * The relay stays in the machine's own namespace on its loopback port; each namespace reaches it through a
 * bridge (netns-bridge.mjs) that forwards exactly that TCP port of its loopback to the same port here, and
 * the test reaches a port inside (a browser's automation endpoint) the other way. URLs are the same on both
 * sides (`http://127.0.0.1:<port>`), so a pairing link made at home opens on the phone.
 *
 *   const net = await TestNetwork.create();
 *   await net.home.forwardToRoot(relay.port); await net.phone.forwardToRoot(relay.port);
 *   spawn(...net.home.command(process.execPath, [BIN, 'daemon']));
 *   await net.cutDirect();   // the veth goes down: the direct path black-holes, loopback traffic goes on
 *   await net.close();
 *
 * Needs root (CI runs as root) and iproute2's `ip` and util-linux's `nsenter`; fails loudly otherwise.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const IP = '/usr/sbin/ip';
const NSENTER = '/usr/bin/nsenter';
const BRIDGE = join(import.meta.dirname, 'netns-bridge.mjs');
/** The benchmarking range (RFC 2544), never routed anywhere: home .1, phone .2. */
export const HOME_ADDRESS = '198.18.0.1';
export const PHONE_ADDRESS = '198.18.0.2';
const BRIDGE_START_MS = 10_000;

/** Namespaces still existing; removed if the process exits without closing them. */
const LIVE = new Set<string>();
process.once('exit', () => {
  for (const name of LIVE) {
    try {
      execFileSync(IP, ['netns', 'del', name], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  }
});

function ip(...args: string[]): void {
  try {
    execFileSync(IP, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`ip ${args.join(' ')} failed: ${stderr.trim() || (error as Error).message}`);
  }
}

/** Why this machine cannot make a test network, or null when it can. */
export function netnsUnavailable(): string | null {
  if (typeof process.getuid === 'function' && process.getuid() !== 0)
    return 'the direct-path tests create network namespaces, which needs root (CI runs as root)';
  if (!existsSync(IP)) return `${IP} is missing: install Debian's iproute2 package`;
  if (!existsSync(NSENTER)) return `${NSENTER} is missing: install Debian's util-linux package`;
  return null;
}

let counter = 0;

export class Netns {
  readonly #bridge: ChildProcess;
  readonly #servers: Server[] = [];
  readonly #pending = new Map<string, (error: Error | null) => void>();
  #scripts: string | null = null;

  private constructor(
    readonly name: string,
    readonly address: string,
    bridge: ChildProcess,
  ) {
    this.#bridge = bridge;
    bridge.on('message', (m: { op: string; id?: number; port?: number; message?: string }) => {
      if (m.op === 'dial' && m.id !== undefined && m.port !== undefined) {
        const id = m.id;
        const outer = connect(m.port, '127.0.0.1');
        outer.once('connect', () => bridge.send({ op: 'piped', id }, outer));
        outer.once('error', () => bridge.send({ op: 'piped', id }));
      } else if (m.op === 'listening' || m.op === 'error') {
        const key = m.op === 'listening' ? `listen ${m.port}` : (m.message ?? '').split(':')[0]!;
        const done = this.#pending.get(key);
        this.#pending.delete(key);
        done?.(m.op === 'error' ? new Error(`netns ${this.name}: ${m.message}`) : null);
      }
    });
  }

  /** The namespace `name` (already made and addressed) and its bridge process. */
  static async open(name: string, address: string): Promise<Netns> {
    const bridge = spawn(NSENTER, [`--net=/run/netns/${name}`, '--', process.execPath, BRIDGE], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the bridge in ${name} did not start`)),
        BRIDGE_START_MS,
      );
      bridge.once('message', () => {
        clearTimeout(timer);
        resolve();
      });
      bridge.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the bridge in ${name} exited (${code})`));
      });
    });
    return new Netns(name, address, bridge);
  }

  /** `[command, args]` that run `file args…` inside this namespace (nsenter execs: the pid is the program's). */
  command(file: string, args: readonly string[] = []): [string, string[]] {
    return [NSENTER, [`--net=/run/netns/${this.name}`, '--', file, ...args]];
  }

  /** An executable script running `file` inside this namespace (for launchers that take a browser path). */
  wrapper(file: string): string {
    this.#scripts ??= mkdtempSync(join(tmpdir(), `burrow-netns-${this.name}-`));
    const path = join(this.#scripts, file.replace(/\W+/g, '_'));
    writeFileSync(path, `#!/bin/sh\nexec ${NSENTER} --net=/run/netns/${this.name} -- ${file} "$@"\n`);
    chmodSync(path, 0o755);
    return path;
  }

  /** Inside, 127.0.0.1:port reaches the machine's 127.0.0.1:port (the relay). */
  forwardToRoot(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#pending.set(`listen ${port}`, (e) => (e ? reject(e) : resolve()));
      this.#bridge.send({ op: 'listen', port });
    });
  }

  /** The machine's 127.0.0.1:port reaches 127.0.0.1:port inside (a browser's automation endpoint). */
  exposeToRoot(port: number): Promise<void> {
    const server = createServer({ pauseOnConnect: true }, (outer: Socket) => {
      this.#bridge.send({ op: 'expose', port }, outer);
    });
    this.#servers.push(server);
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  }

  async close(): Promise<void> {
    for (const s of this.#servers) s.close();
    if (this.#bridge.exitCode === null) {
      const exited = new Promise((r) => this.#bridge.once('exit', r));
      this.#bridge.kill('SIGTERM');
      await exited;
    }
    if (this.#scripts) rmSync(this.#scripts, { recursive: true, force: true });
  }
}

export class TestNetwork {
  private constructor(
    readonly home: Netns,
    readonly phone: Netns,
    private readonly link: { home: string; phone: string },
  ) {}

  static async create(): Promise<TestNetwork> {
    const why = netnsUnavailable();
    if (why) throw new Error(why);
    const id = `${process.pid.toString(36)}${(counter++).toString(36)}`;
    const names = { home: `bt-${id}-h`, phone: `bt-${id}-p` };
    const link = { home: `vh${id}`.slice(0, 15), phone: `vp${id}`.slice(0, 15) };
    for (const name of Object.values(names)) {
      ip('netns', 'add', name);
      LIVE.add(name);
      ip('-n', name, 'link', 'set', 'lo', 'up');
    }
    ip(
      'link',
      'add',
      link.home,
      'netns',
      names.home,
      'type',
      'veth',
      'peer',
      'name',
      link.phone,
      'netns',
      names.phone,
    );
    for (const [side, address] of [
      ['home', HOME_ADDRESS],
      ['phone', PHONE_ADDRESS],
    ] as const) {
      ip('-n', names[side], 'addr', 'add', `${address}/24`, 'dev', link[side]);
      ip('-n', names[side], 'link', 'set', link[side], 'up');
      ip('-n', names[side], 'route', 'add', 'default', 'dev', link[side]);
    }
    const home = await Netns.open(names.home, HOME_ADDRESS);
    const phone = await Netns.open(names.phone, PHONE_ADDRESS);
    return new TestNetwork(home, phone, link);
  }

  /**
   * The phone leaves the network: the veth goes down on its side, so every direct packet is lost without a
   * close (what a phone walking out of Wi-Fi range does); loopback, and so the relay, is untouched.
   */
  cutDirect(): void {
    ip('-n', this.phone.name, 'link', 'set', this.link.phone, 'down');
  }

  /** The phone is back on the network (the default route comes back with the link). */
  restoreDirect(): void {
    ip('-n', this.phone.name, 'link', 'set', this.link.phone, 'up');
    try {
      ip('-n', this.phone.name, 'route', 'add', 'default', 'dev', this.link.phone);
    } catch {
      // still there
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.home.close(), this.phone.close()]);
    for (const ns of [this.home, this.phone]) {
      try {
        ip('netns', 'del', ns.name);
      } catch {
        // gone
      }
      LIVE.delete(ns.name);
    }
  }
}
