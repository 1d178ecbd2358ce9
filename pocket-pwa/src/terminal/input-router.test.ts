import { describe, expect, it } from 'vitest';
import { InputRouter } from './input-router.js';

function router(appCursor = false, bracketed = false) {
  const sent: Array<[string, string]> = [];
  const r = new InputRouter(
    { user: (d) => sent.push(['user', d]), reply: (d) => sent.push(['reply', d]) },
    () => appCursor,
    () => bracketed,
  );
  return { r, sent };
}

describe('InputRouter', () => {
  it('sends key bar keys and text', () => {
    const { r, sent } = router(true);
    r.bar({ kind: 'key', key: 'ArrowUp' });
    r.bar({ kind: 'text', text: '|' });
    r.bar({ kind: 'text', text: '\x03' });
    expect(sent).toEqual([
      ['user', '\x1bOA'],
      ['user', '|'],
      ['user', '\x03'],
    ]);
  });

  it('Ctrl sticks for one key typed into the terminal, then releases', () => {
    const { r, sent } = router();
    const seen: string[] = [];
    r.onModifiers((m) => seen.push(m.ctrl));
    r.bar({ kind: 'modifier', name: 'ctrl' });
    r.terminalData('c');
    r.terminalData('c');
    expect(sent).toEqual([
      ['user', '\x03'],
      ['user', 'c'],
    ]);
    expect(seen).toEqual(['once', 'off']);
  });

  it('a locked Alt stays for several keys, including bar keys', () => {
    const { r, sent } = router();
    r.bar({ kind: 'modifier', name: 'alt' });
    r.bar({ kind: 'modifier', name: 'alt' });
    r.composed('b');
    r.bar({ kind: 'key', key: 'ArrowLeft' });
    expect(sent).toEqual([
      ['user', '\x1bb'],
      ['user', '\x1b[1;3D'],
    ]);
    expect(r.modifiers.alt).toBe('locked');
  });

  it('routes query answers as replies and drops focus reports', () => {
    const { r, sent } = router();
    r.terminalData('\x1b[?1;2c');
    r.terminalData('\x1b[I');
    r.terminalData('ls\r');
    expect(sent).toEqual([
      ['reply', '\x1b[?1;2c'],
      ['user', 'ls\r'],
    ]);
  });

  it('pastes with CR line ends, bracketed when the program asked, without embedded end markers', () => {
    const { r, sent } = router(false, true);
    r.paste('a\nb\x1b[201~c');
    r.paste('');
    expect(sent).toEqual([['user', '\x1b[200~a\rbc\x1b[201~']]);
  });
});
