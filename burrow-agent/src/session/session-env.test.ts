import { describe, expect, it } from 'vitest';
import { sessionEnvironment } from './session-env.js';

describe('sessionEnvironment (issue 24.3)', () => {
  const daemon = {
    HOME: '/home/u',
    LANG: 'C.UTF-8',
    SHELL: '/bin/zsh',
    SSH_AUTH_SOCK: '/run/user/1000/ssh',
    EDITOR: 'vim',
    GONE: undefined,
    // Burrow's own, and an enclosing session's
    BURROW_STATE_DIR: '/home/u/.local/state/burrow',
    BURROW_RELAY_SECRET: 'operator-secret',
    BURROW_SESSION: 'outer-session',
    BURROW_SHELL_NONCE_FILE: '/tmp/burrow-nonce-x/1.nonce',
    // systemd's
    NOTIFY_SOCKET: '/run/systemd/notify',
    INVOCATION_ID: 'f00',
    JOURNAL_STREAM: '8:123',
    LISTEN_FDS: '1',
    // the terminal the daemon was started in
    TMUX: '/tmp/tmux-1000/default,1,0',
    TMUX_PANE: '%1',
    KITTY_LISTEN_ON: 'unix:/tmp/kitty',
    VSCODE_IPC_HOOK_CLI: '/run/vscode.sock',
    TERM_PROGRAM: 'kitty',
    COLUMNS: '80',
  };

  it("removes Burrow's own, the service manager's and the launching terminal's variables, and keeps the rest", () => {
    expect(sessionEnvironment(daemon)).toEqual({
      HOME: '/home/u',
      LANG: 'C.UTF-8',
      SHELL: '/bin/zsh',
      SSH_AUTH_SOCK: '/run/user/1000/ssh',
      EDITOR: 'vim',
    });
  });

  it("under npm: removes npm's variables, a registry token among them, and the PATH entries npm put first", () => {
    const env = sessionEnvironment({
      PATH: '/repo/node_modules/.bin:/node_modules/.bin:/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin:/home/u/bin:/usr/bin',
      npm_lifecycle_event: 'start',
      'npm_config_//registry.npmjs.org/:_authToken': 'npm_secret',
      npm_package_name: 'burrow',
      INIT_CWD: '/repo',
      NODE: '/usr/bin/node',
      HOME: '/home/u',
    });
    expect(env).toEqual({ PATH: '/home/u/bin:/usr/bin', HOME: '/home/u' });
  });

  it('keeps a node_modules/.bin the user put in PATH themselves when npm did not start the daemon', () => {
    expect(sessionEnvironment({ PATH: './node_modules/.bin:/usr/bin' }).PATH).toBe(
      './node_modules/.bin:/usr/bin',
    );
  });

  it('does not change its argument', () => {
    const input = { BURROW_STATE_DIR: '/x', A: '1' };
    sessionEnvironment(input);
    expect(input).toEqual({ BURROW_STATE_DIR: '/x', A: '1' });
  });
});
