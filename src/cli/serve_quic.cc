#include "cli/serve_quic.h"

#include "tls/context.h"

namespace pqc::cli {

Result<QuicSide> StartQuicSide(const ServerOptions& options, const SocketAddress& listen) {
  ServerTlsConfig tls = options.tls;
  tls.transport = Transport::kQuic;
  tls.max_early_data = 0;  // refused on a QUIC context (tls/context.cc says why)
  auto ctx = !options.chains.empty() ? MakeServerContext(tls, options.chains)
                                     : MakeServerContextFromFiles(tls, options.cert_files);
  if (!ctx) return ctx.error();
  QuicSide side;
  side.ctx = std::move(*ctx);
  quic::H3ServerConfig cfg;
  cfg.listen = listen;
  cfg.ctx = side.ctx.get();
  cfg.threads = static_cast<unsigned>(options.threads);
  cfg.max_connections = static_cast<uint32_t>(options.max_connections_per_thread);
  cfg.validate_address = options.quic_retry;
  auto server = quic::H3Server::Start(cfg);
  if (!server) return server.error();
  side.server = std::move(*server);
  return side;
}

void AddQuicStats(const quic::H3ServerStats& quic, ServerStats& stats) {
  stats.accepted += quic.connections;
  stats.handshakes_full += quic.handshakes_full;
  stats.handshakes_resumed += quic.handshakes_resumed;
  stats.requests += quic.requests;
  // OpenSSL's QUIC server does not say why a handshake failed (a silent client, an alert and a
  // refused connection all end as a closed connection), and an HTTP/3 error is a protocol
  // failure after it.
  stats.handshake_failures.other += quic.handshakes_failed;
  stats.tls_errors += quic.h3_errors;
}

}  // namespace pqc::cli
