// chart_scripts — the chart libraries (vega, vega-lite, vega-embed) compiled into the binary,
// so that an HTML report is one file that draws its charts offline, years later, with no
// network. The bytes come from the npm packages pinned in web/package-lock.json, embedded at
// build time (embed_chart_scripts.cmake); nothing is copied into the repository by hand.
#pragma once

#include <span>
#include <string_view>

namespace pqc {

struct ChartScript {
  std::string_view name;     // npm package, e.g. "vega-lite"
  std::string_view version;  // e.g. "6.4.3"
  std::string_view license;  // SPDX, e.g. "BSD-3-Clause"
  std::string_view text;     // the minified build, never containing "</script"
};

// ChartScripts: in load order (vega, vega-lite, vega-embed).
std::span<const ChartScript> ChartScripts();

}  // namespace pqc
