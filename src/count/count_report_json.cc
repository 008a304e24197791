#include "count/count_report_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace pqc::count {
namespace {

using Json = nlohmann::json;

struct Reader {
  std::string_view source;

  Error Bad(std::string_view where, std::string_view what) const {
    return MakeError(ErrorKind::kConfig,
                     fmt::format("{}: {}: {} (is it a count.json written by `pqc-bench count`?)",
                                 source, where, what));
  }

  Result<const Json*> Member(const Json& j, std::string_view where, const char* key) const {
    if (!j.is_object() || !j.contains(key)) return Bad(where, fmt::format("no \"{}\"", key));
    return &j.at(key);
  }

  Result<double> Number(const Json& j, std::string_view where, const char* key) const {
    auto m = Member(j, where, key);
    if (!m) return m.error();
    if (!(*m)->is_number()) return Bad(where, fmt::format("\"{}\" is not a number", key));
    const double v = (*m)->get<double>();
    if (!std::isfinite(v) || v < 0) {
      return Bad(where, fmt::format("\"{}\" must be a finite number ≥ 0", key));
    }
    return v;
  }

  Result<std::string> Text(const Json& j, std::string_view where, const char* key) const {
    auto m = Member(j, where, key);
    if (!m) return m.error();
    if (!(*m)->is_string()) return Bad(where, fmt::format("\"{}\" is not a string", key));
    return (*m)->get<std::string>();
  }

  Result<std::vector<double>> Numbers(const Json& j, std::string_view where, const char* key,
                                      size_t expected) const {
    auto m = Member(j, where, key);
    if (!m) return m.error();
    if (!(*m)->is_array() || (*m)->size() != expected) {
      return Bad(where,
                 fmt::format("\"{}\" must hold one number per repetition ({})", key, expected));
    }
    std::vector<double> out;
    for (const Json& e : **m) {
      if (!e.is_number() || !std::isfinite(e.get<double>()) || e.get<double>() < 0) {
        return Bad(where, fmt::format("\"{}\" holds something not a number ≥ 0", key));
      }
      out.push_back(e.get<double>());
    }
    return out;
  }

  Result<SideResult> Side(const Json& j, const std::string& name, size_t reps) const {
    const std::string where = fmt::format("sides.{}", name);
    SideResult s;
    s.side = name;
    auto total = Numbers(j, where, "instructions", reps);
    if (!total) return total.error();
    s.total = std::move(*total);
    auto amb = Number(j, where, "ambiguous_share");
    if (!amb) return amb.error();
    s.ambiguous_share = *amb;
    if (j.contains("cpu_us_per_handshake")) {
      auto cpu = Number(j, where, "cpu_us_per_handshake");
      if (!cpu) return cpu.error();
      s.cpu_us = *cpu;
    }
    auto stages = Member(j, where, "stages");
    if (!stages) return stages.error();
    if (!(*stages)->is_array()) return Bad(where, "\"stages\" is not an array");
    for (const Json& row : **stages) {
      auto id = Text(row, where + ".stages", "stage");
      if (!id) return id.error();
      const std::optional<Stage> stage = ParseStageId(*id);
      if (!stage) return Bad(where + ".stages", fmt::format("unknown stage '{}'", *id));
      const std::string at = fmt::format("{}.stages.{}", where, *id);
      StageResult r;
      r.stage = *stage;
      auto per = Numbers(row, at, "instructions", reps);
      if (!per) return per.error();
      r.per_handshake = std::move(*per);
      auto sys = Number(row, at, "syscalls");
      if (!sys) return sys.error();
      r.syscalls = *sys;
      if (row.contains("floor_instructions")) {
        auto f = Number(row, at, "floor_instructions");
        if (!f) return f.error();
        r.floor = *f;
      }
      s.stages.push_back(std::move(r));
    }
    return s;
  }
};

}  // namespace

Json CountReportJson(const CountReport& r) {
  Json j;
  j["arm"] = r.arm;
  j["openssl"] = r.openssl;
  j["counter"] = "callgrind";
  j["handshakes"] = r.handshakes;
  j["warmup_connections"] = r.warmup;
  j["floor_calls"] = r.floor_calls;
  j["repetitions"] = r.wall_s.size();
  j["wall_s"] = r.wall_s;
  j["dir"] = r.dir;
  j["native_connections"] = r.native_connections;
  if (r.handshake_p50_us) j["handshake_p50_us"] = *r.handshake_p50_us;
  j["sides"] = Json::object();
  for (const SideResult& side : r.sides) {
    Json s;
    s["instructions"] = side.total;
    s["instructions_mean"] = Mean(side.total);
    s["spread"] = Spread(side.total);
    s["ambiguous_share"] = side.ambiguous_share;
    if (side.cpu_us) s["cpu_us_per_handshake"] = *side.cpu_us;
    s["stages"] = Json::array();
    for (const StageResult& st : side.stages) {
      Json row;
      row["stage"] = StageOf(st.stage).id;
      row["instructions"] = st.per_handshake;
      row["instructions_mean"] = Mean(st.per_handshake);
      row["syscalls"] = st.syscalls;
      if (st.floor) row["floor_instructions"] = *st.floor;
      s["stages"].push_back(std::move(row));
    }
    j["sides"][side.side] = std::move(s);
  }
  j["floor_ops"] = Json::array();
  for (const FloorOp& e : r.floor_ops) {
    j["floor_ops"].push_back({{"algorithm", e.algorithm},
                              {"op", e.op},
                              {"instructions_per_call", e.instructions},
                              {"calls", e.calls}});
  }
  return j;
}

Result<CountReport> ParseCountReport(std::string_view text, std::string_view source) {
  const Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  const Reader in{source};
  if (j.is_discarded()) return in.Bad("the document", "not JSON");
  if (!j.is_object()) return in.Bad("the document", "not a JSON object");
  CountReport r;
  auto arm = in.Text(j, "the document", "arm");
  if (!arm) return arm.error();
  r.arm = std::move(*arm);
  auto openssl = in.Text(j, "the document", "openssl");
  if (!openssl) return openssl.error();
  r.openssl = std::move(*openssl);
  auto dir = in.Text(j, "the document", "dir");
  if (!dir) return dir.error();
  r.dir = std::move(*dir);
  for (auto [key, out] :
       {std::pair{"handshakes", &r.handshakes}, std::pair{"warmup_connections", &r.warmup},
        std::pair{"floor_calls", &r.floor_calls}}) {
    auto v = in.Number(j, "the document", key);
    if (!v) return v.error();
    if (*v > 1e9) return in.Bad("the document", fmt::format("\"{}\" is out of range", key));
    *out = static_cast<uint32_t>(*v);
  }
  if (r.handshakes == 0) return in.Bad("the document", "\"handshakes\" is 0");
  auto reps = in.Number(j, "the document", "repetitions");
  if (!reps) return reps.error();
  if (*reps < 1 || *reps > 1000) return in.Bad("the document", "\"repetitions\" out of range");
  auto wall = in.Numbers(j, "the document", "wall_s", static_cast<size_t>(*reps));
  if (!wall) return wall.error();
  r.wall_s = std::move(*wall);
  if (j.contains("native_connections")) {
    auto n = in.Number(j, "the document", "native_connections");
    if (!n) return n.error();
    r.native_connections = static_cast<uint64_t>(std::min(*n, 1e15));
  }
  if (j.contains("handshake_p50_us")) {
    auto p50 = in.Number(j, "the document", "handshake_p50_us");
    if (!p50) return p50.error();
    r.handshake_p50_us = *p50;
  }
  auto sides = in.Member(j, "the document", "sides");
  if (!sides) return sides.error();
  for (const char* name : {"client", "server"}) {
    auto side = in.Member(**sides, "sides", name);
    if (!side) return side.error();
    auto s = in.Side(**side, name, r.wall_s.size());
    if (!s) return s.error();
    r.sides.push_back(std::move(*s));
  }
  if (j.contains("floor_ops") && j.at("floor_ops").is_array()) {
    for (const Json& e : j.at("floor_ops")) {
      FloorOp op;
      auto alg = in.Text(e, "floor_ops", "algorithm");
      if (!alg) return alg.error();
      auto name = in.Text(e, "floor_ops", "op");
      if (!name) return name.error();
      auto n = in.Number(e, "floor_ops", "instructions_per_call");
      if (!n) return n.error();
      auto calls = in.Number(e, "floor_ops", "calls");
      if (!calls) return calls.error();
      op.algorithm = std::move(*alg);
      op.op = std::move(*name);
      op.instructions = *n;
      op.calls = static_cast<uint64_t>(std::min(*calls, 1e12));
      r.floor_ops.push_back(std::move(op));
    }
  }
  return r;
}

}  // namespace pqc::count
