// serve — `pqc-bench serve`: the embedded HTTPS target as a process, for scripts, nginx and
// HAProxy comparisons and clients other than pqc-bench. The flags are serve_flags, the
// certificates serve_certs; the embedded server is run by serve_embedded, nginx and HAProxy
// by serve_peer (the server itself is src/server).
#include <algorithm>

#include "cli/command.h"
#include "cli/serve_certs.h"
#include "cli/serve_embedded.h"
#include "cli/serve_flags.h"
#include "cli/serve_peer.h"
#include "core/stop_signals.h"

namespace pqc::cli {
namespace {

// ServeWithPeer: nginx or HAProxy with serve's flags, as a trial's target would be configured.
int ServeWithPeer(const ServeFlags& f) {
  auto certs = MakeServerCerts(f);
  if (!certs) return ReportError("serve", certs.error());
  PeerServeOptions n;
  n.kind = f.use_nginx ? target::TargetKind::kNginx : target::TargetKind::kHaproxy;
  n.exe = f.use_nginx ? f.nginx_exe : f.haproxy_exe;
  n.chains = std::move(certs->chains);
  for (const CertKeyFiles& c : certs->files) n.config.certs.push_back({c.chain_file, c.key_file});
  n.cert_names = certs->what;
  n.work_dir = f.work_dir;
  n.listen = f.listen;
  n.config.groups = f.groups;
  n.config.protocols = f.protocols;  // with TCP (ParseServeFlags refused h3 alone)
  n.config.quic_retry = QuicRetry(f);
  n.config.tickets = f.tickets == "on";
  n.config.session_cache = f.cache == "on";
  n.config.early_data = f.early_data == "on";
  n.config.threads = static_cast<unsigned>(f.threads);
  n.config.ciphersuites = f.ciphersuites;
  n.config.payload_sizes = f.payload_sizes;
  // The server loads them itself, from an openssl.cnf (OPENSSL_CONF) its driver writes.
  const ProviderSpec spec = f.providers.Spec();
  n.config.providers = spec.names;
  n.config.provider_path = spec.path;
  n.config.property_query = spec.property_query;
  if (std::find(spec.names.begin(), spec.names.end(), "fips") != spec.names.end()) {
    auto fips = FipsModuleConfig(spec);
    if (!fips) return ReportError("serve", fips.error());
    n.config.fips_config = *fips;
  }
  StopSignals signals;
  return ServePeer(std::move(n), signals, f.duration > 0 ? MonotonicNow() + f.duration : 0);
}

}  // namespace

int ServeMain(int argc, char** argv) {
  CLI::App app{
      "The embedded HTTPS target: TLS 1.3, HTTP/1.1 keep-alive; / answers OK, "
      "/payload/<size> that many bytes. Stops on SIGINT/SIGTERM or after --duration.",
      "pqc-bench serve"};
  ServeFlags flags;
  AddServeFlags(app, flags);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (Status st = ParseServeFlags(app, flags); !st) return ReportError("serve", st.error());
  return flags.peer() ? ServeWithPeer(flags) : ServeEmbedded(flags);
}

}  // namespace pqc::cli
