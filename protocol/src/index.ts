export { CLOSE_MESSAGES, CloseCode, isBurrowCloseCode } from './close-codes.js';
export { ErrorCode, HTTP_STATUS, isErrorCode } from './error-codes.js';
export * from './push/index.js';
export * from './relay/index.js';
export * from './remote/index.js';
export { HTTP_API_PREFIX, PROTOCOL_VERSION } from './version.js';
