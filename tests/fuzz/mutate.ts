/**
 * Generators shared by the fuzz targets: byte-level mutation of a valid encoding (flip, overwrite, insert,
 * delete, truncate, duplicate a range), structural mutation of a valid JSON body, and random chunk splits.
 * All are fast-check arbitraries, so every case replays from the run's seed and path.
 */
import fc from 'fast-check';

/** Edits applied to one valid input, at most. Few edits keep the result "almost valid", which is the point. */
const MAX_EDITS = 6;
/** Longest run a `duplicate` edit copies. */
const MAX_DUPLICATE_BYTES = 64;

type ByteEdit =
  | { readonly op: 'flip'; readonly at: number; readonly bit: number }
  | { readonly op: 'set' | 'insert'; readonly at: number; readonly value: number }
  | { readonly op: 'delete' | 'truncate'; readonly at: number }
  | { readonly op: 'duplicate'; readonly at: number; readonly length: number };

const byteEdit: fc.Arbitrary<ByteEdit> = fc.oneof(
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({
    op: fc.constantFrom('set' as const, 'insert' as const),
    at: fc.nat(),
    // Boundary bytes matter most to decoders: 0, 0x7f, 0x80, 0xff, the frame kinds 1..5, JSON punctuation.
    value: fc.oneof(
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom(0, 1, 2, 3, 4, 5, 0x22, 0x7b, 0x7f, 0x80, 0xff),
    ),
  }),
  fc.record({ op: fc.constantFrom('delete' as const, 'truncate' as const), at: fc.nat() }),
  fc.record({
    op: fc.constant('duplicate' as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: MAX_DUPLICATE_BYTES }),
  }),
);

/** Applies `edits` to a copy of `original`. */
export function applyEdits(original: Uint8Array, edits: readonly ByteEdit[]): Uint8Array {
  let bytes = Array.from(original);
  for (const edit of edits) {
    const n = bytes.length;
    const at = n === 0 ? 0 : edit.at % n;
    switch (edit.op) {
      case 'flip':
        if (n > 0) bytes[at] = bytes[at]! ^ (1 << edit.bit);
        break;
      case 'set':
        if (n > 0) bytes[at] = edit.value;
        break;
      case 'insert':
        bytes.splice(edit.at % (n + 1), 0, edit.value);
        break;
      case 'delete':
        if (n > 0) bytes.splice(at, 1);
        break;
      case 'truncate':
        bytes = bytes.slice(0, at);
        break;
      case 'duplicate':
        bytes.splice(at, 0, ...bytes.slice(at, at + edit.length));
        break;
    }
  }
  return Uint8Array.from(bytes);
}

/** A mutated valid encoding, with the original so an oracle can tell "changed" from "unchanged". */
export interface Mutated {
  readonly original: Uint8Array;
  readonly bytes: Uint8Array;
}

export function mutatedBytes(valid: fc.Arbitrary<Uint8Array>): fc.Arbitrary<Mutated> {
  return fc
    .tuple(valid, fc.array(byteEdit, { minLength: 1, maxLength: MAX_EDITS }))
    .map(([original, edits]) => ({ original, bytes: applyEdits(original, edits) }));
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Splits `bytes` at `cuts` (taken modulo its length, sorted, deduplicated): views, no copies. */
export function splitAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let start = 0;
  for (const p of points) {
    parts.push(bytes.subarray(start, p));
    start = p;
  }
  parts.push(bytes.subarray(start));
  return parts;
}

/** Cut points for `splitAt`: none (one chunk) up to many (byte-by-byte in places). */
export const chunkCuts = fc.array(fc.nat(), { maxLength: 32 });

/** Values a hostile JSON member may be replaced by: wrong types, boundary numbers, huge and odd strings. */
const hostileJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    null,
    true,
    0,
    -1,
    1.5,
    2 ** 53,
    -(2 ** 53),
    1e308,
    '',
    '\u0000',
    '\ud800',
    '\u202e',
    'A'.repeat(5000),
    '__proto__',
    [],
    {},
    { __proto__: null },
  ),
);

type JsonEdit =
  | { readonly op: 'replace' | 'add'; readonly pick: number; readonly key: string; readonly value: unknown }
  | { readonly op: 'delete' | 'wrap'; readonly pick: number };

const jsonEdit: fc.Arbitrary<JsonEdit> = fc.oneof(
  fc.record({
    op: fc.constantFrom('replace' as const, 'add' as const),
    pick: fc.nat(),
    key: fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('__proto__', 'constructor', 'toString', 'type'),
    ),
    value: hostileJsonValue,
  }),
  fc.record({ op: fc.constantFrom('delete' as const, 'wrap' as const), pick: fc.nat() }),
);

/** Every object and array inside `root` (root included), in document order. */
function containers(root: unknown, out: (Record<string, unknown> | unknown[])[] = []) {
  if (typeof root === 'object' && root !== null) {
    out.push(root as Record<string, unknown> | unknown[]);
    for (const value of Object.values(root)) containers(value, out);
  }
  return out;
}

/** Applies structural edits to a deep copy of a JSON value (which may itself be replaced whole). */
export function applyJsonEdits(valid: unknown, edits: readonly JsonEdit[]): unknown {
  let root: unknown = structuredClone(valid);
  for (const edit of edits) {
    // Constants from hostileJsonValue are shared between cases: insert copies, never the instance.
    const value = 'value' in edit ? structuredClone(edit.value) : undefined;
    const all = containers(root);
    if (all.length === 0) {
      if (edit.op === 'replace' || edit.op === 'add') root = value;
      continue;
    }
    const target = all[edit.pick % all.length]!;
    const keys = Object.keys(target);
    const key = keys.length > 0 ? keys[edit.pick % keys.length]! : null;
    const slot = target as Record<string, unknown>;
    switch (edit.op) {
      case 'replace':
        if (key !== null) slot[key] = value;
        else root = value;
        break;
      case 'add':
        // defineProperty, so "__proto__" becomes an own member as JSON.parse would make it.
        Object.defineProperty(slot, Array.isArray(target) ? String(keys.length) : edit.key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
        break;
      case 'delete':
        if (key !== null) {
          if (Array.isArray(target)) target.splice(Number(key), 1);
          else delete slot[key];
        }
        break;
      case 'wrap':
        if (key !== null) slot[key] = [slot[key]];
        break;
    }
  }
  return root;
}

/** A valid JSON value with structural edits; or (sometimes) its text, byte-mutated and re-parsed if it still parses. */
export function mutatedJson(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc
      .tuple(valid, fc.array(jsonEdit, { minLength: 1, maxLength: MAX_EDITS }))
      .map(([value, edits]) => applyJsonEdits(value, edits)),
    mutatedText(valid).map((text) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    }),
  );
}

/** A valid JSON value's text, byte-mutated (for raw HTTP bodies, where it need not parse). */
export function mutatedText(valid: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return mutatedBytes(valid.map((value) => new TextEncoder().encode(JSON.stringify(value)))).map((m) =>
    new TextDecoder().decode(m.bytes),
  );
}
