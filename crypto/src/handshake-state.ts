import { AEAD_TAG_BYTES, type Aead, nobleAead } from './aead.js';
import { assertBytes, concatBytes, constantTimeEqual } from './bytes.js';
import { type HandshakePattern, patternFromProtocolName, type Token } from './handshake-pattern.js';
import { NoiseError } from './noise-error.js';
import { assertPsk, SymmetricState } from './symmetric-state.js';
import { NOISE_MAX_MESSAGE, NoiseTransport } from './transport.js';
import {
  dh,
  type ExternalStaticKey,
  generateKeyPair,
  isExternalStaticKey,
  type KeyPair,
  publicKeyFromPrivate,
  staticDh,
  X25519_KEY_BYTES,
} from './x25519.js';

export interface HandshakeOptions {
  /** Full protocol name, e.g. `Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s`. */
  readonly protocolName: string;
  readonly initiator: boolean;
  readonly prologue?: Uint8Array;
  /** Our static key pair (s), if the pattern uses one; or a key whose private half is held elsewhere. */
  readonly staticKeyPair?: KeyPair | ExternalStaticKey;
  /** The peer's static public key (rs), when it is known in advance (a pre-message, §7.1). */
  readonly remoteStaticKey?: Uint8Array;
  /** psks consumed in token order (§9). More can be given later with `setPsk()`. */
  readonly psks?: readonly Uint8Array[];
  /**
   * Fixed ephemeral key pair — ONLY for reproducing test vectors. Shipped code leaves it out, and the
   * ephemeral comes from crypto.getRandomValues.
   */
  readonly ephemeralKeyPair?: KeyPair;
  /** AEAD backend; @noble/ciphers unless given. */
  readonly aead?: Aead;
}

/** Noise allows at most a few psks per handshake; a bound on the queue. */
const MAX_PSKS = 4;

/**
 * HandshakeState (rev 34 §5.3) driven by the pattern's tokens. Write and read alternate starting with the
 * initiator; any failure while reading makes the state unusable (`invalid-state` afterwards), because a
 * half-processed message leaves h and ck meaningless.
 *
 * psks: a responder that must first learn who is calling (IKpsk2 in connect mode looks up the device psk by
 * the static key message 1 reveals) reads message 1 without a psk, inspects `remoteStatic`, then calls
 * `setPsk()` before writing message 2. Reaching a `psk` token with none queued throws
 * `NoiseError('missing-psk')` without touching the state, so the caller may still supply one and retry.
 */
export class HandshakeState {
  readonly pattern: HandshakePattern;
  readonly initiator: boolean;
  readonly #symmetric: SymmetricState;
  readonly #s: KeyPair | ExternalStaticKey | null;
  #e: KeyPair | null;
  #rs: Uint8Array | null;
  #re: Uint8Array | null = null;
  readonly #psks: Uint8Array[] = [];
  #messageIndex = 0;
  #failed = false;
  /** Split() ran: a second call would hand out a transport with the same keys at nonce 0 (keystream reuse). */
  #split = false;

  constructor(options: HandshakeOptions) {
    if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
    if (typeof options.initiator !== 'boolean') throw new TypeError('options.initiator must be a boolean');
    this.pattern = patternFromProtocolName(options.protocolName);
    this.initiator = options.initiator;
    const aead = options.aead ?? nobleAead;
    const prologue = options.prologue ?? new Uint8Array(0);
    assertBytes('prologue', prologue);
    this.#s = options.staticKeyPair ? checkedStaticKey('staticKeyPair', options.staticKeyPair) : null;
    this.#e = options.ephemeralKeyPair ? checkedKeyPair('ephemeralKeyPair', options.ephemeralKeyPair) : null;
    if (options.remoteStaticKey !== undefined) assertBytes('remoteStaticKey', options.remoteStaticKey, 32);
    this.#rs = options.remoteStaticKey ? Uint8Array.from(options.remoteStaticKey) : null;
    for (const psk of options.psks ?? []) this.setPsk(psk);

    // Initialize() (§5.3): protocol name, prologue, then pre-message public keys in the order they appear.
    this.#symmetric = new SymmetricState(options.protocolName, aead);
    this.#symmetric.mixHash(prologue);
    const { initiatorPreMessage, responderPreMessage } = this.pattern;
    for (const token of initiatorPreMessage) this.#symmetric.mixHash(this.#preMessageKey(token, true));
    for (const token of responderPreMessage) this.#symmetric.mixHash(this.#preMessageKey(token, false));
  }

  /** Queues a psk for the next `psk` token (32 bytes, §9.1). */
  setPsk(psk: Uint8Array): void {
    assertPsk(psk);
    if (this.#psks.length >= MAX_PSKS) throw new RangeError(`at most ${MAX_PSKS} psks may be queued`);
    this.#psks.push(Uint8Array.from(psk));
  }

  /** The peer's static public key once known (given, or learned from an `s` token). */
  get remoteStatic(): Uint8Array | null {
    return this.#rs === null ? null : Uint8Array.from(this.#rs);
  }

  get handshakeHash(): Uint8Array {
    return this.#symmetric.handshakeHash;
  }

  /** ck — exposed for conformance tests that compare both sides; it is secret: never log it. */
  get chainingKey(): Uint8Array {
    return this.#symmetric.chainingKey;
  }

  get isFinished(): boolean {
    return this.#messageIndex >= this.pattern.messages.length;
  }

  /** True when the next message is ours to write. */
  get isMyTurn(): boolean {
    return !this.isFinished && this.#messageIndex % 2 === (this.initiator ? 0 : 1);
  }

  /** WriteMessage(payload) (§5.3). The payload is encrypted (and hashed) even when it is empty. */
  writeMessage(payload: Uint8Array = new Uint8Array(0)): Uint8Array {
    assertBytes('payload', payload);
    const tokens = this.#tokensForTurn(true);
    this.#assertPsksAvailable(tokens);
    const size = this.#messageSize(tokens, payload.length);
    if (size > NOISE_MAX_MESSAGE) {
      throw new RangeError(`handshake message would be ${size} bytes (limit ${NOISE_MAX_MESSAGE})`);
    }
    const parts: Uint8Array[] = [];
    try {
      for (const token of tokens) {
        if (token === 'e') {
          // Fresh ephemeral unless a test vector fixed it.
          this.#e ??= generateKeyPair();
          parts.push(this.#e.publicKey);
          this.#mixEphemeral(this.#e.publicKey);
        } else if (token === 's') {
          parts.push(this.#symmetric.encryptAndHash(this.#need(this.#s, 's').publicKey));
        } else {
          this.#mixToken(token);
        }
      }
      parts.push(this.#symmetric.encryptAndHash(payload));
    } catch (error) {
      // A DH with the peer's low-order key, or a missing key, leaves h and ck half-updated.
      this.#failed = true;
      throw error;
    }
    this.#messageIndex++;
    return concatBytes(...parts);
  }

  /** ReadMessage(message) (§5.3): returns the payload. Every failure is a `NoiseError`. */
  readMessage(message: Uint8Array): Uint8Array {
    assertBytes('message', message);
    const tokens = this.#tokensForTurn(false);
    this.#assertPsksAvailable(tokens);
    if (message.length > NOISE_MAX_MESSAGE) {
      this.#failed = true;
      throw new NoiseError('message-too-large', `Noise messages are limited to ${NOISE_MAX_MESSAGE} bytes`);
    }
    try {
      let offset = 0;
      const take = (length: number): Uint8Array => {
        if (offset + length > message.length) {
          throw new NoiseError('malformed-message', 'handshake message is too short');
        }
        const slice = message.subarray(offset, offset + length);
        offset += length;
        return slice;
      };
      for (const token of tokens) {
        if (token === 'e') {
          this.#re = Uint8Array.from(take(X25519_KEY_BYTES));
          this.#mixEphemeral(this.#re);
        } else if (token === 's') {
          if (this.#rs !== null) throw new NoiseError('invalid-state', 'remote static key is already known');
          const length = X25519_KEY_BYTES + (this.#symmetric.cipher.hasKey() ? AEAD_TAG_BYTES : 0);
          this.#rs = this.#symmetric.decryptAndHash(take(length));
        } else {
          this.#mixToken(token);
        }
      }
      const rest = message.subarray(offset);
      if (this.#symmetric.cipher.hasKey() && rest.length < AEAD_TAG_BYTES) {
        throw new NoiseError('malformed-message', 'handshake message is too short');
      }
      const payload = this.#symmetric.decryptAndHash(rest);
      this.#messageIndex++;
      return payload;
    } catch (error) {
      this.#failed = true;
      throw error;
    }
  }

  /**
   * Split() after the last message (§5.3): the transport for this side. After a one-way pattern only the
   * initiator→responder direction exists. Once only: a second transport would reuse the first one's keys from
   * nonce 0, so every later call throws `invalid-state` (rev 34 §5.3 ends the HandshakeState at Split()).
   */
  split(): NoiseTransport {
    if (this.#failed) throw new NoiseError('invalid-state', 'handshake failed');
    if (!this.isFinished) throw new NoiseError('invalid-state', 'handshake is not finished');
    if (this.#split) throw new NoiseError('invalid-state', 'split() was already called');
    this.#split = true;
    const [c1, c2] = this.#symmetric.split();
    const h = this.#symmetric.handshakeHash;
    if (this.pattern.oneWay)
      return this.initiator ? new NoiseTransport(c1, null, h) : new NoiseTransport(null, c1, h);
    return this.initiator ? new NoiseTransport(c1, c2, h) : new NoiseTransport(c2, c1, h);
  }

  #tokensForTurn(writing: boolean): readonly Token[] {
    if (this.#failed) throw new NoiseError('invalid-state', 'handshake failed');
    if (this.isFinished) throw new NoiseError('invalid-state', 'handshake is already finished');
    if (this.isMyTurn !== writing) {
      throw new NoiseError('invalid-state', writing ? 'not our turn to write' : 'not our turn to read');
    }
    return this.pattern.messages[this.#messageIndex]!;
  }

  #assertPsksAvailable(tokens: readonly Token[]): void {
    const needed = tokens.filter((t) => t === 'psk').length;
    if (needed > this.#psks.length)
      throw new NoiseError('missing-psk', 'a psk is needed before this message');
  }

  /** Exact size of the message we are about to write, computed before anything is mutated. */
  #messageSize(tokens: readonly Token[], payloadLength: number): number {
    let keyed = this.#symmetric.cipher.hasKey();
    let size = 0;
    for (const token of tokens) {
      if (token === 'e') {
        size += X25519_KEY_BYTES;
        if (this.pattern.hasPsk) keyed = true;
      } else if (token === 's') {
        size += X25519_KEY_BYTES + (keyed ? AEAD_TAG_BYTES : 0);
      } else {
        keyed = true;
      }
    }
    return size + payloadLength + (keyed ? AEAD_TAG_BYTES : 0);
  }

  /** The `e` token: MixHash(e.pub), and in a psk handshake also MixKey(e.pub) (§9.3). */
  #mixEphemeral(publicKey: Uint8Array): void {
    this.#symmetric.mixHash(publicKey);
    if (this.pattern.hasPsk) this.#symmetric.mixKey(publicKey);
  }

  /** ee / es / se / ss / psk (§5.3). */
  #mixToken(token: Token): void {
    if (token === 'psk') this.#symmetric.mixKeyAndHash(this.#psks.shift()!);
    else this.#symmetric.mixKey(this.#dhFor(token));
  }

  /** Which key pair and which public key a DH token combines depends on the role (§5.3, §7.1). */
  #dhFor(token: Token): Uint8Array {
    const withS = (publicKey: Uint8Array) => staticDh(this.#need(this.#s, 's'), publicKey);
    const e = () => this.#need(this.#e, 'e').privateKey;
    const rs = () => this.#need(this.#rs, 'rs');
    const re = () => this.#need(this.#re, 're');
    switch (token) {
      case 'ee':
        return dh(e(), re());
      case 'es':
        return this.initiator ? dh(e(), rs()) : withS(re());
      case 'se':
        return this.initiator ? withS(re()) : dh(e(), rs());
      case 'ss':
        return withS(rs());
      default:
        throw new RangeError(`unexpected token ${token}`);
    }
  }

  #need<T>(value: T | null, name: string): T {
    if (value === null) throw new NoiseError('missing-key', `pattern needs ${name}, which is not set`);
    return value;
  }

  #preMessageKey(token: 'e' | 's', ofInitiator: boolean): Uint8Array {
    const mine = ofInitiator === this.initiator;
    if (token === 's') {
      const key = mine ? this.#s?.publicKey : this.#rs;
      if (!key)
        throw new TypeError(`pattern ${this.pattern.name} needs the ${mine ? 'local' : 'remote'} static key`);
      return key;
    }
    // No pattern in the table has an `e` pre-message; refuse rather than guess the psk rule for it.
    throw new RangeError(`pattern ${this.pattern.name} has an unsupported e pre-message`);
  }
}

/**
 * Key pairs already checked (public half = X25519(private half)). The check costs a scalar multiplication,
 * and the Burrow passes the same static key pair to every handshake it answers, so it is done once per
 * object. Bytes are still copied, so later changes to the caller's arrays can't reach a running handshake.
 */
const checkedKeyPairs = new WeakSet<KeyPair>();

function checkedStaticKey(name: string, key: KeyPair | ExternalStaticKey): KeyPair | ExternalStaticKey {
  if (typeof key !== 'object' || key === null) throw new TypeError(`${name} must be a key pair`);
  if (!isExternalStaticKey(key)) return checkedKeyPair(name, key);
  // Nothing to cross-check without the private half; the holder vouches for the pair.
  assertBytes(`${name}.publicKey`, key.publicKey, X25519_KEY_BYTES);
  const dhOf = key.dh.bind(key);
  return { publicKey: Uint8Array.from(key.publicKey), dh: (publicKey) => dhOf(publicKey) };
}

function checkedKeyPair(name: string, pair: KeyPair): KeyPair {
  if (typeof pair !== 'object' || pair === null) throw new TypeError(`${name} must be a key pair`);
  assertBytes(`${name}.privateKey`, pair.privateKey, X25519_KEY_BYTES);
  assertBytes(`${name}.publicKey`, pair.publicKey, X25519_KEY_BYTES);
  if (!checkedKeyPairs.has(pair)) {
    // A mismatched pair would silently produce a handshake the peer can never complete.
    if (!constantTimeEqual(publicKeyFromPrivate(pair.privateKey), pair.publicKey)) {
      throw new RangeError(`${name}.publicKey does not match its private key`);
    }
    checkedKeyPairs.add(pair);
  }
  return { privateKey: Uint8Array.from(pair.privateKey), publicKey: Uint8Array.from(pair.publicKey) };
}
