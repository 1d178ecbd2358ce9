/**
 * The `aes128gcm` content coding (RFC 8188), as Web Push uses it: exactly one record (RFC 8291 §4), so the
 * sequence number is 0, the nonce is NONCE itself, and the record's padding delimiter is 0x02 ("last record",
 * RFC 8188 §2). No padding beyond the delimiter: the sealed envelope inside is padded to buckets already.
 */
import { ascii, concat, own } from './bytes.js';
import { hkdfExpand, hkdfExtract } from './hmac-sha256.js';

export const AES128GCM_SALT_BYTES = 16;
export const AES128GCM_TAG_BYTES = 16;
const CEK_BYTES = 16;
const NONCE_BYTES = 12;
/** RFC 8188 §2.1: a key id is at most 255 bytes (its length is one byte). */
export const AES128GCM_MAX_KEY_ID_BYTES = 255;
/** RFC 8188 §2: the smallest legal record size (one byte of data, the delimiter and the tag). */
const MIN_RECORD_SIZE = 18;
const LAST_RECORD_DELIMITER = 0x02;

export interface ContentKeys {
  readonly prk: Uint8Array;
  readonly cek: Uint8Array;
  readonly nonce: Uint8Array;
}

/** RFC 8188 §2.2–2.3: PRK = HKDF-Extract(salt, IKM); CEK and NONCE expanded from it. */
export async function deriveContentKeys(ikm: Uint8Array, salt: Uint8Array): Promise<ContentKeys> {
  checkBytes('salt', salt, AES128GCM_SALT_BYTES);
  const prk = await hkdfExtract(salt, ikm);
  const cek = await hkdfExpand(prk, ascii('Content-Encoding: aes128gcm\0'), CEK_BYTES);
  const nonce = await hkdfExpand(prk, ascii('Content-Encoding: nonce\0'), NONCE_BYTES);
  return { prk, cek, nonce };
}

export interface SingleRecordInput {
  readonly ikm: Uint8Array;
  readonly salt: Uint8Array;
  /** Record size written in the header; the one record must fit it. */
  readonly recordSize: number;
  readonly keyId: Uint8Array;
  readonly plaintext: Uint8Array;
}

/** Header (salt ‖ rs ‖ idlen ‖ keyid, RFC 8188 §2.1) followed by the single encrypted record. */
export async function encryptSingleRecord(input: SingleRecordInput): Promise<Uint8Array<ArrayBuffer>> {
  const { recordSize, keyId, plaintext } = input;
  if (!(keyId instanceof Uint8Array) || keyId.length > AES128GCM_MAX_KEY_ID_BYTES) {
    throw new RangeError(`keyId must be at most ${AES128GCM_MAX_KEY_ID_BYTES} bytes`);
  }
  if (!(plaintext instanceof Uint8Array)) throw new TypeError('plaintext must be a Uint8Array');
  if (!Number.isInteger(recordSize) || recordSize < MIN_RECORD_SIZE || recordSize > 0xffffffff) {
    throw new RangeError('recordSize must be an integer 18..2^32-1');
  }
  if (plaintext.length + 1 + AES128GCM_TAG_BYTES > recordSize) {
    throw new RangeError('plaintext does not fit one record');
  }
  const { cek, nonce } = await deriveContentKeys(input.ikm, input.salt);
  const key = await crypto.subtle.importKey('raw', own(cek), { name: 'AES-GCM' }, false, ['encrypt']);
  const record = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: 'AES-GCM', iv: own(nonce), tagLength: AES128GCM_TAG_BYTES * 8 },
      key,
      concat(plaintext, Uint8Array.of(LAST_RECORD_DELIMITER)),
    ),
  );
  const rs = new Uint8Array(4);
  new DataView(rs.buffer).setUint32(0, recordSize, false);
  return concat(input.salt, rs, Uint8Array.of(keyId.length), keyId, record);
}

function checkBytes(name: string, value: unknown, length: number): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array`);
  if (value.length !== length) throw new RangeError(`${name} must be ${length} bytes`);
}
