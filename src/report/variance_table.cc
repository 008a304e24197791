#include "report/variance_table.h"

#include <fmt/format.h>

namespace pqc::report {
namespace {

std::string MsOrDash(std::optional<double> us) {
  return us ? fmt::format("{:.3f}", *us / 1000.0) : "-";
}

std::string Number(std::optional<double> v, const char* format) {
  return v ? fmt::format(fmt::runtime(format), *v) : "-";
}

}  // namespace

TitledTable VarianceTable(const Summary& summary) {
  TitledTable out;
  out.id = "variance";
  out.title = "how sure: variance between trials (p50)";
  out.note =
      "Every interval is over trials (blocks), not connections. 'within' is one trial's p50 "
      "spread from its own connections, 'between' what trials add beyond it (standard "
      "deviations); the design effect is the variance over trials ÷ the variance connections "
      "alone would give; ICC is the share of one connection's variance that lies between "
      "trials, and the connections the study is worth are the measured ones ÷ (1 + (n̄ − 1) · "
      "ICC), n̄ per trial.";
  Table& t = out.table;
  t.headers = {"arm",         "phase", "trials",        "within ms",      "between ms",
               "design eff.", "ICC",   "worth (conns)", "trials disagree"};
  t.right = {false, false, true, true, true, true, true, true, false};
  for (const ArmSummary& a : summary.arms) {
    if (a.status == ArmOutcome::kFailed) continue;
    for (Phase phase : {Phase::kHandshake, Phase::kTotal}) {
      const PhaseSummary* p = a.phase(phase);
      if (p == nullptr || !p->variance) continue;
      const VarianceSplit& v = p->variance->p50;
      t.rows.push_back(
          {a.label + (a.from_invalid_trials ? " (INVALID)" : ""), std::string(PhaseName(phase)),
           fmt::format("{}", a.from_invalid_trials ? a.trials.done : a.trials.valid),
           MsOrDash(v.within_sd), MsOrDash(v.between_sd), Number(v.design_effect, "{:.1f}"),
           Number(v.icc, "{:.3f}"), Number(v.effective_connections, "{:.0f}"),
           v.trials_disagree ? "yes" : "no"});
    }
  }
  return out;
}

}  // namespace pqc::report
