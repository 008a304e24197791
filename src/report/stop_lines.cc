#include "report/stop_lines.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/units.h"

namespace pqc::report {
namespace {

std::string MicrosText(std::optional<double> us) {
  return us ? FormatMicros(*us) : "?";
}

std::string Bound(std::optional<double> v) {
  return v ? fmt::format("{:.1f}", *v) : "?";
}

std::string Length(double s) {
  return FormatDuration(std::llround(s * 1e9));
}

}  // namespace

StopLines LinesOf(const results::StopRecord& r) {
  StopLines out;
  out.headline = fmt::format("The study stopped itself after {} blocks ({:.0f} s): {}. Asked: {}.",
                             r.blocks, r.elapsed_s, r.reason, r.asked);
  if (r.pilot_blocks > 0) {
    out.headline +=
        fmt::format(" Trials of {}, chosen after a pilot of {} blocks of {} (stored, not pooled).",
                    Length(r.trial_s), r.pilot_blocks, Length(r.pilot_trial_s));
  }
  for (const results::StopAnswer& a : r.answers) {
    std::string line =
        fmt::format("{}: {} [{}, {}]", a.question,
                    a.estimate ? fmt::format("{:+.1f} us", *a.estimate) : std::string("?"),
                    Bound(a.lo), Bound(a.hi));
    if (a.answered) {
      line += fmt::format(" — answered (±{} asked)", MicrosText(a.target));
    } else if (!a.half_width) {
      line += " — NOT answered: no interval (too few valid trials of its arms)";
    } else {
      line += fmt::format(" — NOT answered: ±{} of ±{} asked", MicrosText(a.half_width),
                          MicrosText(a.target));
      line += a.blocks_to_answer
                  ? fmt::format(
                        "; about {} blocks with a valid trial of both arms would (it had "
                        "{})",
                        *a.blocks_to_answer, a.blocks)
                  : std::string("; more than 1000 blocks would be needed at this trial length");
    }
    out.answers.push_back(std::move(line));
  }
  return out;
}

bool PilotTrial(const TrialSummary& t, const std::optional<results::StopRecord>& stop) {
  return stop && !t.valid && !t.interrupted && t.block < stop->pilot_blocks &&
         t.reasons.size() == 1;
}

std::optional<std::string> PilotLine(const Summary& s) {
  const auto n = std::count_if(s.trials.begin(), s.trials.end(),
                               [&](const TrialSummary& t) { return PilotTrial(t, s.stop); });
  if (n == 0) return std::nullopt;
  return fmt::format(
      "the first {} blocks ({} trials of {}) were the study's pilot: stored, left out of every "
      "statistic, since it chose trials of {}",
      s.stop->pilot_blocks, n, Length(s.stop->pilot_trial_s), Length(s.stop->trial_s));
}

}  // namespace pqc::report
