// Noise throughput for both AEAD backends: IKpsk2 handshakes per second and transport MB/s at 1 KiB and
// 32 KiB, with node/noble ratios measured in the same run (absolute numbers depend on the machine; ratios
// are what to compare). Bounded: each measurement runs for MEASURE_MS after a short warm-up; the backends
// alternate for ROUNDS rounds and the median is printed, so load from other processes on a shared machine
// hits both alike.
// Run: npm run bench -w crypto
import { nodeAead } from '../node/node-aead.js';
import {
  type Aead,
  generateKeyPair,
  initiatorIKpsk2,
  type NoiseTransport,
  nobleAead,
  randomBytes,
  responderIKpsk2,
} from '../src/index.js';

const MEASURE_MS = 200;
const WARMUP_MS = 40;
const ROUNDS = 3;

const phone = generateKeyPair();
const burrow = generateKeyPair();
const psk = randomBytes(32);
const prologue = new TextEncoder().encode('burrow bench');

function handshake(aead: Aead): [NoiseTransport, NoiseTransport] {
  const init = initiatorIKpsk2({
    prologue,
    staticKeyPair: phone,
    remoteStaticKey: burrow.publicKey,
    psk,
    aead,
  });
  const resp = responderIKpsk2({ prologue, staticKeyPair: burrow, aead });
  resp.readMessage(init.writeMessage(new Uint8Array(8)));
  resp.setPsk(psk);
  init.readMessage(resp.writeMessage());
  return [init.split(), resp.split()];
}

/** Runs `op` repeatedly for about `ms` milliseconds; returns operations per second. */
function rate(op: () => void, ms: number): number {
  let count = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < 4; i++) op();
    count += 4;
    elapsed = performance.now() - start;
  }
  return (count * 1000) / elapsed;
}

function measure(op: () => void): number {
  rate(op, WARMUP_MS);
  return rate(op, MEASURE_MS);
}

function transportMBps(aead: Aead, size: number): number {
  const [send, receive] = handshake(aead);
  const plaintext = randomBytes(size);
  // One message encrypted by one side and decrypted by the other: the cost a relayed frame pays end to end.
  const perSecond = measure(() => {
    receive.decrypt(send.encrypt(plaintext));
  });
  return (perSecond * size) / 1e6;
}

type Row = { handshakes: number; kib1: number; kib32: number };
const samples = new Map<string, Row[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const aead of [nobleAead, nodeAead]) {
    const row = {
      handshakes: measure(() => handshake(aead)),
      kib1: transportMBps(aead, 1024),
      kib32: transportMBps(aead, 32 * 1024),
    };
    samples.set(aead.name, [...(samples.get(aead.name) ?? []), row]);
  }
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const results = new Map<string, Row>();
for (const [name, rows] of samples) {
  results.set(name, {
    handshakes: median(rows.map((r) => r.handshakes)),
    kib1: median(rows.map((r) => r.kib1)),
    kib32: median(rows.map((r) => r.kib32)),
  });
}

const fmt = (n: number) => n.toFixed(1).padStart(9);
console.log(
  `Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s, median of ${ROUNDS} rounds (transport: encrypt + decrypt)`,
);
console.log('backend   handshakes/s   MB/s @1KiB   MB/s @32KiB');
for (const [name, r] of results) {
  console.log(`${name.padEnd(8)}  ${fmt(r.handshakes)}      ${fmt(r.kib1)}    ${fmt(r.kib32)}`);
}
const noble = results.get('noble')!;
const node = results.get('node')!;
console.log(
  `ratio node/noble: handshakes ${(node.handshakes / noble.handshakes).toFixed(2)}x, ` +
    `1KiB ${(node.kib1 / noble.kib1).toFixed(2)}x, 32KiB ${(node.kib32 / noble.kib32).toFixed(2)}x`,
);
