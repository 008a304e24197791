#include "server/embedded_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "http/payload.h"
#include "net/socket.h"
#include "server/listeners.h"
#include "server/server_groups.h"
#include "server/worker.h"
#include "tls/context.h"
#include "tls/hello_capture.h"

namespace pqc {
namespace {

constexpr int kMaxThreads = 1024;

Status Validate(const ServerOptions& o) {
  auto usage = [](std::string message) { return MakeError(ErrorKind::kUsage, std::move(message)); };
  if (o.threads < 1 || o.threads > kMaxThreads) {
    return usage(fmt::format("threads must be 1..{} (got {})", kMaxThreads, o.threads));
  }
  if (o.handshake_timeout <= 0) return usage("the handshake timeout must be positive");
  if (o.idle_timeout <= 0) return usage("the idle timeout must be positive");
  if (o.max_connections_per_thread < 1) return usage("max connections per thread must be >= 1");
  if (o.backlog < 1) return usage("the listen backlog must be >= 1");
  if (o.chains.empty() == o.cert_files.empty()) {
    return usage("give the server its certificates: in-memory chains or cert and key files");
  }
  for (const CertKeyFiles& f : o.cert_files) {
    if (f.chain_file.empty() || f.key_file.empty()) {
      return usage("a certificate file needs its key file and vice versa");
    }
  }
  for (const CertChain* c : o.chains) {
    if (c == nullptr || c->links.empty()) return usage("a certificate chain is empty");
  }
  return ValidateServerGroups(o.tls.groups);
}

}  // namespace

Result<std::unique_ptr<EmbeddedServer>> EmbeddedServer::Start(const ServerOptions& options) {
  if (Status s = Validate(options); !s) return s.error();
  std::unique_ptr<EmbeddedServer> server(new EmbeddedServer());
  auto ctx = !options.chains.empty() ? MakeServerContext(options.tls, options.chains)
                                     : MakeServerContextFromFiles(options.tls, options.cert_files);
  if (!ctx) return ctx.error();
  server->ctx_ = std::move(*ctx);
  server->payload_ = MakePayloadBuffer();

  auto listeners = OpenListeners(options.listen, options.threads, options.backlog);
  if (!listeners) return listeners.error();
  auto bound = LocalAddress(listeners->front().get());
  if (!bound) return bound.error();
  server->address_ = *bound;

  if (options.clients != nullptr) InstallHelloCheck(server->ctx_.get());
  if (options.max_connections_per_source > 0) {
    server->per_source_ =
        std::make_unique<server::SourceLimiter>(options.max_connections_per_source);
  }
  const server::WorkerSettings settings{
      options.handshake_timeout, options.idle_timeout,  options.max_connections_per_thread,
      options.clients,           options.handshake_cpu, server->per_source_.get()};
  for (ScopedFd& fd : *listeners) {
    auto worker =
        server::Worker::Create(std::move(fd), server->ctx_.get(), server->payload_, settings);
    if (!worker) return worker.error();
    server->workers_.push_back(std::move(*worker));
  }

  server->started_at_ = MonotonicNow();
  server->started_cpu_ = ProcessCpu();
  for (auto& worker : server->workers_) {
    try {
      server->threads_.emplace_back([w = worker.get()] { w->Run(); });
    } catch (const std::system_error& e) {
      // The destructor stops and joins the threads already running.
      return MakeError(ErrorKind::kSystem, fmt::format("starting a server thread: {}", e.what()));
    }
  }
  return server;
}

EmbeddedServer::~EmbeddedServer() {
  Stop();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

size_t EmbeddedServer::OpenConnections() const {
  size_t n = 0;
  for (const auto& worker : workers_) n += worker->open_connections();
  return n;
}

void EmbeddedServer::Stop() {
  for (auto& worker : workers_) worker->Stop();
}

ServerStats EmbeddedServer::Wait() {
  if (result_) return *result_;
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  ServerStats merged;
  merged.process_cpu = ProcessCpu() - started_cpu_;
  Nanos stopped = started_at_;
  for (const auto& worker : workers_) {
    merged.AddCounters(worker->stats());
    merged.workers.push_back(worker->summary());
    merged.worker_cpu += worker->summary().cpu;
    stopped = std::max(stopped, worker->stopped_at());
  }
  merged.wall_ns = stopped - started_at_;
  result_ = merged;
  return merged;
}

}  // namespace pqc
