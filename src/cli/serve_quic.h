// serve_quic — the embedded server's HTTP/3 side for `serve --protocol h3` / `h1,h3`: a QUIC
// server (quic/h3_server.h) with the TCP server's certificates, groups and tickets, on the
// TCP listener's port number, and its counts folded into the one set of server stats that
// `--stats-json` writes and the runner reads (a trial's handshakes are both sides').
#pragma once

#include <memory>
#include <optional>

#include "core/error.h"
#include "quic/h3_server.h"
#include "server/server_options.h"
#include "server/server_stats.h"
#include "tls/ossl_ptr.h"

namespace pqc::cli {

struct QuicSide {
  SslCtxPtr ctx;  // outlives the server (declared first, destroyed last)
  std::unique_ptr<quic::H3Server> server;
};

// StartQuicSide: HTTP/3 on UDP `listen` (port 0: any free one) with `options`' certificates,
// groups, tickets, session cache and threads. No 0-RTT: OpenSSL's QUIC has none.
Result<QuicSide> StartQuicSide(const ServerOptions& options, const SocketAddress& listen);

// AddQuicStats: the QUIC side's connections, handshakes and requests into `stats`.
void AddQuicStats(const quic::H3ServerStats& quic, ServerStats& stats);

}  // namespace pqc::cli
