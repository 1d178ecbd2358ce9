/**
 * Direct path vs relay path (issue 25; `npm run bench -w tests`, under /work/bin/exclusive), in one run:
 *   1. keystroke echo p50/p99 through the relay and through the direct path (the same session program, the
 *      same Node phone: Pocket's core with node-datachannel's RTCPeerConnection);
 *   2. output throughput through each;
 *   3. from starting a connection to the direct path carrying its traffic;
 *   4. the bytes the relay carries while the direct path does (both sides' counters);
 *   5. a flood cut off mid-way (the phone's link goes down, no close): bytes lost or repeated, and how long
 *      the session stood still while it moved to the relay.
 * WebRTC stays inside a test network (tests/helpers/netns.ts): the Burrow in one namespace, the phone in
 * another, one veth between them; the relay on workerd in the machine's namespace, reached over loopback.
 * Needs root, like the tests that use it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientSocketUrl } from '@burrow/pocket/core';
import { startRelay } from '../../relay-worker/test/harness.js';
import { BurrowDaemon } from '../helpers/burrow-daemon.js';
import { TestNetwork } from '../helpers/netns.js';
import { ms, printTable, type Quantiles, quantiles } from './bench-stats.js';
import { ECHO_COMMAND } from './echo-paths.js';

const PHONE_SCRIPT = join(import.meta.dirname, 'direct-bench-phone.ts');
const THROUGHPUT_BYTES = 16 * 1024 * 1024;
const FLOOD_LINES = 400_000;
const CUT_AFTER_BYTES = 512 * 1024;

interface PathRow {
  readonly path: string;
  readonly sent: { relayBytes: number; directBytes: number; resent: number; toRelay: number };
}

type Reply = { op: string; [k: string]: unknown };

function phoneProcess(net: TestNetwork): { child: ChildProcess; ask(m: object, op: string): Promise<Reply> } {
  const [file, args] = net.phone.command(process.execPath, [
    '--import',
    'tsx',
    '--conditions=source',
    PHONE_SCRIPT,
  ]);
  const child = spawn(file, args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    cwd: import.meta.dirname,
  });
  const waiting = new Map<string, (r: Reply) => void>();
  const listeners: ((r: Reply) => void)[] = [];
  child.on('message', (r: Reply) => {
    if (r.op === 'error') throw new Error(`bench phone: ${r.message}`);
    for (const l of listeners) l(r);
    const w = waiting.get(r.op);
    waiting.delete(r.op);
    w?.(r);
  });
  const ask = (m: object, op: string) =>
    new Promise<Reply>((resolve) => {
      waiting.set(op, resolve);
      child.send(m);
    });
  return Object.assign({ child, ask }, { on: (l: (r: Reply) => void) => listeners.push(l) });
}

async function main() {
  const net = await TestNetwork.create();
  const relay = await startRelay();
  await net.home.forwardToRoot(relay.port);
  await net.phone.forwardToRoot(relay.port);
  const daemon = await BurrowDaemon.start({
    direct: true,
    env: { PS1: '$ ', HISTFILE: '/dev/null' },
    wrap: (file, args) => net.home.command(file, args),
  });
  const cleanup = async () => {
    await daemon.stop();
    await relay.stop();
    await net.close();
  };
  try {
    await daemon.enroll(relay.url);
    const { pairing } = await daemon.pairPhone('bench phone');
    const dir = mkdtempSync(join(tmpdir(), 'burrow-direct-bench-'));
    const data = join(dir, 'data.txt');
    writeFileSync(data, `${'x'.repeat(99)}\n`.repeat(THROUGHPUT_BYTES / 100));
    const newSession = async (name: string, ...command: string[]) => {
      const r = await daemon.cli('new', '--name', name, '--', ...command);
      if (r.code !== 0) throw new Error(`burrow new: ${r.stderr}`);
      return r.stdout.trim();
    };
    const paths = async () =>
      (await daemon.json<{ direct: { connections: PathRow[] } }>('status', '--json')).direct.connections;
    const phone = phoneProcess(net);
    await new Promise<void>((r) => phone.child.once('message', () => r()));

    // 1–2 over the relay: the policy off, so the phone never offers.
    await daemon.cli('settings', 'set', 'direct', 'off');
    await phone.ask({ op: 'start', pairing }, 'started');
    const echoId = await newSession('echo', ...ECHO_COMMAND);
    await phone.ask({ op: 'attach-echo', session: echoId }, 'attached');
    const relayEcho = (await phone.ask({ op: 'echo', label: 'relay' }, 'echo')).result as {
      backToBack: Quantiles;
      gapped: Quantiles;
    };
    const pumpCommand = `read go; cat ${data}; echo THE-END`;
    const relayPump = await phone.ask(
      {
        op: 'pump',
        session: await newSession('pump-relay', '/bin/sh', '-c', pumpCommand),
        endMarker: 'THE-END',
        go: '\r',
      },
      'pumped',
    );
    await phone.ask({ op: 'stop' }, 'stopped');

    // 3: a fresh connection with the policy allowed.
    await daemon.cli('settings', 'set', 'direct', 'allowed');
    const started = await phone.ask({ op: 'start', pairing }, 'started');
    const direct = await phone.ask({ op: 'await-direct' }, 'direct');
    await phone.ask({ op: 'attach-echo', session: echoId }, 'attached');
    const burrowBefore = (await paths())[0]!;
    const phoneBefore = (await phone.ask({ op: 'counters' }, 'counters')).counters as { relayBytes: number };
    const directEcho = (await phone.ask({ op: 'echo', label: 'direct' }, 'echo')).result as typeof relayEcho;
    const directPump = await phone.ask(
      {
        op: 'pump',
        session: await newSession('pump-direct', '/bin/sh', '-c', pumpCommand),
        endMarker: 'THE-END',
        go: '\r',
      },
      'pumped',
    );
    const burrowAfter = (await paths())[0]!;
    const phoneAfter = (await phone.ask({ op: 'counters' }, 'counters')).counters as { relayBytes: number };

    // 5: the phone's link goes down mid-flood.
    const expect = Array.from({ length: FLOOD_LINES }, (_, i) => `${i + 1}\r\n`).join('');
    (phone as unknown as { on(l: (r: Reply) => void): void }).on((r) => {
      if (r.op !== 'cut-now') return;
      net.cutDirect();
      phone.child.send({ op: 'cut-done', at: Date.now() });
    });
    const flood = await phone.ask(
      {
        op: 'pump',
        session: await newSession('flood', '/bin/sh', '-c', `read go; seq 1 ${FLOOD_LINES}; echo THE-END`),
        endMarker: 'THE-END',
        expect,
        cutAfterBytes: CUT_AFTER_BYTES,
        go: '\r',
      },
      'pumped',
    );
    net.restoreDirect();
    const afterCut = (await paths())[0]!;
    const wsRtt = quantiles(
      (await phone.ask({ op: 'ws-rtt', url: clientSocketUrl(pairing.relayUrl, pairing.burrowId) }, 'ws-rtt'))
        .samples as number[],
    );
    phone.child.kill();

    const mbps = (p: Reply) => ((p.bytes as number) / (p.ms as number) / 1000).toFixed(1);
    console.log(
      '\nDirect path vs relay path (same run, same session programs, Node phone in a test network)\n',
    );
    printTable([
      ['', 'relay', 'direct', 'direct/relay'],
      [
        'echo p50 (back to back)',
        ms(relayEcho.backToBack.p50),
        ms(directEcho.backToBack.p50),
        (directEcho.backToBack.p50 / relayEcho.backToBack.p50).toFixed(2),
      ],
      [
        'echo p99 (back to back)',
        ms(relayEcho.backToBack.p99),
        ms(directEcho.backToBack.p99),
        (directEcho.backToBack.p99 / relayEcho.backToBack.p99).toFixed(2),
      ],
      [
        'echo p50 (10 ms apart)',
        ms(relayEcho.gapped.p50),
        ms(directEcho.gapped.p50),
        (directEcho.gapped.p50 / relayEcho.gapped.p50).toFixed(2),
      ],
      [
        'echo p99 (10 ms apart)',
        ms(relayEcho.gapped.p99),
        ms(directEcho.gapped.p99),
        (directEcho.gapped.p99 / relayEcho.gapped.p99).toFixed(2),
      ],
      [
        'output throughput (MB/s)',
        mbps(relayPump),
        mbps(directPump),
        (Number(mbps(directPump)) / Number(mbps(relayPump))).toFixed(2),
      ],
    ]);
    console.log('');
    printTable([
      ['measure', 'value'],
      ['start → connected (relay handshake, hello)', ms(started.connectedMs as number)],
      ['start → direct path carrying the session', ms(direct.sinceStartMs as number)],
      [
        'relay bytes while direct (Burrow → relay, during echo + 16 MB output)',
        String(burrowAfter.sent.relayBytes - burrowBefore.sent.relayBytes),
      ],
      [
        'relay bytes while direct (phone → relay, same span)',
        String(phoneAfter.relayBytes - phoneBefore.relayBytes),
      ],
      [
        'direct bytes in that span (Burrow → phone)',
        String(burrowAfter.sent.directBytes - burrowBefore.sent.directBytes),
      ],
      [
        `flood of ${FLOOD_LINES} lines cut after ${CUT_AFTER_BYTES} bytes: received exactly once, in order`,
        String(flood.exact),
      ],
      ['  …snapshots (resyncs) during it', String((flood.snapshots as number) - 1)],
      ['  …the session stood still at most', ms(flood.stallMs as number)],
      [
        '  …messages the Burrow sent again on the relay',
        String(afterCut.sent.resent - burrowAfter.sent.resent),
      ],
      [
        '  …phone connection state changes during it (none: no reconnect)',
        String((flood.statuses as string[]).length),
      ],
      [
        'relay socket kept open while direct: frames per minute on it',
        '4 (RL-KEEP-1 ping and pong, 11 B each)',
      ],
      [
        'resuming it instead: a new socket + one round trip, p50 / p99',
        `${ms(wsRtt.p50)} / ${ms(wsRtt.p99)}`,
      ],
    ]);
    if (flood.exact !== true) throw new Error('the cut flood did not arrive exactly once and in order');
  } finally {
    await cleanup();
  }
}

await main();
