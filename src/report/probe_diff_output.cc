#include "report/probe_diff_output.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "core/text_table.h"

namespace pqc::report {
namespace {

using nlohmann::ordered_json;

const char* Mark(bool ok) {
  return ok ? "ok" : "FAIL";
}

// Reason: why the build in which a layer fails failed (the probe keeps each algorithm's
// first failure), or, for a reason-only change, both.
std::string Reason(const ProbeDiff& d, const AlgorithmChange& c) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < 2; ++i) {
    if (!c.errors[i].empty()) parts.push_back(fmt::format("{}: {}", d.labels[i], c.errors[i]));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string Headline(const ProbeDiff& d) {
  size_t changed = 0;
  for (const AlgorithmChange& c : d.changes) changed += c.layers.empty() ? 0 : 1;
  if (changed == 0) {
    return fmt::format(
        "No algorithm changed: the {} algorithms in both builds pass and fail the same layers.",
        d.common);
  }
  return fmt::format("{} of the {} algorithms in both builds changed at a layer:", changed,
                     d.common);
}

std::string OnlyLine(const ProbeDiff& d, size_t build) {
  std::vector<std::string> names;
  for (const OnlyIn& o : d.only_in) {
    if (o.build == build) names.push_back(fmt::format("{} ({})", o.name, o.kind));
  }
  if (names.empty()) return {};
  return fmt::format("Only in {}: {}", d.labels[build], fmt::join(names, ", "));
}

// FactsTables: the facts that differ side by side, then those the builds share once (the
// compiler flags are long, and mostly the same).
std::pair<Table, Table> FactsTables(const ProbeDiff& d) {
  Table differs{.headers = {"fact", d.labels[0], d.labels[1]}};
  Table same{.headers = {"same in both", "value"}};
  for (const ProbeFact& f : d.facts) {
    if (f.differs) {
      differs.rows.push_back({f.fact, f.values[0], f.values[1]});
    } else {
      same.rows.push_back({f.fact, f.values[0]});
    }
  }
  return {differs, same};
}

void WriteText(std::ostream& out, const ProbeDiff& d, bool markdown) {
  const std::string bullet = markdown ? "- " : "  ";
  out << (markdown ? "## Probe comparison\n\n" : "Probe comparison\n\n")
      << fmt::format("{0}first: {1}\n{0}second: {2}\n\n", markdown ? "- " : "", d.labels[0],
                     d.labels[1])
      << Headline(d) << '\n';
  bool reasons_only = false;
  for (const AlgorithmChange& c : d.changes) {
    if (c.layers.empty()) {
      reasons_only = true;
      continue;
    }
    const std::string reason = Reason(d, c);
    out << bullet << ChangeLine(c) << (reason.empty() ? "" : "  (" + reason + ")") << '\n';
  }
  if (reasons_only) {
    out << "\nSame layers, another failure reason:\n";
    for (const AlgorithmChange& c : d.changes) {
      if (c.layers.empty()) out << bullet << c.name << ": " << Reason(d, c) << '\n';
    }
  }
  for (size_t build = 0; build < 2; ++build) {
    if (std::string line = OnlyLine(d, build); !line.empty()) out << '\n' << line << '\n';
  }
  out << (markdown ? "\n## OpenSSL builds\n\n" : "\nOpenSSL builds\n");
  const auto [differs, same] = FactsTables(d);
  for (const Table* t : {&differs, &same}) {
    if (t->rows.empty()) continue;
    if (t == &same && !differs.rows.empty()) out << '\n';
    if (markdown) {
      WriteMarkdownTable(out, *t);
    } else {
      WriteTextTable(out, *t);
    }
  }
}

ordered_json ToJson(const ProbeDiff& d) {
  ordered_json j{{"builds", d.labels},
                 {"algorithm_changed", d.AnyLayerChanged()},
                 {"common", d.common},
                 {"changes", ordered_json::array()},
                 {"only_in", ordered_json::array()},
                 {"facts", ordered_json::array()}};
  for (const AlgorithmChange& c : d.changes) {
    ordered_json layers = ordered_json::array();
    for (const LayerChange& l : c.layers) {
      layers.push_back({{"layer", LayerName(l.layer)}, {"from", l.from}, {"to", l.to}});
    }
    j["changes"].push_back({{"kind", c.kind},
                            {"name", c.name},
                            {"layers", layers},
                            {"errors", c.errors},
                            {"summary", ChangeLine(c)}});
  }
  for (const OnlyIn& o : d.only_in) {
    j["only_in"].push_back({{"build", d.labels[o.build]}, {"kind", o.kind}, {"name", o.name}});
  }
  for (const ProbeFact& f : d.facts) {
    j["facts"].push_back({{"fact", f.fact}, {"values", f.values}, {"differs", f.differs}});
  }
  return j;
}

}  // namespace

std::string ChangeLine(const AlgorithmChange& c) {
  if (c.layers.empty()) return fmt::format("{}: same layers, another reason", c.name);
  std::vector<std::string> parts;
  for (const LayerChange& l : c.layers) {
    parts.push_back(fmt::format("{} {} → {}", LayerName(l.layer), Mark(l.from), Mark(l.to)));
  }
  return fmt::format("{}: {}", c.name, fmt::join(parts, ", "));
}

Status WriteProbeDiff(std::ostream& out, const ProbeDiff& d, Format format) {
  switch (format) {
    case Format::kTable:
      WriteText(out, d, false);
      return {};
    case Format::kMarkdown:
      WriteText(out, d, true);
      return {};
    case Format::kJson:
      out << ToJson(d).dump(2) << '\n';
      return {};
    case Format::kCsv:
    case Format::kHtml:
      break;
  }
  return MakeError(ErrorKind::kUsage,
                   "a comparison of probe documents is written as table, md or json");
}

}  // namespace pqc::report
