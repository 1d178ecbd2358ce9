/**
 * The Burrow's side of a push (DESIGN §4.4 steps 2–3): read the active devices at send time (so a revocation
 * during the delay takes effect), clamp them to MAX_PUSH_TARGETS, seal one envelope per device with its own
 * monotonic sequence number, make ONE relay call naming every target, and classify what came back. It never
 * asks the relay who is subscribed first, never retries, and never throws for a relay or network failure —
 * the outcome says what happened (alert-spec: a failure is warned, never thrown).
 */
import { type KeyPair, sealPushEnvelope } from '@burrow/crypto';
import {
  decodeBase64url,
  decodePushSendResponse,
  encodeBase64url,
  HTTP_API_PREFIX,
  MAX_PUSH_TARGETS,
  type PushSendRequest,
  type PushTargetResult,
  type PushUrgency,
} from '@burrow/protocol';
import { classifyPushOutcome, type PushOutcomeSummary } from './push-outcome.js';
import { buildPushPayload, type PushReason, pushTopicFor } from './push-payload.js';

/** How long the push service keeps an undelivered alarm: after an hour it is stale (RFC 8030 §5.2 TTL). */
export const PUSH_TTL_SECONDS = 60 * 60;
/** Alarms wake the phone (RFC 8030 §5.3). */
export const PUSH_URGENCY: PushUrgency = 'high';
/** The relay call's budget: it sends up to MAX_PUSH_TARGETS pushes, each with its own 10 s timeout. */
export const PUSH_RELAY_TIMEOUT_MS = 20_000;
/** Largest relay answer read (20 results are ~1.5 KB). */
export const MAX_PUSH_RESPONSE_BYTES = 16 * 1024;

/** One active ACL device, as the devices store gives it at send time. */
export interface PushDevice {
  readonly deliveryId: string;
  readonly label: string;
  /** X25519 Client static public key (32 bytes). */
  readonly clientPublicKey: Uint8Array;
  /** Device psk (32 bytes). */
  readonly psk: Uint8Array;
}

/** What the sender needs from the devices store. */
export interface PushDeviceStore {
  /** The active (not revoked) devices, read now, in a stable order (the first MAX_PUSH_TARGETS are sent). */
  activeDevices(): readonly PushDevice[];
  /**
   * Reserves the next sequence number for `deliveryId`: last + 1, durably stored BEFORE it returns, so a
   * crash can never make the Burrow reuse one (the phone rejects seq ≤ the last it saw). Starts at 1.
   */
  reservePushSeq(deliveryId: string): number;
}

export type PushFetch = (url: string, init: RequestInit) => Promise<Response>;

export interface PushSenderConfig {
  /** The relay's base URL, e.g. `https://relay.example.net`. */
  readonly relayUrl: string;
  /** base64url burrowId (16 bytes). */
  readonly burrowId: string;
  readonly burrowToken: string;
  readonly staticKeyPair: KeyPair;
  readonly devices: PushDeviceStore;
  readonly fetch: PushFetch;
  readonly clock: () => number;
  readonly timeoutMs?: number;
}

export interface PushRequest {
  readonly sessionId: string;
  readonly label: string;
  readonly reason: PushReason;
  /** The ring's detail as text (push-payload.ts pushBodyOf); the fixed body for `reason` when absent. */
  readonly body?: string | null;
}

export interface PushSendReport extends PushOutcomeSummary {
  /** Active devices left out by the MAX_PUSH_TARGETS clamp. */
  readonly dropped: number;
  /** Why the relay call itself failed (HTTP status or network), or null when it answered 200. */
  readonly relayError: { readonly status: number | null; readonly message: string } | null;
}

export class PushSender {
  readonly #config: PushSenderConfig;
  readonly #burrowIdBytes: Uint8Array;
  readonly #url: string;

  constructor(config: PushSenderConfig) {
    this.#burrowIdBytes = decodeBase64url(config.burrowId);
    if (this.#burrowIdBytes.length !== 16) throw new RangeError('burrowId must be 16 bytes');
    const base = new URL(config.relayUrl);
    this.#url = new URL(`${HTTP_API_PREFIX}/burrows/${config.burrowId}/push`, base).toString();
    this.#config = config;
  }

  async send(request: PushRequest): Promise<PushSendReport> {
    const { devices, staticKeyPair, clock } = this.#config;
    const active = devices.activeDevices();
    const chosen = active.slice(0, MAX_PUSH_TARGETS);
    const dropped = active.length - chosen.length;
    if (chosen.length === 0) return { ...classifyPushOutcome([], null), dropped, relayError: null };
    const payload = buildPushPayload({ ...request, now: clock() });
    const body: PushSendRequest = {
      targets: chosen.map((device) => ({
        deliveryId: device.deliveryId,
        envelope: encodeBase64url(
          sealPushEnvelope({
            burrowId: this.#burrowIdBytes,
            deliveryId: device.deliveryId,
            senderStaticKeyPair: staticKeyPair,
            recipientStaticKey: device.clientPublicKey,
            psk: device.psk,
            seq: devices.reservePushSeq(device.deliveryId),
            payload,
          }),
        ),
      })),
      sessionTopic: pushTopicFor(staticKeyPair.privateKey, request.sessionId),
      ttlSeconds: PUSH_TTL_SECONDS,
      urgency: PUSH_URGENCY,
    };
    const ids = chosen.map((d) => d.deliveryId);
    const answer = await this.#post(body);
    if ('error' in answer) return { ...classifyPushOutcome(ids, null), dropped, relayError: answer.error };
    return { ...classifyPushOutcome(ids, answer.results), dropped, relayError: null };
  }

  async #post(
    body: PushSendRequest,
  ): Promise<
    { results: readonly PushTargetResult[] } | { error: { status: number | null; message: string } }
  > {
    let response: Response;
    try {
      response = await this.#config.fetch(this.#url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${this.#config.burrowToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.#config.timeoutMs ?? PUSH_RELAY_TIMEOUT_MS),
      });
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      return { error: { status: null, message: timedOut ? 'relay timed out' : 'relay unreachable' } };
    }
    const text = await readBounded(response, MAX_PUSH_RESPONSE_BYTES);
    if (response.status !== 200) {
      return { error: { status: response.status, message: relayErrorMessage(text, response.status) } };
    }
    try {
      return { results: decodePushSendResponse(JSON.parse(text ?? '')).results };
    } catch {
      return { error: { status: response.status, message: 'relay answered a malformed push result' } };
    }
  }
}

async function readBounded(response: Response, maxBytes: number): Promise<string | null> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** The relay's `{ error: { code } }`, for the warning line (codes only: a message is not echoed). */
function relayErrorMessage(text: string | null, status: number): string {
  try {
    const code = (JSON.parse(text ?? '') as { error?: { code?: unknown } }).error?.code;
    if (typeof code === 'string' && /^[a-z_]{1,40}$/.test(code)) return `relay refused the push: ${code}`;
  } catch {
    // not JSON: fall through
  }
  return `relay answered ${status}`;
}
