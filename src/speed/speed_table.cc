#include "speed/speed_table.h"

#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <functional>

#include "tls/algorithms.h"
#include "tls/primitives.h"

namespace pqc::speed {
namespace {

constexpr uint64_t kMaxOpsPerBatch = 10'000'000;
// A batch also ends after this many times its CPU budget in wall time (a machine so busy
// that this thread barely runs must still finish).
constexpr Nanos kWallFactor = 20;

// ThreadCpuNow: CPU time of this thread. Operations are timed in CPU time, not wall time:
// the floor is a CPU cost, and on a shared machine wall time also counts the time other
// processes held the core. (`openssl speed` also divides by CPU time unless -elapsed.)
Nanos ThreadCpuNow() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<Nanos>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Time: the median CPU µs/op over the batches. Each batch repeats op until its share of the
// budget is spent (bounded by kMaxOpsPerBatch and kWallFactor); batches stop once the whole
// budget is spent.
Result<SpeedEntry> Time(const std::function<Status()>& op, const SpeedOptions& o) {
  const int batches = std::max(o.batches, 1);
  const Nanos batch_len = std::max<Nanos>(o.per_op / batches, 1);
  const Nanos cpu_budget_end = ThreadCpuNow() + o.per_op;
  std::vector<double> per_batch;
  SpeedEntry e;
  for (int b = 0; b < batches; ++b) {
    const Nanos start = ThreadCpuNow();
    const Nanos wall_end = MonotonicNow() + kWallFactor * batch_len;
    uint64_t n = 0;
    Nanos now = start;
    do {
      if (Status s = op(); !s) return s.error();
      ++n;
      now = ThreadCpuNow();
    } while (now - start < batch_len && n < kMaxOpsPerBatch && MonotonicNow() < wall_end);
    per_batch.push_back(NanosToMicros(std::max<Nanos>(now - start, 1)) / static_cast<double>(n));
    e.iterations += n;
    if (now >= cpu_budget_end) break;
  }
  std::sort(per_batch.begin(), per_batch.end());
  const size_t m = per_batch.size();
  e.us_per_op = m % 2 == 1 ? per_batch[m / 2] : (per_batch[m / 2 - 1] + per_batch[m / 2]) / 2;
  e.ops_per_s = 1e6 / e.us_per_op;
  e.batches = static_cast<int>(m);
  return e;
}

Status Add(SpeedTable* table, std::string_view algorithm, bool is_group, SpeedOp op,
           const std::function<Status()>& fn, const SpeedOptions& o) {
  auto e = o.meter ? o.meter(algorithm, op, fn) : Time(fn, o);
  if (!e) return e.error();
  e->algorithm = std::string(algorithm);
  e->is_group = is_group;
  e->op = op;
  table->entries.push_back(std::move(*e));
  return {};
}

Status MeasureGroup(const GroupInfo& g, const SpeedOptions& o, SpeedTable* table) {
  if (Status s = Add(
          table, g.name, true, SpeedOp::kKeygen,
          [&]() -> Status {
            auto k = GenerateGroupKey(g);
            return k ? Status() : Status(k.error());
          },
          o);
      !s) {
    return s;
  }
  auto client = GenerateGroupKey(g);
  if (!client) return client.error();
  if (g.is_kem) {
    auto enc = Encapsulate(g, client->get());
    if (!enc) return enc.error();
    if (Status s = Add(
            table, g.name, true, SpeedOp::kEncaps,
            [&]() -> Status {
              auto r = Encapsulate(g, client->get());
              return r ? Status() : Status(r.error());
            },
            o);
        !s) {
      return s;
    }
    return Add(
        table, g.name, true, SpeedOp::kDecaps,
        [&]() -> Status {
          auto r = Decapsulate(g, client->get(), enc->ciphertext);
          return r ? Status() : Status(r.error());
        },
        o);
  }
  auto server = GenerateGroupKey(g);
  if (!server) return server.error();
  return Add(
      table, g.name, true, SpeedOp::kDerive,
      [&]() -> Status {
        auto r = DeriveSecret(client->get(), server->get(), g.name);
        return r ? Status() : Status(r.error());
      },
      o);
}

Status MeasureSignature(const SignatureInfo& sig, const SpeedOptions& o, SpeedTable* table) {
  if (Status s = !o.signature_keygen ? Status()
                                     : Add(
                                           table, sig.name, false, SpeedOp::kKeygen,
                                           [&]() -> Status {
                                             auto k = GenerateSignatureKey(sig);
                                             return k ? Status() : Status(k.error());
                                           },
                                           o);
      !s) {
    return s;
  }
  auto key = GenerateSignatureKey(sig);
  if (!key) return key.error();
  const Bytes msg(kSignedMessageBytes, 0x20);
  auto signature = Sign(sig, key->get(), msg);
  if (!signature) return signature.error();
  if (Status s = Add(
          table, sig.name, false, SpeedOp::kSign,
          [&]() -> Status {
            auto r = Sign(sig, key->get(), msg);
            return r ? Status() : Status(r.error());
          },
          o);
      !s) {
    return s;
  }
  return Add(
      table, sig.name, false, SpeedOp::kVerify,
      [&]() { return Verify(sig, key->get(), msg, *signature); }, o);
}

}  // namespace

std::string_view SpeedOpName(SpeedOp op) {
  switch (op) {
    case SpeedOp::kKeygen:
      return "keygen";
    case SpeedOp::kEncaps:
      return "encaps";
    case SpeedOp::kDecaps:
      return "decaps";
    case SpeedOp::kDerive:
      return "derive";
    case SpeedOp::kSign:
      return "sign";
    case SpeedOp::kVerify:
      return "verify";
  }
  return "?";
}

std::vector<SpeedOp> OpsFor(bool is_group, bool is_kem) {
  if (!is_group) return {SpeedOp::kKeygen, SpeedOp::kSign, SpeedOp::kVerify};
  if (is_kem) return {SpeedOp::kKeygen, SpeedOp::kEncaps, SpeedOp::kDecaps};
  return {SpeedOp::kKeygen, SpeedOp::kDerive};
}

std::optional<double> SpeedTable::Micros(std::string_view algorithm, SpeedOp op) const {
  for (const SpeedEntry& e : entries) {
    if (e.algorithm == algorithm && e.op == op) return e.us_per_op;
  }
  return std::nullopt;
}

Result<SpeedTable> MeasureSpeed(const SpeedOptions& o) {
  std::vector<const GroupInfo*> groups;
  std::vector<const SignatureInfo*> sigs;
  if (o.only.empty()) {
    for (const GroupInfo& g : AllGroups()) groups.push_back(&g);
    for (const SignatureInfo& s : AllSignatures()) sigs.push_back(&s);
  }
  for (const std::string& name : o.only) {
    if (auto g = FindGroup(name)) {
      groups.push_back(*g);
    } else if (auto s = FindSignature(name)) {
      sigs.push_back(*s);
    } else {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("--only {}: neither a group nor a signature type.\n  {}\n  {}",
                                   name, g.error().message, s.error().message));
    }
  }
  SpeedTable table;
  for (const GroupInfo* g : groups) {
    if (Status s = MeasureGroup(*g, o, &table); !s) return s.error();
  }
  for (const SignatureInfo* sig : sigs) {
    if (Status s = MeasureSignature(*sig, o, &table); !s) return s.error();
  }
  return table;
}

}  // namespace pqc::speed
