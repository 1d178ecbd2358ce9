import { describe, expect, it } from 'vitest';
import { bridgeTerminalStyles } from './csp-style-bridge.js';

const flush = () => new Promise((r) => setTimeout(r, 0));
const adoptedText = () =>
  document.adoptedStyleSheets.map((s) => [...s.cssRules].map((r) => r.cssText).join(' ')).join(' | ');

describe('bridgeTerminalStyles', () => {
  it('mirrors style elements into constructed sheets, follows rewrites and removals, and cleans up', async () => {
    const host = document.createElement('div');
    document.body.append(host);
    const before = document.adoptedStyleSheets.length;
    const stop = bridgeTerminalStyles(host);
    const style = document.createElement('style');
    style.textContent = '.xterm-rows { color: red; }';
    host.append(style);
    await flush();
    expect(document.adoptedStyleSheets.length).toBe(before + 1);
    expect(adoptedText()).toContain('red');
    style.textContent = '.xterm-rows { color: blue; }';
    await flush();
    expect(adoptedText()).toContain('blue');
    expect(adoptedText()).not.toContain('red');
    style.remove();
    await flush();
    expect(document.adoptedStyleSheets.length).toBe(before);
    host.append(style);
    await flush();
    stop();
    expect(document.adoptedStyleSheets.length).toBe(before);
    host.remove();
  });
});
