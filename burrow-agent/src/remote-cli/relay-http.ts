/**
 * The Burrow's HTTP calls to the relay (DESIGN §4.1; bodies from protocol's relay module): enrollment,
 * registering / revoking a phone's delivery, and publishing the relay ticket set (RL-TICKET-2). Tokens travel
 * only in the Authorization header, never in a URL.
 */
import { createHash } from 'node:crypto';
import {
  type DeliveryListResponse,
  decodeDeliveryListResponse,
  decodeEnrollResponse,
  decodeErrorBody,
  type EnrollResponse,
  encodeBase64url,
  type RelayTicketSet,
} from '@burrow/protocol';
import type { DeliveryRegistrar } from '../remote/remote-endpoint.js';

/** Budget for one relay HTTP call (ms). */
export const RELAY_HTTP_TIMEOUT_MS = 15_000;

export class RelayHttpError extends Error {
  override readonly name = 'RelayHttpError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Fetch = typeof fetch;

async function call(fetchFn: Fetch, url: string, init: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetchFn(url, { ...init, signal: AbortSignal.timeout(RELAY_HTTP_TIMEOUT_MS) });
  } catch (error) {
    throw new RelayHttpError(
      0,
      `could not reach the relay at ${new URL(url).origin}: ${(error as Error).message}`,
    );
  }
  if (res.ok) return res;
  let detail = `HTTP ${res.status}`;
  try {
    detail = `${decodeErrorBody(await res.json()).error.message} (HTTP ${res.status})`;
  } catch {
    // not a relay error body: keep the status alone
  }
  throw new RelayHttpError(res.status, `the relay refused: ${detail}`);
}

const base = (relayUrl: string) => relayUrl.replace(/\/+$/, '');

/** `POST /v1/burrows`, with the operator secret as a bearer token when the relay is gated. */
export async function enrollAtRelay(
  relayUrl: string,
  secret: string | null,
  fetchFn: Fetch = fetch,
): Promise<EnrollResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (secret !== null) headers.authorization = `Bearer ${secret}`;
  const res = await call(fetchFn, `${base(relayUrl)}/v1/burrows`, { method: 'POST', headers, body: '{}' });
  try {
    return decodeEnrollResponse(await res.json());
  } catch {
    throw new RelayHttpError(res.status, 'the relay answered enrollment with something unexpected');
  }
}

export function tokenHash(token: Uint8Array): string {
  return encodeBase64url(createHash('sha256').update(token).digest());
}

export class HttpDeliveryRegistrar implements DeliveryRegistrar {
  constructor(
    private readonly relayUrl: string,
    private readonly burrowId: string,
    private readonly burrowToken: string,
    private readonly fetchFn: Fetch = fetch,
  ) {}

  #url(deliveryId: string): string {
    return `${base(this.relayUrl)}/v1/burrows/${this.burrowId}/deliveries/${deliveryId}`;
  }

  async register(deliveryId: string, deliveryToken: Uint8Array): Promise<void> {
    await call(this.fetchFn, this.#url(deliveryId), {
      method: 'PUT',
      headers: { authorization: `Bearer ${this.burrowToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tokenHash: tokenHash(deliveryToken) }),
    });
  }

  /** `GET /v1/burrows/:id/deliveries`: which deliveries the relay holds, and whether each has a subscription. */
  async list(): Promise<DeliveryListResponse> {
    const res = await call(this.fetchFn, `${base(this.relayUrl)}/v1/burrows/${this.burrowId}/deliveries`, {
      method: 'GET',
      headers: { authorization: `Bearer ${this.burrowToken}` },
    });
    try {
      return decodeDeliveryListResponse(await res.json());
    } catch {
      throw new RelayHttpError(res.status, 'the relay answered the delivery list with something unexpected');
    }
  }

  async revoke(deliveryId: string): Promise<void> {
    await call(this.fetchFn, this.#url(deliveryId), {
      method: 'DELETE',
      headers: { authorization: `Bearer ${this.burrowToken}` },
    });
  }
}

/**
 * `PUT /v1/burrows/:id/tickets`: replaces the ticket hashes the relay holds for this Burrow (RL-TICKET-2), the
 * open pairing link's among them (RL-TICKET-5).
 */
export async function putRelayTickets(
  relayUrl: string,
  burrowId: string,
  burrowToken: string,
  hashes: readonly string[],
  fetchFn: Fetch = fetch,
  pairingHashes: readonly string[] = [],
): Promise<void> {
  const body: RelayTicketSet = { ticketHashes: hashes, pairingTicketHashes: pairingHashes };
  await call(fetchFn, `${base(relayUrl)}/v1/burrows/${burrowId}/tickets`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${burrowToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}
