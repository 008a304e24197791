// udp_flows — QUIC as the emulated wire sees it. The mover hands every UDP datagram it reads
// from a device (departed) and every one it writes to the other (delivered) to the site's
// tally, which keeps one flow per QUIC connection — the client's address and port, split when
// that port starts a new connection (a client Initial naming connection IDs the flow has not
// used) — and counts, without decrypting anything:
// - the datagrams and UDP payload bytes each way;
// - the client's first flight: its datagrams that left before any of the server's reached it
//   (the ClientHello's Initials, as the client itself counts them: quic/wire_counts.h);
// - the server's first round: its bytes that left before any client datagram sent in reply to
//   the server (after one of the server's had reached the client) had reached the server. A
//   server that has not validated the client's address may send at most three times what it
//   received (RFC 9000 §8.1): first round ≤ 3 × first flight, on the wire.
// A check of the client's own records from the other side of the wire, as tshark's byte counts
// once checked TCP's.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/json_fields.h"

namespace pqc::link {

// UdpFlowStats: the flows of a run (or a trial's link) together; ratios are over flows whose
// client sent a first flight and whose server answered it.
struct UdpFlowStats {
  uint64_t flows = 0;
  uint64_t datagrams_to_server = 0, datagrams_to_client = 0;  // delivered
  uint64_t bytes_to_server = 0, bytes_to_client = 0;          // delivered, UDP payload
  uint64_t first_flight_datagrams = 0, first_flight_bytes = 0;
  uint64_t first_round_datagrams = 0, first_round_bytes = 0;
  uint64_t answered_flows = 0;       // the server sent something in its first round
  double first_round_ratio_max = 0;  // first round / first flight, bytes, the largest
  uint64_t at_budget_flows = 0;      // first round within one datagram (1,200 B) of 3×

  void Add(const UdpFlowStats& o);
};

template <class R, class V>
requires json_fields::Of<R, UdpFlowStats>
void Fields(R& r, V& v) {
  v("flows", r.flows);
  v("datagrams_to_server", r.datagrams_to_server);
  v("datagrams_to_client", r.datagrams_to_client);
  v("bytes_to_server", r.bytes_to_server);
  v("bytes_to_client", r.bytes_to_client);
  v("first_flight_datagrams", r.first_flight_datagrams);
  v("first_flight_bytes", r.first_flight_bytes);
  v("first_round_datagrams", r.first_round_datagrams);
  v("first_round_bytes", r.first_round_bytes);
  v("answered_flows", r.answered_flows);
  v("first_round_ratio_max", r.first_round_ratio_max);
  v("at_budget_flows", r.at_budget_flows);
}

// UdpDatagram: an IP packet's UDP datagram, as the link reads it (IPv4 or IPv6 without
// extension headers; a fragment or anything else is not one).
struct UdpDatagram {
  std::array<unsigned char, 16> src{}, dst{};  // IPv4 addresses in the first 4 bytes
  uint16_t src_port = 0, dst_port = 0;
  std::span<const unsigned char> payload;
};
std::optional<UdpDatagram> ParseUdpDatagram(std::span<const unsigned char> ip);

class UdpFlowTally {
 public:
  // Departed / Delivered: one IP packet read from a device / written to the other; `to_server`
  // says which way. Thread-safe (each way may have a mover thread of its own).
  void Departed(std::span<const unsigned char> ip, bool to_server);
  void Delivered(std::span<const unsigned char> ip, bool to_server);
  // Stats: every flow so far, the open ones included.
  UdpFlowStats Stats() const;

 private:
  struct Flow {
    std::vector<unsigned char> client_cid,
        server_cid;  // the client's first DCID, the server's SCID
    bool server_reached_client = false;
    bool reply_reached_server = false;
    std::unordered_set<uint64_t> replies;  // fingerprints of client datagrams sent in reply
    UdpFlowStats counts;                   // this flow's (flows = 1)
  };
  static UdpFlowStats Closed(const Flow& f);
  Flow& FlowFor(const UdpDatagram& d, bool to_server);

  mutable std::mutex mu_;
  std::unordered_map<uint64_t, Flow> open_;  // by the client's address and port
  UdpFlowStats closed_;
};

}  // namespace pqc::link
