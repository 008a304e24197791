#include "cli/count_compare.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "cli/command.h"
#include "cli/command_output.h"
#include "cli/count_run.h"
#include "core/text_table.h"
#include "count/count_gate.h"
#include "count/count_report_json.h"

namespace pqc::cli {
namespace {

constexpr int kExitGateFailed = 4;  // as compare's run gates (docs/cli.md)

std::string CountFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return path + "/count.json";
  return path;
}

std::string Instructions(double v) {
  return fmt::format("{:.0f}", v);
}

std::string Signed(double v) {
  return fmt::format("{:+.0f}", v);
}

std::string Range(const count::CountDifference& d) {
  if (d.lo == d.hi) return Signed(d.lo);
  return fmt::format("[{}, {}]", Signed(d.lo), Signed(d.hi));
}

std::string Relative(const count::CountDifference& d) {
  if (d.base <= 0) return "-";
  return fmt::format("{:+.2f} %", 100 * (d.other - d.base) / d.base);
}

struct CountCompareFlags {
  std::vector<std::string> inputs, gates;
  std::string output;
};

}  // namespace

bool IsCountResult(const std::string& path) {
  const std::string file = CountFile(path);
  // A count.json is small; reading it whole is cheaper than guessing from its first bytes.
  auto text = ReadWholeFile(file);
  if (!text) return false;
  const auto j = nlohmann::json::parse(*text, nullptr, false);
  return j.is_object() && j.contains("counter");  // json by key: only what kind of file it is
}

bool IsCountComparison(int argc, char** argv) {
  int inputs = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("-")) {
      if (arg == "--fail-if" || arg == "--output" || arg == "-o" || arg == "--format") ++i;
      continue;
    }
    if (!IsCountResult(std::string(arg))) return false;
    ++inputs;
  }
  return inputs > 0;
}

Result<count::CountReport> ReadCountResult(const std::string& path) {
  const std::string file = CountFile(path);
  auto text = ReadWholeFile(file);
  if (!text) return text.error();
  return count::ParseCountReport(*text, file);
}

int CompareCountsMain(int argc, char** argv) {
  CLI::App app{"Two `pqc-bench count` results, stage by stage, with gates on counts.",
               "pqc-bench compare"};
  CountCompareFlags f;
  app.add_option("results", f.inputs,
                 "two count directories (or count.json files): baseline, other")
      ->required()
      ->expected(2);
  app.add_option("--fail-if", f.gates,
                 "gate on counts, e.g. 'server.instructions > +1%' or 'client.verify > +20000': "
                 "exit 4 when the whole range of the difference is beyond it (repeatable)");
  app.add_option("--output,-o", f.output, "write to this file instead of standard output");
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  auto fail = [](const Error& e) { return ReportError("compare", e); };
  std::vector<count::CountGate> gates;
  for (const std::string& text : f.gates) {
    auto g = count::ParseCountGate(text);
    if (!g) return fail(g.error());
    gates.push_back(std::move(*g));
  }
  auto base = ReadCountResult(f.inputs[0]);
  if (!base) return fail(base.error());
  auto other = ReadCountResult(f.inputs[1]);
  if (!other) return fail(other.error());
  auto output = CommandOutput::Open(f.output);
  if (!output) return fail(output.error());
  std::ostream& out = output->stream();
  out << fmt::format("baseline: {} ({}; {})\nother:    {} ({}; {})\n", f.inputs[0], base->arm,
                     base->openssl, f.inputs[1], other->arm, other->openssl);
  if (base->arm != other->arm) {
    out << "note: the arms differ — the differences are between arms, not builds\n";
  }
  for (const char* name : {"client", "server"}) {
    const count::SideResult* a = base->Side(name);
    const count::SideResult* b = other->Side(name);
    if (a == nullptr || b == nullptr) continue;
    Table t;
    t.headers = {std::string(name) + " stage", "baseline", "other", "difference (range)",
                 "relative"};
    t.right = {false, true, true, true, true};
    for (const count::StageInfo& info : count::Stages()) {
      const count::StageResult* sa = a->Find(info.stage);
      const count::StageResult* sb = b->Find(info.stage);
      if (sa == nullptr || sb == nullptr) continue;
      const count::CountDifference d = count::Differ(sa->per_handshake, sb->per_handshake);
      t.rows.push_back({std::string(info.label), Instructions(d.base), Instructions(d.other),
                        Range(d), Relative(d)});
    }
    const count::CountDifference d = count::Differ(a->total, b->total);
    t.rows.push_back({"total", Instructions(d.base), Instructions(d.other), Range(d), Relative(d)});
    out << "\n";
    WriteTextTable(out, t);
    if (a->cpu_us && b->cpu_us && *a->cpu_us > 0) {
      // The baseline's own rate turns the count's difference into the CPU time it should cost.
      const double rate = d.base / *a->cpu_us;
      out << fmt::format(
          "  time: {:.1f} → {:.1f} µs of CPU per handshake natively ({:+.1f} µs); "
          "the count's difference, {} instructions at the baseline's {:.2f} per "
          "µs, is {:+.1f} µs\n",
          *a->cpu_us, *b->cpu_us, *b->cpu_us - *a->cpu_us, Signed(d.other - d.base), rate,
          (d.other - d.base) / rate);
    }
  }
  if (base->handshake_p50_us && other->handshake_p50_us) {
    out << fmt::format(
        "\nhandshake p50 natively (loopback, one at a time): {:.1f} → {:.1f} µs "
        "({:+.1f} µs)\n",
        *base->handshake_p50_us, *other->handshake_p50_us,
        *other->handshake_p50_us - *base->handshake_p50_us);
  }
  bool failed = false;
  for (const count::CountGate& g : gates) {
    const count::SideResult* a = base->Side(g.side);
    const count::SideResult* b = other->Side(g.side);
    const count::StageResult* sa = g.stage ? a->Find(*g.stage) : nullptr;
    const count::StageResult* sb = g.stage ? b->Find(*g.stage) : nullptr;
    if (g.stage && (sa == nullptr || sb == nullptr)) continue;
    const count::CountDifference d = g.stage ? count::Differ(sa->per_handshake, sb->per_handshake)
                                             : count::Differ(a->total, b->total);
    const bool fails = count::CountGateFails(g, d);
    out << fmt::format("gate '{}': {} (difference {} instructions per handshake, {})\n", g.text,
                       fails ? "FAILED" : "passed", Range(d), Relative(d));
    if (fails) {
      fmt::print(stderr,
                 "pqc-bench compare: gate '{}' failed: {} instructions per handshake "
                 "({})\n",
                 g.text, Range(d), Relative(d));
    }
    failed = failed || fails;
  }
  if (Status st = output->Finish(); !st) return fail(st.error());
  return failed ? kExitGateFailed : kExitOk;
}

}  // namespace pqc::cli
