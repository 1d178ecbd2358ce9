/**
 * The Web Push message body (the RFC 8291 plaintext the relay encrypts and the phone's service worker reads)
 * is the sealed envelope's unpadded base64url TEXT, not its raw bytes. [SPEC: RL-PUSH-TEXT]
 *
 * Why text: some paths a push takes only carry strings. Chromium's DevTools `ServiceWorker.deliverPushMessage`
 * (what the browser end-to-end suite delivers with) takes `data` as a string and hands the worker its UTF-8
 * bytes, so every byte ≥ 0x80 of a binary envelope would arrive as two; `PushMessageData.text()` is what many
 * tools show. ASCII survives all of them unchanged. The price is 4/3 of the size, which the envelope's padding
 * buckets leave room for (`PUSH_ENVELOPE_MAX_BYTES` = 2994 in @burrow/crypto, ≤ 3993 characters here).
 * The relay forwards the text the Burrow sent as is; it never needs the envelope's bytes.
 */
import { decodeBase64url, encodeBase64url } from '../relay/base64url.js';
import { RelayCodecError } from '../relay/relay-codec-error.js';
import { MAX_PUSH_ENVELOPE_CHARS } from './push-send.js';

/** The push message bytes for an envelope: its base64url text as ASCII. */
export function encodePushMessage(envelope: Uint8Array): Uint8Array {
  if (!(envelope instanceof Uint8Array)) throw new TypeError('encodePushMessage: expected a Uint8Array');
  const text = encodeBase64url(envelope);
  if (text.length === 0 || text.length > MAX_PUSH_ENVELOPE_CHARS) {
    throw new RangeError(`a push message is 1..${MAX_PUSH_ENVELOPE_CHARS} base64url characters`);
  }
  return asciiBytes(text);
}

/** The push message bytes for envelope text already in base64url (what the relay receives). */
export function pushMessageFromText(envelopeText: string): Uint8Array {
  if (typeof envelopeText !== 'string') throw new TypeError('pushMessageFromText: expected a string');
  decodePushMessageText(envelopeText);
  return asciiBytes(envelopeText);
}

/**
 * The envelope inside a received push message. Throws `RelayCodecError('bad_push_message')` unless the bytes
 * are 1..MAX_PUSH_ENVELOPE_CHARS characters of canonical base64url.
 */
export function decodePushMessage(data: Uint8Array): Uint8Array {
  if (!(data instanceof Uint8Array)) throw new TypeError('decodePushMessage: expected a Uint8Array');
  if (data.length === 0 || data.length > MAX_PUSH_ENVELOPE_CHARS) {
    throw new RelayCodecError(
      'bad_push_message',
      `a push message is 1..${MAX_PUSH_ENVELOPE_CHARS} base64url characters, got ${data.length} bytes`,
    );
  }
  let text = '';
  for (const byte of data) {
    // Anything outside ASCII cannot be base64url; refusing here keeps the decoder's error exact.
    if (byte > 0x7f) throw new RelayCodecError('bad_push_message', 'a push message is ASCII base64url');
    text += String.fromCharCode(byte);
  }
  return decodePushMessageText(text);
}

function decodePushMessageText(text: string): Uint8Array {
  if (text.length === 0 || text.length > MAX_PUSH_ENVELOPE_CHARS) {
    throw new RelayCodecError(
      'bad_push_message',
      `a push message is 1..${MAX_PUSH_ENVELOPE_CHARS} characters`,
    );
  }
  try {
    return decodeBase64url(text);
  } catch (error) {
    if (error instanceof RelayCodecError) {
      throw new RelayCodecError('bad_push_message', `a push message is base64url: ${error.message}`);
    }
    throw error;
  }
}

function asciiBytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}
