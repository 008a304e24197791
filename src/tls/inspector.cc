#include "tls/inspector.h"

#include <algorithm>
#include <array>

namespace pqc {
namespace {

// RFC 8446 4.1.3: a HelloRetryRequest is a ServerHello whose random is this constant.
constexpr std::array<uint8_t, 32> kHrrRandom{
    0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
    0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C};

enum : uint8_t {
  kClientHello = 1,
  kServerHello = 2,
  kNewSessionTicket = 4,
  kCertificate = 11,
  kCertificateVerify = 15,
};

}  // namespace

void InspectMessage(int write_p, int /*version*/, int content_type, const void* buf, size_t len,
                    SSL* ssl, void* arg) {
  if (arg == nullptr) return;
  auto* facts = static_cast<HandshakeFacts*>(arg);
  if (content_type == SSL3_RT_ALERT && write_p == 0 && len >= 2) {
    facts->peer_alert = static_cast<const uint8_t*>(buf)[1];
    return;
  }
  if (content_type != SSL3_RT_HANDSHAKE) return;
  const bool is_server = SSL_is_server(ssl) == 1;
  const bool from_server = (write_p != 0) == is_server;
  ObserveHandshakeMessage(*facts, from_server, static_cast<const uint8_t*>(buf), len);
}

void ObserveHandshakeMessage(HandshakeFacts& facts, bool from_server, const uint8_t* msg,
                             size_t len) {
  if (len < 4) return;
  const auto size = static_cast<uint32_t>(len);
  switch (msg[0]) {
    case kClientHello:
      if (!from_server) {
        if (facts.client_hellos++ == 0) facts.client_hello_bytes = size;
      }
      break;
    case kServerHello:
      if (from_server) {
        // header(4) + legacy_version(2) + random(32)
        if (len >= 38 && std::equal(kHrrRandom.begin(), kHrrRandom.end(), msg + 6)) {
          ++facts.hrr_count;
        } else {
          facts.server_hello_bytes = size;
        }
      }
      break;
    case kCertificate:
      if (from_server) facts.certificate_bytes = size;
      break;
    case kCertificateVerify:
      if (from_server && len >= 6) {
        facts.certificate_verify_bytes = size;
        facts.signature_scheme = static_cast<uint16_t>((msg[4] << 8) | msg[5]);
      }
      break;
    case kNewSessionTicket:
      if (from_server) ++facts.tickets_received;
      break;
    default:
      break;
  }
}

void AttachInspector(SSL* ssl, HandshakeFacts* facts) {
  SSL_set_msg_callback(ssl, InspectMessage);
  SSL_set_msg_callback_arg(ssl, facts);
}

}  // namespace pqc
