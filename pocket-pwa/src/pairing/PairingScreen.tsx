import { useEffect, useRef, useState } from 'react';
import {
  isOfferExpired,
  PairingLinkError,
  type PairingOffer,
  type PairingRecord,
  parsePairingLink,
} from '../core/index.js';

/** Runs the `pair`-mode handshake (the core's pairWithOffer), showing the short code through `onCode`. */
export type PairFunction = (
  offer: PairingOffer,
  onCode: (code: string) => void,
  signal: AbortSignal,
) => Promise<PairingRecord>;

export interface PairingScreenProps {
  readonly link: string;
  readonly nowMs: () => number;
  readonly pair: PairFunction;
  onPaired(record: PairingRecord): void;
  onClose(): void;
}

/** The core's pairing cannot be cancelled yet; a closed screen just stops listening. */
const never = new AbortController().signal;

type Phase =
  | { readonly kind: 'invalid'; readonly message: string }
  | { readonly kind: 'connecting' }
  | { readonly kind: 'code'; readonly code: string }
  | { readonly kind: 'failed'; readonly message: string };

function readLink(link: string, now: number): PairingOffer | string {
  try {
    const offer = parsePairingLink(link);
    return isOfferExpired(offer, now)
      ? 'This pairing link has expired. Run “burrow pair” again on your computer.'
      : offer;
  } catch (e) {
    if (e instanceof PairingLinkError) return `This is not a valid pairing link (${e.message}).`;
    throw e;
  }
}

/** Pairing from a link: handshake, the 6-digit code to compare, then the owner's confirmation on the computer. */
export function PairingScreen({ link, nowMs, pair, onPaired, onClose }: PairingScreenProps) {
  const [phase, setPhase] = useState<Phase>({ kind: 'connecting' });
  // A pairing secret works once, so one handshake per link however often the effect re-runs (StrictMode,
  // changed callbacks): the attempt lives in a ref, effects only subscribe to its outcome.
  const attempt = useRef<{ link: string; outcome: Promise<PairingRecord> | string } | null>(null);
  useEffect(() => {
    if (attempt.current?.link !== link) {
      const offer = readLink(link, nowMs());
      attempt.current = {
        link,
        outcome:
          typeof offer === 'string' ? offer : pair(offer, (code) => setPhase({ kind: 'code', code }), never),
      };
    }
    const { outcome } = attempt.current;
    if (typeof outcome === 'string') {
      setPhase({ kind: 'invalid', message: outcome });
      return;
    }
    let active = true;
    outcome.then(
      (record) => {
        if (active) onPaired(record);
      },
      (e: unknown) => {
        if (active) setPhase({ kind: 'failed', message: e instanceof Error ? e.message : String(e) });
      },
    );
    return () => {
      active = false;
    };
  }, [link, nowMs, pair, onPaired]);

  return (
    <main className="pairing" aria-labelledby="pairing-title">
      <h1 id="pairing-title">Pair with your computer</h1>
      {phase.kind === 'connecting' && <p role="status">Connecting to your computer…</p>}
      {phase.kind === 'code' && (
        <>
          <p>Check that your computer shows the same code, then confirm there.</p>
          <p className="pair-code">
            <span className="visually-hidden">Code: </span>
            {phase.code}
          </p>
          <p role="status">Waiting for confirmation on your computer…</p>
        </>
      )}
      {(phase.kind === 'invalid' || phase.kind === 'failed') && (
        <p role="alert" className="error">
          {phase.message}
        </p>
      )}
      <button type="button" onClick={onClose}>
        {phase.kind === 'invalid' || phase.kind === 'failed' ? 'Back' : 'Cancel'}
      </button>
    </main>
  );
}
