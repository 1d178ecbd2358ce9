// The few Web platform APIs this package uses, declared by hand: it compiles with neither DOM nor Node types
// (it runs in the Worker, in Node, in browsers and in service workers), and every one of those runtimes has
// these. Not emitted, so consumers keep their own (richer) declarations.
declare global {
  var crypto: { getRandomValues<T extends ArrayBufferView>(array: T): T };
  class TextEncoder {
    encode(input?: string): Uint8Array;
  }
  class TextDecoder {
    constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
    decode(input?: ArrayBufferView | ArrayBuffer, options?: { stream?: boolean }): string;
  }
}

export {};
