/**
 * The only source of secrets in this package: the platform CSPRNG (Web Crypto `getRandomValues`, present in
 * Node, Workers, browsers and service workers). Never Math.random.
 */

/** Web Crypto refuses more than 65536 bytes per call, so larger requests are filled in chunks. */
const GET_RANDOM_VALUES_MAX_BYTES = 65536;
/** A bound on one request: nothing here needs more than a few keys' worth. */
export const RANDOM_BYTES_MAX = 1 << 20;

export function randomBytes(length: number): Uint8Array {
  if (!Number.isSafeInteger(length) || length < 0 || length > RANDOM_BYTES_MAX) {
    throw new RangeError(`randomBytes length must be an integer in [0, ${RANDOM_BYTES_MAX}]`);
  }
  const out = new Uint8Array(length);
  for (let offset = 0; offset < length; offset += GET_RANDOM_VALUES_MAX_BYTES) {
    crypto.getRandomValues(out.subarray(offset, Math.min(length, offset + GET_RANDOM_VALUES_MAX_BYTES)));
  }
  return out;
}
