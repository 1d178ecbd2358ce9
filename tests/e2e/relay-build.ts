/**
 * A relay operator who ships their own Pocket (issue 16 item 7): the e2e relay serves a copy of Pocket's build
 * from a folder of its own, and `shipModifiedBuild` rewrites files there the way a careful attacker would —
 * including the SHA-256 list inside `sw.js`, so the service worker's own download check passes and only the
 * Burrow's word can tell the build apart. `wrangler dev` serves changed assets without a restart.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './pocket-screens.js';

/** A copy of Pocket's build for one relay to serve (and an attacker to edit). */
export function copyOfBuild(dist: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'burrow-relay-assets-'));
  cpSync(dist, dir, { recursive: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The lazily loaded terminal chunk's URL path (`/assets/TerminalScreen-….js`). */
export function terminalChunk(dir: string): string {
  const name = readdirSync(join(dir, 'assets')).find((f) => /^TerminalScreen-.*\.js$/.test(f));
  if (name === undefined) throw new Error(`no terminal chunk in ${dir}/assets`);
  return `/assets/${name}`;
}

const sri = (bytes: Buffer | string) => `sha256-${createHash('sha256').update(bytes).digest('base64')}`;

/**
 * Rewrites `edits` (URL path → new text from old) in the relay's folder and the matching hashes in `sw.js`
 * (written last, so the browser's next update check finds a complete build), then waits until the relay
 * serves the new `sw.js`.
 */
export async function shipModifiedBuild(
  dir: string,
  relayUrl: string,
  edits: Readonly<Record<string, (text: string) => string>>,
): Promise<void> {
  let sw = readFileSync(join(dir, 'sw.js'), 'utf8');
  for (const [path, edit] of Object.entries(edits)) {
    const file = join(dir, path);
    const before = readFileSync(file, 'utf8');
    const after = edit(before);
    if (after === before) throw new Error(`the edit of ${path} changed nothing`);
    if (!sw.includes(sri(before))) throw new Error(`sw.js does not list ${path}'s hash`);
    sw = sw.replaceAll(sri(before), sri(after));
    writeFileSync(file, after);
  }
  writeFileSync(join(dir, 'sw.js'), sw);
  await until(
    async () => (await (await fetch(`${relayUrl}/sw.js`)).text()) === sw,
    'the relay to serve the modified sw.js',
    30_000,
  );
}
