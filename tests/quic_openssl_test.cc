// core/quic_flight.h's model against OpenSSL 3.5's own QUIC stack: a client and a server
// (listener) of this OpenSSL, joined by two in-memory datagram pairs that the test moves
// datagrams between, one round trip at a time: the client's datagrams to the server, then
// everything the server sends before it needs the client again. Nothing touches a socket.
// The server skips Retry (SSL_LISTENER_FLAG_NO_VALIDATE), as the model assumes: by default
// OpenSSL's listener validates every new client with a Retry, a round trip of its own.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/quic.h>
#include <openssl/ssl.h>

#include <array>
#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/quic_flight.h"
#include "tls/algorithms.h"
#include "tls/cert_chain.h"
#include "tls/chain_sizes.h"
#include "tls/context.h"
#include "tls/inspector.h"
#include "tls/quic_messages.h"

namespace pqc {
namespace {

using BioAddrPtr = OsslPtr<BIO_ADDR, BIO_ADDR_free>;

BIO_ADDR* Address(uint16_t port) {
  BIO_ADDR* a = BIO_ADDR_new();
  const std::array<unsigned char, 4> ip = {127, 0, 0, 1};
  EXPECT_EQ(BIO_ADDR_rawmake(a, AF_INET, ip.data(), ip.size(), htons(port)), 1);
  return a;
}

// The server's handshake messages by type (last one of each), from its message callback.
void OnServerMessage(int write_p, int /*version*/, int content_type, const void* buf, size_t len,
                     SSL* /*ssl*/, void* arg) {
  if (write_p == 1 && content_type == SSL3_RT_HANDSHAKE && len >= 4) {
    (*static_cast<std::map<int, uint32_t>*>(arg))[static_cast<const uint8_t*>(buf)[0]] =
        static_cast<uint32_t>(len);
  }
}

int SelectH3(SSL* /*ssl*/, const unsigned char** out, unsigned char* out_len,
             const unsigned char* in, unsigned int in_len, void* /*arg*/) {
  static constexpr unsigned char kH3[] = {2, 'h', '3'};
  return SSL_select_next_proto(const_cast<unsigned char**>(out), out_len, kH3, sizeof kH3, in,
                               in_len) == OPENSSL_NPN_NEGOTIATED
             ? SSL_TLSEXT_ERR_OK
             : SSL_TLSEXT_ERR_ALERT_FATAL;
}

struct Measured {
  uint32_t client_hello = 0;
  QuicServerFlight server;
  std::vector<std::vector<uint32_t>> server_datagrams;  // per round, until the client is done
};

// Moves every datagram waiting at `from` to `to`; returns their sizes.
std::vector<uint32_t> Move(BIO* from, BIO* to) {
  std::vector<uint32_t> sizes;
  std::array<unsigned char, 65536> buf;
  for (int i = 0; i < 1000; ++i) {
    const int n = BIO_read(from, buf.data(), static_cast<int>(buf.size()));
    if (n <= 0) break;
    sizes.push_back(static_cast<uint32_t>(n));
    EXPECT_EQ(BIO_write(to, buf.data(), n), n);
  }
  return sizes;
}

// Handshake: the client offers `group` alone; the server holds `chain` and that group only (so
// that its EncryptedExtensions list no groups).
Measured Handshake(const CertChain& chain, const std::string& group) {
  Measured m;
  std::map<int, uint32_t> sent;
  SslCtxPtr sctx(SSL_CTX_new(OSSL_QUIC_server_method()));
  EXPECT_TRUE(sctx);
  EXPECT_EQ(SSL_CTX_use_certificate(sctx.get(), chain.leaf().cert.get()), 1);
  for (size_t i = 1; i < chain.sent_count(); ++i) {
    EXPECT_EQ(SSL_CTX_add1_chain_cert(sctx.get(), chain.links[i].cert.get()), 1);
  }
  EXPECT_EQ(SSL_CTX_use_PrivateKey(sctx.get(), chain.leaf().key.get()), 1);
  EXPECT_EQ(SSL_CTX_set1_groups_list(sctx.get(), group.c_str()), 1);
  SSL_CTX_set_alpn_select_cb(sctx.get(), SelectH3, nullptr);
  SSL_CTX_set_msg_callback(sctx.get(), OnServerMessage);
  SSL_CTX_set_msg_callback_arg(sctx.get(), &sent);

  SslCtxPtr cctx(SSL_CTX_new(OSSL_QUIC_client_method()));
  EXPECT_TRUE(SetClientOffer(cctx.get(), ClientTlsConfig{.groups = {group}}).ok());
  SSL_CTX_set_verify(cctx.get(), SSL_VERIFY_NONE, nullptr);

  // client_net and server_net are the test's ends: what one side writes, the other reads.
  BIO *client_end = nullptr, *client_net = nullptr, *server_end = nullptr, *server_net = nullptr;
  EXPECT_EQ(BIO_new_bio_dgram_pair(&client_end, 0, &client_net, 0), 1);
  EXPECT_EQ(BIO_new_bio_dgram_pair(&server_end, 0, &server_net, 0), 1);
  BioPtr own_client_net(client_net), own_server_net(server_net);
  for (BIO* b : {client_end, client_net, server_end, server_net}) {
    EXPECT_EQ(BIO_dgram_set_caps(b, BIO_DGRAM_CAP_HANDLES_DST_ADDR), 1);
  }
  // Each datagram is stamped with its writer's local address: the server sees it come from
  // the client's, and answers there.
  EXPECT_EQ(BIO_dgram_set0_local_addr(client_end, Address(40000)), 1);
  EXPECT_EQ(BIO_dgram_set0_local_addr(server_net, Address(40000)), 1);
  EXPECT_EQ(BIO_dgram_set0_local_addr(server_end, Address(443)), 1);
  EXPECT_EQ(BIO_dgram_set0_local_addr(client_net, Address(443)), 1);

  SslPtr listener(SSL_new_listener(sctx.get(), SSL_LISTENER_FLAG_NO_VALIDATE));
  EXPECT_TRUE(listener);
  SSL_set_bio(listener.get(), server_end, server_end);
  EXPECT_EQ(SSL_set_blocking_mode(listener.get(), 0), 1);
  EXPECT_EQ(SSL_listen(listener.get()), 1);

  SslPtr client(SSL_new(cctx.get()));
  SSL_set_bio(client.get(), client_end, client_end);
  BioAddrPtr server_addr(Address(443));
  EXPECT_EQ(SSL_set1_initial_peer_addr(client.get(), server_addr.get()), 1);
  EXPECT_EQ(SSL_set_blocking_mode(client.get(), 0), 1);
  static constexpr unsigned char kH3[] = {2, 'h', '3'};
  EXPECT_EQ(SSL_set_alpn_protos(client.get(), kH3, sizeof kH3), 0);
  SSL_set_tlsext_host_name(client.get(), "localhost");
  HandshakeFacts client_facts;
  AttachInspector(client.get(), &client_facts);

  SslPtr conn;
  for (int round = 0; round < 16; ++round) {
    if (SSL_do_handshake(client.get()) == 1) break;  // the last round brought the flight's end
    Move(client_net, server_net);
    // The server, until it has nothing more to send without the client (a few passes of its
    // event loop do; the rest are spare).
    for (int pass = 0; pass < 20; ++pass) {
      SSL_handle_events(listener.get());
      if (!conn) conn.reset(SSL_accept_connection(listener.get(), SSL_ACCEPT_CONNECTION_NO_BLOCK));
      if (conn) {
        SSL_set_blocking_mode(conn.get(), 0);
        SSL_do_handshake(conn.get());
        SSL_handle_events(conn.get());
      }
    }
    m.server_datagrams.push_back(Move(server_net, client_net));
  }
  m.client_hello = client_facts.client_hello_bytes;
  m.server = {.server_hello = sent[SSL3_MT_SERVER_HELLO],
              .encrypted_extensions = sent[SSL3_MT_ENCRYPTED_EXTENSIONS],
              .certificate = sent[SSL3_MT_CERTIFICATE],
              .certificate_verify = sent[SSL3_MT_CERTIFICATE_VERIFY],
              .finished = sent[SSL3_MT_FINISHED]};
  return m;
}

TEST(QuicOpenSsl, ClientWritesTheInitialDatagramsTheModelCounts) {
  for (const auto& groups : std::vector<std::vector<std::string>>{
           {"X25519"}, {"X25519MLKEM768"}, {"X25519MLKEM768", "X25519"}}) {
    ClientTlsConfig cfg{.groups = groups, .key_shares = groups};
    auto hello = MeasureQuicClientHello(cfg);
    ASSERT_TRUE(hello.ok()) << hello.error().message;
    EXPECT_EQ(hello->initial_datagrams, ClientInitialDatagrams(hello->bytes)) << groups[0];
    EXPECT_EQ(hello->datagram_bytes, hello->initial_datagrams * kQuicMinDatagramBytes);
    // An ML-KEM-768 key share alone is 1,184 bytes: two datagrams; X25519's one.
    EXPECT_EQ(hello->initial_datagrams, groups[0] == "X25519" ? 1u : 2u) << hello->bytes;
  }
}

CertChain Chain(const char* text) {
  auto spec = ParseChainSpec(text);
  EXPECT_TRUE(spec.ok()) << text;
  auto chain = MakeChain(*spec);
  EXPECT_TRUE(chain.ok()) << text;
  return std::move(chain).value();
}

// DropTimerAcks: a datagram of ACK frames alone that the server's own ACK-delay timer sent (25 ms
// on the real clock, which a loaded machine lets expire between two of the test's passes: CI
// saw 27 and 37 bytes more, one datagram more, in round 2) is not part of the flight the model
// predicts. In a round the model says is that much shorter, such a datagram — too small to hold
// a handshake message's CRYPTO frame and a packet's header and tag besides — is set aside; a
// model that is wrong by more than one small datagram still fails.
void DropTimerAcks(Measured& m, const QuicFlightRounds& r) {
  constexpr uint32_t kAckOnlyMax = 64;
  for (size_t i = 0; i < m.server_datagrams.size() && i < r.bytes_per_round.size(); ++i) {
    std::vector<uint32_t>& round = m.server_datagrams[i];
    uint64_t bytes = 0;
    for (uint32_t d : round) bytes += d;
    for (size_t k = round.size(); k-- > 0;) {
      const uint64_t without = bytes - round[k];
      if (round[k] <= kAckOnlyMax && bytes > r.bytes_per_round[i] + 1 &&
          without + 1 >= r.bytes_per_round[i] && without <= r.bytes_per_round[i] + 1) {
        round.erase(round.begin() + static_cast<long>(k));
        break;
      }
    }
  }
}

std::vector<uint64_t> BytesPerRound(const Measured& m) {
  std::vector<uint64_t> out;
  for (const auto& round : m.server_datagrams) {
    uint64_t bytes = 0;
    for (uint32_t d : round) bytes += d;
    out.push_back(bytes);
  }
  return out;
}

TEST(QuicOpenSsl, ServerSendsWhatTheModelSaysRoundByRound) {
  // Up to a three-certificate ml-dsa-87 chain (a 20 kB flight: 3 round trips).
  for (const char* text :
       {"ecdsa-p256", "ml-dsa-65", "ml-dsa-87", "ml-dsa-87/ml-dsa-87/ml-dsa-87"}) {
    const CertChain chain = Chain(text);
    auto sizes = MeasureChain(chain);
    ASSERT_TRUE(sizes.ok());
    for (const char* group : {"X25519", "X25519MLKEM768"}) {
      SCOPED_TRACE(std::string(text) + " " + group);
      // OpenSSL's timers run on the real clock: on a loaded machine its ACK delay (25 ms) can
      // expire between two of the test's passes, and the server then sends an ACK-only
      // datagram of its own (CI, 2026-12-05: 37 bytes more, 9 datagrams for 8, in round 2 of
      // ml-dsa-65). So a handshake that does not match is measured again, up to twice; a
      // model that is wrong does not match three times.
      Measured m;
      QuicFlightRounds r;
      std::vector<uint64_t> rounds;
      size_t datagrams = 0;
      for (int attempt = 0; attempt < 3; ++attempt) {
        m = Handshake(chain, group);
        r = ModelQuicFlight(m.client_hello, m.server);
        DropTimerAcks(m, r);
        rounds = BytesPerRound(m);
        datagrams = 0;
        for (const auto& round : m.server_datagrams) datagrams += round.size();
        bool matches = rounds.size() == r.handshake_round_trips && datagrams == r.flight_datagrams;
        for (size_t i = 0; matches && i < rounds.size(); ++i) {
          matches = std::abs(static_cast<double>(rounds[i]) -
                             static_cast<double>(r.bytes_per_round[i])) <= 1;
        }
        if (matches) break;
      }
      // The messages certs feeds the model are the ones this server sends. CertificateVerify
      // holds a fresh signature: ML-DSA's length is fixed, an ECDSA P-256 signature's DER is
      // 70 to 72 bytes but each of r and s loses a byte with probability 1/256, so two
      // signatures differ by up to 4 bytes (CI, 2026-12-05: 77 against 80 failed a bound of 2).
      auto predicted = QuicServerFlightFor(**FindGroup(group), *sizes);
      ASSERT_TRUE(predicted.ok());
      EXPECT_EQ(m.server.server_hello, predicted->server_hello);
      EXPECT_EQ(m.server.encrypted_extensions, predicted->encrypted_extensions);
      EXPECT_EQ(m.server.certificate, predicted->certificate);
      const bool ecdsa = std::string_view(text).starts_with("ecdsa");
      EXPECT_NEAR(m.server.certificate_verify, predicted->certificate_verify, ecdsa ? 4 : 0);
      EXPECT_EQ(m.server.finished, predicted->finished);

      // Fed with what was measured, the model gives OpenSSL's rounds, datagrams and bytes, to
      // a byte a round: OpenSSL writes a short CRYPTO frame's length field in one byte after
      // sizing the packet for two, and so sends a datagram a byte short of 1,200 where a
      // ServerHello (or a refill of its send buffer) ends inside a datagram.
      ASSERT_EQ(rounds.size(), r.handshake_round_trips);
      for (size_t i = 0; i < rounds.size(); ++i) {
        EXPECT_NEAR(static_cast<double>(rounds[i]), static_cast<double>(r.bytes_per_round[i]), 1)
            << "round " << i + 1;
      }
      EXPECT_EQ(datagrams, r.flight_datagrams);
    }
  }
}

TEST(QuicOpenSsl, PastItsCryptoBufferOpenSslIsSlowerThanTheModel) {
  // A five-certificate ml-dsa-87 chain (a 35 kB flight). The first two rounds are the model's
  // (3,600 or 7,200 bytes, then the 12,000-byte window), but in the third OpenSSL 3.5 and 3.6
  // send 12,000 bytes again where the model's window has grown to 24,000. Our reading (of its
  // source, not measured): its handshake data passes through a 16 KiB send buffer per packet
  // number space (INIT_CRYPTO_SEND_BUF_LEN, ssl/quic/quic_channel.c), refilled as ACKs come;
  // a datagram cut short mid-round where the buffer ran dry fits that. So OpenSSL takes 4 round
  // trips here, the model 3: the model is what the protocol allows, a floor for this server.
  const CertChain chain = Chain("ml-dsa-87/ml-dsa-87/ml-dsa-87/ml-dsa-87/ml-dsa-87");
  for (const char* group : {"X25519", "X25519MLKEM768"}) {
    SCOPED_TRACE(group);
    const Measured m = Handshake(chain, group);
    const QuicFlightRounds r = ModelQuicFlight(m.client_hello, m.server);
    const std::vector<uint64_t> rounds = BytesPerRound(m);
    ASSERT_GE(rounds.size(), 2u);
    EXPECT_NEAR(static_cast<double>(rounds[0]), static_cast<double>(r.bytes_per_round[0]), 1);
    EXPECT_NEAR(static_cast<double>(rounds[1]), static_cast<double>(r.bytes_per_round[1]), 1);
    EXPECT_EQ(r.handshake_round_trips, 3u);
    EXPECT_GE(rounds.size(), r.handshake_round_trips);
  }
}

}  // namespace
}  // namespace pqc
