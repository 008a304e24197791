#include "quic/wire_counts.h"

#include <openssl/ssl3.h>

#include "quic/datagram_scan.h"

namespace pqc::quic {

void CountDatagrams(int write_p, int /*version*/, int content_type, const void* buf, size_t len,
                    SSL* /*ssl*/, void* arg) {
  if (content_type != SSL3_RT_QUIC_DATAGRAM || arg == nullptr) return;
  auto* c = static_cast<WireCounts*>(arg);
  const DatagramPackets p = ScanDatagram({static_cast<const unsigned char*>(buf), len});
  if (write_p != 0) {
    ++c->datagrams_sent;
    c->bytes_sent += len;
    if (p.handshake > 0 || p.short_header) c->sent_handshake_packet = true;
    if (c->datagrams_received == 0) {
      ++c->first_flight_datagrams;
      c->first_flight_bytes += len;
    }
    if (!c->sent_handshake_packet) c->bytes_sent_before_handshake_packet += len;
    return;
  }
  ++c->datagrams_received;
  c->bytes_received += len;
  if (p.retry > 0) c->received_retry = true;
  if (!c->sent_handshake_packet) {
    c->bytes_received_before_handshake_packet += len;
    ++c->datagrams_received_before_handshake_packet;
  }
}

bool AmplificationLimited(const WireCounts& w) {
  return w.first_flight_bytes > 0 && w.bytes_received > 3 * w.first_flight_bytes;
}

namespace {

void OnQuicMessage(int write_p, int version, int content_type, const void* buf, size_t len,
                   SSL* ssl, void* arg) {
  auto* w = static_cast<QuicWatch*>(arg);
  if (content_type == SSL3_RT_QUIC_DATAGRAM) {
    CountDatagrams(write_p, version, content_type, buf, len, ssl, &w->wire);
  } else {
    InspectMessage(write_p, version, content_type, buf, len, ssl, &w->facts);
  }
}

}  // namespace

void Watch(SSL* ssl, QuicWatch* w) {
  SSL_set_msg_callback(ssl, OnQuicMessage);
  SSL_set_msg_callback_arg(ssl, w);
}

}  // namespace pqc::quic
