#include "target/target.h"

#include <fmt/format.h>

#include "target/readiness.h"

namespace pqc::target {
namespace {

// ExternalTarget: a server someone else runs; the tool only waits until it accepts.
class ExternalTarget final : public Target {
 public:
  explicit ExternalTarget(SocketAddress address) : address_(address) {}

  Result<SocketAddress> Start(const ServerConfig&, const Placement& p,
                              const std::string&) override {
    Status s = WaitUntilAccepting(address_, p.netns_path, MonotonicNow() + kReadyTimeout,
                                  [] { return Status(); });
    if (!s) {
      return MakeError(ErrorKind::kSystem,
                       fmt::format("external target {}: {} (is the server running?)",
                                   address_.ToString(), s.error().message));
    }
    started_ = MonotonicNow();
    return address_;
  }

  Result<TargetStats> Stop() override {
    TargetStats st;
    if (started_ > 0) st.wall_s = static_cast<double>(MonotonicNow() - started_) / 1e9;
    st.details = {{"address", address_.ToString()}, {"note", "external: no server-side stats"}};
    return st;
  }

  std::string_view name() const override { return "external"; }

 private:
  SocketAddress address_;
  Nanos started_ = 0;
};

}  // namespace

Result<TargetKind> ParseTargetKind(std::string_view text) {
  if (text == "embedded") return TargetKind::kEmbedded;
  if (text == "nginx") return TargetKind::kNginx;
  if (text == "haproxy") return TargetKind::kHaproxy;
  if (text == "external") return TargetKind::kExternal;
  return MakeError(
      ErrorKind::kUsage,
      fmt::format("unknown target '{}' (valid: embedded, nginx, haproxy, external)", text));
}

std::string TargetKindsText(const std::vector<TargetKind>& kinds) {
  std::string out;
  for (TargetKind k : kinds) {
    if (!out.empty()) out += ", ";
    out += TargetKindName(k);
  }
  return out;
}

std::string_view TargetKindName(TargetKind kind) {
  switch (kind) {
    case TargetKind::kEmbedded:
      return "embedded";
    case TargetKind::kNginx:
      return "nginx";
    case TargetKind::kHaproxy:
      return "haproxy";
    case TargetKind::kExternal:
      return "external";
  }
  return "unknown";
}

Status CheckServerCerts(const ServerConfig& c) {
  if (c.certs.empty()) return MakeError(ErrorKind::kUsage, "the server was given no certificate");
  for (const ServerCert& cert : c.certs) {
    if (Status s = CheckReadable("certificate chain file", cert.chain_file); !s) return s;
    if (Status s = CheckReadable("private key file", cert.key_file); !s) return s;
  }
  return {};
}

std::unique_ptr<Target> MakeExternalTarget(SocketAddress address) {
  return std::make_unique<ExternalTarget>(address);
}

}  // namespace pqc::target
