/** The terminal-signal scanner, table-driven: each row is bytes an agent really writes (README.md's table). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAlert, scanSignals, summarize, type TerminalSignal, titleForm } from './terminal-signals.js';

const one = (data: string) => scanSignals([{ at: 5, data }]);
/** A signal without its time (Omit over each member of the union). */
type Untimed = TerminalSignal extends infer S ? (S extends TerminalSignal ? Omit<S, 'at'> : never) : never;

describe('scanSignals', () => {
  const rows: [string, string, Untimed[]][] = [
    ['a bare BEL', 'ready\x07', [{ kind: 'bel' }]],
    [
      'a title ended by BEL is no bell',
      '\x1b]0;✳ Claude Code\x07',
      [{ kind: 'osc', code: '0', payload: '✳ Claude Code' }],
    ],
    [
      'an OSC ended by ST',
      '\x1b]9;Approval requested: touch approved.txt\x1b\\',
      [{ kind: 'osc', code: '9', payload: 'Approval requested: touch approved.txt' }],
    ],
    [
      "Codex's OSC 7501 then its BEL",
      '\x1b]7501;state=blocked:app=codex:kind=permission\x07\x07',
      [{ kind: 'osc', code: '7501', payload: 'state=blocked:app=codex:kind=permission' }, { kind: 'bel' }],
    ],
    [
      'focus reporting and bracketed paste on',
      '\x1b[?1004;2004h',
      [
        { kind: 'mode', mode: 1004, set: true },
        { kind: 'mode', mode: 2004, set: true },
      ],
    ],
    ['the alternate screen off', '\x1b[?1049l', [{ kind: 'mode', mode: 1049, set: false }]],
    [
      'queries a terminal answers',
      '\x1b[c\x1b[6n\x1b[?u\x1b[>0q',
      [
        { kind: 'query', query: 'DA1 (primary device attributes)' },
        { kind: 'query', query: 'DSR cursor position' },
        { kind: 'query', query: 'kitty keyboard protocol flags' },
        { kind: 'query', query: 'XTVERSION' },
      ],
    ],
    ['a BEL inside a DCS string is not a bell', '\x1bPtmux;\x07\x1b\\', []],
    ['an SGR is nothing', '\x1b[1;31mred\x1b[0m', []],
  ];
  it.each(rows)('%s', (_name, data, expected) => {
    expect(one(data).map(({ at: _at, ...rest }) => rest)).toEqual(expected);
  });

  it('finds a sequence split across chunks, stamped with the chunk where it ends', () => {
    const s = scanSignals([
      { at: 1, data: 'x\x1b]77' },
      { at: 2, data: '7;notify;Gemini CLI needs your attention;Approval required\x07' },
    ]);
    expect(s).toEqual([
      {
        kind: 'osc',
        at: 2,
        code: '777',
        payload: 'notify;Gemini CLI needs your attention;Approval required',
      },
    ]);
  });

  it('never throws on random or mutated bytes, and stamps times from the chunks', () => {
    const piece = fc.oneof(
      fc.string(),
      fc.constantFrom('\x1b', '\x1b]', '\x1b[', '\x1b[?', '\x07', '\x1b\\', '\x1bP', ';', '9', '1004h'),
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.array(piece, { maxLength: 8 }).map((p) => p.join('')),
          { maxLength: 6 },
        ),
        (datas) => {
          const chunks = datas.map((data, i) => ({ at: i * 10, data }));
          for (const s of scanSignals(chunks)) expect(s.at % 10).toBe(0);
        },
      ),
    );
  });
});

describe('alerts and summaries', () => {
  it('counts notifications and blocked/done states as alerts, not progress, queries or colours', () => {
    const alerts = (data: string) => one(data).filter(isAlert).length;
    expect(alerts('\x07')).toBe(1);
    expect(alerts('\x1b]9;Claude needs your permission\x07')).toBe(1);
    expect(alerts('\x1b]9;4;1;50\x07')).toBe(0);
    expect(alerts('\x1b]99;i=opentui-notifications:p=?;\x1b\\')).toBe(0);
    expect(alerts('\x1b]99;i=1:d=0;Hello\x1b\\')).toBe(1);
    expect(alerts('\x1b]777;notify;Gemini CLI session complete;Run finished\x07')).toBe(1);
    expect(alerts('\x1b]7501;state=working:app=codex\x07')).toBe(0);
    expect(alerts('\x1b]7501;state=done:app=codex\x07')).toBe(1);
    expect(alerts('\x1b]12;#eeeeee\x07\x1b]2;title\x07')).toBe(0);
  });

  it('lists title forms once, spinner frames folded', () => {
    expect(titleForm('⠙ Please create approved.txt | work   ')).toBe('⠿ Please create approved.txt | work');
    const s = summarize(
      one('\x1b]0;⠂ Claude Code\x07\x1b]0;⠐ Claude Code\x07\x1b]0;✳ Claude Code\x07\x1b[?1004h\x1b[?1004h'),
    );
    expect(s).toEqual({
      bels: 0,
      titles: ['⠿ Claude Code', '✳ Claude Code'],
      osc: [],
      modes: ['?1004h'],
      queries: [],
    });
  });
});
