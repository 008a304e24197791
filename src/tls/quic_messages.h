// quic_messages — the sizes core/quic_flight.h's model is fed: the ClientHello this OpenSSL's
// QUIC client sends, measured, and the server's flight for a group and a chain. Over QUIC a
// ClientHello is not the one `load` sends over TCP: no legacy session ID (RFC 9001 §8.4) but a
// quic_transport_parameters extension and ALPN h3 — with OpenSSL 3.5, 260 bytes offering
// X25519 and 1,436 offering X25519MLKEM768, so the hybrid needs two Initial datagrams.
#pragma once

#include <cstdint>
#include <string>

#include "core/error.h"
#include "core/quic_flight.h"
#include "tls/algorithms.h"
#include "tls/chain_sizes.h"
#include "tls/context.h"

namespace pqc {

// kQuicEncryptedExtensionsBytes: OpenSSL 3.5.7's QUIC server's EncryptedExtensions (ALPN h3
// and its transport parameters), from its message callback; 22 bytes more when it also lists
// its groups because the client's was not its first choice (RFC 8446 §4.2.7).
inline constexpr uint32_t kQuicEncryptedExtensionsBytes = 86;
// kFinishedBytes: handshake header + the MAC of TLS_AES_256_GCM_SHA384, OpenSSL's first suite
// (TLS_AES_128_GCM_SHA256 would make it 36).
inline constexpr uint32_t kFinishedBytes = 4 + 48;

struct QuicClientHello {
  uint32_t bytes = 0;              // the handshake message, header included
  uint32_t initial_datagrams = 0;  // the Initial datagrams OpenSSL wrote for it
  uint32_t datagram_bytes = 0;     // their total (UDP payload)
};

// MeasureQuicClientHello: builds OpenSSL's QUIC client with `cfg`'s groups, key shares, signature
// algorithms and suites (as MakeClientContext reads them), ALPN h3 and `server_name` as SNI,
// and runs it until it has written its first flight into an in-memory datagram pair: nothing
// leaves the process. Fails if this OpenSSL has no QUIC or refuses the settings.
Result<QuicClientHello> MeasureQuicClientHello(const ClientTlsConfig& cfg,
                                               const std::string& server_name = "localhost");

// QuicServerHelloBytes: a ServerHello over QUIC with a key share of `share_bytes`: handshake
// header 4, version 2, random 32, an empty session ID echo 1, suite 2, compression 1,
// extensions 2 + supported_versions 6 + key_share 8 (RFC 8446 §4.1.3).
inline constexpr uint32_t QuicServerHelloBytes(uint32_t share_bytes) {
  return 58 + share_bytes;
}

// QuicServerFlightFor: the server's flight for `group` (its key share measured by one exchange
// through OpenSSL: 32 bytes for X25519, 1,120 for X25519MLKEM768) and a measured chain.
Result<QuicServerFlight> QuicServerFlightFor(const GroupInfo& group, const ChainSizes& chain);

// QuicHandshakeModel: core's model fed with the measured sizes, for one group.
struct QuicHandshakeModel {
  std::string group;
  QuicClientHello client_hello;
  QuicServerFlight server;
  QuicFlightRounds rounds;
};

// ModelQuicHandshake: a client offering `group` alone with its key share (as an arm does) and
// a server with `chain`, at QuicWire's defaults (OpenSSL's layout, 1,200-byte datagrams).
Result<QuicHandshakeModel> ModelQuicHandshake(const GroupInfo& group, const ChainSizes& chain);

}  // namespace pqc
