/**
 * Handshake patterns (rev 34 §7) and the psk modifier (§9.2), as data. Base patterns are tabled in the
 * spec's own notation; `pskN` modifiers are parsed from the pattern name and applied to the table entry, so
 * `IKpsk2`, `XXpsk3`, `NKpsk0`, `Kpsk0`, `IKpsk1`… all come from one rule.
 */

export type Token = 'e' | 's' | 'ee' | 'es' | 'se' | 'ss' | 'psk';
export type PreMessageToken = 'e' | 's';

export interface HandshakePattern {
  /** Pattern name as it appears in a protocol name, e.g. `IKpsk2`. */
  readonly name: string;
  /** Pre-message tokens known before the handshake (§7.1): initiator's, then responder's. */
  readonly initiatorPreMessage: readonly PreMessageToken[];
  readonly responderPreMessage: readonly PreMessageToken[];
  /** Message patterns; index 0 is initiator→responder, then alternating. */
  readonly messages: readonly (readonly Token[])[];
  /** One-way patterns (§7.4) have a single message, and only the initiator ever sends transport data. */
  readonly oneWay: boolean;
  /** True when any psk modifier applies (§9.3: then every `e` token is followed by MixKey(e)). */
  readonly hasPsk: boolean;
}

interface BasePattern {
  readonly pre: string;
  readonly messages: string;
}

/**
 * Base patterns from rev 34 §7.4 (one-way) and §7.5 (interactive), written as in the spec with `->` / `<-`
 * lines; `...` separates pre-messages. Only the ones Burrow and its vectors need; adding a row adds a pattern.
 */
const BASE_PATTERNS: Readonly<Record<string, BasePattern>> = {
  N: { pre: '<- s', messages: '-> e, es' },
  K: { pre: '-> s; <- s', messages: '-> e, es, ss' },
  X: { pre: '<- s', messages: '-> e, es, s, ss' },
  NN: { pre: '', messages: '-> e; <- e, ee' },
  NK: { pre: '<- s', messages: '-> e, es; <- e, ee' },
  XX: { pre: '', messages: '-> e; <- e, ee, s, es; -> s, se' },
  IK: { pre: '<- s', messages: '-> e, es, s, ss; <- e, ee, se' },
};

const PATTERN_NAME = /^([A-Z]+)((?:psk\d+)(?:\+psk\d+)*)?$/;
/** Pattern names are short; a bound keeps the parser linear on hostile input. */
const PATTERN_NAME_MAX_LENGTH = 64;

function parseLines(text: string): { arrow: '->' | '<-'; tokens: string[] }[] {
  if (text === '') return [];
  return text.split(';').map((line) => {
    const trimmed = line.trim();
    const arrow = trimmed.slice(0, 2);
    if (arrow !== '->' && arrow !== '<-') throw new RangeError(`bad pattern line: ${line}`);
    return {
      arrow,
      tokens: trimmed
        .slice(2)
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== ''),
    };
  });
}

/** Builds a pattern by name, e.g. `handshakePattern('IKpsk2')`. Unknown names throw `RangeError`. */
export function handshakePattern(name: string): HandshakePattern {
  if (typeof name !== 'string') throw new TypeError('pattern name must be a string');
  const match = name.length <= PATTERN_NAME_MAX_LENGTH ? PATTERN_NAME.exec(name) : null;
  const base = match ? BASE_PATTERNS[match[1]!] : undefined;
  if (!match || !base) throw new RangeError(`unsupported handshake pattern: ${name}`);
  const initiatorPreMessage: PreMessageToken[] = [];
  const responderPreMessage: PreMessageToken[] = [];
  for (const { arrow, tokens } of parseLines(base.pre)) {
    (arrow === '->' ? initiatorPreMessage : responderPreMessage).push(...(tokens as PreMessageToken[]));
  }
  const messages = parseLines(base.messages).map(({ tokens }) => tokens as Token[]);
  const pskPositions = match[2] ? match[2].split('+').map((m) => Number(m.slice(3))) : [];
  for (const position of pskPositions) {
    // §9.2: psk0 goes at the start of the first message; pskN (N ≥ 1) at the end of the Nth message.
    if (position > messages.length)
      throw new RangeError(`psk${position} is past the last message of ${name}`);
    if (position === 0) messages[0]!.unshift('psk');
    else messages[position - 1]!.push('psk');
  }
  return {
    name,
    initiatorPreMessage,
    responderPreMessage,
    messages,
    oneWay: messages.length === 1,
    hasPsk: pskPositions.length > 0,
  };
}

/** The only suite this package implements (rev 34 §12): `Noise_<pattern>_25519_ChaChaPoly_BLAKE2s`. */
export const NOISE_SUITE = '25519_ChaChaPoly_BLAKE2s';

/** Parses `Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s` into its pattern; another suite throws `RangeError`. */
export function patternFromProtocolName(protocolName: string): HandshakePattern {
  if (typeof protocolName !== 'string') throw new TypeError('protocol name must be a string');
  const prefix = 'Noise_';
  const suffix = `_${NOISE_SUITE}`;
  if (!protocolName.startsWith(prefix) || !protocolName.endsWith(suffix)) {
    throw new RangeError(`unsupported Noise protocol: ${protocolName}`);
  }
  return handshakePattern(protocolName.slice(prefix.length, protocolName.length - suffix.length));
}
