import { act, render, screen } from '@testing-library/react';
import { StrictMode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { encodePairingLink, type PairingRecord } from '../core/index.js';
import { PairingScreen } from './PairingScreen.js';

const offer = {
  burrowId: 'A'.repeat(22),
  burrowPublicKey: new Uint8Array(32).fill(1),
  secret: new Uint8Array(32).fill(2),
  expiresAt: 2_000_000,
  relayUrl: 'https://relay.example',
};

describe('PairingScreen', () => {
  it('says an invalid link is invalid, and an expired one expired', () => {
    const pair = vi.fn();
    const { unmount } = render(
      <PairingScreen
        link="https://relay.example/#pair=%%%"
        nowMs={() => 0}
        pair={pair}
        onPaired={vi.fn()}
        onClose={vi.fn()}
      />,
    );
    expect(screen.getByRole('alert').textContent).toMatch(/not a valid pairing link/);
    unmount();
    render(
      <PairingScreen
        link={encodePairingLink(offer)}
        nowMs={() => 3_000_000}
        pair={pair}
        onPaired={vi.fn()}
        onClose={vi.fn()}
      />,
    );
    expect(screen.getByRole('alert').textContent).toMatch(/expired/);
    expect(pair).not.toHaveBeenCalled();
  });

  it('shows the code, then hands over the stored pairing', async () => {
    let finish: (r: PairingRecord) => void = () => undefined;
    let showCode: (c: string) => void = () => undefined;
    const onPaired = vi.fn();
    render(
      <PairingScreen
        link={encodePairingLink(offer)}
        nowMs={() => 1_000_000}
        pair={(o, onCode) => {
          expect(o.burrowId).toBe(offer.burrowId);
          showCode = onCode;
          return new Promise((resolve) => {
            finish = resolve;
          });
        }}
        onPaired={onPaired}
        onClose={vi.fn()}
      />,
    );
    act(() => showCode('123456'));
    expect(screen.getByText('123456')).toBeTruthy();
    const rec = { burrowId: offer.burrowId } as PairingRecord;
    await act(async () => finish(rec));
    expect(onPaired).toHaveBeenCalledWith(rec);
  });

  it('says why pairing failed', async () => {
    render(
      <PairingScreen
        link={encodePairingLink(offer)}
        nowMs={() => 1_000_000}
        pair={() => Promise.reject(new Error('pairing was declined on the computer'))}
        onPaired={vi.fn()}
        onClose={vi.fn()}
      />,
    );
    expect((await screen.findByRole('alert')).textContent).toBe('pairing was declined on the computer');
  });

  it('runs one handshake per link, even when StrictMode re-runs effects (a secret works once)', async () => {
    const pair = vi.fn(() => new Promise<PairingRecord>(() => undefined));
    render(
      <StrictMode>
        <PairingScreen
          link={encodePairingLink(offer)}
          nowMs={() => 1_000_000}
          pair={pair}
          onPaired={vi.fn()}
          onClose={vi.fn()}
        />
      </StrictMode>,
    );
    expect(pair).toHaveBeenCalledTimes(1);
  });
});
