import { describe, expect, it } from 'vitest';
import { drainBody } from './drain-body.js';

/** A body of `chunks` chunks of `size` bytes that counts what was pulled and whether it was cancelled. */
function countedBody(chunks: number, size: number) {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled === chunks) return controller.close();
      seen.pulled += 1;
      controller.enqueue(new Uint8Array(size));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

describe('drainBody', () => {
  it('reads a body to its end', async () => {
    const { stream, seen } = countedBody(40, 1024);
    await drainBody(stream.getReader(), 1 << 20);
    expect(seen).toEqual({ pulled: 40, cancelled: false });
  });

  it('stops past maxBytes and cancels the rest', async () => {
    const { stream, seen } = countedBody(1000, 1024);
    await drainBody(stream.getReader(), 10 * 1024);
    expect(seen.pulled).toBe(11);
    expect(seen.cancelled).toBe(true);
  });

  it('never throws when the client goes away mid-body', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(8));
        controller.error(new TypeError('Network connection lost'));
      },
    });
    await expect(drainBody(stream.getReader())).resolves.toBeUndefined();
  });
});
