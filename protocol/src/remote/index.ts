// Remote API v1 (inside Noise), binary framing and fragmentation.
export {};
