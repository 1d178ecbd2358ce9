import { describe, expect, it } from 'vitest';
import { capabilityReply } from './capability-replies.js';
import type { TerminalEvent } from './events.js';
import {
  KITTY_MAX_BYTES_PER_ID,
  KITTY_MAX_OPEN_IDS,
  KITTY_PENDING_TTL_MS,
  OSC_MAX_BYTES,
  PARSER_RETAINED_BYTES_LIMIT,
  TITLE_MAX_CODE_POINTS,
} from './limits.js';
import { TerminalParser } from './parser.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

function make(nonce: string | null = null, clock = { t: 0 }): TerminalParser {
  return new TerminalParser({ nonce, now: () => clock.t });
}

function feedAll(parser: TerminalParser, ...parts: string[]): TerminalEvent[] {
  return parts.flatMap((part) => parser.feed(bytes(part)));
}

describe('TerminalParser: arguments', () => {
  it('rejects bad options and chunks with TypeError', () => {
    expect(() => new TerminalParser(null as unknown as { nonce: null; now: () => number })).toThrow(
      TypeError,
    );
    expect(() => new TerminalParser({ nonce: '', now: () => 0 })).toThrow(TypeError);
    expect(() => new TerminalParser({ nonce: 5 as unknown as string, now: () => 0 })).toThrow(TypeError);
    expect(() => new TerminalParser({ nonce: null, now: 0 as unknown as () => number })).toThrow(TypeError);
    expect(() => make().feed('text' as unknown as Uint8Array)).toThrow(TypeError);
  });
});

describe('TerminalParser: output', () => {
  it('reports output where it occurs: one output event before each event that follows text (issue 13)', () => {
    const events = make().feed(bytes('ab\x07cd\x1b[31mef\x1b]2;t\x07gh'));
    expect(events).toEqual([
      { type: 'output', bytes: 2 },
      { type: 'bell' },
      { type: 'output', bytes: 4 },
      { type: 'title', which: 'window', title: 't' },
      { type: 'output', bytes: 2 },
    ]);
    // An OSC that reports nothing (a hyperlink) does not split the count; escape-only reads report no output.
    expect(make().feed(bytes('ab\x1b]8;;http://x\x07cd'))).toEqual([{ type: 'output', bytes: 4 }]);
    expect(make().feed(bytes('\x1b[0m'))).toEqual([]);
    expect(make().feed(new Uint8Array(0))).toEqual([]);
  });

  it('counts long plain runs exactly (indexOf path) including multi-byte UTF-8', () => {
    const text = `${'漢字 and text '.repeat(500)}\x07${'x'.repeat(1000)}`;
    const events = make().feed(bytes(text));
    expect(events).toEqual([
      { type: 'output', bytes: bytes(text).length - 1001 },
      { type: 'bell' },
      { type: 'output', bytes: 1000 },
    ]);
  });

  it('executes C0 controls inside a CSI: BEL rings, others are output (DEC parser)', () => {
    expect(make().feed(bytes('\x1b[3\x07\n1m'))).toEqual([{ type: 'bell' }, { type: 'output', bytes: 1 }]);
  });
});

describe('TerminalParser: OSC bounds', () => {
  it('drops an oversized OSC without holding it, then parses the next one', () => {
    const parser = make();
    const body = 'x'.repeat(64 * 1024);
    const events: TerminalEvent[] = [];
    events.push(...parser.feed(bytes('\x1b]9;')));
    for (let i = 0; i < 32; i++) {
      events.push(...parser.feed(bytes(body)));
      expect(parser.retainedBytes()).toBeLessThanOrEqual(OSC_MAX_BYTES);
    }
    events.push(...parser.feed(bytes('\x07\x1b]9;next\x07')));
    expect(events).toEqual([{ type: 'notify', source: 'osc9', title: '', body: 'next' }]);
    expect(parser.retainedBytes()).toBe(0);
  });

  it('keeps an OSC of exactly OSC_MAX_BYTES and drops one byte more', () => {
    const title = (n: number): string => `\x1b]2;${'t'.repeat(n - 2)}\x07`;
    expect(make().feed(bytes(title(OSC_MAX_BYTES)))).toEqual([
      { type: 'title', which: 'window', title: 't'.repeat(TITLE_MAX_CODE_POINTS) },
    ]);
    expect(make().feed(bytes(title(OSC_MAX_BYTES + 1)))).toEqual([]);
  });

  it('ends an OSC at a bare ESC, as xterm.js does', () => {
    expect(feedAll(make(), '\x1b]2;a\x1b[0m')).toEqual([{ type: 'title', which: 'window', title: 'a' }]);
  });

  it('does not take 8-bit C1 bytes as controls', () => {
    const events = make().feed(Uint8Array.from([0x9b, 0x33, 0x31, 0x6d, 0x9d, 0x32, 0x3b, 0x78, 0x9c]));
    expect(events).toEqual([{ type: 'output', bytes: 9 }]);
  });
});

describe('TerminalParser: kitty OSC 99 state', () => {
  it('bounds open ids, evicting the oldest', () => {
    const parser = make();
    for (let id = 0; id <= KITTY_MAX_OPEN_IDS; id++)
      parser.feed(bytes(`\x1b]99;i=${id}:d=0;title ${id}\x1b\\`));
    const last = KITTY_MAX_OPEN_IDS;
    expect(feedAll(parser, `\x1b]99;i=${last}:p=body;b\x1b\\`)).toEqual([
      { type: 'notify', source: 'osc99', title: `title ${last}`, body: 'b', id: String(last) },
    ]);
    // id 0 was evicted when the last one opened: completing it shows only the new chunk.
    expect(feedAll(parser, '\x1b]99;i=0:p=body;late\x1b\\')).toEqual([
      { type: 'notify', source: 'osc99', title: '', body: 'late', id: '0' },
    ]);
    expect(feedAll(parser, '\x1b]99;i=1:p=body;b\x1b\\')).toEqual([
      { type: 'notify', source: 'osc99', title: 'title 1', body: 'b', id: '1' },
    ]);
  });

  it('bounds the bytes kept per id and still completes', () => {
    const parser = make();
    const chunk = 'y'.repeat(1000);
    for (let i = 0; i < 20; i++) parser.feed(bytes(`\x1b]99;i=big:d=0:p=body;${chunk}\x1b\\`));
    expect(parser.retainedBytes()).toBeLessThanOrEqual(KITTY_MAX_BYTES_PER_ID + 3);
    const [event] = feedAll(parser, '\x1b]99;i=big;T\x1b\\');
    expect(event).toMatchObject({ type: 'notify', source: 'osc99', title: '' });
    expect(parser.retainedBytes()).toBe(0);
  });

  it('expires incomplete notifications on the injected clock', () => {
    const clock = { t: 1000 };
    const parser = make(null, clock);
    parser.feed(bytes('\x1b]99;i=x:d=0;old title\x1b\\'));
    expect(parser.retainedBytes()).toBeGreaterThan(0);
    clock.t += KITTY_PENDING_TTL_MS - 1;
    parser.feed(bytes('a'));
    expect(parser.retainedBytes()).toBeGreaterThan(0);
    clock.t += 1;
    parser.feed(bytes('a'));
    expect(parser.retainedBytes()).toBe(0);
    expect(feedAll(parser, '\x1b]99;i=x:p=body;new\x1b\\')).toEqual([
      { type: 'notify', source: 'osc99', title: '', body: 'new', id: 'x' },
    ]);
  });

  it('ignores malformed metadata, a missing payload separator, and empty notifications', () => {
    expect(feedAll(make(), '\x1b]99;title\x1b\\', '\x1b]99;ii=1;x\x1b\\', '\x1b]99;;\u200b \x1b\\')).toEqual(
      [],
    );
  });

  it('counts icon chunks toward completion without showing their data', () => {
    expect(feedAll(make(), '\x1b]99;i=1:d=0;Hi\x1b\\', '\x1b]99;i=1:p=icon;AAAA\x1b\\')).toEqual([
      { type: 'notify', source: 'osc99', title: 'Hi', body: '', id: '1' },
    ]);
  });
});

describe("TerminalParser: shell integration (only what the session's script signed, issue 24.2)", () => {
  const N = 'n0nce';
  it('takes a signed E, C, D and A: the command line, its start, its end, the next prompt', () => {
    expect(
      feedAll(
        make(N),
        `\x1b]633;E;make test;${N}\x07\x1b]633;C;${N}\x07`,
        `\x1b]633;D;2;${N}\x07\x1b]633;A;${N}\x07`,
      ),
    ).toEqual([
      { type: 'command-start', commandLine: 'make test' },
      { type: 'command-end', exitCode: 2 },
      { type: 'prompt-start' },
    ]);
    // A signed C with no E before it starts a command with no line; a signed D without an exit code.
    expect(feedAll(make(N), `\x1b]633;C;${N}\x07\x1b]633;D;;${N}\x07`)).toEqual([
      { type: 'command-start', commandLine: null },
      { type: 'command-end', exitCode: null },
    ]);
  });

  it('treats every unsigned, wrongly signed or over-long mark that would name, start or end a command as text', () => {
    const forged = [
      '\x1b]633;E;claude\x07\x1b]633;C\x07',
      '\x1b]633;E;claude;n0ncf\x07\x1b]633;C;n0ncf\x07',
      `\x1b]633;E;claude;${N};${N}\x07\x1b]633;C;${N};x\x07`,
      '\x1b]633;E;claude;n0nc\x07',
      '\x1b]133;C;cmdline_url=claude\x07\x1b]133;C;cmdline=claude\x07\x1b]133;C\x07',
      '\x1b]633;D;0\x07\x1b]133;D;1\x07\x1b]633;D;1;bad\x07\x1b]133;D\x07',
      '\x1b]633;A\x07\x1b]133;A\x07\x1b]633;A;x\x07',
    ];
    for (const nonce of [N, null]) expect(feedAll(make(nonce), ...forged), String(nonce)).toEqual([]);
    // Nor does a forged E replace the line the shell announced: the shell's C starts the shell's command.
    expect(feedAll(make(N), `\x1b]633;E;ls;${N}\x07`, ...forged, `\x1b]633;C;${N}\x07`)).toEqual([
      { type: 'command-start', commandLine: 'ls' },
    ]);
    // Without a session nonce even a well-formed signature is none.
    expect(feedAll(make(null), `\x1b]633;E;ls;${N}\x07\x1b]633;C;${N}\x07`)).toEqual([]);
  });

  it('accepts the prompt-end boundary (B) from anyone: it names nothing', () => {
    expect(feedAll(make(null), '\x1b]633;B\x07\x1b]133;B\x07\x1b]133;B;k=v\x07')).toEqual([
      { type: 'command-input-start' },
      { type: 'command-input-start' },
      { type: 'command-input-start' },
    ]);
  });

  it('forgets an announced command line at the next signed prompt or command end', () => {
    expect(feedAll(make(N), `\x1b]633;E;ls;${N}\x07\x1b]633;D;1;${N}\x07\x1b]633;C;${N}\x07`)).toEqual([
      { type: 'command-end', exitCode: 1 },
      { type: 'command-start', commandLine: null },
    ]);
    expect(feedAll(make(N), `\x1b]633;E;ls;${N}\x07\x1b]633;A;${N}\x07\x1b]633;C;${N}\x07`)).toEqual([
      { type: 'prompt-start' },
      { type: 'command-start', commandLine: null },
    ]);
  });

  it('reads exit codes strictly', () => {
    expect(feedAll(make(N), `\x1b]633;D;-1;${N}\x07\x1b]633;D;130;${N}\x07\x1b]633;D;x;${N}\x07`)).toEqual([
      { type: 'command-end', exitCode: null },
      { type: 'command-end', exitCode: 130 },
      { type: 'command-end', exitCode: null },
    ]);
  });

  it('ignores unknown marks and malformed properties', () => {
    expect(feedAll(make(), '\x1b]633;F\x07\x1b]633;P;NoEquals\x07\x1b]633;P;=v\x07\x1b]133;AB\x07')).toEqual(
      [],
    );
  });
});

describe('TerminalParser: OSC 7 and titles', () => {
  it("accepts kitty's unencoded kitty-shell-cwd:// form", () => {
    expect(feedAll(make(), '\x1b]7;kitty-shell-cwd://h/a%20b c\x07')).toEqual([
      { type: 'cwd', cwd: '/a%20b c' },
    ]);
  });

  it('accepts only file URLs with a path', () => {
    expect(
      feedAll(make(), '\x1b]7;FILE://h/x\x07', '\x1b]7;http://h/x\x07', '\x1b]7;file://host\x07'),
    ).toEqual([{ type: 'cwd', cwd: '/x' }]);
  });

  it('bounds and sanitizes titles', () => {
    const [event] = feedAll(make(), `\x1b]0;\u202e${'é'.repeat(1000)}\x07`);
    expect(event).toEqual({ type: 'title', which: 'both', title: 'é'.repeat(TITLE_MAX_CODE_POINTS) });
  });

  it('keeps retained state under its limit', () => {
    const parser = make();
    parser.feed(bytes(`\x1b]633;E;${'c'.repeat(OSC_MAX_BYTES - 10)}\x07\x1b]2;${'t'.repeat(100)}`));
    expect(parser.retainedBytes()).toBeLessThanOrEqual(PARSER_RETAINED_BYTES_LIMIT);
  });
});

describe('TerminalParser: issue 13 fixes', () => {
  it('ends an OSC at U+009C (C2 9C), in one read or split between the two bytes', () => {
    const st = '\u009c';
    expect(feedAll(make(), `\x1b]9;hello${st}after`)).toEqual([
      { type: 'notify', source: 'osc9', title: '', body: 'hello' },
      { type: 'output', bytes: 5 },
    ]);
    const whole = bytes(`\x1b]9;hello${st}x`);
    for (let cut = 1; cut < whole.length; cut++) {
      const parser = make();
      const events = [...parser.feed(whole.subarray(0, cut)), ...parser.feed(whole.subarray(cut))];
      expect(events.filter((e) => e.type !== 'output')).toEqual([
        { type: 'notify', source: 'osc9', title: '', body: 'hello' },
      ]);
    }
    // A 9C that follows anything but C2 is text (the continuation byte of U+011C here), and ends nothing.
    expect(feedAll(make(), '\x1b]9;\u011c ok\x07')).toEqual([
      { type: 'notify', source: 'osc9', title: '', body: '\u011c ok' },
    ]);
    // It ends an ignored string (DCS) too, so what follows is parsed again.
    expect(feedAll(make(), `\x1bPq#0${st}\x1b]9;next\x07`)).toEqual([
      { type: 'notify', source: 'osc9', title: '', body: 'next' },
    ]);
  });

  it('starts a progress cycle on 9;4;1 and 9;4;4 without a percent, and clamps a percent above 100', () => {
    expect(
      feedAll(make(), '\x1b]9;4;1\x07', '\x1b]9;4;4;\x07', '\x1b]9;4;1;150\x07', '\x1b]9;4;2;999\x07'),
    ).toEqual([
      { type: 'progress', state: 'normal', value: null },
      { type: 'progress', state: 'paused', value: null },
      { type: 'progress', state: 'normal', value: 100 },
      { type: 'progress', state: 'error', value: 100 },
    ]);
    expect(feedAll(make(), '\x1b]9;4;1;abc\x07', '\x1b]9;4;7;5\x07')).toEqual([]);
  });

  it("reports an OSC 99 p=close with its id, and forgets that id's pending chunks", () => {
    const parser = make();
    parser.feed(bytes('\x1b]99;i=ask:d=0;Half a title\x1b\\'));
    expect(feedAll(parser, '\x1b]99;i=ask:p=close;\x1b\\')).toEqual([
      { type: 'notify-close', source: 'osc99', id: 'ask' },
    ]);
    expect(parser.retainedBytes()).toBe(0);
    expect(feedAll(parser, '\x1b]99;p=close;\x1b\\')).toEqual([]); // no id: nothing to withdraw
  });

  it('joins base64 chunks that are not cut at a multiple of 4 characters', () => {
    const title = Buffer.from('Claude needs your permission').toString('base64'); // 40 chars
    const parts = [title.slice(0, 5), title.slice(5, 11), title.slice(11, 30), title.slice(30)];
    const parser = make();
    const events = parts.flatMap((part, k) =>
      parser.feed(bytes(`\x1b]99;i=b:e=1:d=${k === parts.length - 1 ? 1 : 0};${part}\x1b\\`)),
    );
    expect(events).toEqual([
      { type: 'notify', source: 'osc99', title: 'Claude needs your permission', body: '', id: 'b' },
    ]);
    // Unpadded, and the last group short.
    expect(
      feedAll(make(), `\x1b]99;e=1;${Buffer.from('ab').toString('base64').replace(/=+$/, '')}\x1b\\`),
    ).toEqual([{ type: 'notify', source: 'osc99', title: 'ab', body: '', id: '' }]);
  });

  it('reads the working directory from OSC 1337 CurrentDir= and OSC 633 P;Cwd=', () => {
    expect(
      feedAll(
        make(),
        '\x1b]1337;CurrentDir=/tmp/a b\x07',
        '\x1b]633;P;Cwd=/srv/x\\x3by\x07',
        '\x1b]1337;SetMark\x07',
      ),
    ).toEqual([
      { type: 'cwd', cwd: '/tmp/a b' },
      { type: 'cwd', cwd: '/srv/x;y' },
    ]);
    expect(feedAll(make(), '\x1b]633;P;IsWindows=False\x07')).toEqual([
      { type: 'property', key: 'IsWindows', value: 'False' },
    ]);
  });

  it("splits a multi-line OSC 9 message into title and body (Claude Code's iterm2 channel)", () => {
    expect(feedAll(make(), '\x1b]9;\n\nClaude Code:\nClaude needs your permission to use Bash\x07')).toEqual([
      {
        type: 'notify',
        source: 'osc9',
        title: 'Claude Code',
        body: 'Claude needs your permission to use Bash',
      },
    ]);
    // One line stays whole, colon and all.
    expect(feedAll(make(), '\x1b]9;Error: build failed\x07')).toEqual([
      { type: 'notify', source: 'osc9', title: '', body: 'Error: build failed' },
    ]);
  });

  it('keeps the line breaks of a multi-line command line, each line sanitized', () => {
    expect(feedAll(make('n'), '\x1b]633;E;cd /tmp\\x0abusyq  \\x09x;n\x07\x1b]633;C;n\x07')).toEqual([
      { type: 'command-start', commandLine: 'cd /tmp\nbusyq x' },
    ]);
    expect(feedAll(make('n'), '\x1b]633;E;make\\x0a\\x0a\u202enpm test;n\x07\x1b]633;C;n\x07')).toEqual([
      { type: 'command-start', commandLine: 'make\nnpm test' },
    ]);
  });
});

describe('TerminalParser: issue 23 — OSC 7501 and capability queries', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const status = (body: string) => feedAll(make(), `\x1b]7501;${body}\x1b\\`);

  it('reads a report: the last duplicate wins, unknown keys and malformed pairs are skipped', () => {
    expect(status(`state=working:state=blocked:x=1:bogus:kind=question:msg=${b64('Which branch?')}`)).toEqual(
      [
        {
          type: 'program-status',
          state: 'blocked',
          id: '',
          kind: 'question',
          app: null,
          progress: null,
          title: '',
          msg: 'Which branch?',
        },
      ],
    );
  });

  it('keeps kind only with blocked and progress only with working or blocked, 0–100', () => {
    const [done] = status('state=done:kind=permission:progress=50');
    expect(done).toMatchObject({ state: 'done', kind: null, progress: null });
    const [working] = status('state=working:progress=101:id=a/b');
    expect(working).toMatchObject({ state: 'working', progress: null, id: 'a/b' });
    expect(status('state=blocked:kind=telepathy')[0]).toMatchObject({ kind: null });
  });

  it('discards the whole report on an unknown state, a bad id or app, bad base64 or a control character', () => {
    expect(status('state=sleepy')).toEqual([]);
    expect(status('kind=permission')).toEqual([]);
    expect(status('state=done:id=a//b')).toEqual([]);
    expect(status(`state=done:id=${'a/'.repeat(8)}a`)).toEqual([]);
    expect(status(`state=done:app=${'x'.repeat(33)}`)).toEqual([]);
    expect(status('state=done:msg=a===')).toEqual([]);
    expect(status('state=done:msg=SGk')).toEqual([]); // unpadded
    expect(status(`state=done:msg=${b64('a\x1b[31mb')}`)).toEqual([]);
    expect(status(`state=done:msg=${b64('x'.repeat(2049))}`)).toEqual([]);
    expect(status(`state=done:title=${b64('t'.repeat(193))}`)).toEqual([]);
    expect(status(`state=done:${'k'.repeat(17)}=1`)).toEqual([]);
  });

  it('sanitizes decoded text (bidi overrides go) like every other report', () => {
    expect(status(`state=error:msg=${b64('build \u202efailed')}`)[0]).toMatchObject({ msg: 'build failed' });
  });

  it("reports kitty's p=? and OSC 7501's ? as capability queries, and answers them truthfully", () => {
    expect(feedAll(make(), '\x1b]99;i=ab-1:p=?;\x1b\\', '\x1b]7501;?\x07')).toEqual([
      { type: 'capability-query', protocol: 'osc99', id: 'ab-1' },
      { type: 'capability-query', protocol: 'osc7501', id: '' },
    ]);
    expect(capabilityReply('osc99', 'ab-1')).toBe('\x1b]99;i=ab-1:p=?;p=title,body,?,close:o=always\x1b\\');
    expect(capabilityReply('osc99', '')).toBe('\x1b]99;i=0:p=?;p=title,body,?,close:o=always\x1b\\');
    expect(capabilityReply('osc7501', '')).toBe('\x1b]7501;?\x1b\\');
  });

  it('never echoes a kitty query id outside the protocol alphabet', () => {
    expect(feedAll(make(), '\x1b]99;i=a)b:p=?;\x1b\\')).toEqual([]);
  });
});
