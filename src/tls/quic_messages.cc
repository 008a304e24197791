#include "tls/quic_messages.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/opensslconf.h>
#include <openssl/ssl.h>
#ifndef OPENSSL_NO_QUIC
#include <openssl/quic.h>
#endif

#include <array>

#include "tls/inspector.h"
#include "tls/primitives.h"
#include "tls/ssl_error.h"

namespace pqc {
namespace {

using BioAddrPtr = OsslPtr<BIO_ADDR, BIO_ADDR_free>;

// The addresses of the in-memory pair: a QUIC client needs a peer address and a local one to
// write a datagram, though these never reach a socket.
Result<BioAddrPtr> PairBioAddress(uint16_t port) {
  BioAddrPtr addr(BIO_ADDR_new());
  const std::array<unsigned char, 4> ip = {127, 0, 0, 1};
  if (!addr || BIO_ADDR_rawmake(addr.get(), AF_INET, ip.data(), ip.size(), htons(port)) != 1) {
    return SslError("making an address for the in-memory datagram pair");
  }
  return addr;
}

}  // namespace

Result<QuicClientHello> MeasureQuicClientHello(const ClientTlsConfig& cfg,
                                               const std::string& server_name) {
#ifdef OPENSSL_NO_QUIC
  (void)cfg;
  (void)server_name;
  return MakeError(ErrorKind::kUnsupported, "this OpenSSL is built without QUIC (no-quic)");
#else
  ERR_clear_error();
  SslCtxPtr ctx(SSL_CTX_new_ex(cfg.libctx, cfg.propq.empty() ? nullptr : cfg.propq.c_str(),
                               OSSL_QUIC_client_method()));
  if (!ctx) return SslError("creating a QUIC client context");
  if (Status s = SetClientOffer(ctx.get(), cfg); !s) return s.error();
  SslPtr ssl(SSL_new(ctx.get()));
  if (!ssl) return SslError("creating a QUIC connection");
  BIO* client_end = nullptr;
  BIO* far_end = nullptr;
  if (BIO_new_bio_dgram_pair(&client_end, 0, &far_end, 0) != 1) {
    return SslError("creating an in-memory datagram pair");
  }
  BioPtr far(far_end);
  SSL_set_bio(ssl.get(), client_end, client_end);  // the connection owns its end
  auto local = PairBioAddress(40000);
  auto peer = PairBioAddress(443);
  if (!local || !peer) return local ? peer.error() : local.error();
  if (BIO_dgram_set_caps(client_end, BIO_DGRAM_CAP_HANDLES_DST_ADDR) != 1 ||
      BIO_dgram_set_caps(far_end, BIO_DGRAM_CAP_HANDLES_DST_ADDR) != 1 ||
      BIO_dgram_set0_local_addr(client_end, local->release()) != 1 ||
      SSL_set1_initial_peer_addr(ssl.get(), peer->get()) != 1) {
    return SslError("addressing the in-memory datagram pair");
  }
  static constexpr unsigned char kAlpnH3[] = {2, 'h', '3'};
  if (SSL_set_blocking_mode(ssl.get(), 0) != 1 ||
      SSL_set_alpn_protos(ssl.get(), kAlpnH3, sizeof kAlpnH3) != 0 ||
      SSL_set_tlsext_host_name(ssl.get(), server_name.c_str()) != 1) {
    return SslError("setting up the QUIC client");
  }
  HandshakeFacts facts;
  AttachInspector(ssl.get(), &facts);
  // One step: the client writes its Initial datagrams and waits for a server that never comes.
  const int rc = SSL_do_handshake(ssl.get());
  if (rc == 1 || SSL_get_error(ssl.get(), rc) != SSL_ERROR_WANT_READ) {
    return SslError("writing the QUIC client's first flight");
  }
  QuicClientHello out{.bytes = facts.client_hello_bytes};
  std::array<unsigned char, 65536> datagram;
  // Bounded: the pair holds what the client wrote, a few datagrams.
  for (int i = 0; i < 64; ++i) {
    const int n = BIO_read(far.get(), datagram.data(), static_cast<int>(datagram.size()));
    if (n <= 0) break;
    ++out.initial_datagrams;
    out.datagram_bytes += static_cast<uint32_t>(n);
  }
  ERR_clear_error();
  if (out.bytes == 0 || out.initial_datagrams == 0) {
    return MakeError(ErrorKind::kTls, "the QUIC client wrote no ClientHello");
  }
  return out;
#endif
}

Result<QuicServerFlight> QuicServerFlightFor(const GroupInfo& group, const ChainSizes& chain) {
  auto client_key = GenerateGroupKey(group);
  if (!client_key) return client_key.error();
  auto exchange = KeyExchange(group, client_key->get());
  if (!exchange) return exchange.error();
  return QuicServerFlight{
      .server_hello = QuicServerHelloBytes(static_cast<uint32_t>(exchange->wire_bytes)),
      .encrypted_extensions = kQuicEncryptedExtensionsBytes,
      .certificate = static_cast<uint32_t>(chain.certificate_message_bytes),
      .certificate_verify = static_cast<uint32_t>(chain.certificate_verify_bytes),
      .finished = kFinishedBytes};
}

Result<QuicHandshakeModel> ModelQuicHandshake(const GroupInfo& group, const ChainSizes& chain) {
  QuicHandshakeModel out{.group = std::string(group.name)};
  auto hello = MeasureQuicClientHello(ClientTlsConfig{.groups = {out.group}});
  if (!hello) return hello.error();
  out.client_hello = *hello;
  auto server = QuicServerFlightFor(group, chain);
  if (!server) return server.error();
  out.server = *server;
  out.rounds = ModelQuicFlight(out.client_hello.bytes, out.server);
  return out;
}

}  // namespace pqc
