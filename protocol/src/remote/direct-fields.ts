/**
 * Field schemas of the direct-path messages (SPEC "The direct path"), on the SDP and candidate checks of
 * direct-sdp.ts. [SPEC: R-DIRECT-2, R-DIRECT-3, R-DIRECT-6]
 */
import * as v from 'valibot';
import { checkDirectSdp, checkIceCandidate, isIceMid } from './direct-sdp.js';
import { base64urlBytes } from './fields.js';
import { MAX_ICE_MID_CHARS, REJOIN_ID_BYTES } from './limits.js';

/** A whole SDP of `kind`, checked by `checkDirectSdp` (its reason becomes the message's). */
export function directSdp(kind: 'offer' | 'answer') {
  return v.pipe(
    v.string(),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      try {
        checkDirectSdp(dataset.value, kind);
      } catch (error) {
        addIssue({ message: (error as Error).message });
      }
    }),
  );
}

const candidate = v.pipe(
  v.string(),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    try {
      checkIceCandidate(dataset.value);
    } catch (error) {
      addIssue({ message: (error as Error).message });
    }
  }),
);

const mid = v.pipe(
  v.string(),
  v.check(
    (s: string) => isIceMid(s),
    `R-DIRECT-3: a candidate's mid is 1–${MAX_ICE_MID_CHARS} of [A-Za-z0-9_.+-]`,
  ),
);

/** `direct-candidate { candidate, mid }`: one trickled ICE candidate, as `RTCIceCandidate` names its parts. */
export const directCandidateEntries = { candidate, mid };

/** R-DIRECT-6: the connection's rejoin id (R-PATH-8). */
export const rejoinId = base64urlBytes(REJOIN_ID_BYTES);
