// arm_view — the settings of a stored arm that the reports compute with, typed once where the
// arm is read (ReadRun), with the one copy of their defaults for files that lack a key. The
// arm's full settings stay as stored JSON (scenario/arm_settings.h writes them from its key
// table; the results and report layers sit below the scenario's types): reporters echo or
// compare those as a whole, and read single values only through this view.
#pragma once

#include <string>

#include "core/json_fields.h"

namespace pqc::results {

struct ArmView {
  std::string target;                // embedded | nginx | haproxy | external ("": the run's)
  std::string network = "loopback";  // a [networks.NAME] of the scenario
  std::string payload = "OK";        // "OK" (the 3-byte answer of /) or a size ("10K")
  double rate = 0;                   // connections per second (0: a closed loop)
  bool busy_poll = false;            // the client spins: its CPU time is no cost per connection
  std::string group, chain;          // as the arm names them
  std::string duration, warmup;      // as written ("10s")
};

template <class R, class V>
requires json_fields::Of<R, ArmView>
void Fields(R& r, V& v) {
  v("target", r.target);
  v("network", r.network);
  v("payload", r.payload);
  v("rate", r.rate);
  v("busy_poll", r.busy_poll);
  v("group", r.group);
  v("chain", r.chain);
  v("duration", r.duration);
  v("warmup", r.warmup);
}

}  // namespace pqc::results
