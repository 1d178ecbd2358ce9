// Relay HTTP bodies and the relay↔Burrow control socket. Filled in by the relay work.
export {};
