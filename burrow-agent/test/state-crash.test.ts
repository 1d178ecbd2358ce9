/**
 * Kill the writer at random moments mid-write, many times, and never find a torn or lost file. The writer is
 * a child process running the real atomic-file module (transpiled once with TypeScript so each child starts
 * in tens of milliseconds), replacing the file as fast as it can with self-checking documents.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const KILLS = 200;
let work: string;
let childScript: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'burrow-crash-'));
  const lib = join(work, 'lib');
  mkdirSync(lib);
  for (const name of ['atomic-file', 'state-dir']) {
    const src = readFileSync(new URL(`../src/state/${name}.ts`, import.meta.url), 'utf8');
    const out = ts.transpileModule(src, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    writeFileSync(join(lib, `${name}.js`), out.outputText);
  }
  writeFileSync(join(lib, 'package.json'), '{"type":"module"}');
  childScript = join(lib, 'writer.js');
  writeFileSync(
    childScript,
    `import { writeFileAtomic } from './atomic-file.js';
const [path, startSeq] = process.argv.slice(2);
let seq = Number(startSeq);
const pad = 'x'.repeat(20000);
// The loop never yields, so a dead parent's broken pipe is never heard: a writer whose test worker was
// killed (a timeout) once wrote on for hours. It checks its parent instead.
const parent = process.ppid;
process.stdout.write('ready\\n');
for (;;) {
  if (process.ppid !== parent) process.exit(0);
  seq++;
  const body = JSON.stringify({ seq, pad });
  writeFileAtomic(path, JSON.stringify({ body, len: body.length }));
  if (seq % 5 === 0) process.stdout.write(seq + '\\n');
}
`,
  );
});

function readDoc(path: string): number {
  const raw = readFileSync(path, 'utf8');
  const doc = JSON.parse(raw) as { body: string; len: number };
  if (doc.body.length !== doc.len) throw new Error('torn document');
  return (JSON.parse(doc.body) as { seq: number }).seq;
}

/** Kill/check loops run side by side on separate files, so node start-up time does not serialize. */
const LANES = 4;

async function lane(path: string, kills: number, seed: number): Promise<number> {
  let lastSeen = 0;
  const body = JSON.stringify({ seq: 0 });
  writeFileSync(path, JSON.stringify({ body, len: body.length }), { mode: 0o600 });
  // Deterministic "random" delays so a failure can be reproduced.
  let x = seed;
  const rand = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
  let writesSeen = 0;
  for (let i = 0; i < kills; i++) {
    const child = spawn(process.execPath, [childScript, path, String(lastSeen)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.stdout.once('data', () => setTimeout(resolve, rand() * 30));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const seq = readDoc(path); // throws on a torn file, ENOENT on a lost one
    expect(seq).toBeGreaterThanOrEqual(lastSeen);
    writesSeen += seq - lastSeen;
    lastSeen = seq;
  }
  return writesSeen;
}

describe('atomic writes under SIGKILL', () => {
  it(`never leaves a torn or lost file across ${KILLS} kills at random moments`, async () => {
    const writes = await Promise.all(
      Array.from({ length: LANES }, (_, i) => lane(join(work, `state-${i}.json`), KILLS / LANES, 12345 + i)),
    );
    // The kills really did land while writes were happening, not before the first one.
    expect(writes.reduce((a, b) => a + b, 0)).toBeGreaterThan(KILLS / 2);
  }, 180_000);
});
