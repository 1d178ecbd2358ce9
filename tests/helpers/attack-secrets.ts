/**
 * Looking for secrets where they must not be (issue 8: "the relay never logs or stores a token, key or frame
 * payload"): every encoding a secret could be written in, and a raw byte search through every file under a
 * directory (SQLite databases and their WAL / journal included — text columns are stored as plain UTF-8
 * inside their pages, so a byte search finds any value short enough to sit in one page).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A named secret and the byte strings it could appear as. */
export interface Needle {
  readonly name: string;
  readonly forms: ReadonlyArray<{ readonly encoding: string; readonly bytes: Buffer }>;
}

/** Most bytes read from one file; the relay's state in a test is far smaller (a bound, not a sample). */
export const MAX_SCANNED_FILE_BYTES = 256 * 1024 * 1024;
/** Files visited under one root. */
export const MAX_SCANNED_FILES = 10_000;

/** A binary secret (a key, a token) as raw bytes, base64url, padded base64 and lower/upper hex. */
export function binaryNeedle(name: string, secret: Uint8Array): Needle {
  const raw = Buffer.from(secret);
  const hex = raw.toString('hex');
  return {
    name,
    forms: [
      { encoding: 'base64url', bytes: Buffer.from(raw.toString('base64url')) },
      { encoding: 'base64', bytes: Buffer.from(raw.toString('base64').replace(/=+$/, '')) },
      { encoding: 'hex', bytes: Buffer.from(hex) },
      { encoding: 'HEX', bytes: Buffer.from(hex.toUpperCase()) },
      // Raw bytes only when long enough that a chance match in 100 MB is out of the question.
      ...(raw.length >= 16 ? [{ encoding: 'raw', bytes: raw }] : []),
    ],
  };
}

/** A text secret (a marker typed into a terminal, an operator secret) as UTF-8, and as UTF-16LE. */
export function textNeedle(name: string, secret: string): Needle {
  return {
    name,
    forms: [
      { encoding: 'utf8', bytes: Buffer.from(secret, 'utf8') },
      { encoding: 'utf16le', bytes: Buffer.from(secret, 'utf16le') },
    ],
  };
}

export interface Hit {
  readonly needle: string;
  readonly encoding: string;
  /** Where: a file path relative to the root, or the label of a text searched. */
  readonly where: string;
}

/** Every file under `root` (recursively), bounded. */
export function filesUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (out.length >= MAX_SCANNED_FILES)
        throw new RangeError(`more than ${MAX_SCANNED_FILES} files under ${root}`);
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) out.push(path);
    }
  };
  walk(root);
  return out;
}

/** Every occurrence of every form of every needle in `haystack`. */
export function search(haystack: Buffer, where: string, needles: readonly Needle[]): Hit[] {
  const hits: Hit[] = [];
  for (const needle of needles) {
    for (const form of needle.forms) {
      if (haystack.includes(form.bytes)) hits.push({ needle: needle.name, encoding: form.encoding, where });
    }
  }
  return hits;
}

/** Searches every file under `root` for every needle; also returns how many files and bytes it read. */
export function searchTree(
  root: string,
  needles: readonly Needle[],
): { hits: Hit[]; files: number; bytes: number } {
  const hits: Hit[] = [];
  let bytes = 0;
  const files = filesUnder(root);
  for (const file of files) {
    const size = statSync(file).size;
    if (size > MAX_SCANNED_FILE_BYTES)
      throw new RangeError(`${file} is larger than ${MAX_SCANNED_FILE_BYTES} bytes`);
    const content = readFileSync(file);
    bytes += content.length;
    hits.push(...search(content, relative(root, file), needles));
  }
  return { hits, files: files.length, bytes };
}
