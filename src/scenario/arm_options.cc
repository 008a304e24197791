#include "scenario/arm_options.h"

#include <algorithm>

#include "tls/algorithms.h"
#include "tls/providers.h"

namespace pqc::scenario {

LoadOptions MakeLoadOptions(const ArmSettings& s, const SocketAddress& target, uint64_t seed) {
  LoadOptions o;
  o.target = target;
  o.mode_text = ModeText(s.mode);
  o.mix = s.mode;
  o.rate = EffectiveRate(s);
  o.closed_loop = s.closed_loop;
  o.arrivals = s.arrivals;
  o.busy_poll = s.busy_poll;
  o.cpus = s.client_cpus;
  o.early_rejection_expected = s.expect_early_rejected;
  o.duration = s.duration;
  o.warmup = s.warmup;
  o.requests = s.requests;
  o.request_interval = s.request_interval;
  o.streams = s.streams;
  o.path = RequestPath(s);
  o.protocol = s.protocol;
  o.tls.groups = OfferedGroups(s);
  o.tls.key_shares = s.key_shares;
  o.tls.sigalgs = s.sigalgs;
  // Many idle keep-alive connections: release TLS buffers between requests.
  o.tls.release_buffers = s.request_interval > 0;
  o.threads = s.client_threads;
  // max_inflight keeps its default (10,000): the run checks the file-descriptor limit against
  // each arm's worst case before the first trial (scenario/preflight.h).
  o.timeout = s.timeout;
  o.seed = seed;
  o.expect_group = s.group;
  // The signature check follows the chain the tool serves; an external server's is its own
  // (what it negotiated is still recorded for every connection).
  if (ToolRunsServer(s) && !s.chain.links.empty()) {
    o.expect_sigalg = std::string(s.chain.links.front()->name);
  }
  o.max_error_rate = s.max_error_rate;
  o.max_lag_p99 = s.max_lag_p99;
  return o;
}

void ApplyArmTrust(const ArmSettings& s, std::vector<X509*> anchors, LoadOptions& o) {
  if (ToolRunsServer(s)) {
    o.tls.trust_anchors = std::move(anchors);
    return;
  }
  o.tls.ca_file = s.ca;
  o.tls.system_trust = s.ca.empty();
  o.server_name = s.server_name.empty() ? s.address.host : s.server_name;
  o.tls.verify_name = o.server_name;
}

target::ServerConfig MakeServerConfig(const ArmSettings& s, std::vector<target::ServerCert> certs) {
  target::ServerConfig c;
  // The default preference, under providers of the arm's choosing, keeps what they have.
  c.groups = !s.server_groups.empty() ? s.server_groups
             : s.providers.empty()    ? std::string(kDefaultServerGroups)
                                      : TolerantGroupList(kDefaultServerGroups);
  c.certs = std::move(certs);
  c.providers = s.providers;
  c.provider_path = s.provider_path;
  c.property_query = s.property_query;
  if (std::find(s.providers.begin(), s.providers.end(), "fips") != s.providers.end()) {
    // Checked by the run's preflight; an error here leaves it empty and the server says why.
    if (auto f = FipsModuleConfig(ArmProviders(s))) c.fips_config = *f;
  }
  c.tickets = s.tickets;
  c.session_cache = s.session_cache;
  c.early_data = s.early_data;
  c.record_clients = s.record_clients;
  c.threads = s.server_threads;
  c.cpus = s.server_cpus;
  if (s.protocol != Protocol::kH1) c.protocols.push_back(s.protocol);
  c.quic_retry = s.quic_retry;
  if (s.payload) c.payload_sizes.push_back(*s.payload);
  return c;
}

}  // namespace pqc::scenario
