/**
 * Descriptions and candidates as the engines produced them on this machine (Chromium 156 and Firefox ESR 153
 * offering one negotiated data channel, node-datachannel 0.33.4 answering the Chromium offer), captured inside a
 * test network namespace (198.18.0.2). Chromium and Firefox hid their host address behind mDNS `.local` names,
 * as they do by default.
 */

export const CHROMIUM_OFFER =
  'v=0\r\no=- 851273683684832522 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\na=extmap-allow-mixed\r\na=msid-semantic: WMS\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 0.0.0.0\r\na=candidate:2461295302 1 udp 2113937151 da70a157-d46e-41cb-84b1-2db3cbd2d04f.local 37513 typ host generation 0 network-cost 999\r\na=ice-ufrag:BFb/\r\na=ice-pwd:U8NaVZSANdTHcWQzKu4WoV8y\r\na=ice-options:trickle\r\na=fingerprint:sha-256 D8:BB:60:02:A4:F8:5E:83:26:AA:84:95:2B:80:15:97:02:F1:F8:C2:3F:89:3A:B1:9F:0C:51:5B:85:DD:5C:6B\r\na=setup:actpass\r\na=mid:0\r\na=sctp-port:5000\r\na=max-message-size:262144\r\n';
export const CHROMIUM_OFFER_NO_CANDIDATES =
  'v=0\r\no=- 851273683684832522 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\na=extmap-allow-mixed\r\na=msid-semantic: WMS\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 0.0.0.0\r\na=ice-ufrag:BFb/\r\na=ice-pwd:U8NaVZSANdTHcWQzKu4WoV8y\r\na=ice-options:trickle\r\na=fingerprint:sha-256 D8:BB:60:02:A4:F8:5E:83:26:AA:84:95:2B:80:15:97:02:F1:F8:C2:3F:89:3A:B1:9F:0C:51:5B:85:DD:5C:6B\r\na=setup:actpass\r\na=mid:0\r\na=sctp-port:5000\r\na=max-message-size:262144\r\n';
export const FIREFOX_OFFER =
  'v=0\r\no=mozilla...THIS_IS_SDPARTA-99.0 4668406294517307646 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\na=sendrecv\r\na=fingerprint:sha-256 16:B6:43:C1:7E:0B:93:70:ED:C4:B0:A5:B3:8A:E0:37:6D:F4:2C:15:F4:0A:ED:02:EE:3C:23:8D:C7:86:54:3F\r\na=group:BUNDLE 0\r\na=ice-options:trickle\r\na=msid-semantic:WMS *\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 0.0.0.0\r\na=candidate:0 1 UDP 2122252543 d9ec4001-413c-495e-bdd1-336a70417a93.local 46533 typ host\r\na=candidate:1 1 TCP 2105524479 d9ec4001-413c-495e-bdd1-336a70417a93.local 9 typ host tcptype active\r\na=sendrecv\r\na=end-of-candidates\r\na=ice-pwd:fb3d90114d6eeb157dbe7e9d008c14e3\r\na=ice-ufrag:04b6d4eb\r\na=mid:0\r\na=setup:actpass\r\na=sctp-port:5000\r\na=max-message-size:1073741823\r\n';
export const NDC_ANSWER =
  'v=0\r\no=rtc 3312019556 0 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\na=msid-semantic:WMS *\r\na=ice-options:ice2,trickle\r\na=fingerprint:sha-256 38:E3:F2:31:5E:64:22:6B:78:8A:5E:00:9D:54:16:D4:A8:A4:AD:AD:D8:7E:DD:23:0E:97:FD:27:59:89:8A:0C\r\nm=application 43363 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 198.18.0.2\r\na=mid:0\r\na=sendrecv\r\na=sctp-port:5000\r\na=max-message-size:262144\r\na=setup:active\r\na=ice-ufrag:759q\r\na=ice-pwd:PXb/iVia3p8cfCsn0g0fsm\r\na=candidate:1 1 UDP 2114977791 198.18.0.2 43363 typ host\r\na=end-of-candidates\r\n';
export const NDC_ANSWER_NO_CANDIDATES =
  'v=0\r\no=rtc 3312019556 0 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\na=msid-semantic:WMS *\r\na=ice-options:ice2,trickle\r\na=fingerprint:sha-256 38:E3:F2:31:5E:64:22:6B:78:8A:5E:00:9D:54:16:D4:A8:A4:AD:AD:D8:7E:DD:23:0E:97:FD:27:59:89:8A:0C\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 0.0.0.0\r\na=mid:0\r\na=sendrecv\r\na=sctp-port:5000\r\na=max-message-size:262144\r\na=setup:active\r\na=ice-ufrag:759q\r\na=ice-pwd:PXb/iVia3p8cfCsn0g0fsm\r\n';
/** Trickled candidates (node-datachannel's without its `a=` prefix). */
export const REAL_CANDIDATES: readonly string[] = [
  'candidate:2461295302 1 udp 2113937151 da70a157-d46e-41cb-84b1-2db3cbd2d04f.local 37513 typ host generation 0 ufrag BFb/ network-cost 999',
  'candidate:0 1 UDP 2122252543 d9ec4001-413c-495e-bdd1-336a70417a93.local 46533 typ host',
  'candidate:1 1 TCP 2105524479 d9ec4001-413c-495e-bdd1-336a70417a93.local 9 typ host tcptype active',
  'candidate:1 1 UDP 2114977791 198.18.0.2 43363 typ host',
];
