/**
 * What Burrow answers when a program asks which notification protocols its terminal speaks (issue 23: answer
 * truthfully, so programs that ask use them). Burrow is the terminal that notifies here: it parses the reports
 * itself and rings the owner's phone, so it answers for itself, whatever a viewer's terminal may be.
 *
 * - kitty OSC 99 (sw.kovidgoyal.net/kitty/desktop-notifications, "Querying for support"): the reply is
 *   `OSC 99 ; i=<id>:p=? ; key=value:… ST`. Burrow shows `title` and `body`, honours `close` (a withdrawal)
 *   and answers `?`, so `p=title,body,?,close`; it implements no click actions (`a` absent), no urgency (`u`
 *   absent) and no close events sent back (`c` absent); it reads no occasion key, so `o=always`, as the
 *   spec requires of a terminal that supports none.
 * - OSC 7501 (program status, revision 0.2 "Detection"): a supporting terminal answers `OSC 7501 ; ?` with
 *   the same bytes.
 */

const ST = '\x1b\\';

/**
 * The answer to kitty's `OSC 99 ; i=<id>:p=? ;` (an id outside the protocol's alphabet is never asked about);
 * a query without an id is answered as `i=0`, the key's default.
 */
export function kittyNotificationCapabilities(id: string): string {
  return `\x1b]99;i=${id === '' ? '0' : id}:p=?;p=title,body,?,close:o=always${ST}`;
}

/** The answer to `OSC 7501 ; ?`: the same bytes. */
export const PROGRAM_STATUS_SUPPORTED = `\x1b]7501;?${ST}`;

/** The reply for a capability query the parser reported. */
export function capabilityReply(protocol: 'osc99' | 'osc7501', id: string): string {
  return protocol === 'osc99' ? kittyNotificationCapabilities(id) : PROGRAM_STATUS_SUPPORTED;
}
