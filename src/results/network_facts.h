// network_facts — the emulated networks a run's arms used, as the run stores them
// (networks_json) and the reports read them: one field list (core/json_fields.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json_fields.h"

namespace pqc::results {

// SiteFacts: one client site of a network of several, in site order (a connection's site is
// an index into the list).
struct SiteFacts {
  std::string name;
  std::optional<double> rtt_ms;
  std::string describe;
};

template <class R, class V>
requires json_fields::Of<R, SiteFacts>
void Fields(R& r, V& v) {
  v("name", r.name);
  v("rtt_ms", r.rtt_ms);
  v("describe", r.describe);
}

// NetworkFacts: a profile's round trip (none for a network of several sites: each has its
// own) and its description ("rtt 70ms", "loopback (no emulation)").
struct NetworkFacts {
  std::optional<double> rtt_ms;
  std::string describe;
  std::vector<SiteFacts> sites;  // a network of several sites; empty otherwise
};

template <class R, class V>
requires json_fields::Of<R, NetworkFacts>
void Fields(R& r, V& v) {
  v("rtt_ms", r.rtt_ms);
  v("describe", r.describe);
  v("sites", r.sites);
}

// Networks: profile name → its facts; empty in files of schema versions 1 and 2.
using Networks = std::map<std::string, NetworkFacts>;

}  // namespace pqc::results
