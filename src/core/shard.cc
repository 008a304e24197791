#include "core/shard.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <ctime>

#include "core/units.h"

namespace pqc {
namespace {

constexpr uint32_t kMaxShards = 4096;

std::optional<uint32_t> ParseCount(std::string_view s) {
  uint32_t v = 0;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || p != end) return std::nullopt;
  return v;
}

Error ShardError(std::string_view text, std::string_view why) {
  return MakeError(ErrorKind::kUsage,
                   fmt::format("--shard {}: {}; valid: I/N (0 <= I < N <= {}, e.g. 0/3), slurm "
                               "(SLURM_PROCID/SLURM_NTASKS) or k8s/N (JOB_COMPLETION_INDEX of a "
                               "Kubernetes Indexed Job)",
                               text, why, kMaxShards));
}

Result<ShardSpec> Checked(std::string_view text, uint32_t index, uint32_t count) {
  if (count == 0 || count > kMaxShards) {
    return ShardError(text, fmt::format("the shard count {} is out of range", count));
  }
  if (index >= count) {
    return ShardError(text, fmt::format("shard {} does not exist in a run of {} (shards are "
                                        "numbered from 0)",
                                        index, count));
  }
  return ShardSpec{index, count};
}

Result<uint32_t> FromEnv(std::string_view text, const EnvLookup& env, const char* name) {
  const std::optional<std::string> v = env(name);
  if (!v)
    return ShardError(text, fmt::format("{} is not set (is this process started by the "
                                        "scheduler?)",
                                        name));
  const auto n = ParseCount(*v);
  if (!n) return ShardError(text, fmt::format("{}='{}' is not a number", name, *v));
  return *n;
}

}  // namespace

std::string ShardSpec::Label() const {
  return fmt::format("{}/{}", index, count);
}

EnvLookup ProcessEnv() {
  return [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read at start-up
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

Result<ShardSpec> ParseShard(std::string_view text, const EnvLookup& env) {
  if (text == "slurm") {
    auto index = FromEnv(text, env, "SLURM_PROCID");
    if (!index) return index.error();
    auto count = FromEnv(text, env, "SLURM_NTASKS");
    if (!count) return count.error();
    return Checked(text, *index, *count);
  }
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return ShardError(text, "no '/'");
  const std::string_view left = text.substr(0, slash);
  const auto count = ParseCount(text.substr(slash + 1));
  if (!count) return ShardError(text, "the shard count after '/' is not a number");
  if (left == "k8s") {
    auto index = FromEnv(text, env, "JOB_COMPLETION_INDEX");
    if (!index) return index.error();
    return Checked(text, *index, *count);
  }
  const auto index = ParseCount(left);
  if (!index) return ShardError(text, "the shard index before '/' is not a number");
  return Checked(text, *index, *count);
}

Result<int64_t> ParseUtcTime(std::string_view text, int64_t now_unix_ns) {
  auto bad = [&](std::string_view why) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("--start-at {}: {}; valid: a UTC time such as "
                                 "2026-12-01T23:00:00Z (or with a fraction, …:00.250Z), or "
                                 "now+DURATION (e.g. now+10s)",
                                 text, why));
  };
  if (text.starts_with("now+")) {
    auto d = ParseDuration(text.substr(4));
    if (!d) return bad(d.error().message);
    if (*d > 366LL * 24 * 3600 * 1'000'000'000) return bad("more than a year from now");
    return now_unix_ns + *d;
  }
  // YYYY-MM-DDTHH:MM:SS[.fraction]Z, digit by digit (strptime accepts too much).
  if (text.size() < 20 || text.back() != 'Z') return bad("not of the form YYYY-MM-DDTHH:MM:SSZ");
  auto digits = [&](size_t at, size_t n) -> std::optional<int> {
    int v = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (text[i] < '0' || text[i] > '9') return std::nullopt;
      v = v * 10 + (text[i] - '0');
    }
    return v;
  };
  const auto year = digits(0, 4), month = digits(5, 2), day = digits(8, 2), hour = digits(11, 2),
             minute = digits(14, 2), second = digits(17, 2);
  if (!year || !month || !day || !hour || !minute || !second || text[4] != '-' || text[7] != '-' ||
      text[10] != 'T' || text[13] != ':' || text[16] != ':') {
    return bad("not of the form YYYY-MM-DDTHH:MM:SSZ");
  }
  if (*month < 1 || *month > 12 || *day < 1 || *day > 31 || *hour > 23 || *minute > 59 ||
      *second > 59 || *year < 1970 || *year > 2200) {  // nanoseconds in int64 end in 2262
    return bad("a field is out of range");
  }
  int64_t frac_ns = 0;
  const std::string_view rest = text.substr(19, text.size() - 20);
  if (!rest.empty()) {
    if (rest[0] != '.' || rest.size() < 2 || rest.size() > 10) {
      return bad("the fraction must be '.' and 1 to 9 digits");
    }
    int64_t scale = 100'000'000;
    for (char c : rest.substr(1)) {
      if (c < '0' || c > '9') return bad("the fraction must be digits");
      frac_ns += (c - '0') * scale;
      scale /= 10;
    }
  }
  std::tm tm{};
  tm.tm_year = *year - 1900;
  tm.tm_mon = *month - 1;
  tm.tm_mday = *day;
  tm.tm_hour = *hour;
  tm.tm_min = *minute;
  tm.tm_sec = *second;
  const time_t t = timegm(&tm);
  // timegm normalises 31 February into March: a day that does not exist comes back changed.
  if (tm.tm_mday != *day || tm.tm_mon != *month - 1) return bad("that day does not exist");
  return static_cast<int64_t>(t) * 1'000'000'000 + frac_ns;
}

}  // namespace pqc
