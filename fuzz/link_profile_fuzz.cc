// link_profile_fuzz — libFuzzer target for ParseLinkProfile, which reads the emulated link's
// parameters from the command line and scenario files. Checks, besides crashes, the limits
// the packet mover relies on (it sizes queues and timers from them) and that Describe() of
// any accepted profile is printable.
//
// Input: newline-separated fields in LinkProfileText's order — rtt, jitter, loss, burst_loss,
// rate, queue, seed — then any eighth line turns reorder on.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/units.h"
#include "link/link_profile.h"
#include "split_input.h"

using pqc::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  pqc::link::LinkProfileText text;
  std::string* fields[] = {&text.rtt,  &text.jitter, &text.loss, &text.burst_loss,
                           &text.rate, &text.queue,  &text.seed};
  size_t n = 0;
  for (; n < 8 && !input.empty(); ++n) {
    const size_t nl = input.find('\n');
    const std::string_view field = input.substr(0, nl);
    if (n < 7) fields[n]->assign(field);
    input.remove_prefix(nl == std::string_view::npos ? input.size() : nl + 1);
  }
  text.reorder = n == 8;

  auto p = pqc::link::ParseLinkProfile(text);
  if (!p) {
    Check(!p.error().message.empty());
    return 0;
  }
  Check(p->rtt >= 0 && p->rtt <= 10'000'000'000);
  Check(p->jitter >= 0 && p->jitter <= p->rtt / 2);
  Check(p->loss >= 0 && p->loss < 1);
  Check(p->ge_p >= 0 && p->ge_p <= 1 && p->ge_r >= 0 && p->ge_r <= 1);
  Check(p->ge_loss_bad >= 0 && p->ge_loss_bad <= 1);
  Check(p->rate_bps == 0 || p->rate_bps >= 8'000);
  Check(p->queue_packets >= 1 && p->queue_packets <= 1'000'000);
  Check(p->reorder == text.reorder);
  Check(!p->Describe().empty());
  // The canonical forms Describe() prints must read back as the same values.
  auto rtt = pqc::link::ParseLinkProfile({.rtt = pqc::FormatDuration(p->rtt)});
  Check(rtt.ok() && rtt->rtt == p->rtt);
  if (p->rate_bps > 0) {
    auto rate = pqc::link::ParseLinkProfile({.rate = pqc::FormatBitRate(p->rate_bps)});
    Check(rate.ok() && rate->rate_bps == p->rate_bps);
  }
  return 0;
}
