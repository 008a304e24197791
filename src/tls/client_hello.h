// client_hello — what a client offers, read from its ClientHello handshake message: the
// observatory's input (`serve --clients`). A parser of network input written here, not taken
// from OpenSSL's callback API, so that one function sees every byte (fuzzed: fuzz/
// client_hello_fuzz.cc) and a ClientHello OpenSSL would refuse is still described. GREASE
// values (RFC 8701) are dropped from the lists and only counted: Chromium varies them per
// connection, and a client's lists must compare equal across its connections.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace pqc {

// kMaxClientHelloBytes: larger ClientHellos are recorded as such and refused (a real one,
// even with several post-quantum key shares, is a few KiB).
inline constexpr size_t kMaxClientHelloBytes = 64 * 1024;

struct ClientHelloInfo {
  uint32_t bytes = 0;                // the handshake message, header included
  uint16_t legacy_version = 0;       // 0x0303 for TLS 1.3
  std::vector<uint16_t> versions;    // supported_versions, in the client's order
  std::vector<uint16_t> ciphers;     // cipher_suites, in order
  std::vector<uint16_t> groups;      // supported_groups, in order
  std::vector<uint16_t> key_shares;  // the groups of key_share's entries, in order
  std::vector<uint16_t> sigalgs;     // signature_algorithms, in order
  std::vector<std::string> alpn;     // protocol names, in order
  std::string sni;                   // the host_name of server_name; "" if none
  std::vector<uint16_t> extensions;  // extension types, in the order sent
  uint16_t grease = 0;               // GREASE values seen (all lists together)
  bool early_data = false;           // the early_data extension (a 0-RTT attempt)
  bool psk = false;                  // pre_shared_key (a resumption attempt)
};

// IsGrease: an RFC 8701 GREASE codepoint (0x0A0A, 0x1A1A, … 0xFAFA).
inline bool IsGrease(uint16_t v) {
  return (v & 0x0F0F) == 0x0A0A && (v >> 12) == ((v >> 4) & 0xF);
}

// ParseClientHello: `message` is one handshake message (type 1, 3-byte length, body). An
// error says what is malformed and at which byte offset; a message over kMaxClientHelloBytes
// is refused unread.
Result<ClientHelloInfo> ParseClientHello(std::span<const uint8_t> message);

// ClientHelloFingerprint: 12 hex digits of SHA-256 over the offered versions, cipher suites,
// groups, key-share groups, signature algorithms and ALPN (GREASE removed, extension order
// ignored: Chromium permutes it) — a name for "this client software" when it sends no
// User-Agent.
std::string ClientHelloFingerprint(const ClientHelloInfo& hello);

// OfferedGroupName: a NamedGroup as a client may offer it: our table's name, the drafts that
// browsers offered before ML-KEM (X25519Kyber768Draft00), else "0x1234".
std::string OfferedGroupName(uint16_t codepoint);
// IsPostQuantumGroupName: a hybrid or pure post-quantum group (drafts included).
bool IsPostQuantumGroupName(std::string_view name);
// CipherSuiteName: TLS 1.3's suites by name (TLS_AES_128_GCM_SHA256 …), others "0x1234".
std::string CipherSuiteName(uint16_t codepoint);
// VersionName: "TLSv1.3", "TLSv1.2", … or "0x1234".
std::string VersionName(uint16_t codepoint);

}  // namespace pqc
