import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { INSTALL_HINT_DISMISSED_KEY, InstallHint } from './InstallHint.js';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1';

function memoryStorage() {
  const items = new Map<string, string>();
  return {
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => void items.set(k, v),
  };
}

describe('the Home Screen install hint', () => {
  it('shows in an iPhone browser tab, says how, and "Not now" hides it for good', () => {
    const storage = memoryStorage();
    const { unmount } = render(
      <InstallHint ios={{ standalone: false, userAgent: IPHONE }} storage={storage} />,
    );
    const hint = screen.getByRole('complementary', { name: 'Add Pocket to the Home Screen' });
    expect(hint.textContent).toMatch(/Share.*Add to Home Screen/);
    expect(hint.textContent).toMatch(/notify you/);
    fireEvent.click(screen.getByRole('button', { name: 'Not now' }));
    expect(screen.queryByRole('complementary')).toBeNull();
    expect(storage.getItem(INSTALL_HINT_DISMISSED_KEY)).toBe('1');
    unmount();
    render(<InstallHint ios={{ standalone: false, userAgent: IPHONE }} storage={storage} />);
    expect(screen.queryByRole('complementary')).toBeNull();
  });

  it('never shows once installed, nor off iOS', () => {
    render(<InstallHint ios={{ standalone: true, userAgent: IPHONE }} storage={memoryStorage()} />);
    expect(screen.queryByRole('complementary')).toBeNull();
    render(
      <InstallHint
        ios={{ standalone: undefined, userAgent: 'Mozilla/5.0 (Linux; Android 14)' }}
        storage={memoryStorage()}
      />,
    );
    expect(screen.queryByRole('complementary')).toBeNull();
  });
});
