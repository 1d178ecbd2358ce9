/** Every fuzz target, in the order the table lists them. */
import type { FuzzTarget } from '../fuzz-target.js';
import { cliPrintableTarget } from './cli-printable.js';
import { controlFramesTarget } from './control-frames.js';
import { controlMessagesTarget } from './control-messages.js';
import { fragmentReassemblyTarget } from './fragment-reassembly.js';
import { handshakeResponderTarget } from './handshake-responder.js';
import { pushEnvelopeTarget } from './push-envelope.js';
import { relayFramesTarget } from './relay-frames.js';
import { relayHttpBodiesTarget } from './relay-http-bodies.js';
import { relayHttpLiveTarget } from './relay-http-live.js';
import { relayRouterTarget } from './relay-router.js';
import { remoteCodecTarget } from './remote-codec.js';
import { terminalParserTarget } from './terminal-parser.js';

/** In-process targets: fast, no processes started. */
export const IN_PROCESS_TARGETS = [
  terminalParserTarget,
  remoteCodecTarget,
  fragmentReassemblyTarget,
  controlFramesTarget,
  controlMessagesTarget,
  relayFramesTarget,
  relayHttpBodiesTarget,
  relayRouterTarget,
  handshakeResponderTarget,
  pushEnvelopeTarget,
  cliPrintableTarget,
] as unknown as readonly FuzzTarget<unknown>[];

/** Targets that start real processes (a relay under wrangler dev). */
export const LIVE_TARGETS = [relayHttpLiveTarget] as unknown as readonly FuzzTarget<unknown>[];

export const FUZZ_TARGETS: readonly FuzzTarget<unknown>[] = [...IN_PROCESS_TARGETS, ...LIVE_TARGETS];
