/**
 * Reads the rest of a request body away, so the relay never answers a request whose body it left unread.
 *
 * Why: under `wrangler dev` (the dev relay, `npm start`, every test), wrangler's ProxyWorker streams each
 * request body on to this Worker. When the Worker answered first, the ProxyWorker went on reading the
 * client's body after its own answer ("Can't read from request stream after response has been sent",
 * workerd #1730), broke its connection to the Worker, and the next request through it — anyone's — got no
 * answer until its client gave up (workers-sdk #15203). Measured with wrangler 4.86 (4 Dec 2026): after a
 * 1 MiB body answered unread, every time; after a 20-byte body handed to the assets, about one time in 400
 * with the machine loaded. On Cloudflare nothing breaks either way, and reading costs the Worker one chunk of
 * memory at a time while the uploader sends.
 */
import { MAX_UNREAD_BODY_DRAIN_BYTES } from './limits.js';

/**
 * Reads `reader` to its end, at most `maxBytes` (then cancels it). Never throws: a client that went away
 * has nothing left to read.
 */
export async function drainBody(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  maxBytes: number = MAX_UNREAD_BODY_DRAIN_BYTES,
): Promise<void> {
  let seen = 0;
  try {
    while (seen <= maxBytes) {
      const { done, value } = await reader.read();
      if (done) return;
      seen += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The client went away mid-body.
  }
}
