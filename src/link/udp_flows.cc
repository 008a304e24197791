#include "link/udp_flows.h"

#include <algorithm>
#include <cstring>

#include "net/quic_header.h"

namespace pqc::link {
namespace {

constexpr uint8_t kUdp = 17;
constexpr uint64_t kMaxDatagram = 1200;  // what a first flight's datagram is padded to

uint16_t Be16(const unsigned char* p) {
  return static_cast<uint16_t>((p[0] << 8) | p[1]);
}

// Fingerprint: a datagram's identity between its departure and its delivery (FNV-1a over
// its bytes: encrypted payloads do not repeat).
uint64_t Fingerprint(std::span<const unsigned char> d) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : d) h = (h ^ c) * 1099511628211ULL;
  return h;
}

// FlowKey: the client's address and port.
uint64_t FlowKey(const std::array<unsigned char, 16>& addr, uint16_t port) {
  uint64_t h = Fingerprint(addr);
  return (h << 16) ^ port;
}

}  // namespace

void UdpFlowStats::Add(const UdpFlowStats& o) {
  flows += o.flows;
  datagrams_to_server += o.datagrams_to_server;
  datagrams_to_client += o.datagrams_to_client;
  bytes_to_server += o.bytes_to_server;
  bytes_to_client += o.bytes_to_client;
  first_flight_datagrams += o.first_flight_datagrams;
  first_flight_bytes += o.first_flight_bytes;
  first_round_datagrams += o.first_round_datagrams;
  first_round_bytes += o.first_round_bytes;
  answered_flows += o.answered_flows;
  first_round_ratio_max = std::max(first_round_ratio_max, o.first_round_ratio_max);
  at_budget_flows += o.at_budget_flows;
}

std::optional<UdpDatagram> ParseUdpDatagram(std::span<const unsigned char> ip) {
  if (ip.empty()) return std::nullopt;
  UdpDatagram d;
  size_t udp = 0, end = 0;
  const unsigned version = ip[0] >> 4;
  if (version == 4) {
    if (ip.size() < 20) return std::nullopt;
    const size_t header = size_t{ip[0] & 0x0fu} * 4;
    const size_t total = Be16(&ip[2]);
    // A fragment (more fragments, or an offset) is not a whole datagram.
    const bool fragment = (Be16(&ip[6]) & 0x3fff) != 0;
    if (header < 20 || total < header || total > ip.size() || ip[9] != kUdp || fragment) {
      return std::nullopt;
    }
    std::memcpy(d.src.data(), &ip[12], 4);
    std::memcpy(d.dst.data(), &ip[16], 4);
    udp = header;
    end = total;
  } else if (version == 6) {
    if (ip.size() < 40 || ip[6] != kUdp) return std::nullopt;
    const size_t total = 40 + size_t{Be16(&ip[4])};
    if (total > ip.size()) return std::nullopt;
    std::memcpy(d.src.data(), &ip[8], 16);
    std::memcpy(d.dst.data(), &ip[24], 16);
    udp = 40;
    end = total;
  } else {
    return std::nullopt;
  }
  if (end - udp < 8) return std::nullopt;
  const size_t length = Be16(&ip[udp + 4]);
  if (length < 8 || length > end - udp) return std::nullopt;
  d.src_port = Be16(&ip[udp]);
  d.dst_port = Be16(&ip[udp + 2]);
  d.payload = ip.subspan(udp + 8, length - 8);
  return d;
}

UdpFlowStats UdpFlowTally::Closed(const Flow& f) {
  UdpFlowStats s = f.counts;
  s.flows = 1;
  if (s.first_round_bytes > 0 && s.first_flight_bytes > 0) {
    s.answered_flows = 1;
    s.first_round_ratio_max =
        static_cast<double>(s.first_round_bytes) / static_cast<double>(s.first_flight_bytes);
    s.at_budget_flows = s.first_round_bytes + kMaxDatagram > 3 * s.first_flight_bytes ? 1 : 0;
  }
  return s;
}

UdpFlowTally::Flow& UdpFlowTally::FlowFor(const UdpDatagram& d, bool to_server) {
  const uint64_t key = to_server ? FlowKey(d.src, d.src_port) : FlowKey(d.dst, d.dst_port);
  auto [it, added] = open_.try_emplace(key);
  Flow& f = it->second;
  if (!to_server) return f;
  // A client Initial naming connection IDs this flow never used: a new connection on the
  // same port (the kernel reuses ephemeral ports); the old one is over.
  const auto h = ReadQuicLongHeader(d.payload, 0);
  if (!h || h->type != QuicPacketType::kInitial) return f;
  const bool known =
      (!f.client_cid.empty() &&
       std::equal(h->dcid.begin(), h->dcid.end(), f.client_cid.begin(), f.client_cid.end())) ||
      (!f.server_cid.empty() &&
       std::equal(h->dcid.begin(), h->dcid.end(), f.server_cid.begin(), f.server_cid.end()));
  if (!added && !known) {
    closed_.Add(Closed(f));
    f = Flow{};
  }
  if (f.client_cid.empty()) f.client_cid.assign(h->dcid.begin(), h->dcid.end());
  return f;
}

void UdpFlowTally::Departed(std::span<const unsigned char> ip, bool to_server) {
  const auto d = ParseUdpDatagram(ip);
  if (!d) return;
  std::lock_guard lock(mu_);
  Flow& f = FlowFor(*d, to_server);
  const uint64_t bytes = d->payload.size();
  if (to_server) {
    if (!f.server_reached_client) {
      ++f.counts.first_flight_datagrams;
      f.counts.first_flight_bytes += bytes;
    } else if (!f.reply_reached_server && f.replies.size() < 4096) {  // bounded
      f.replies.insert(Fingerprint(d->payload));
    }
    return;
  }
  if (f.server_cid.empty()) {
    if (const auto h = ReadQuicLongHeader(d->payload, 0)) {
      f.server_cid.assign(h->scid.begin(), h->scid.end());
    }
  }
  if (!f.reply_reached_server) {
    ++f.counts.first_round_datagrams;
    f.counts.first_round_bytes += bytes;
  }
}

void UdpFlowTally::Delivered(std::span<const unsigned char> ip, bool to_server) {
  const auto d = ParseUdpDatagram(ip);
  if (!d) return;
  std::lock_guard lock(mu_);
  const uint64_t key = to_server ? FlowKey(d->src, d->src_port) : FlowKey(d->dst, d->dst_port);
  auto it = open_.find(key);
  if (it == open_.end()) return;  // departed before the tally began
  Flow& f = it->second;
  const uint64_t bytes = d->payload.size();
  if (to_server) {
    ++f.counts.datagrams_to_server;
    f.counts.bytes_to_server += bytes;
    if (!f.reply_reached_server && f.replies.count(Fingerprint(d->payload)) > 0) {
      f.reply_reached_server = true;
      f.replies.clear();
    }
    return;
  }
  ++f.counts.datagrams_to_client;
  f.counts.bytes_to_client += bytes;
  f.server_reached_client = true;
}

UdpFlowStats UdpFlowTally::Stats() const {
  std::lock_guard lock(mu_);
  UdpFlowStats s = closed_;
  for (const auto& [key, f] : open_) s.Add(Closed(f));
  return s;
}

}  // namespace pqc::link
