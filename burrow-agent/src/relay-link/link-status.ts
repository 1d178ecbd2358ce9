/**
 * The relay link's state as `burrow status` shows it (DESIGN §6: "says what is wrong in words").
 */
import { CLOSE_MESSAGES, type CloseCode } from '@burrow/protocol';

export type LinkStatus =
  | { readonly kind: 'not-enrolled' }
  /** `after`: why the previous socket ended, kept while the retry is in flight (it may hang for 15 s). */
  | { readonly kind: 'connecting'; readonly after?: string }
  | { readonly kind: 'connected'; readonly sinceMs: number }
  | { readonly kind: 'reconnecting'; readonly atMs: number; readonly reason: string }
  | { readonly kind: 'stopped' };

/** "connected", "reconnecting in 4 s: your computer is offline", "not enrolled". */
export function describeLinkStatus(status: LinkStatus, nowMs: number): string {
  switch (status.kind) {
    case 'not-enrolled':
      return 'not enrolled (run `burrow enroll --relay <url>`)';
    case 'connecting':
      return status.after === undefined ? 'connecting' : `connecting again: ${status.after}`;
    case 'connected':
      return 'connected';
    case 'reconnecting': {
      const seconds = Math.max(0, Math.ceil((status.atMs - nowMs) / 1000));
      return `reconnecting in ${seconds} s: ${status.reason}`;
    }
    case 'stopped':
      return 'stopped';
  }
}

/** Words for why the socket ended; never includes the reason text the peer sent. */
export function closeReasonInWords(code: number): string {
  if (code === 1006) return 'the connection dropped';
  const known = CLOSE_MESSAGES[code as CloseCode];
  return known ?? `closed with code ${code}`;
}

/** Words for an HTTP refusal of the upgrade (wrong token, unknown id, relay down behind a proxy…). */
export function upgradeRefusalInWords(status: number): string {
  if (status === 401 || status === 403)
    return `the relay refused this Burrow's token (HTTP ${status}); enroll again`;
  if (status === 404) return 'the relay does not know this Burrow (HTTP 404); enroll again';
  if (status === 429) return 'the relay is rate-limiting this Burrow (HTTP 429)';
  return `the relay answered HTTP ${status}`;
}
