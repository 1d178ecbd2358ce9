/**
 * Run by in-process-exit.test.ts as a process of its own: sessions used in-process (as the benches and any
 * embedding do). A snapshot of a session whose program has exited is awaited with nothing else alive but the
 * screen worker — the process must wait for it; then, the sessions killed, it must exit by itself.
 */
import { SessionRegistry } from '../src/session/session-registry.js';
import { RecordingViewer, until } from './helpers.js';

const registry = new SessionRegistry({
  now: Date.now,
  env: { PATH: process.env.PATH, HOME: process.env.HOME },
  defaultShell: '/bin/sh',
  log: () => {},
});
const s = registry.create({ cwd: '/tmp', command: ['/bin/sh', '-c', 'seq 1 20000'] });
const viewer = new RecordingViewer('v');
s.attach(viewer);
await until('the exit', () => viewer.events.some((e) => e.type === 'exit'));
const snapshot = await s.snapshot();
console.log(snapshot.data.includes('20000') ? 'snapshot ok' : 'snapshot without the last line');
await registry.killAll();
console.log('done');
