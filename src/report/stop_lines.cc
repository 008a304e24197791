#include "report/stop_lines.h"

#include <fmt/format.h>

#include "core/units.h"

namespace pqc::report {
namespace {

std::string MicrosText(std::optional<double> us) {
  return us ? FormatMicros(*us) : "?";
}

std::string Bound(std::optional<double> v) {
  return v ? fmt::format("{:.1f}", *v) : "?";
}

}  // namespace

StopLines LinesOf(const results::StopRecord& r) {
  StopLines out;
  out.headline = fmt::format("The study stopped itself after {} blocks ({:.0f} s): {}. Asked: {}.",
                             r.blocks, r.elapsed_s, r.reason, r.asked);
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

}  // namespace pqc::report
