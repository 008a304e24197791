#include "tls/loopback_handshake.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <poll.h>

#include <cerrno>
#include <cstring>

#include "core/clock.h"
#include "core/fd.h"
#include "net/address.h"
#include "net/socket.h"
#include "tls/algorithms.h"
#include "tls/ssl_error.h"

namespace pqc {
namespace {

// A connected pair of non-blocking TCP sockets on 127.0.0.1 (client, server).
Result<std::pair<ScopedFd, ScopedFd>> TcpPair(int timeout_ms) {
  auto listener = ListenTcp(LoopbackAddress(), 1, false);
  if (!listener) return listener.error();
  auto addr = LocalAddress(listener->get());
  if (!addr) return addr.error();
  auto client = ConnectTcpNonBlocking(*addr);
  if (!client) return client.error();
  pollfd p{listener->get(), POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) != 1) {
    return MakeError(ErrorKind::kSystem, "loopback accept timed out");
  }
  auto server = AcceptNonBlocking(listener->get());
  if (!server) return server.error();
  if (!server->valid()) return MakeError(ErrorKind::kSystem, "loopback accept found nothing");
  if (Status s = SetNoDelay(server->get()); !s) return s.error();
  return std::pair{std::move(*client), std::move(*server)};
}

// Step: one non-blocking call of op on ssl; true when done, false when it must wait;
// an Error names the side and carries OpenSSL's reason.
template <typename Op>
Result<bool> Step(SSL* ssl, Op op, const char* side) {
  int rc = op(ssl);
  if (rc > 0) return true;
  int err = SSL_get_error(ssl, rc);
  if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return false;
  if (err == SSL_ERROR_ZERO_RETURN || (err == SSL_ERROR_SYSCALL && ERR_peek_error() == 0)) {
    return MakeError(ErrorKind::kTls, fmt::format("{}: connection closed by peer", side));
  }
  return SslError(side);
}

}  // namespace

Result<LoopbackResult> LoopbackHandshake(SSL_CTX* server_ctx, SSL_CTX* client_ctx,
                                         SSL_SESSION* resume_from, int timeout_ms) {
  ERR_clear_error();
  auto pair = TcpPair(timeout_ms);
  if (!pair) return pair.error();
  auto& [cfd, sfd] = *pair;
  SslPtr client(SSL_new(client_ctx));
  SslPtr server(SSL_new(server_ctx));
  if (!client || !server) return SslError("creating connections");
  SSL_set_fd(client.get(), cfd.get());
  SSL_set_fd(server.get(), sfd.get());
  SSL_set_connect_state(client.get());
  SSL_set_accept_state(server.get());
  SSL_set_tlsext_host_name(client.get(), "localhost");
  if (resume_from != nullptr && SSL_set_session(client.get(), resume_from) != 1) {
    return SslError("offering saved session");
  }
  LoopbackResult out;
  AttachInspector(client.get(), &out.client_facts);

  // Handshake, then ping/pong so that the server's NewSessionTickets reach the client.
  char buf[16];
  enum { kHandshake, kPing, kPong, kDone } cstate = kHandshake, sstate = kHandshake;
  const Nanos deadline = MonotonicNow() + Nanos{timeout_ms} * 1'000'000;
  while (cstate != kDone || sstate != kDone) {
    if (MonotonicNow() > deadline) {
      return MakeError(ErrorKind::kTls, fmt::format("handshake timed out after {} ms", timeout_ms));
    }
    bool progressed = false;
    if (cstate == kHandshake) {
      auto r = Step(client.get(), SSL_do_handshake, "client");
      if (!r) return r.error();
      if (*r) {
        cstate = kPing;
        out.client_bytes_written = BIO_number_written(SSL_get_wbio(client.get()));
        out.client_bytes_read = BIO_number_read(SSL_get_rbio(client.get()));
      }
      progressed |= *r;
    }
    if (cstate == kPing) {
      auto r = Step(
          client.get(), [](SSL* s) { return SSL_write(s, "ping", 4); }, "client write");
      if (!r) return r.error();
      if (*r) cstate = kPong;
      progressed |= *r;
    }
    if (sstate == kHandshake) {
      auto r = Step(server.get(), SSL_do_handshake, "server");
      if (!r) return r.error();
      if (*r) sstate = kPing;
      progressed |= *r;
    }
    if (sstate == kPing) {
      auto r = Step(
          server.get(), [&buf](SSL* s) { return SSL_read(s, buf, sizeof buf); }, "server read");
      if (!r) return r.error();
      if (*r) sstate = kPong;
      progressed |= *r;
    }
    if (sstate == kPong) {
      auto r = Step(
          server.get(), [](SSL* s) { return SSL_write(s, "pong", 4); }, "server write");
      if (!r) return r.error();
      if (*r) sstate = kDone;
      progressed |= *r;
    }
    if (cstate == kPong) {
      auto r = Step(
          client.get(), [&buf](SSL* s) { return SSL_read(s, buf, sizeof buf); }, "client read");
      if (!r) return r.error();
      if (*r) cstate = kDone;
      progressed |= *r;
    }
    if (!progressed) {
      pollfd fds[2] = {{cfd.get(), POLLIN, 0}, {sfd.get(), POLLIN, 0}};
      ::poll(fds, 2, 5);
    }
  }
  const char* group = SSL_get0_group_name(client.get());
  out.group = group ? CanonicalGroupName(group) : "";
  out.sigalg = out.client_facts.signature_scheme != 0
                   ? SignatureSchemeName(out.client_facts.signature_scheme)
                   : "";
  out.cipher = SSL_CIPHER_get_name(SSL_get_current_cipher(client.get()));
  out.resumed = SSL_session_reused(client.get()) == 1;
  out.session.reset(SSL_get1_session(client.get()));
  SSL_shutdown(client.get());
  SSL_shutdown(server.get());
  return out;
}

}  // namespace pqc
