/**
 * The state store contract: owner-only directory and files, atomic replacement, fail-closed reads.
 */
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readFileFailClosed, StateFileError, writeFileAtomic } from '../src/state/atomic-file.js';
import {
  type BurrowState,
  emptyState,
  openSettingsStore,
  openStateStore,
} from '../src/state/burrow-state.js';
import { ensureOwnerOnlyDir, resolveStateDir, StateDirError } from '../src/state/state-dir.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'burrow-state-'));
const mode = (p: string) => statSync(p).mode & 0o777;

describe('state directory', () => {
  it('resolves BURROW_STATE_DIR, then XDG_STATE_HOME, then ~/.local/state; macOS Application Support', () => {
    expect(resolveStateDir({ BURROW_STATE_DIR: '/x/y', HOME: '/h' }, 'linux')).toBe('/x/y');
    expect(resolveStateDir({ XDG_STATE_HOME: '/xdg', HOME: '/h' }, 'linux')).toBe('/xdg/burrow');
    expect(resolveStateDir({ XDG_STATE_HOME: 'relative', HOME: '/h' }, 'linux')).toBe(
      '/h/.local/state/burrow',
    );
    expect(resolveStateDir({ HOME: '/h' }, 'darwin')).toBe('/h/Library/Application Support/Burrow');
    expect(() => resolveStateDir({ BURROW_STATE_DIR: 'rel' }, 'linux')).toThrow(StateDirError);
  });

  it('is created 0700 and tightened if looser; a symlink in the way is refused', () => {
    const base = tmp();
    const dir = join(base, 'a', 'b');
    ensureOwnerOnlyDir(dir);
    expect(mode(dir)).toBe(0o700);
    chmodSync(dir, 0o755);
    ensureOwnerOnlyDir(dir);
    expect(mode(dir)).toBe(0o700);
    symlinkSync(dir, join(base, 'link'));
    expect(() => ensureOwnerOnlyDir(join(base, 'link'))).toThrow(StateDirError);
  });
});

describe('atomic file', () => {
  it('writes 0600 and leaves no temp file behind', () => {
    const dir = tmp();
    const p = join(dir, 'f.json');
    writeFileAtomic(p, 'one');
    writeFileAtomic(p, 'two');
    expect(mode(p)).toBe(0o600);
    expect(readFileFailClosed(p)?.toString()).toBe('two');
    expect(readdirSync(dir)).toEqual(['f.json']);
  });

  it('reads fail closed: missing is null; exposed, foreign-typed or oversized files are errors', () => {
    const dir = tmp();
    expect(readFileFailClosed(join(dir, 'none'))).toBeNull();
    const loose = join(dir, 'loose');
    writeFileSync(loose, '{}', { mode: 0o644 });
    chmodSync(loose, 0o644);
    expect(() => readFileFailClosed(loose)).toThrow(/chmod 600/);
    mkdirSync(join(dir, 'adir'), { mode: 0o700 });
    expect(() => readFileFailClosed(join(dir, 'adir'))).toThrow(StateFileError);
    const big = join(dir, 'big');
    writeFileSync(big, Buffer.alloc(1024 * 1024 + 1), { mode: 0o600 });
    expect(() => readFileFailClosed(big)).toThrow(/corrupt/);
    const unreadable = join(dir, 'unreadable');
    writeFileSync(unreadable, '{}', { mode: 0o000 });
    if (process.getuid?.() !== 0) expect(() => readFileFailClosed(unreadable)).toThrow(StateFileError);
  });

  it('refuses to write an oversized file', () => {
    expect(() => writeFileAtomic(join(tmp(), 'x'), Buffer.alloc(1024 * 1024 + 1))).toThrow(RangeError);
  });
});

describe('burrow.json and settings.json', { timeout: 30_000 }, () => {
  const sample: BurrowState = {
    version: 1,
    enrollment: {
      relayUrl: 'https://relay.example/',
      burrowId: Buffer.alloc(16, 1).toString('base64url'),
      burrowToken: Buffer.alloc(32, 2).toString('base64url'),
      enrolledAt: 1,
    },
    staticKey: {
      publicKey: Buffer.alloc(32, 3).toString('base64url'),
      privateKey: Buffer.alloc(32, 4).toString('base64url'),
    },
    acl: [
      {
        clientPublicKey: Buffer.alloc(32, 5).toString('base64url'),
        label: 'phone',
        psk: Buffer.alloc(32, 6).toString('base64url'),
        deliveryId: Buffer.alloc(16, 7).toString('base64url'),
        pairedAt: 2,
      },
    ],
  };

  it('a missing file is empty; a saved one reads back; the file is 0600', () => {
    const dir = tmp();
    expect(openStateStore(dir).load()).toEqual(emptyState());
    openStateStore(dir).save(sample);
    expect(openStateStore(dir).load()).toEqual(sample);
    expect(mode(join(dir, 'burrow.json'))).toBe(0o600);
    expect(openSettingsStore(dir).load()).toEqual({ version: 1, defaultShell: null });
  });

  it('corrupt JSON, a wrong version or unknown fields are errors that say what to do, never empty', () => {
    const dir = tmp();
    const p = join(dir, 'burrow.json');
    for (const bad of [
      '{',
      '{"version":2,"enrollment":null,"staticKey":null,"acl":[]}',
      '{"version":1,"enrollment":null,"staticKey":null,"acl":[],"x":1}',
      '\xff\xfe',
    ]) {
      writeFileSync(p, bad, { mode: 0o600 });
      expect(() => openStateStore(dir).load()).toThrow(StateFileError);
    }
  });

  it('refuses to save an invalid value and keeps the old file', () => {
    const dir = tmp();
    const store = openStateStore(dir);
    store.save(sample);
    expect(() => store.save({ ...sample, acl: [{ ...sample.acl[0]!, psk: 'short' }] })).toThrow(TypeError);
    expect(openStateStore(dir).load()).toEqual(sample);
  });

  it('random bytes in the file never load as state and never throw anything but StateFileError (property)', () => {
    const dir = tmp();
    const p = join(dir, 'burrow.json');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          fc.json().map((j) => Buffer.from(j)),
        ),
        (bytes) => {
          writeFileSync(p, bytes, { mode: 0o600 });
          try {
            const s = openStateStore(dir).load();
            // Only a genuinely valid document may load.
            expect(s.version).toBe(1);
          } catch (err) {
            expect(err).toBeInstanceOf(StateFileError);
          }
        },
      ),
      { seed: 42, numRuns: 300 },
    );
  });
});
