// compare — `pqc-bench compare RUN RUN... [--baseline N | --against RUN...] [--fail-if EXPR]...`:
// stored runs of the same arms side by side, every difference from the baseline run with its
// interval over trials (or over runs, with a side of several), and regression gates for CI (exit 4
// when one fails: the whole interval beyond its threshold; exit 5 when one cannot judge: no
// interval).
#include <fmt/core.h>

#include <algorithm>
#include <iostream>

#include "cli/command.h"
#include "cli/command_output.h"
#include "cli/count_compare.h"
#include "cli/probe_compare.h"
#include "report/comparison_output.h"
#include "report/factor_gates.h"
#include "report/run_comparison.h"
#include "report/study_summary.h"
#include "results/run_reader.h"

namespace pqc::cli {
namespace {

// kExitGateFailed: a --fail-if gate failed; kExitCannotJudge: a gate had no interval to judge
// by (one trial per run, or one block) and so could not pass — a check that cannot fail is no
// check (documented in docs/cli.md). A failed gate wins over one that cannot judge.
constexpr int kExitGateFailed = 4;
constexpr int kExitCannotJudge = 5;

struct CompareFlags {
  std::vector<std::string> runs, gates, against;
  std::string factor;
  size_t baseline = 1;
  std::string format = "table", output;
  int resamples = 1000;
};

void AddCompareFlags(CLI::App& app, CompareFlags& f) {
  app.add_option("runs", f.runs,
                 "run directories or results.sqlite files (two or more; one with --factor); or "
                 "two `probe --json` documents, to compare OpenSSL builds")
      ->required();
  app.add_option("--factor", f.factor,
                 "with one run: its own comparisons along this matrix factor (e.g. build: each "
                 "build against the first, paired by block), judged by the --fail-if gates");
  CLI::Option* baseline =
      app.add_option("--baseline", f.baseline, "which run the others are compared with (1-based)")
          ->capture_default_str()
          ->check(CLI::Range(size_t{1}, size_t{1000}));
  app.add_option("--against", f.against,
                 "runs of the other side: the positional runs are one side (the baseline), "
                 "these the other; every interval's replicate is then the run, so the variance "
                 "between runs is in it (give 2 or more per side)")
      ->excludes(baseline);
  app.add_option("--format", f.format, "table | md | csv | json | html")->capture_default_str();
  app.add_option("--output,-o", f.output, "write to this file instead of standard output");
  app.add_option(
      "--fail-if", f.gates,
      "regression gate, e.g. 'handshake.p99 > +5%' or 'connect.p50 > +1ms': exit 4 "
      "when the difference's whole interval is beyond it, exit 5 when it has no interval "
      "to judge by (repeatable)");
  app.add_option("--resamples", f.resamples, "bootstrap resamples per interval")
      ->capture_default_str()
      ->check(CLI::Range(100, 100000));
}

// CompareFactor: one run's comparisons along one factor, judged by the gates (exit 4 or 5 as
// for runs).
int CompareFactor(const CompareFlags& f, const std::vector<report::Gate>& gates) {
  if (f.runs.size() != 1) {
    return ReportError("compare", MakeError(ErrorKind::kUsage,
                                            fmt::format("--factor compares the arms of one run; "
                                                        "{} runs were given",
                                                        f.runs.size())));
  }
  if (f.format != "table" || !f.against.empty()) {
    return ReportError("compare",
                       MakeError(ErrorKind::kUsage,
                                 "--factor writes a table (the run's summary.json holds every "
                                 "comparison as JSON) and takes no --against"));
  }
  auto db = results::OpenResults(f.runs.front());
  if (!db) return ReportError("compare", db.error());
  auto run = results::ReadRun(*db);
  if (!run) return ReportError("compare", run.error());
  auto summary = report::BuildStudySummary(*db, *run, {.resamples = f.resamples});
  if (!summary) return ReportError("compare", summary.error());
  auto verdict = report::JudgeFactor(*summary, f.factor, gates);
  if (!verdict) return ReportError("compare", verdict.error());
  auto output = CommandOutput::Open(f.output);
  if (!output) return ReportError("compare", output.error());
  output->stream() << report::FactorVerdictText(*verdict);
  if (Status st = output->Finish(); !st) return ReportError("compare", st.error());
  for (const report::FactorLine& l : verdict->lines) {
    for (const std::string& g : l.failed) {
      fmt::print(stderr, "pqc-bench compare: gate '{}' failed for {} against {}: {}\n", g, l.to,
                 l.from, l.difference.verdict);
    }
    for (const std::string& g : l.cannot_judge) {
      fmt::print(stderr, "pqc-bench compare: gate '{}' cannot judge {} against {}: {}\n", g, l.to,
                 l.from, l.difference.verdict);
    }
  }
  if (verdict->any_failed()) return kExitGateFailed;
  return verdict->any_cannot_judge() ? kExitCannotJudge : kExitOk;
}

}  // namespace

int CompareMain(int argc, char** argv) {
  // Two count results (instructions per handshake): cli/count_compare.h.
  if (IsCountComparison(argc, argv)) return CompareCountsMain(argc, argv);
  // Probe documents of two OpenSSL builds, rather than stored runs: cli/probe_compare.h.
  if (IsProbeComparison(argc, argv)) return CompareProbesMain(argc, argv);
  CLI::App app{
      "Compare stored runs of the same arms: other machines, OpenSSL builds, or before "
      "and after a change.",
      "pqc-bench compare"};
  CompareFlags f;
  AddCompareFlags(app, f);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  auto format = report::ParseFormat(f.format);
  if (!format) return ReportError("compare", format.error());
  report::CompareOptions options{
      .baseline = f.baseline - 1, .against = f.against, .resamples = f.resamples};
  for (const std::string& text : f.gates) {
    auto gate = report::ParseGate(text);
    if (!gate) return ReportError("compare", gate.error());
    options.gates.push_back(std::move(*gate));
  }
  if (!f.factor.empty()) return CompareFactor(f, options.gates);
  auto comparison = report::CompareRuns(f.runs, options);
  if (!comparison) return ReportError("compare", comparison.error());
  auto output = CommandOutput::Open(f.output);
  if (!output) return ReportError("compare", output.error());
  if (Status st = report::WriteComparison(output->stream(), *comparison, *format); !st) {
    return ReportError("compare", st.error());
  }
  if (Status st = output->Finish(); !st) return ReportError("compare", st.error());
  const bool compared = std::any_of(comparison->arms.begin(), comparison->arms.end(),
                                    [](const report::MatchedArm& a) { return !a.versus.empty(); });
  if (!compared) {
    return ReportError("compare", MakeError(ErrorKind::kUsage,
                                            "the runs share no arm (arms match by their matrix "
                                            "factors): compare runs of the same study"));
  }
  for (const report::GateResult& g : comparison->gates) {
    if (g.failed) {
      fmt::print(stderr, "pqc-bench compare: gate '{}' failed for arm {} (run {}): {}\n", g.gate,
                 g.arm, g.run + 1, g.difference.verdict);
    } else if (g.cannot_judge) {
      fmt::print(stderr, "pqc-bench compare: gate '{}' cannot judge arm {} (run {}): {}\n", g.gate,
                 g.arm, g.run + 1, g.difference.verdict);
    }
  }
  if (comparison->any_gate_failed()) return kExitGateFailed;
  return comparison->any_gate_cannot_judge() ? kExitCannotJudge : kExitOk;
}

}  // namespace pqc::cli
