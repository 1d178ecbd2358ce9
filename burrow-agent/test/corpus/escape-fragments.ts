/**
 * Fragments that drive the terminal parser into every state, for the property test and the fuzz target:
 * random sequences of them make dense, valid-ish input, and the whole sequences among them make random
 * splits land inside well-formed ones too. `nonce` is the session nonce the parser under test was given.
 */
import fc from 'fast-check';

export function escapeFragments(nonce: string): Uint8Array[] {
  const encoder = new TextEncoder();
  return [
    '\x1b',
    '\x1b[',
    '\x1b]',
    '\x1bP',
    '\x1b_',
    '\x1b^',
    '\x1bX',
    '\x1b\\',
    '\x07',
    '\x18',
    '\x1a',
    '\x9b',
    '\x9d',
    ';',
    ':',
    '=',
    '?',
    '1004',
    'h',
    'l',
    'm',
    '0',
    '1',
    '2',
    '4',
    '7',
    '9',
    '99',
    '133',
    '633',
    '777',
    '1337',
    'A',
    'B',
    'C',
    'D',
    'E',
    'P',
    'i=1',
    'i=2',
    'd=0',
    'd=1',
    'p=body',
    'p=title',
    'p=icon',
    'e=1',
    'notify',
    'file://h/p%20q',
    'file://%zz',
    'cmdline_url=a%3Bb',
    nonce,
    '\\x3b',
    '\\\\',
    'text ',
    '漢',
    '\u202e',
    '\u200b',
    '\u0085',
    '\r\n',
    '%',
    'SGVsbG8=',
    '\xff',
    '\xc3',
    '\x1b[?1000;1004;1006h',
    '\x1b[?1004l',
    '\x1b[38;5;196m',
    '\x1b]9;hi\x07',
    '\x1b]9;4;1;50\x07',
    '\x1b]99;i=1:d=0;T\x1b\\',
    '\x1b]99;i=1:p=body;B\x1b\\',
    `\x1b]633;E;ls\\x3b x;${nonce}\x07`,
    `\x1b]633;C;${nonce}\x07`,
    `\x1b]633;D;3;${nonce}\x07`,
    `\x1b]633;A;${nonce}\x07`,
    '\x1b]633;C\x07',
    '\x1b]133;C;cmdline_url=a%20b\x07',
    '\x1b]133;D;3\x07',
    '\x1b]777;notify;a;b\x07',
    '\x1b]7;file://h/a%20b\x1b\\',
    '\x1b]0;title\x07',
    '\x1bPq#0;1\x07\x1b\\',
    '\x1b]633;P;Cwd=/tmp\x07',
    '7501',
    'state=blocked',
    'kind=permission',
    'msg=SGk=',
    'p=?',
    '\x1b]7501;state=done\x07',
    '\x1b]7501;?\x1b\\',
    '\x1b]99;i=q:p=?;\x1b\\',
  ].map((s) => encoder.encode(s));
}

/** Up to `maxLength` random fragments, concatenated. */
export function escapeFragmentInput(nonce: string, maxLength: number): fc.Arbitrary<Uint8Array> {
  return fc.array(fc.constantFrom(...escapeFragments(nonce)), { maxLength }).map((parts) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  });
}
