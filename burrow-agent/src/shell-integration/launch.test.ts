import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OSC_MAX_BYTES } from '../terminal/index.js';
import { defaultIntegrationDir, integrationDirFrom } from './integration-dir.js';
import { shellIntegrationLaunch } from './launch.js';
import { checkShellNonce, createShellNonce, NONCE_MAX_CHARS } from './nonce.js';
import { writeNonceFile } from './nonce-file.js';
import { interactiveFlags, shellKindOf } from './shell-kind.js';

const dir = defaultIntegrationDir();
const nonceFile = '/run/burrow-nonce-x/1.nonce';
const base = { env: { HOME: '/home/u', PATH: '/usr/bin', GONE: undefined }, nonceFile, integrationDir: dir };

describe('shellIntegrationLaunch', () => {
  it('starts bash with the init file, and tells it when it was asked for a login shell', () => {
    const plain = shellIntegrationLaunch({ ...base, shellPath: '/bin/bash', args: [] });
    expect(plain).toEqual({
      file: '/bin/bash',
      args: ['--init-file', join(dir, 'bash/burrow.bash'), '-i'],
      // Only the file's path: the nonce itself is never in the environment (issue 24.3).
      env: { HOME: '/home/u', PATH: '/usr/bin', BURROW_SHELL_NONCE_FILE: nonceFile },
      integrated: true,
      shell: 'bash',
    });
    const login = shellIntegrationLaunch({ ...base, shellPath: 'bash', args: ['-l'] });
    expect(login.args).toEqual(['--init-file', join(dir, 'bash/burrow.bash'), '-i']);
    expect(login.env.BURROW_SHELL_LOGIN).toBe('1');
  });

  it('points zsh at its ZDOTDIR and passes the user one on only when there was one', () => {
    const none = shellIntegrationLaunch({ ...base, shellPath: '/usr/bin/zsh', args: ['-l'] });
    expect(none.args).toEqual(['-l']);
    expect(none.env.ZDOTDIR).toBe(join(dir, 'zsh'));
    expect(none.env).not.toHaveProperty('BURROW_USER_ZDOTDIR');
    const own = shellIntegrationLaunch({
      ...base,
      shellPath: 'zsh',
      args: [],
      env: { ...base.env, ZDOTDIR: '/home/u/.config/zsh' },
    });
    expect(own.env.BURROW_USER_ZDOTDIR).toBe('/home/u/.config/zsh');
    expect(own.shell).toBe('zsh');
  });

  it('prepends the fish data directory to XDG_DATA_DIRS, remembering when it was unset', () => {
    const fishData = join(dir, 'fish-data');
    const unset = shellIntegrationLaunch({ ...base, shellPath: '/usr/bin/fish', args: [] });
    expect(unset.env.XDG_DATA_DIRS).toBe(`${fishData}:/usr/local/share:/usr/share`);
    expect(unset.env.BURROW_XDG_DATA_DIRS_UNSET).toBe('1');
    expect(unset.env.BURROW_FISH_DATA_DIR).toBe(fishData);
    const set = shellIntegrationLaunch({
      ...base,
      shellPath: 'fish',
      args: ['--login'],
      env: { XDG_DATA_DIRS: '/opt/share' },
    });
    expect(set.env.XDG_DATA_DIRS).toBe(`${fishData}:/opt/share`);
    expect(set.env).not.toHaveProperty('BURROW_XDG_DATA_DIRS_UNSET');
  });

  it('leaves other programs, non-interactive shells, the opt-out and a missing script dir unchanged', () => {
    const unchanged = (shellPath: string, args: string[], env: Record<string, string> = {}, at = dir) => {
      const r = shellIntegrationLaunch({
        shellPath,
        args,
        env: { HOME: '/h', ...env },
        nonceFile,
        integrationDir: at,
      });
      expect(r).toEqual({
        file: shellPath,
        args,
        env: { HOME: '/h', ...env },
        integrated: false,
        shell: null,
      });
    };
    for (const program of ['/bin/sh', 'dash', '/usr/bin/nu', 'python3', 'bashful', '/usr/bin/zsh5']) {
      unchanged(program, []);
    }
    unchanged('bash', ['-c', 'echo hi']);
    unchanged('bash', ['script.sh']);
    unchanged('zsh', ['-f']);
    unchanged('fish', ['--interactive', '-c', 'ls']);
    unchanged('bash', [], { BURROW_SHELL_INTEGRATION: '0' });
    const colon = mkdtempSync(join(tmpdir(), 'burrow-si-a:b-'));
    try {
      cpSync(dir, colon, { recursive: true });
      unchanged('fish', [], {}, colon);
      expect(
        shellIntegrationLaunch({ ...base, shellPath: 'zsh', args: [], integrationDir: colon }).integrated,
      ).toBe(true);
    } finally {
      rmSync(colon, { recursive: true });
    }
    const empty = mkdtempSync(join(tmpdir(), 'burrow-si-empty-'));
    try {
      unchanged('zsh', [], {}, empty);
    } finally {
      rmSync(empty, { recursive: true });
    }
  });

  it('rejects a malformed request with TypeError', () => {
    const good = { ...base, shellPath: 'bash', args: [] as string[] };
    expect(() => shellIntegrationLaunch(null as never)).toThrow(TypeError);
    expect(() => shellIntegrationLaunch({ ...good, shellPath: '' })).toThrow(TypeError);
    expect(() => shellIntegrationLaunch({ ...good, args: [1] as never })).toThrow(TypeError);
    expect(() => shellIntegrationLaunch({ ...good, env: null as never })).toThrow(TypeError);
    expect(() => shellIntegrationLaunch({ ...good, integrationDir: '' })).toThrow(TypeError);
    expect(() => shellIntegrationLaunch({ ...good, nonceFile: 'relative.nonce' })).toThrow(TypeError);
    expect(() => shellIntegrationLaunch({ ...good, nonceFile: 5 as never })).toThrow(TypeError);
  });
});

describe('writeNonceFile', () => {
  it('writes the nonce to a new owner-only file in an owner-only directory, and removes it once', () => {
    const nonce = createShellNonce();
    const file = writeNonceFile(nonce);
    expect(readFileSync(file.path, 'utf8')).toBe(`${nonce}\n`);
    expect(statSync(file.path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(file.path)).mode & 0o777).toBe(0o700);
    const other = writeNonceFile(createShellNonce());
    expect(other.path).not.toBe(file.path);
    file.dispose();
    file.dispose();
    expect(existsSync(file.path)).toBe(false);
    expect(existsSync(other.path)).toBe(true);
    other.dispose();
  });

  it('refuses what is not a nonce', () => {
    expect(() => writeNonceFile('ab;cd')).toThrow(TypeError);
    expect(() => writeNonceFile('abc')).toThrow(RangeError);
    expect(() => writeNonceFile('a'.repeat(NONCE_MAX_CHARS + 1))).toThrow(RangeError);
  });
});

describe('createShellNonce', () => {
  it('makes 32 lowercase hex digits, different every time, that the launcher accepts', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100; i++) {
      const n = createShellNonce();
      expect(n).toMatch(/^[0-9a-f]{32}$/);
      expect(() => checkShellNonce(n)).not.toThrow();
      seen.add(n);
    }
    expect(seen.size).toBe(100);
  });
});

describe('shell detection', () => {
  it('knows the three shells by basename and reads interactive and login flags', () => {
    expect(shellKindOf('/usr/local/bin/fish')).toBe('fish');
    expect(shellKindOf('-zsh')).toBe('zsh');
    expect(shellKindOf('/bin/bash.exe')).toBeNull();
    expect(interactiveFlags('bash', ['-il'])).toEqual({ login: true, interactive: true });
    expect(interactiveFlags('fish', ['--interactive'])).toEqual({ login: false, interactive: true });
    expect(interactiveFlags('bash', ['--interactive'])).toBeNull();
    expect(interactiveFlags('zsh', ['-i', '-l', '-i', '-l', '-i'])).toBeNull();
  });

  it('accepts only lists of known flags, for any list of strings (property)', () => {
    const known = /^(-[il]+|--login)$/;
    fc.assert(
      fc.property(
        fc.constantFrom('bash', 'zsh', 'fish' as const),
        fc.array(fc.oneof(fc.string(), fc.constantFrom('-i', '-l', '-li', '--login', '-c', '--')), {
          maxLength: 6,
        }),
        (shell, args) => {
          const flags = interactiveFlags(shell, args);
          const expected =
            args.length <= 4 &&
            args.every((a) => known.test(a) || (shell === 'fish' && a === '--interactive'));
          expect(flags !== null).toBe(expected);
        },
      ),
      { seed: 0x5e11, numRuns: 500 },
    );
  });
});

describe('integration directory', () => {
  it('resolves to burrow-agent/shell-integration from the compiled module as from the source', () => {
    const fromSource = defaultIntegrationDir();
    const agentRoot = join(fromSource, '..');
    const compiledModule = pathToFileURL(join(agentRoot, 'dist/shell-integration/integration-dir.js')).href;
    expect(integrationDirFrom(compiledModule)).toBe(fromSource);
    expect(fromSource.endsWith('/burrow-agent/shell-integration/')).toBe(true);
    for (const script of [
      'bash/burrow.bash',
      'zsh/.zshenv',
      'zsh/.zprofile',
      'zsh/.zshrc',
      'zsh/.zlogin',
      'zsh/burrow-hooks.zsh',
      'fish-data/fish/vendor_conf.d/burrow.fish',
    ]) {
      expect(readFileSync(join(fromSource, script), 'utf8')).toMatch(/Burrow/);
    }
  });

  it('keeps the scripts’ command line cuts inside the parser’s OSC bound', () => {
    const read = (file: string, name: string) => {
      const m = new RegExp(`${name}[= ](\\d+)`).exec(readFileSync(join(dir, file), 'utf8'));
      return Number(m?.[1]);
    };
    // `633;E;` + line + `;` + nonce (the C after it is its own OSC); bash and zsh escape a character into at
    // most 4 bytes.
    const overhead = '633;E;;'.length + NONCE_MAX_CHARS;
    expect(read('bash/burrow.bash', '__burrow_cmdline_max_chars') * 4 + overhead).toBeLessThan(OSC_MAX_BYTES);
    expect(read('zsh/burrow-hooks.zsh', '__burrow_cmdline_max_chars') * 4 + overhead).toBeLessThan(
      OSC_MAX_BYTES,
    );
    const fish = read('fish-data/fish/vendor_conf.d/burrow.fish', '__burrow_escaped_max_chars');
    expect(fish + overhead).toBeLessThan(OSC_MAX_BYTES);
  });
});
