// udp_flows_fuzz — libFuzzer target for the emulated link's UDP flow tally (link/udp_flows.h),
// which reads every IP packet the mover carries. Besides crashes it checks what the counts rely
// on: a datagram's payload lies inside its packet, and what the tally delivered never exceeds
// what departed.
//
// Input: a sequence of packets, each a byte of flags (bit 0: to the server; bit 1: departed
// only, lost on the wire), a length byte, then that many bytes of IP packet.
#include <cstddef>
#include <cstdint>
#include <span>

#include "link/udp_flows.h"
#include "split_input.h"

using pqc::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const unsigned char> in(data, size);
  pqc::link::UdpFlowTally tally;
  uint64_t departed_to_server = 0, departed_to_client = 0;
  size_t pos = 0;
  // Bounded: each pass consumes at least two bytes.
  while (size - pos >= 2) {
    const uint8_t flags = in[pos];
    const size_t len = in[pos + 1];
    pos += 2;
    const std::span<const unsigned char> ip = in.subspan(pos, std::min(len, size - pos));
    pos += ip.size();
    const bool to_server = (flags & 1) != 0;
    if (auto d = pqc::link::ParseUdpDatagram(ip)) {
      Check(d->payload.data() >= ip.data() &&
            d->payload.data() + d->payload.size() <= ip.data() + ip.size());
      ++(to_server ? departed_to_server : departed_to_client);
    }
    tally.Departed(ip, to_server);
    if ((flags & 2) == 0) tally.Delivered(ip, to_server);
  }
  const pqc::link::UdpFlowStats s = tally.Stats();
  Check(s.datagrams_to_server <= departed_to_server);
  Check(s.datagrams_to_client <= departed_to_client);
  Check(s.first_flight_datagrams <= departed_to_server);
  Check(s.first_round_datagrams <= departed_to_client);
  Check(s.answered_flows <= s.flows && s.at_budget_flows <= s.answered_flows);
  return 0;
}
