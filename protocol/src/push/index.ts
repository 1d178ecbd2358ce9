// Push: the Burrow → relay send, its per-target results, and the notification sealed inside each envelope.
export * from './notification-payload.js';
export * from './push-message.js';
export * from './push-send.js';
