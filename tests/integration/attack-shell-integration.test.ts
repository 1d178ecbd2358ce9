/**
 * Issue 24 items 2 and 3, with real shells on real PTYs and the real parser and engine: a program in a session
 * tries to pass for the shell's integration, and the session's environment is checked for what the daemon
 * carries.
 *
 * - Item 2: `burrowforger`, run at the prompt of an integrated bash, zsh and fish, prints every mark that could
 *   name, start or end a command — 633 E/C/D/A unsigned, with a guessed nonce, with the real one if it can find
 *   it (its parent shell's /proc environ, and whatever file that names), 133 C with fish 4's `cmdline_url` and
 *   kitty's `cmdline`, 133 D — while its session is not engaged and its command was seen (so a forged end would
 *   ring). Before: the session's command became `claude` (watched by default) and a forged D rang "Command
 *   finished". Now nothing changes until the forger really exits, and that exit rings once, for the forger.
 * - Item 3: the daemon's environment carries Burrow's and its launchers' variables (an enrollment secret, its
 *   state directory, systemd's NOTIFY_SOCKET, the tmux and kitty it was started from, an npm registry token);
 *   a program in the session sees none of them, and the shell's initial environment names only the nonce's
 *   file, which is gone by the first prompt.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { figure } from '../helpers/fault-fixture.js';
import { AttentionFixture, SHELLS, sleep } from './attention-fixture.js';

const SECRET = 'relay-secret-0123456789abcdef';
const NPM_TOKEN = 'npm_0123456789abcdefTOKEN';
const DAEMON_ENV = {
  BURROW_RELAY_SECRET: SECRET,
  BURROW_STATE_DIR: '/home/owner/.local/state/burrow',
  BURROW_DETACH_KEY: 'ctrl-a',
  NOTIFY_SOCKET: '/run/systemd/notify',
  INVOCATION_ID: '0123456789abcdef',
  JOURNAL_STREAM: '8:4242',
  TMUX: '/tmp/tmux-0/default,4242,0',
  TMUX_PANE: '%3',
  KITTY_LISTEN_ON: 'unix:/tmp/kitty-4242',
  npm_lifecycle_event: 'start',
  'npm_config_//registry.npmjs.org/:_authToken': NPM_TOKEN,
  USER_SETTING: 'kept',
};

/** Every way a program could try to name, start or end a command; it waits for `go` (see the header). */
const FORGER = `#!/bin/sh
nonce=$(tr '\\0' '\\n' < /proc/$PPID/environ | sed -n 's/^BURROW_SHELL_NONCE=//p')
file=$(tr '\\0' '\\n' < /proc/$PPID/environ | sed -n 's/^BURROW_SHELL_NONCE_FILE=//p')
if [ -n "$file" ] && [ -r "$file" ]; then nonce=$(cat "$file"); fi
echo "forger found [$nonce]"
while [ ! -e "$HOME/go" ]; do sleep 0.05; done
guess=0123456789abcdef0123456789abcdef
printf '\\033]633;E;claude;%s\\007\\033]633;C;%s\\007' "\${nonce:-$guess}" "\${nonce:-$guess}"
printf '\\033]633;E;claude\\007\\033]633;C\\007\\033]633;E;claude;%s\\007\\033]633;C;%s\\007' $guess $guess
printf '\\033]133;C;cmdline_url=claude\\007\\033]133;C;cmdline=claude\\007\\033]133;C\\007'
printf '\\033]633;D;0;%s\\007\\033]633;D;0\\007\\033]133;D;1\\007\\033]133;D\\007' "\${nonce:-$guess}"
printf '\\033]633;A;%s\\007\\033]633;A\\007\\033]133;A\\007' "\${nonce:-$guess}"
echo forged-all
sleep 2
`;

const DUMP_ENV = `#!/bin/sh
env > "$1"
tr '\\0' '\\n' < /proc/$PPID/environ > "$2"
`;

let fx: AttentionFixture;

beforeAll(() => {
  fx = AttentionFixture.create(undefined, DAEMON_ENV);
  fx.host.updateSettings({ pushDelayMs: 0 });
  for (const [name, text] of [
    ['burrowforger', FORGER],
    ['burrowdumpenv', DUMP_ENV],
  ] as const)
    writeFileSync(join(fx.home, 'bin', name), text, { mode: 0o755 });
});

afterAll(async () => {
  await fx?.close();
});

describe.each(SHELLS)('%s: a program in the session', (shell) => {
  it('cannot name, start or end a command by printing the shell integration’s marks (24.2)', async () => {
    const s = await fx.shell(shell);
    const go = join(fx.home, 'go');
    // Seen at its start (a viewer is attached), then left alone: a forged end would ring.
    const viewer = fx.attachLocal(s);
    fx.type(s, 'burrowforger');
    await fx.waitFor(() => fx.host.view(s.id)?.command === 'burrowforger', 10_000, 'the forger to start');
    await fx.waitFor(() => /forger found \[/.test(fx.output(s.id)), 10_000, 'the forger to look for a nonce');
    const found = /forger found \[([0-9a-f]*)\]/.exec(fx.output(s.id))?.[1] ?? '';
    viewer.detach();
    writeFileSync(go, '');
    try {
      await fx.waitFor(() => fx.output(s.id).includes('forged-all'), 10_000, 'the forgeries');
      await sleep(300);
      const during = fx.host.view(s.id)!;
      figure(`attack-shell-integration ${shell} forger`, {
        nonceFound: found === '' ? 'none' : 'yes',
        commandDuring: String(during.command),
        watchKeyDuring: String(during.watchKey),
        ringingDuring: String(during.ringing),
      });
      expect(found).toBe('');
      expect({ command: during.command, ringing: during.ringing }).toEqual({
        command: 'burrowforger',
        ringing: false,
      });
      expect(during.watchKey).not.toBe('claude');
      // The real end still rings, once, for the command that really ran.
      await fx.waitFor(() => fx.host.view(s.id)?.ringing === true, 15_000, 'the real exit to ring');
      const after = fx.host.view(s.id)!;
      expect(after.notification?.source).toBe('exit');
      expect(after.notification?.body).toContain('burrowforger');
      await sleep(300);
      expect(fx.pushesFor(s.id)).toHaveLength(1);
    } finally {
      rmSync(go, { force: true });
    }
  });

  it("sees none of the daemon's secrets or Burrow's variables, and no nonce anywhere in /proc (24.3)", async () => {
    const s = await fx.shell(shell);
    const envFile = join(fx.home, `env-${shell}.txt`);
    const shellEnvFile = join(fx.home, `shellenv-${shell}.txt`);
    fx.type(s, `burrowdumpenv ${envFile} ${shellEnvFile}`);
    await fx.waitFor(
      () => existsSync(shellEnvFile) && readFileSync(shellEnvFile, 'utf8') !== '',
      10_000,
      'the dump',
    );
    await sleep(200);
    const program = readFileSync(envFile, 'utf8').split('\n');
    const initial = readFileSync(shellEnvFile, 'utf8').split('\n');
    const names = (lines: string[]) => lines.map((l) => l.split('=')[0]!).filter((n) => n !== '');
    // A program sees exactly one Burrow variable: its session's id.
    expect(names(program).filter((n) => n.startsWith('BURROW_'))).toEqual(['BURROW_SESSION']);
    expect(program).toContain(`BURROW_SESSION=${s.id}`);
    for (const lines of [program, initial]) {
      const text = lines.join('\n');
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(NPM_TOKEN);
      for (const gone of [
        'NOTIFY_SOCKET',
        'INVOCATION_ID',
        'JOURNAL_STREAM',
        'TMUX',
        'TMUX_PANE',
        'KITTY_LISTEN_ON',
      ])
        expect(names(lines)).not.toContain(gone);
      expect(names(lines).filter((n) => n.startsWith('npm_'))).toEqual([]);
      expect(lines).toContain('USER_SETTING=kept');
    }
    // The shell's initial environment names the nonce's file, which the script removed before the prompt.
    expect(names(initial)).not.toContain('BURROW_SHELL_NONCE');
    const file = initial.find((l) => l.startsWith('BURROW_SHELL_NONCE_FILE='))?.slice(24);
    expect(file).toBeDefined();
    expect(existsSync(file!)).toBe(false);
    figure(`attack-shell-integration ${shell} environment`, {
      programVariables: names(program).length,
      burrowVariablesSeen: names(program)
        .filter((n) => n.startsWith('BURROW_'))
        .join('/'),
      shellInitialBurrowVariables: names(initial)
        .filter((n) => n.startsWith('BURROW_'))
        .join('/'),
      nonceFileLeft: existsSync(file!) ? 'yes' : 'no',
    });
  });
});
