// chart_specs — the Vega-Lite specifications of the HTML report's charts, built from the
// summary with its numbers inlined (no data files, no network at view time). Kept apart
// from the page writer so that what a chart shows, and when it is left out, is testable
// without a browser. Like every reporter, no statistics here: each number is read from the
// summary; the only arithmetic is placing points on an axis and converting µs to ms.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/summary.h"

namespace pqc::report {

struct Chart {
  std::string id;       // DOM id of its container, e.g. "chart-spectrum"
  std::string title;    // heading above it
  std::string caption;  // one sentence: how to read it
  nlohmann::json spec;  // Vega-Lite spec; null when the chart is omitted
  std::string omitted;  // why it is omitted (the page prints it); empty when drawn
  size_t series = 0;    // lines (spectrum, sweeps), arms (phase bars) or bars (wire bytes)
  bool drawn() const { return !spec.is_null(); }
};

// BaseChartSpec: what every chart of every page shares (schema, size, font).
nlohmann::json BaseChartSpec();

// ChartMs: microseconds as a chart's milliseconds, or null (a gap in the chart).
nlohmann::json ChartMs(std::optional<double> us);

// SpectrumChart: latency by percentile, x = -log10(1 - q) (labelled 50, 90, 99, 99.9, …, max),
// one line per arm; a selector picks the phase when arms have spectra of several phases.
Chart SpectrumChart(const Summary& summary);

// PhaseBarsChart: p50 and p99 per arm, one panel per phase, with confidence-interval rules.
Chart PhaseBarsChart(const Summary& summary);

// RttSweepChart: handshake p50 against rtt_ms, one line per combination of the other factors;
// drawn only when "network" is a factor and at least two RTTs were measured.
Chart RttSweepChart(const Summary& summary);

// PayloadSweepChart: response p50 against payload_bytes (log axis), one line per combination of
// the other factors; drawn only when "payload" is a factor and at least two sizes were measured.
Chart PayloadSweepChart(const Summary& summary);

// WireBytesChart: per chain (and group, when several), the ClientHello and the server's first
// flight (ServerHello, Certificate, CertificateVerify, the rest) as stacked bars, and a rule at
// the 14,600-byte initial congestion window (10 segments of 1,460 bytes).
Chart WireBytesChart(const Summary& summary);

// BuildCharts: all of the above, in page order, omitted ones included (with their reason).
std::vector<Chart> BuildCharts(const Summary& summary);

}  // namespace pqc::report
