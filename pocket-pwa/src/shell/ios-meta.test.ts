/**
 * The iOS parts of index.html that only an iPhone reads (nothing here can show them): the Home Screen icon,
 * full-screen launch, and a status bar Pocket draws under — which needs viewport-fit=cover and safe-area
 * padding, or the header sits under the clock.
 */
import { describe, expect, it } from 'vitest';
import html from '../../index.html?raw';
import icon from '../../public/icons/apple-touch-icon-180.png?inline';
import css from '../app/app.css?raw';

const doc = new DOMParser().parseFromString(html, 'text/html');
const meta = (name: string) => doc.querySelector(`meta[name="${name}"]`)?.getAttribute('content');

/** Width and height from a PNG's IHDR chunk (bytes 16–23 of the file). */
function pngSize(dataUrl: string): { width: number; height: number } {
  const bytes = Uint8Array.from(atob(dataUrl.slice(dataUrl.indexOf(',') + 1)), (c) => c.charCodeAt(0));
  expect([...bytes.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const view = new DataView(bytes.buffer);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

describe('iOS Home Screen meta', () => {
  it('apple-touch-icon: a 180×180 PNG (the iPhone Home Screen size), linked from index.html', () => {
    expect(doc.querySelector('link[rel="apple-touch-icon"]')?.getAttribute('href')).toBe(
      '/icons/apple-touch-icon-180.png',
    );
    expect(pngSize(icon)).toEqual({ width: 180, height: 180 });
  });

  it('opens full screen from the Home Screen with its own title', () => {
    expect(meta('apple-mobile-web-app-capable')).toBe('yes');
    expect(meta('mobile-web-app-capable')).toBe('yes');
    expect(meta('apple-mobile-web-app-title')).toBe('Pocket');
  });

  it('a translucent status bar, so the page reaches under it and pads itself by the safe area', () => {
    expect(meta('apple-mobile-web-app-status-bar-style')).toBe('black-translucent');
    expect(meta('viewport')).toMatch(/viewport-fit=cover/);
    expect(css).toMatch(/padding:\s*env\(safe-area-inset-top\)/);
    // The dark theme colour matches the page behind the status bar.
    expect(meta('theme-color')).toBe('#1b1d23');
  });
});
