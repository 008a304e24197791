// mover_stats — what the mover counted during a run, and its one field list (the JSON of
// `link --stats-json` and of a stored trial's link_json, core/json_fields.h). Apart from
// mover.h so that the results layer can hold these counts without the mover's threads.
#pragma once

#include <cstdint>

#include "core/json_fields.h"
#include "link/udp_flows.h"

namespace pqc::link {

// MoverStats: both directions together. Drops: dropped_loss (random + burst), dropped_queue
// (tail drop at queue_packets, or the mover's hold limit). release_error_*: µs after the
// scheduled release that the packet was written.
struct MoverStats {
  uint64_t packets = 0;  // delivered
  uint64_t bytes = 0;    // delivered (IP packets)
  uint64_t dropped_loss = 0;
  uint64_t dropped_queue = 0;
  uint64_t write_errors = 0;     // the kernel refused a write (counted, packet lost)
  uint64_t dropped_ingress = 0;  // the egress tap's buffer overflowed (counted, packet lost)
  bool realtime = false;         // the mover's threads got SCHED_FIFO (else: normal priority)
  // Departure times come from the kernel's transmit path (egress tap) rather than from the
  // moment the mover read the packet; false names the fallback (see egress_tap.h).
  bool kernel_timestamps = false;
  double release_error_p50_us = 0;
  double release_error_p99_us = 0;
  double release_error_max_us = 0;
  // quic: the UDP flows the link carried (QUIC connections), as the wire saw them.
  UdpFlowStats quic;

  // AddCounts: adds the packet, byte and drop counters of `o` (not its flags or percentiles).
  void AddCounts(const MoverStats& o) {
    packets += o.packets;
    bytes += o.bytes;
    dropped_loss += o.dropped_loss;
    dropped_queue += o.dropped_queue;
    write_errors += o.write_errors;
    dropped_ingress += o.dropped_ingress;
    quic.Add(o.quic);
  }
};

template <class R, class V>
requires json_fields::Of<R, MoverStats>
void Fields(R& r, V& v) {
  v("packets", r.packets);
  v("bytes", r.bytes);
  v("dropped_loss", r.dropped_loss);
  v("dropped_queue", r.dropped_queue);
  v("dropped_ingress", r.dropped_ingress);
  v("write_errors", r.write_errors);
  v("realtime", r.realtime);
  v("kernel_timestamps", r.kernel_timestamps);
  v.Group("release_error_us", [&](auto& g) {
    g("p50", r.release_error_p50_us);
    g("p99", r.release_error_p99_us);
    g("max", r.release_error_max_us);
  });
  v("quic", r.quic);
}

}  // namespace pqc::link
