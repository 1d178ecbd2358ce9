/**
 * Headers on every static asset response, the SPA fallback included. [SPEC: RL-ASSET-2]
 *
 * CSP: nothing inline, nothing from elsewhere. `style-src 'self'` suffices for xterm.js: its DOM renderer
 * uses constructed stylesheets (adoptedStyleSheets) and CSSOM property writes, which CSP does not govern;
 * there is no wasm, so no 'wasm-unsafe-eval'. `img-src data:` is for icons the PWA inlines.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Strict-Transport-Security': 'max-age=31536000',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};

/** A copy of `response` with the security headers set (asset responses have immutable headers). */
export function withSecurityHeaders(response: Response): Response {
  const out = new Response(response.body, response);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) out.headers.set(name, value);
  return out;
}

/** `response` with `X-Content-Type-Options: nosniff`, copied first when its headers are immutable. */
export function withNoSniff(response: Response): Response {
  if (response.headers.get('X-Content-Type-Options') === 'nosniff') return response;
  try {
    response.headers.set('X-Content-Type-Options', 'nosniff');
    return response;
  } catch {
    const out = new Response(response.body, response);
    out.headers.set('X-Content-Type-Options', 'nosniff');
    return out;
  }
}
