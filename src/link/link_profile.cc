// link_profile — parsing and description of a LinkProfile.
#include "link/link_profile.h"

#include <fmt/core.h>

#include <charconv>
#include <string_view>
#include <vector>

#include "core/split.h"
#include "core/units.h"

namespace pqc::link {
namespace {

constexpr Nanos kMaxRtt = 10'000'000'000;
constexpr size_t kMaxQueue = 1'000'000;

Error FieldError(std::string_view field, std::string_view text, std::string_view why) {
  return MakeError(ErrorKind::kUsage, fmt::format("link {} '{}': {}", field, text, why));
}

Result<double> ParseProbability(std::string_view field, std::string_view text) {
  auto p = ParsePercent(text);
  if (!p) return FieldError(field, text, p.error().message);
  if (*p < 0 || *p >= 1) return FieldError(field, text, "must be at least 0% and below 100%");
  return *p;
}

}  // namespace

std::string LinkProfile::Describe() const {
  std::string out = "rtt " + FormatDuration(rtt);
  if (jitter > 0) out += ", jitter " + FormatDuration(jitter);
  if (loss > 0) out += ", loss " + FormatPercent(loss);
  if (ge_p > 0) {
    out += fmt::format(", burst loss {}/{}/{}", FormatPercent(ge_p), FormatPercent(ge_r),
                       FormatPercent(ge_loss_bad));
  }
  if (rate_bps > 0) out += ", rate " + FormatBitRate(rate_bps);
  if (queue_packets != LinkProfile{}.queue_packets) {
    out += fmt::format(", queue {}", queue_packets);
  }
  if (reorder) out += ", reorder";
  return out;
}

Result<LinkProfile> ParseLinkProfile(const LinkProfileText& text) {
  LinkProfile p;
  if (!text.rtt.empty()) {
    auto d = ParseDuration(text.rtt);
    if (!d) return FieldError("rtt", text.rtt, d.error().message);
    if (*d < 0 || *d > kMaxRtt) return FieldError("rtt", text.rtt, "must be between 0 and 10s");
    p.rtt = *d;
  }
  if (!text.jitter.empty()) {
    auto d = ParseDuration(text.jitter);
    if (!d) return FieldError("jitter", text.jitter, d.error().message);
    if (*d < 0 || *d > p.rtt / 2) {
      return FieldError("jitter", text.jitter,
                        "must be between 0 and half the rtt (the one-way delay)");
    }
    p.jitter = *d;
  }
  if (!text.loss.empty()) {
    auto l = ParseProbability("loss", text.loss);
    if (!l) return l.error();
    p.loss = *l;
  }
  if (!text.burst_loss.empty()) {
    auto parts = Split(text.burst_loss, ",");
    if (parts.size() != 2 && parts.size() != 3) {
      return FieldError("burst-loss", text.burst_loss,
                        "expected P,R or P,R,LOSS_BAD (Gilbert–Elliott: p(good→bad), "
                        "p(bad→good), loss while bad), e.g. 1%,30%");
    }
    double values[3] = {0, 0, 1};
    for (size_t i = 0; i < parts.size(); ++i) {
      auto v = ParsePercent(parts[i]);
      if (!v) return FieldError("burst-loss", text.burst_loss, v.error().message);
      if (*v < 0 || *v > 1) return FieldError("burst-loss", text.burst_loss, "each within 0..100%");
      values[i] = *v;
    }
    if (values[0] <= 0 || values[1] <= 0) {
      return FieldError("burst-loss", text.burst_loss,
                        "P and R must be above 0% (R = 0 would never leave the bad state)");
    }
    p.ge_p = values[0];
    p.ge_r = values[1];
    p.ge_loss_bad = values[2];
  }
  if (!text.rate.empty()) {
    auto r = ParseBitRate(text.rate);
    if (!r) return FieldError("rate", text.rate, r.error().message);
    if (*r > 0 && *r < 8'000) return FieldError("rate", text.rate, "must be 0 or at least 8kbit");
    p.rate_bps = *r;
  }
  if (!text.queue.empty()) {
    size_t q = 0;
    auto [end, ec] = std::from_chars(text.queue.data(), text.queue.data() + text.queue.size(), q);
    if (ec != std::errc{} || end != text.queue.data() + text.queue.size() || q == 0 ||
        q > kMaxQueue) {
      return FieldError("queue", text.queue, "must be a packet count from 1 to 1000000");
    }
    p.queue_packets = q;
  }
  if (!text.seed.empty()) {
    uint64_t s = 0;
    auto [end, ec] = std::from_chars(text.seed.data(), text.seed.data() + text.seed.size(), s);
    if (ec != std::errc{} || end != text.seed.data() + text.seed.size()) {
      return FieldError("seed", text.seed, "must be an unsigned integer");
    }
    p.seed = s;
  }
  p.reorder = text.reorder;
  return p;
}

}  // namespace pqc::link
