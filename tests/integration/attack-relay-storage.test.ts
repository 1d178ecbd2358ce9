/**
 * The relay never logs or stores a token, key or frame payload (issue 8; DESIGN §2, §3; RL-ID-2, RL-STORE-1).
 * A full scenario against a real relay (`wrangler dev`, enrollment secret, VAPID, state kept) and a real
 * `burrow daemon`: enroll with the operator secret, pair a phone, connect, attach, type a marker and read it
 * back, subscribe to Web Push, send a test push. Then every byte the relay left behind — its output, wrangler's
 * log files, its bundle and its Durable Object storage (SQLite databases, WAL and journal files), and the
 * wrangler / miniflare scratch directories made while it ran — is searched for every secret in every
 * encoding. Zero hits, and, as a control that the search can see into the storage at all, what the relay is
 * meant to store (token hashes, the subscription) is found there.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  MemoryPairingStorage,
  pairWithOffer,
  parsePairingLink,
  rawClientPrivateKey,
} from '@burrow/pocket/core';
import { decodeBase64url, decodeRelayInfo } from '@burrow/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStateStore } from '../../burrow-agent/src/state/burrow-state.js';
import { generateVapidKeys } from '../../relay-worker/src/push/vapid-keys.js';
import { REPO_ROOT, type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { putSubscription } from '../../relay-worker/test/relay-client.js';
import { openPairing } from '../helpers/attack-phone.js';
import {
  binaryNeedle,
  type Hit,
  type Needle,
  search,
  searchTree,
  textNeedle,
} from '../helpers/attack-secrets.js';
import { BurrowDaemon, until } from '../helpers/burrow-daemon.js';
import { nodeSocketFactory } from '../helpers/node-socket.js';
import { phoneConnection } from '../helpers/phone-connection.js';
import { LocalPushService } from '../helpers/push-service.js';

const TYPED_MARKER = 'TYPEDsecretQ3XR';
const PRINTED_MARKER = 'PRINTEDsecretV8KM';
const NAME_MARKER = 'NAMEsecretJ2PW';
const ENROLL_SECRET = `operator-${createHash('sha256').update(String(Math.random())).digest('base64url')}`;

let relay: RelayHandle;
let service: LocalPushService;
let daemon: BurrowDaemon;
let vapidSecret: string;
/** Scratch directories present before this relay started (so the new ones can be searched too). */
let scratchBefore: Set<string>;

const SCRATCH_ROOTS = [join(REPO_ROOT, '.wrangler', 'tmp'), tmpdir()];
const scratchDirs = () =>
  SCRATCH_ROOTS.flatMap((root) =>
    existsSync(root)
      ? readdirSync(root)
          .filter((n) => root !== tmpdir() || n.startsWith('miniflare-'))
          .map((n) => join(root, n))
      : [],
  );

beforeAll(async () => {
  service = await LocalPushService.start();
  vapidSecret = (await generateVapidKeys()).secret;
  scratchBefore = new Set(scratchDirs());
  relay = await startRelay({
    keepState: true,
    vars: {
      ENROLL_SECRET,
      VAPID_PRIVATE_KEY: vapidSecret,
      VAPID_SUBJECT: 'mailto:it@example.com',
      DEV_ALLOW_LOOPBACK_PUSH: '1',
    },
  });
  daemon = await BurrowDaemon.start({ env: { BURROW_RELAY_SECRET: ENROLL_SECRET } });
});

afterAll(async () => {
  await daemon?.stop();
  await relay?.stop();
  await service?.close();
  // keepState kept it for the search; it is this test's own temporary directory.
  if (relay !== undefined) await rm(relay.persistDir, { recursive: true, force: true });
});

describe('what the relay keeps', () => {
  it('holds no token, key, secret or payload in its logs or storage after a full scenario', async () => {
    const enrolled = await daemon.cli('enroll', '--relay', relay.url);
    expect(enrolled.code, enrolled.stderr).toBe(0);
    const { link, exited } = await openPairing(daemon, 'storage phone');
    const storage = new MemoryPairingStorage();
    const pairing = await pairWithOffer({
      offer: parsePairingLink(link),
      socketFactory: nodeSocketFactory(),
      storage,
      label: 'storage phone',
      platform: 'node',
      userAgent: 'vitest',
      onCode: () => {},
    });
    expect(await exited).toBe(0);
    const session = await daemon.json<{ id: string }>(
      'new',
      '--name',
      NAME_MARKER,
      '--json',
      '--',
      '/bin/bash',
      '--norc',
      '--noprofile',
    );
    const conn = phoneConnection({ pairing, storage });
    conn.start();
    let text = '';
    try {
      await until(() => conn.sessions.has(session.id), 'the directory');
      let snapshot = false;
      const term = conn.attach(
        session.id,
        { cols: 80, rows: 24 },
        {
          onSnapshot: () => {
            snapshot = true;
          },
          onOutput: (d) => {
            text += new TextDecoder().decode(d);
          },
        },
      );
      await until(() => snapshot, 'the snapshot');
      // The typed marker travels as keystrokes; the printed one only appears in the shell's output.
      term.input(`# ${TYPED_MARKER}\r`);
      term.input(`echo ${PRINTED_MARKER.slice(0, 7)}""${PRINTED_MARKER.slice(7)}\r`);
      await until(() => text.includes(PRINTED_MARKER) && text.includes(TYPED_MARKER), 'the markers echoed');
    } finally {
      conn.stop();
    }
    const vapidPublicKey = decodeRelayInfo(await (await fetch(`${relay.url}/v1/info`)).json())
      .vapidPublicKey!;
    const subscription = service.subscribe(vapidPublicKey);
    expect((await putSubscription(relay.url, pairing.burrowId, pairing, subscription)).status).toBe(204);
    const push = await daemon.json<{ outcome: string; delivered: number }>('push', 'test', '--json');
    expect(push).toMatchObject({ outcome: 'delivered', delivered: 1 });

    const state = openStateStore(daemon.stateDir).load();
    const burrowToken = state.enrollment!.burrowToken;
    const staticKey = state.staticKey!;
    const offer = parsePairingLink(link);
    const bytes = (b64: string) => decodeBase64url(b64);
    const vapidD = (JSON.parse(vapidSecret) as { d: string }).d;
    // Everything that must never leave the Burrow or the phone in a form the relay could write down.
    const secrets: Needle[] = [
      textNeedle('enrollment secret', ENROLL_SECRET),
      binaryNeedle('burrowToken', bytes(burrowToken)),
      binaryNeedle('deliveryToken', bytes(pairing.deliveryToken)),
      binaryNeedle('device psk', bytes(pairing.psk)),
      binaryNeedle('phone static private key', rawClientPrivateKey(pairing)),
      binaryNeedle('phone static public key', bytes(pairing.clientPublicKey)),
      binaryNeedle('Burrow static private key', bytes(staticKey.privateKey)),
      binaryNeedle('Burrow static public key', bytes(staticKey.publicKey)),
      binaryNeedle('pairing secret', offer.secret),
      binaryNeedle('VAPID private key (d)', bytes(vapidD)),
      textNeedle('VAPID private key (JWK)', vapidSecret),
      textNeedle('typed marker', TYPED_MARKER),
      textNeedle('printed marker', PRINTED_MARKER),
      textNeedle('session name', NAME_MARKER),
    ];
    // The subscription's auth secret is the relay's to keep (it must encrypt each push, RFC 8291 §3.2), but
    // it must never be logged.
    const authSecret = binaryNeedle('push auth secret', bytes(subscription.keys.auth));
    const sha = (b64: string) => createHash('sha256').update(bytes(b64)).digest('base64url');
    // What RL-STORE-1 says the relay stores: the search must find these in its storage, or it sees nothing.
    const stored: Needle[] = [
      textNeedle('SHA-256(burrowToken)', sha(burrowToken)),
      textNeedle('SHA-256(deliveryToken)', sha(pairing.deliveryToken)),
      textNeedle('push endpoint', subscription.endpoint),
      textNeedle('p256dh', subscription.keys.p256dh),
      textNeedle('push auth secret', subscription.keys.auth),
    ];

    const scratch = scratchDirs().filter((d) => !scratchBefore.has(d));
    await daemon.stop();
    const liveLog = relay.log();
    // Stopping flushes what workerd still held (WAL checkpoints, log files); then everything is on disk.
    await relay.stop();
    const logHits: Hit[] = search(Buffer.from(liveLog), 'wrangler output', [...secrets, authSecret]);
    const tree = searchTree(relay.persistDir, secrets);
    const logFiles = searchTree(join(relay.persistDir, 'logs'), [authSecret]);
    const scratchHits = scratch
      .filter(existsSync)
      .flatMap((d) => searchTree(d, [...secrets, authSecret]).hits);
    const found = searchTree(join(relay.persistDir, 'state'), stored).hits;
    const foundNames = new Set(found.map((h) => h.needle));
    const forms = secrets.reduce((n, s) => n + s.forms.length, 0);
    console.log(
      `[figure] relay storage and logs: ${secrets.length} secrets × ${forms} encodings searched in ${tree.files} files ` +
        `(${(tree.bytes / 1024).toFixed(0)} KiB: DO SQLite + WAL, wrangler logs, bundle), ${liveLog.length} chars of wrangler output, ` +
        `${scratch.length} scratch dirs: ${logHits.length + tree.hits.length + logFiles.hits.length + scratchHits.length} hits; ` +
        `stored as designed: ${[...foundNames].join(', ')}`,
    );
    expect(logHits).toEqual([]);
    expect(tree.hits).toEqual([]);
    expect(logFiles.hits).toEqual([]);
    expect(scratchHits).toEqual([]);
    expect([...foundNames].sort()).toEqual(stored.map((s) => s.name).sort());
  }, 120_000);
});
