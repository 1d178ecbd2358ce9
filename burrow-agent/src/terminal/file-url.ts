/**
 * OSC 7 working-directory reports: `OSC 7 ; file://<host>/<percent-encoded path> ST` (the form bash, zsh and
 * fish integrations print; the host names the machine and is not part of the path). Returns the decoded path,
 * or null when the payload is not a file URL with an absolute path. Many emitters print $PWD unencoded, so
 * `?` and `#` are kept as part of the path rather than treated as a query or fragment.
 */
import { decodeUtf8, percentDecode } from './text-decoding.js';

const FILE_SCHEME = 'file://';

export function decodeFileUrlPath(payload: Uint8Array): string | null {
  if (payload.length < FILE_SCHEME.length) return null;
  for (let i = 0; i < FILE_SCHEME.length; i++) {
    // The scheme is case-insensitive (RFC 8089 §2); `|0x20` lowercases ASCII letters and leaves ':' '/' alone.
    if ((payload[i]! | 0x20) !== (FILE_SCHEME.charCodeAt(i) | 0x20)) return null;
  }
  const slash = payload.indexOf(0x2f, FILE_SCHEME.length);
  if (slash < 0) return null;
  return decodeUtf8(percentDecode(payload.subarray(slash)));
}
