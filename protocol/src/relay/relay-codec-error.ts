/** The one error the relay codecs throw on bad input, with a stable machine-readable reason. */
export type RelayCodecErrorReason =
  | 'bad_base64url'
  | 'frame_too_short'
  | 'frame_too_large'
  | 'unknown_frame_type'
  | 'wrong_direction'
  | 'bad_conn_id'
  | 'bad_length'
  | 'bad_close_code'
  | 'bad_body'
  | 'bad_push_message';

export class RelayCodecError extends Error {
  override readonly name = 'RelayCodecError';
  constructor(
    readonly reason: RelayCodecErrorReason,
    message: string,
  ) {
    super(message);
  }
}
