/**
 * Undoes shell quoting as kitty's `OSC 133 ; C ; cmdline=<quoted>` writes it: kitty's bash and zsh integrations
 * quote the command line with `printf %q` / `${(q)…}`, which produce backslash escapes, '…' and "…" quoting, and
 * bash's $'…' ANSI-C strings. The parser no longer reads that sequence (unsigned, issue 24.2); this stays as the
 * inverse `session-command.test.ts` checks `quoteShellWord` against.
 * Linear in the input; never throws; an unterminated quote runs to the end.
 */

const ANSI_C_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\x08',
  e: '\x1b',
  E: '\x1b',
  f: '\x0c',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\x0b',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

function isHex(c: string | undefined): boolean {
  return c !== undefined && /^[0-9a-fA-F]$/.test(c);
}

function isOctal(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '7';
}

/** Reads a $'…' body starting at `i` (just after the opening quote); returns [text, index after the close]. */
function ansiC(s: string, start: number): [string, number] {
  let out = '';
  let i = start;
  while (i < s.length && s[i] !== "'") {
    if (s[i] !== '\\' || i + 1 >= s.length) {
      out += s[i++];
      continue;
    }
    const e = s[i + 1]!;
    const simple = ANSI_C_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      i += 2;
    } else if (e === 'x' && isHex(s[i + 2])) {
      const digits = isHex(s[i + 3]) ? 2 : 1;
      out += String.fromCharCode(Number.parseInt(s.slice(i + 2, i + 2 + digits), 16));
      i += 2 + digits;
    } else if (isOctal(e)) {
      let j = i + 1;
      while (j < i + 4 && isOctal(s[j])) j++;
      out += String.fromCharCode(Number.parseInt(s.slice(i + 1, j), 8) & 0xff);
      i = j;
    } else {
      out += `\\${e}`;
      i += 2;
    }
  }
  return [out, i + 1];
}

export function unquoteShellWords(s: string): string {
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '\\') {
      if (i + 1 < s.length) out += s[i + 1];
      i += 2;
    } else if (c === "'") {
      const end = s.indexOf("'", i + 1);
      out += end < 0 ? s.slice(i + 1) : s.slice(i + 1, end);
      i = end < 0 ? s.length : end + 1;
    } else if (c === '$' && s[i + 1] === "'") {
      const [text, next] = ansiC(s, i + 2);
      out += text;
      i = next;
    } else if (c === '"') {
      i++;
      while (i < s.length && s[i] !== '"') {
        if (s[i] === '\\' && i + 1 < s.length && '$`"\\\n'.includes(s[i + 1]!)) {
          out += s[i + 1];
          i += 2;
        } else {
          out += s[i++];
        }
      }
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
