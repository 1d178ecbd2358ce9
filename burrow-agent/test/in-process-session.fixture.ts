/**
 * Run by in-process-exit.test.ts as a process of its own: sessions used in-process (as the benches and any
 * embedding do), killed, and then nothing left to do — the process must exit by itself.
 */
import { SessionRegistry } from '../src/session/session-registry.js';
import { RecordingViewer, until } from './helpers.js';

const registry = new SessionRegistry({
  now: Date.now,
  env: { PATH: process.env.PATH, HOME: process.env.HOME },
  defaultShell: '/bin/sh',
  log: () => {},
});
const s = registry.create({ cwd: '/tmp', command: ['/bin/sh', '-c', 'seq 1 20000; sleep 30'] });
const viewer = new RecordingViewer('v');
s.attach(viewer);
await until('the output', () => viewer.text().includes('20000'));
await s.snapshot();
await registry.killAll();
console.log('done');
