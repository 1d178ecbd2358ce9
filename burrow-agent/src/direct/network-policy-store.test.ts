// The network policy's file: defaults, validation, and fail-closed reads. [SPEC: R-NET-1, R-NET-2]
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NETWORK_POLICY_FILE, NetworkPolicyStore } from './network-policy-store.js';

const dir = () => mkdtempSync(join(tmpdir(), 'burrow-policy-'));

describe('NetworkPolicyStore', () => {
  it('no file: direct allowed, no ICE servers', () => {
    expect(new NetworkPolicyStore(dir(), () => {}).get()).toEqual({ direct: 'allowed', iceServers: [] });
  });

  it('saves owner-only and tells its listeners; refuses what is not a policy, naming the rule', () => {
    const d = dir();
    const store = new NetworkPolicyStore(d, () => {});
    const heard: string[] = [];
    store.onChange((p) => heard.push(p.direct));
    store.set({ direct: 'off', iceServers: [{ url: 'stun:stun.example.org' }] });
    expect(heard).toEqual(['off']);
    expect(statSync(join(d, NETWORK_POLICY_FILE)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(d, NETWORK_POLICY_FILE), 'utf8'))).toEqual({
      direct: 'off',
      iceServers: [{ url: 'stun:stun.example.org' }],
    });
    expect(() => store.set({ direct: 'off', iceServers: [{ url: 'turn:t.org' }] })).toThrow(/R-NET-2/);
    expect(store.get().direct).toBe('off');
  });

  it('a file that cannot be trusted reads as off, and says so once', () => {
    for (const corrupt of ['{ not json', '{"direct":"sometimes","iceServers":[]}']) {
      const d = dir();
      writeFileSync(join(d, NETWORK_POLICY_FILE), corrupt, { mode: 0o600 });
      const lines: string[] = [];
      const store = new NetworkPolicyStore(d, (l) => lines.push(l));
      expect(store.get()).toEqual({ direct: 'off', iceServers: [] });
      store.get();
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/direct path is off until it is fixed/);
    }
    const d = dir();
    writeFileSync(join(d, NETWORK_POLICY_FILE), '{"direct":"allowed","iceServers":[]}');
    chmodSync(join(d, NETWORK_POLICY_FILE), 0o644);
    expect(new NetworkPolicyStore(d, () => {}).get().direct).toBe('off'); // readable by others: not trusted
  });
});
