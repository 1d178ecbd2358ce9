import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeBase64url } from './base64url.js';
import { RelayCodecError } from './relay-codec-error.js';
import {
  BURROW_SUBPROTOCOL,
  clientSubprotocols,
  decodeRelayTicketSet,
  MAX_RELAY_TICKETS,
  MAX_SUBPROTOCOL_HEADER_CHARS,
  parseClientSubprotocols,
} from './relay-ticket.js';

const b64 = (fill: number, n = 32) => encodeBase64url(new Uint8Array(n).fill(fill));

describe('relay ticket subprotocols [RL-TICKET-4]', () => {
  it('offers burrow.v1, then the ticket; reads them back from the header', () => {
    const ticket = b64(7);
    const offered = clientSubprotocols(ticket);
    expect(offered).toEqual([BURROW_SUBPROTOCOL, `burrow-ticket.${ticket}`]);
    expect(parseClientSubprotocols(offered.join(', '))).toEqual({ burrow: true, ticket });
    expect(clientSubprotocols(null)).toEqual([BURROW_SUBPROTOCOL]);
    expect(parseClientSubprotocols('burrow.v1')).toEqual({ burrow: true, ticket: null });
    expect(parseClientSubprotocols(null)).toEqual({ burrow: false, ticket: null });
    expect(() => clientSubprotocols('short')).toThrow(RangeError);
  });

  it('ignores malformed tickets, extra entries and an oversized header', () => {
    expect(parseClientSubprotocols(`burrow.v1, burrow-ticket.${b64(1, 31)}`)).toEqual({
      burrow: true,
      ticket: null,
    });
    expect(parseClientSubprotocols(`chat, burrow-ticket.${b64(2)}`)).toEqual({
      burrow: false,
      ticket: b64(2),
    });
    // The first well-formed ticket counts.
    expect(parseClientSubprotocols(`burrow-ticket.${b64(3)},burrow-ticket.${b64(4)}`).ticket).toBe(b64(3));
    const long = `burrow.v1,${'x'.repeat(MAX_SUBPROTOCOL_HEADER_CHARS)}`;
    expect(parseClientSubprotocols(long)).toEqual({ burrow: false, ticket: null });
    expect(() => parseClientSubprotocols(7 as unknown as string)).toThrow(TypeError);
  });

  it('never throws on any string (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (header) => {
        const r = parseClientSubprotocols(header);
        expect(typeof r.burrow).toBe('boolean');
        if (r.ticket !== null) expect(r.ticket).toHaveLength(43);
      }),
      { seed: 1650, numRuns: 500 },
    );
  });
});

describe('ticket set body [RL-TICKET-2]', () => {
  it('takes up to MAX_RELAY_TICKETS distinct 32-byte hashes', () => {
    const hashes = Array.from({ length: MAX_RELAY_TICKETS }, (_, i) =>
      encodeBase64url(new Uint8Array(32).map((_, j) => (j === 0 ? i & 0xff : j === 1 ? i >> 8 : 0))),
    );
    expect(decodeRelayTicketSet({ ticketHashes: hashes }).ticketHashes).toHaveLength(MAX_RELAY_TICKETS);
    expect(decodeRelayTicketSet({ ticketHashes: [] }).ticketHashes).toEqual([]);
    // The open pairing link's ticket (RL-TICKET-5): at most one, and optional (older Burrows send none).
    expect(decodeRelayTicketSet({ ticketHashes: [], pairingTicketHashes: [b64(3)] })).toEqual({
      ticketHashes: [],
      pairingTicketHashes: [b64(3)],
    });
    expect(decodeRelayTicketSet({ ticketHashes: [] })).toEqual({ ticketHashes: [] });
    for (const bad of [
      null,
      {},
      { ticketHashes: [], pairingTicketHashes: [b64(3), b64(4)] },
      { ticketHashes: [], pairingTicketHashes: [b64(3, 16)] },
      { ticketHashes: [], pairingTicketHashes: b64(3) },
      { ticketHashes: [...hashes, b64(9)] },
      { ticketHashes: [b64(1), b64(1)] },
      { ticketHashes: [b64(1, 16)] },
      { ticketHashes: [b64(1)], extra: 1 },
    ]) {
      expect(() => decodeRelayTicketSet(bad)).toThrow(RelayCodecError);
    }
  });

  it('random input throws nothing but RelayCodecError (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (json) => {
        try {
          decodeRelayTicketSet(json);
        } catch (error) {
          expect(error).toBeInstanceOf(RelayCodecError);
        }
      }),
      { seed: 1651, numRuns: 300 },
    );
  });
});
