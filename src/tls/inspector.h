// inspector — reads a connection's handshake as it happens (SSL message callback), because
// several facts a benchmark must record are visible nowhere else in OpenSSL's API: the sizes
// of the server's Certificate and CertificateVerify messages (what decides whether the first
// flight fits the initial congestion window), whether a HelloRetryRequest happened, and the
// signature scheme the server actually used. One HandshakeFacts per connection, no globals.
#pragma once

#include <openssl/ssl.h>

#include <cstdint>

namespace pqc {

struct HandshakeFacts {
  uint32_t client_hello_bytes = 0;        // first ClientHello (handshake message incl. header)
  uint32_t server_hello_bytes = 0;        // the real ServerHello, not an HRR
  uint32_t certificate_bytes = 0;         // server's Certificate message
  uint32_t certificate_verify_bytes = 0;  // server's CertificateVerify message
  uint16_t signature_scheme = 0;          // from CertificateVerify; 0 if none (resumption)
  uint16_t hrr_count = 0;                 // HelloRetryRequests seen
  uint16_t client_hellos = 0;
  uint16_t tickets_received = 0;  // NewSessionTicket messages (client side)
  int peer_alert = -1;            // alert description received from the peer, if any

  bool hrr() const { return hrr_count > 0; }
};

// AttachInspector: records into *facts for the lifetime of ssl (facts must outlive it).
// Works on either side; fields describe the server's messages either way.
void AttachInspector(SSL* ssl, HandshakeFacts* facts);

// InspectMessage: the message callback AttachInspector installs (`arg`: the HandshakeFacts),
// for a callback that watches more than the handshake (QUIC's datagrams) to hand messages on.
void InspectMessage(int write_p, int version, int content_type, const void* buf, size_t len,
                    SSL* ssl, void* arg);
// ObserveHandshakeMessage: the parsing step behind the callback, exposed for tests.
void ObserveHandshakeMessage(HandshakeFacts& facts, bool from_server, const uint8_t* msg,
                             size_t len);

}  // namespace pqc
