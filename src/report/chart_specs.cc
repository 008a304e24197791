// chart_specs.cc — see chart_specs.h. Over 400 lines on purpose: each of its five charts is
// one Vega-Lite spec written out literally (what the browser will draw, readable as such), and
// they share the helpers at the top.
#include "report/chart_specs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "core/slow_start.h"

namespace pqc::report {
namespace {

using nlohmann::json;

constexpr int kWidth = 640;
constexpr int kHeight = 300;

Chart Omitted(Chart chart, std::string reason) {
  chart.spec = nullptr;
  chart.omitted = std::move(reason);
  return chart;
}

bool ArmOk(const ArmSummary& arm) {
  return arm.status == ArmOutcome::kOk;
}

// Percentile: the p50 or p99 of one phase, with its interval.
struct PercentileOf {
  std::optional<double> value;
  Bounds ci;
};
PercentileOf PhasePercentile(const ArmSummary& arm, Phase phase, Statistic stat) {
  const PhaseSummary* p = arm.phase(phase);
  if (p == nullptr) return {};
  return {stat == Statistic::kP50 ? p->p50 : p->p99, OfStatistic(p->ci, stat)};
}

// SeriesName: the arm's values of every varying factor except `swept`, joined with " · ".
std::string SeriesName(const ArmSummary& arm, const std::vector<std::string>& factors,
                       std::string_view swept) {
  std::string name;
  for (const std::string& factor : factors) {
    if (factor == swept) continue;
    std::string value = arm.FactorText(factor, "?");
    name += name.empty() ? value : " · " + value;
  }
  return name.empty() ? "all arms" : name;
}

// ColorScheme: ten distinct colours suffice for most charts; past ten they would repeat.
std::string ColorScheme(size_t series) {
  return series > 10 ? "category20" : "tableau10";
}

std::string PercentileName(double q) {
  if (q <= 0) return "min";
  if (q >= 1) return "max";
  return fmt::format("p{:g}", q * 100);
}

}  // namespace

nlohmann::json ChartMs(std::optional<double> us) {
  return us ? nlohmann::json(*us / 1000.0) : nlohmann::json(nullptr);
}

nlohmann::json BaseChartSpec() {
  return {{"$schema", "https://vega.github.io/schema/vega-lite/v6.json"},
          {"width", kWidth},
          {"height", kHeight},
          {"config", {{"font", "sans-serif"}, {"view", {{"stroke", "#ddd"}}}}}};
}

Chart SpectrumChart(const Summary& summary) {
  Chart chart{.id = "chart-spectrum",
              .title = "Latency by percentile",
              .caption =
                  "Each line is one arm; the horizontal axis stretches the tail "
                  "(−log10(1 − q)), so p99, p99.9 and the maximum stand apart."};
  struct Point {
    std::string arm, phase;
    double q, us;
  };
  std::vector<Point> points;
  json arm_order = json::array();   // legend in the summary's arm order
  std::vector<std::string> phases;  // in phase order, those with at least one spectrum
  std::map<std::string, std::set<std::string>> arms_by_phase;
  double tail = 0;  // the largest finite axis position
  for (Phase phase_id : kAllPhases) {
    const std::string phase(PhaseName(phase_id));
    for (const ArmSummary& arm : summary.arms) {
      if (!ArmOk(arm)) continue;
      const PhaseSummary* p = arm.phase(phase_id);
      if (p == nullptr) continue;
      for (const SpectrumPoint& point : p->spectrum) {
        const double q = point.q;
        if (!point.us || !std::isfinite(q) || q < 0 || q > 1) continue;
        const std::string name = arm.Name();
        points.push_back({name, phase, q, *point.us});
        if (std::find(arm_order.begin(), arm_order.end(), name) == arm_order.end()) {
          arm_order.push_back(name);
        }
        arms_by_phase[phase].insert(name);
        if (q < 1) tail = std::max(tail, -std::log10(1 - q));
      }
    }
    if (arms_by_phase.count(phase) != 0) phases.push_back(phase);
  }
  if (points.empty()) return Omitted(chart, "no arm has a latency spectrum (no valid trial)");

  // The maximum (q = 1) sits one step right of the deepest percentile measured (the epsilon
  // absorbs rounding: -log10(1 - 0.9999) is 4.0000000000004).
  double deepest = std::ceil(tail - 1e-6);
  double max_x = deepest + 1;
  json rows = json::array();
  for (const Point& p : points) {
    double x = p.q >= 1 ? max_x : -std::log10(1 - p.q);
    rows.push_back({{"arm", p.arm},
                    {"phase", p.phase},
                    {"percentile", PercentileName(p.q)},
                    {"x", x},
                    {"ms", p.us / 1000.0}});
  }
  json ticks = json::array({0.0, std::log10(2.0)});
  for (double t = 1; t <= deepest; ++t) ticks.push_back(t);
  ticks.push_back(max_x);

  std::string initial = std::find(phases.begin(), phases.end(), "handshake") != phases.end()
                            ? "handshake"
                            : phases.front();
  chart.series = arms_by_phase[initial].size();
  // Arms far apart (an RTT sweep: 1 ms next to 300 ms) share a log axis, or the fast ones
  // would lie flat on the floor. Judged on the phase shown first.
  double min_us = 0, max_us = 0;
  bool positive = true;  // a log axis cannot show 0 in any phase the selector may pick
  for (const Point& p : points) {
    positive = positive && p.us > 0;
    if (p.phase != initial) continue;
    min_us = min_us == 0 ? p.us : std::min(min_us, p.us);
    max_us = std::max(max_us, p.us);
  }
  json y = {{"field", "ms"}, {"type", "quantitative"}, {"title", "latency (ms)"}};
  if (positive && max_us > 30 * min_us) {
    y["scale"] = {{"type", "log"}};
    y["title"] = "latency (ms, log scale)";
  }
  json spec = BaseChartSpec();
  spec["data"] = {{"values", rows}};
  spec["params"] =
      json::array({{{"name", "phase"},
                    {"value", initial},
                    {"bind", {{"input", "select"}, {"options", phases}, {"name", "phase "}}}}});
  spec["transform"] = json::array({{{"filter", "datum.phase === phase"}}});
  spec["mark"] = {{"type", "line"}, {"point", true}, {"interpolate", "linear"}};
  spec["encoding"] = {
      {"x",
       {{"field", "x"},
        {"type", "quantitative"},
        {"title", "percentile (tail stretched)"},
        {"scale", {{"domain", json::array({0.0, max_x})}, {"nice", false}}},
        {"axis",
         {{"values", ticks},
          {"labelExpr", fmt::format("datum.value >= {} ? 'max' : datum.value <= 0 ? 'min' : "
                                    "format(100 * (1 - pow(10, -datum.value)), '.2~f')",
                                    max_x)},
          {"grid", true}}}}},
      {"y", y},
      {"color",
       {{"field", "arm"},
        {"type", "nominal"},
        {"title", "arm"},
        {"sort", arm_order},
        {"scale", {{"scheme", ColorScheme(chart.series)}}}}},
      {"tooltip", json::array({{{"field", "arm"}},
                               {{"field", "phase"}},
                               {{"field", "percentile"}},
                               {{"field", "ms"}, {"format", ".3f"}, {"title", "ms"}}})}};
  if (phases.size() == 1) {  // nothing to choose: no selector
    spec.erase("params");
    spec["transform"] = json::array({{{"filter", {{"field", "phase"}, {"equal", initial}}}}});
  }
  chart.spec = std::move(spec);
  return chart;
}

Chart PhaseBarsChart(const Summary& summary) {
  Chart chart{.id = "chart-phases",
              .title = "p50 and p99 per phase",
              .caption =
                  "Bars are the pooled p50 and p99 of each arm; the thin rules are their "
                  "confidence intervals. Each panel has its own scale."};
  json rows = json::array();
  std::vector<std::string> arms;
  std::vector<std::string> phases;
  for (Phase phase : kAllPhases) {
    bool any = false;
    for (const ArmSummary& arm : summary.arms) {
      if (!ArmOk(arm)) continue;
      for (Statistic stat : {Statistic::kP50, Statistic::kP99}) {
        const PercentileOf p = PhasePercentile(arm, phase, stat);
        if (!p.value) continue;
        any = true;
        std::string name = arm.Name();
        if (std::find(arms.begin(), arms.end(), name) == arms.end()) arms.push_back(name);
        rows.push_back({{"arm", name},
                        {"phase", PhaseName(phase)},
                        {"stat", StatisticName(stat)},
                        {"ms", *p.value / 1000.0},
                        {"lo", ChartMs(p.ci.lo)},
                        {"hi", ChartMs(p.ci.hi)}});
      }
    }
    if (any) phases.emplace_back(PhaseName(phase));
  }
  if (rows.empty()) return Omitted(chart, "no arm has phase percentiles (no valid trial)");
  chart.series = arms.size();
  // Panels wrap so that a row stays about as wide as the page (two bars of 14 px per arm).
  int panel = static_cast<int>(arms.size()) * 28 + 90;
  int columns = std::clamp(1100 / panel, 1, static_cast<int>(phases.size()));

  json x = {{"field", "arm"},
            {"type", "nominal"},
            {"sort", arms},
            {"title", nullptr},
            {"axis", {{"labelAngle", -30}, {"labelLimit", 160}}}};
  json offset = {{"field", "stat"}, {"sort", json::array({"p50", "p99"})}};
  json spec = {
      {"$schema", "https://vega.github.io/schema/vega-lite/v6.json"},
      {"data", {{"values", rows}}},
      {"facet", {{"field", "phase"}, {"type", "nominal"}, {"sort", phases}, {"title", nullptr}}},
      {"columns", columns},
      {"resolve", {{"scale", {{"y", "independent"}}}}},
      {"config", {{"font", "sans-serif"}, {"view", {{"stroke", "#ddd"}}}}}};
  spec["spec"] = {
      {"width", {{"step", 14}}},
      {"height", 220},
      {"layer",
       json::array(
           {{{"mark", "bar"},
             {"encoding",
              {{"x", x},
               {"xOffset", offset},
               {"y", {{"field", "ms"}, {"type", "quantitative"}, {"title", "ms"}}},
               {"color",
                {{"field", "stat"},
                 {"type", "nominal"},
                 {"title", "statistic"},
                 {"scale", {{"domain", json::array({"p50", "p99"})}}}}},
               {"tooltip",
                json::array({{{"field", "arm"}},
                             {{"field", "phase"}},
                             {{"field", "stat"}},
                             {{"field", "ms"}, {"format", ".3f"}},
                             {{"field", "lo"}, {"format", ".3f"}, {"title", "CI low (ms)"}},
                             {{"field", "hi"}, {"format", ".3f"}, {"title", "CI high (ms)"}}})}}}},
            {{"mark", {{"type", "rule"}, {"color", "#222"}}},
             {"transform", json::array({{{"filter", "isValid(datum.lo) && isValid(datum.hi)"}}})},
             {"encoding",
              {{"x", x},
               {"xOffset", offset},
               {"y", {{"field", "lo"}, {"type", "quantitative"}}},
               {"y2", {{"field", "hi"}}}}}}})}};
  chart.spec = std::move(spec);
  return chart;
}

namespace {

struct SweepAxis {
  std::string factor;   // "network" or "payload"
  std::string x_field;  // arm field with the numeric x: "rtt_ms" or "payload_bytes"
  std::optional<double> (*x)(const ArmSummary&);  // its value
  std::string x_title;
  Phase phase;  // latency phase shown on y
  bool log_x;
};

Chart Sweep(const Summary& summary, Chart chart, const SweepAxis& axis) {
  const std::vector<std::string>& factors = summary.factors;
  const std::string phase(PhaseName(axis.phase));
  if (std::find(factors.begin(), factors.end(), axis.factor) == factors.end()) {
    return Omitted(chart, fmt::format("\"{}\" does not vary in this run", axis.factor));
  }
  json rows = json::array();
  std::set<double> xs;
  std::set<std::string> series;
  for (const ArmSummary& arm : summary.arms) {
    if (!ArmOk(arm)) continue;
    std::optional<double> x = axis.x(arm);
    const PercentileOf p50 = PhasePercentile(arm, axis.phase, Statistic::kP50);
    if (!x || !p50.value || (axis.log_x && *x <= 0)) continue;
    std::string name = SeriesName(arm, factors, axis.factor);
    xs.insert(*x);
    series.insert(name);
    rows.push_back({{"series", name},
                    {"x", *x},
                    {"profile", arm.FactorText(axis.factor)},
                    {"arm", arm.Name()},
                    {"ms", *p50.value / 1000.0},
                    {"lo", ChartMs(p50.ci.lo)},
                    {"hi", ChartMs(p50.ci.hi)}});
  }
  if (xs.size() < 2) {
    return Omitted(
        chart, fmt::format("fewer than two values of {} have a valid {} p50", axis.x_field, phase));
  }
  chart.series = series.size();
  json x = {{"field", "x"}, {"type", "quantitative"}, {"title", axis.x_title}};
  if (axis.log_x) x["scale"] = {{"type", "log"}, {"nice", false}};
  json color = {{"field", "series"},
                {"type", "nominal"},
                {"title", nullptr},
                {"scale", {{"scheme", ColorScheme(chart.series)}}}};
  json spec = BaseChartSpec();
  spec["data"] = {{"values", rows}};
  spec["layer"] = json::array(
      {{{"mark", {{"type", "line"}, {"point", true}}},
        {"encoding",
         {{"x", x},
          {"y",
           {{"field", "ms"},
            {"type", "quantitative"},
            {"title", fmt::format("{} p50 (ms)", phase)}}},
          {"color", color},
          {"tooltip",
           json::array({{{"field", "arm"}},
                        {{"field", "profile"}, {"title", axis.factor}},
                        {{"field", "x"}, {"title", axis.x_field}},
                        {{"field", "ms"}, {"format", ".3f"}, {"title", "p50 (ms)"}}})}}}},
       {{"mark", {{"type", "rule"}, {"opacity", 0.6}}},
        {"transform", json::array({{{"filter", "isValid(datum.lo) && isValid(datum.hi)"}}})},
        {"encoding",
         {{"x", x},
          {"y", {{"field", "lo"}, {"type", "quantitative"}}},
          {"y2", {{"field", "hi"}}},
          {"color", color}}}}});
  chart.spec = std::move(spec);
  return chart;
}

}  // namespace

Chart RttSweepChart(const Summary& summary) {
  return Sweep(summary,
               {.id = "chart-rtt",
                .title = "Handshake p50 against round-trip time",
                .caption = "One line per combination of the other factors; rules are the p50 "
                           "confidence intervals."},
               {.factor = "network",
                .x_field = "rtt_ms",
                .x = [](const ArmSummary& a) { return a.rtt_ms; },
                .x_title = "round-trip time (ms)",
                .phase = Phase::kHandshake,
                .log_x = false});
}

Chart PayloadSweepChart(const Summary& summary) {
  return Sweep(summary,
               {.id = "chart-payload",
                .title = "Response p50 against payload size",
                .caption = "Request sent to last response byte; payload on a log axis. One line "
                           "per combination of the other factors."},
               {.factor = "payload",
                .x_field = "payload_bytes",
                .x = [](const ArmSummary& a) -> std::optional<double> {
                  if (!a.payload_bytes) return std::nullopt;
                  return static_cast<double>(*a.payload_bytes);
                },
                .x_title = "payload (bytes, log scale)",
                .phase = Phase::kResponse,
                .log_x = true});
}

Chart WireBytesChart(const Summary& summary) {
  Chart chart{.id = "chart-bytes",
              .title = "Bytes on the wire per chain",
              .caption =
                  "Handshake messages of a full handshake, as the client's ClientHello and "
                  "the server's first flight; the rule marks the 14,600-byte initial "
                  "congestion window (10 segments): a first flight past it costs an extra "
                  "round trip."};
  struct Bar {
    std::string chain, group;
    const WireBytes* bytes;
  };
  std::vector<Bar> bars;
  std::set<std::string> groups;
  for (const ArmSummary& arm : summary.arms) {
    if (!ArmOk(arm)) continue;
    const std::optional<double> certificate = arm.bytes.certificate;
    if (!certificate || *certificate <= 0) continue;  // resumed: no Certificate message
    std::string chain = arm.FactorText("chain", "?");
    std::string group = arm.FactorText("group", "?");
    bool seen = std::any_of(bars.begin(), bars.end(),
                            [&](const Bar& b) { return b.chain == chain && b.group == group; });
    if (!seen) bars.push_back({chain, group, &arm.bytes});
    groups.insert(group);
  }
  if (bars.empty()) {
    return Omitted(chart, "no valid arm made a full handshake with a Certificate message");
  }
  chart.series = bars.size();
  json rows = json::array();
  std::vector<std::string> labels;
  for (const Bar& bar : bars) {
    std::string label = groups.size() > 1 ? bar.chain + " · " + bar.group : bar.chain;
    labels.push_back(label);
    auto add = [&](std::string_view side, std::string_view message, int order,
                   std::optional<double> value) {
      if (!value || *value <= 0) return;
      rows.push_back({{"bar", label},
                      {"side", side},
                      {"message", message},
                      {"order", order},
                      {"bytes", *value}});
    };
    const WireBytes& b = *bar.bytes;
    add("client", "ClientHello", 0, b.client_hello);
    std::optional<double> hello = b.server_hello, cert = b.certificate,
                          verify = b.certificate_verify, flight = b.server_first_flight;
    add("server", "ServerHello", 1, hello);
    add("server", "Certificate", 2, cert);
    add("server", "CertificateVerify", 3, verify);
    if (flight && hello && cert && verify) {
      add("server", "rest of the flight", 4, *flight - *hello - *cert - *verify);
    }
  }
  json messages = json::array(
      {"ClientHello", "ServerHello", "Certificate", "CertificateVerify", "rest of the flight"});
  json spec = BaseChartSpec();
  spec.erase("height");
  spec["height"] = {{"step", 30}};
  spec["layer"] = json::array(
      {{{"data", {{"values", rows}}},
        {"mark", "bar"},
        {"encoding",
         {{"y", {{"field", "bar"}, {"type", "nominal"}, {"sort", labels}, {"title", nullptr}}},
          {"yOffset", {{"field", "side"}, {"sort", json::array({"client", "server"})}}},
          {"x",
           {{"field", "bytes"}, {"type", "quantitative"}, {"stack", "zero"}, {"title", "bytes"}}},
          {"color",
           {{"field", "message"},
            {"type", "nominal"},
            {"title", "message"},
            {"scale", {{"domain", messages}}}}},
          {"order", {{"field", "order"}}},
          {"tooltip", json::array({{{"field", "bar"}, {"title", "chain"}},
                                   {{"field", "side"}},
                                   {{"field", "message"}},
                                   {{"field", "bytes"}, {"format", ","}}})}}}},
       {{"data", {{"values", json::array({{{"x", kInitialWindowBytes}}})}}},
        {"mark", {{"type", "rule"}, {"color", "#c00"}, {"strokeDash", json::array({6, 3})}}},
        {"encoding", {{"x", {{"field", "x"}, {"type", "quantitative"}}}}}},
       {{"data", {{"values", json::array({{{"x", kInitialWindowBytes}}})}}},
        {"mark",
         {{"type", "text"},
          {"color", "#c00"},
          {"align", "left"},
          {"dx", 4},
          {"y", -6},
          {"text", "initial window 14,600 B"}}},
        {"encoding", {{"x", {{"field", "x"}, {"type", "quantitative"}}}}}}});
  chart.spec = std::move(spec);
  return chart;
}

std::vector<Chart> BuildCharts(const Summary& summary) {
  return {SpectrumChart(summary), PhaseBarsChart(summary), RttSweepChart(summary),
          PayloadSweepChart(summary), WireBytesChart(summary)};
}

}  // namespace pqc::report
