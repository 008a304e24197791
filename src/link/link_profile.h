// link_profile — what the emulated WAN does to every packet, as one value that the CLI, the
// scenario files and the runner share, parsed from the same human strings ("70ms", "0.5%",
// "100mbit") so that every front end reports the same errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/clock.h"
#include "core/error.h"

namespace pqc::link {

// LinkProfile: every parameter applies to each direction independently (both directions get
// the same delay, loss, rate and queue; their random streams differ).
struct LinkProfile {
  Nanos rtt = 0;     // round trip; each direction delays rtt/2
  Nanos jitter = 0;  // per-packet delay variation, uniform in [-jitter, +jitter] (clamped at 0);
                     // no reordering unless reorder=true (a packet never overtakes the previous)
  double loss = 0;   // random loss probability in [0, 1)
  // Gilbert–Elliott burst loss (ge_p = 0: off): p(good→bad) and p(bad→good) per packet, loss
  // probability while bad (the good state loses nothing beyond `loss`).
  double ge_p = 0, ge_r = 0, ge_loss_bad = 1;
  uint64_t rate_bps = 0;        // 0 = unlimited; else serialisation delay len*8/rate per packet
  size_t queue_packets = 1000;  // packets waiting for serialisation at most (tail drop beyond)
  bool reorder = false;
  uint64_t seed = 1;

  // Describe: "rtt 70ms, loss 0.5%, rate 100mbit" (only what is not default).
  std::string Describe() const;
};

// kMaxSites: client sites of one link at most (each has a /24 of 198.18.0.0/16).
inline constexpr size_t kMaxSites = 64;

// LinkSite: one client site of a link: its name (for messages and results) and its wire's
// profile.
struct LinkSite {
  std::string name;
  LinkProfile profile;
};

// LinkProfileText: the profile as written on the command line or in a scenario file; empty
// strings keep the default. burst_loss is "P,R" or "P,R,LOSS_BAD" with each a percentage
// ("1%,30%" or "1%,30%,100%").
struct LinkProfileText {
  std::string rtt, jitter, loss, burst_loss, rate, queue, seed;
  bool reorder = false;
};

// ParseLinkProfile: validates every field (rtt at most 10 s, jitter at most rtt/2, loss below
// 100 %, queue 1..1,000,000) and names the offending one in the error.
Result<LinkProfile> ParseLinkProfile(const LinkProfileText& text);

}  // namespace pqc::link
