// Every message type round-trips: decode(encode(m)) equals m, and re-encoding gives the same bytes.
// [SPEC: R-FRAME-2, R-FRAME-3, R-FRAME-4, R-MSG-2]
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { burrowControlSchema } from '../src/remote/burrow-messages.js';
import { clientControlSchema } from '../src/remote/client-messages.js';
import {
  decodeBurrowMessage,
  decodeClientMessage,
  decodePairBurrowMessage,
  decodePairClientMessage,
  encodeBurrowMessage,
  encodeClientMessage,
  encodePairBurrowMessage,
  encodePairClientMessage,
  FrameKind,
  TEXT_BODY_TYPES,
} from '../src/remote/index.js';
import { pairBurrowSchema, pairClientSchema } from '../src/remote/pairing-messages.js';
import { burrowMessages, clientMessages, pairBurrowMessages, pairClientMessages } from './arbitraries.js';
import { FC } from './helpers.js';

const typesOf = (schema: { options: readonly { entries: { type: unknown } }[] }) =>
  schema.options.map((o) => (o.entries.type as { literal: string }).literal).sort();

const directions = [
  {
    name: 'client → burrow',
    arbs: clientMessages,
    types: [...typesOf(clientControlSchema), 'input'],
    encode: encodeClientMessage,
    decode: decodeClientMessage,
  },
  {
    name: 'burrow → client',
    arbs: burrowMessages,
    types: [...typesOf(burrowControlSchema), 'output'],
    encode: encodeBurrowMessage,
    decode: decodeBurrowMessage,
  },
  {
    name: 'pair: client → burrow',
    arbs: pairClientMessages,
    types: typesOf(pairClientSchema),
    encode: encodePairClientMessage,
    decode: decodePairClientMessage,
  },
  {
    name: 'pair: burrow → client',
    arbs: pairBurrowMessages,
    types: typesOf(pairBurrowSchema),
    encode: encodePairBurrowMessage,
    decode: decodePairBurrowMessage,
  },
] as const;

function expectedKind(type: string): number {
  if (type === 'output') return FrameKind.OUTPUT;
  if (type === 'input') return FrameKind.INPUT;
  return TEXT_BODY_TYPES.has(type) ? FrameKind.TEXT_BODY : FrameKind.CONTROL;
}

describe.each(directions)('$name', ({ arbs, types, encode, decode }) => {
  test('the generators cover every message type of the schema', () => {
    expect(Object.keys(arbs).sort()).toEqual([...types].sort());
  });

  test.each(Object.keys(arbs))('%s: decode∘encode is identity and encoding is canonical', (type) => {
    const enc = encode as (m: unknown) => Uint8Array;
    const dec = decode as (f: Uint8Array) => unknown;
    fc.assert(
      fc.property(arbs[type]!, (message) => {
        const frame = enc(message);
        expect(frame[0]).toBe(expectedKind(type));
        const decoded = dec(frame);
        expect(decoded).toEqual(message);
        expect(enc(decoded)).toEqual(frame);
      }),
      FC,
    );
  });
});

test('R-FRAME-3: a leading U+FEFF in a snapshot is data, not a stripped BOM', () => {
  const message = {
    type: 'resync',
    session: 's1',
    offset: 0,
    cols: 80,
    rows: 24,
    firstLine: 0,
    hasOlder: false,
    data: '\ufeff\x1b[31mred',
  } as const;
  expect(decodeBurrowMessage(encodeBurrowMessage(message))).toEqual(message);
});

test('decoded binary payloads are views of the frame, messages are fresh objects', () => {
  const message = { type: 'input', session: 'a', kind: 'user', data: new Uint8Array([1, 2, 3]) } as const;
  const frame = encodeClientMessage(message);
  const decoded = decodeClientMessage(frame);
  expect(decoded).not.toBe(message);
  if (decoded.type !== 'input') throw new Error('unreachable');
  expect(decoded.data.buffer).toBe(frame.buffer);
});
