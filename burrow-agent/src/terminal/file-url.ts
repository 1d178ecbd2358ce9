/**
 * OSC 7 working-directory reports: `OSC 7 ; file://<host>/<percent-encoded path> ST` (the form bash, zsh and
 * fish integrations print; the host names the machine and is not part of the path), and kitty's own
 * integration's `kitty-shell-cwd://<host>/<path>`, whose path is sent unencoded. Returns the decoded path, or
 * null when the payload is neither with an absolute path. Many emitters print $PWD into file:// unencoded too,
 * so `?` and `#` are kept as part of the path rather than treated as a query or fragment.
 */
import { decodeUtf8, percentDecode } from './text-decoding.js';

const FILE_SCHEME = 'file://';
const KITTY_SCHEME = 'kitty-shell-cwd://';

/** True when `payload` starts with `scheme`, compared case-insensitively (RFC 3986 §3.1). */
function hasScheme(payload: Uint8Array, scheme: string): boolean {
  if (payload.length < scheme.length) return false;
  for (let i = 0; i < scheme.length; i++) {
    // `| 0x20` lowercases ASCII letters and leaves ':', '/' and '-' as they are.
    if ((payload[i]! | 0x20) !== (scheme.charCodeAt(i) | 0x20)) return false;
  }
  return true;
}

export function decodeFileUrlPath(payload: Uint8Array): string | null {
  const percentEncoded = hasScheme(payload, FILE_SCHEME);
  if (!percentEncoded && !hasScheme(payload, KITTY_SCHEME)) return null;
  const slash = payload.indexOf(0x2f, percentEncoded ? FILE_SCHEME.length : KITTY_SCHEME.length);
  if (slash < 0) return null;
  const path = payload.subarray(slash);
  return decodeUtf8(percentEncoded ? percentDecode(path) : path);
}
