/**
 * Where the control socket lives: `<state dir>/control/burrow.sock`, in its own 0700 directory, so only this
 * user can even reach the socket (DESIGN §2). Unix socket paths are limited to ~104–108 bytes; a state
 * directory deeper than that is refused with words rather than a cryptic EINVAL.
 */
import { join } from 'node:path';

export const SOCKET_DIR_NAME = 'control';
export const SOCKET_FILE_NAME = 'burrow.sock';
/** sockaddr_un.sun_path is 104 bytes on macOS, 108 on Linux; stay under the smaller. */
export const MAX_SOCKET_PATH_BYTES = 103;

export function controlSocketPath(stateDir: string): string {
  const path = join(stateDir, SOCKET_DIR_NAME, SOCKET_FILE_NAME);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    throw new RangeError(
      `control socket path ${path} is over ${MAX_SOCKET_PATH_BYTES} bytes; set BURROW_STATE_DIR to a shorter path`,
    );
  }
  return path;
}
