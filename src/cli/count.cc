// count — `pqc-bench count`: instructions per handshake of one arm, for the client and for the
// embedded server, stage by stage, under callgrind (valgrind's instruction counter: the same
// count on a busy machine as on a quiet one). Flags and the arm here; the processes and the
// window in count_session.cc, the floor in count_floor.cc, the tables in count_output.cc.
#include <fmt/core.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "cli/count_output.h"
#include "cli/count_run.h"
#include "cli/unit_flags.h"
#include "core/clock.h"
#include "core/file_output.h"
#include "core/instruction_window.h"
#include "count/count_report_json.h"
#include "scenario/arm_options.h"
#include "scenario/cert_store.h"
#include "scenario/run_facts.h"
#include "target/target.h"
#include "tls/openssl_build.h"

namespace pqc::cli {

void AddCountFlags(CLI::App& app, CountFlags& f) {
  app.add_option("--group", f.group, "group every connection negotiates (default X25519MLKEM768)");
  app.add_option("--groups,--client-groups", f.client_groups,
                 "groups the client offers, ':'-separated (default: --group)");
  app.add_option("--key-shares", f.key_shares,
                 "groups the client sends key shares for (default: the first offered)");
  app.add_option("--chain", f.chain,
                 "the server's certificate chain, leaf first (default ecdsa-p256; e.g. "
                 "ml-dsa-65/ml-dsa-87)");
  app.add_option("--sigalgs", f.sigalgs, "signature schemes the client offers (OpenSSL names)");
  app.add_option("--mode", f.mode, "fresh (a full handshake each) or resume (on a ticket)");
  app.add_option("--protocol", f.protocol,
                 "h1 (HTTP/1.1 over TCP, the default) or h3 (HTTP/3 over QUIC)");
  app.add_option("--payload", f.payload, "response size (e.g. 10K; default: GET / → OK)");
  app.add_option("--set", f.sets, "any other setting of the arm, KEY=VALUE (e.g. tickets=false)");
  AddProviderFlags(app, f.providers);
  app.add_option("--handshakes", f.handshakes, "measured handshakes per repetition")
      ->capture_default_str()
      ->check(CLI::Range(1u, 100'000u));
  app.add_option("--warmup-connections", f.warmup,
                 "connections before the measured ones (caches warm, tickets for resume)")
      ->capture_default_str()
      ->check(CLI::Range(0u, 10'000u));
  app.add_option("--repeat", f.repeat, "repetitions (the count's spread between them)")
      ->capture_default_str()
      ->check(CLI::Range(1, 20));
  app.add_option("--floor-calls", f.floor_calls,
                 "calls of each primitive counted alone for the floor")
      ->capture_default_str()
      ->check(CLI::Range(1u, 10'000u));
  AddDuration(app, "--time", f.time,
              "then the same arm natively (no valgrind) for this long: CPU per handshake beside "
              "the count",
              600 * kSecond);
  app.add_flag_callback(
      "--no-time", [&f] { f.time = 0; }, "no native timing");
  app.add_option("--out", f.out_dir,
                 "directory of the callgrind files and count.json (default: "
                 "results/count-<UTC time>)");
  app.add_option("--json", f.json_path, "also write the result as JSON to this file");
  // The processes count starts under callgrind; not for users (they need count's stdin).
  app.add_option("--client-of", f.client_of)->group("");
  app.add_option("--ca", f.ca)->group("");
  app.add_flag("--floor-child", f.floor_child)->group("");
}

Result<scenario::ArmSettings> CountArm(const CountFlags& f) {
  scenario::ArmSettings s;
  std::vector<std::string> sets = f.providers.AsSettings();
  const std::pair<const char*, const std::string*> named[] = {
      {"group", &f.group},           {"client_groups", &f.client_groups},
      {"key_shares", &f.key_shares}, {"chain", &f.chain},
      {"sigalgs", &f.sigalgs},       {"mode", &f.mode},
      {"protocol", &f.protocol},     {"payload", &f.payload}};
  for (const auto& [key, value] : named) {
    if (!value->empty()) sets.push_back(fmt::format("{}={}", key, *value));
  }
  sets.insert(sets.end(), f.sets.begin(), f.sets.end());
  for (const std::string& kv : sets) {
    if (Status st = scenario::ApplySetOverride(kv, s); !st) return st.error();
  }
  if (f.group.empty() && !s.client_groups.empty()) s.group = s.client_groups.front();
  if (Status st = scenario::Validate(s, "count"); !st) {
    return MakeError(ErrorKind::kUsage, st.error().message);
  }
  auto refuse = [](std::string why) { return MakeError(ErrorKind::kUsage, std::move(why)); };
  if (s.target != scenario::TargetKind::kEmbedded) {
    return refuse("count: the embedded target only (its server runs under callgrind too)");
  }
  if (s.mode.size() != 1 || s.mode.front().mode == ConnMode::kReuse) {
    return refuse("count --mode: fresh, resume or early (one handshake per connection)");
  }
  if (s.requests != 1) return refuse("count: one request per connection (requests = 1)");
  return s;
}

namespace {

std::vector<std::string> ArmArgs(const CountFlags& f) {
  std::vector<std::string> out;
  const std::pair<const char*, const std::string*> named[] = {
      {"--group", &f.group},       {"--groups", &f.client_groups}, {"--key-shares", &f.key_shares},
      {"--chain", &f.chain},       {"--sigalgs", &f.sigalgs},      {"--mode", &f.mode},
      {"--protocol", &f.protocol}, {"--payload", &f.payload}};
  for (const auto& [flag, value] : named) {
    if (!value->empty()) out.insert(out.end(), {flag, *value});
  }
  for (const std::string& kv : f.sets) out.insert(out.end(), {"--set", kv});
  for (const std::string& kv : f.providers.AsSettings()) out.insert(out.end(), {"--set", kv});
  return out;
}

// FloorOfStage: the floor model's terms of one side, summed per stage.
void AddFloors(const speed::CryptoFloor& floor, bool server,
               std::vector<count::StageResult>& stages) {
  for (const speed::FloorTerm& t : floor.terms) {
    if (t.server != server) continue;
    count::Stage stage = count::Stage::kKeyExchange;
    if (t.op == speed::SpeedOp::kKeygen) stage = count::Stage::kKeyShare;
    if (t.op == speed::SpeedOp::kSign) stage = count::Stage::kSign;
    if (t.op == speed::SpeedOp::kVerify) stage = count::Stage::kVerify;
    for (count::StageResult& s : stages) {
      if (s.stage == stage) s.floor = s.floor.value_or(0) + t.us;
    }
  }
}

count::SideResult SummarizeSide(std::string side, const std::vector<const SideCount*>& reps,
                                double n) {
  count::SideResult out;
  out.side = std::move(side);
  for (const count::StageInfo& info : count::Stages()) {
    count::StageResult s;
    s.stage = info.stage;
    out.stages.push_back(std::move(s));
  }
  const double reps_n = static_cast<double>(reps.size());
  for (const SideCount* r : reps) {
    const count::Attribution& a = r->attribution;
    out.total.push_back(static_cast<double>(a.total.ir) / n);
    if (a.total.ir > 0) {
      out.ambiguous_share = std::max(out.ambiguous_share, static_cast<double>(a.ambiguous_ir) /
                                                              static_cast<double>(a.total.ir));
    }
    for (count::StageResult& s : out.stages) {
      for (const count::StageCost& c : a.stages) {
        if (c.stage != s.stage) continue;
        s.per_handshake.push_back(static_cast<double>(c.cost.ir) / n);
        if (s.stage == count::Stage::kKernel) {
          s.syscalls += static_cast<double>(c.cost.syscalls) / n / reps_n;
        }
      }
      if (s.stage == count::Stage::kKernel) continue;
      for (const count::StageCost& c : a.syscalls_from) {
        if (c.stage == s.stage) s.syscalls += static_cast<double>(c.cost.syscalls) / n / reps_n;
      }
    }
  }
  return out;
}

int CountParent(const scenario::ArmSettings& s, const CountFlags& f) {
  auto fail = [](const Error& e) { return ReportError("count", e); };
  if (!CallgrindAvailable()) {
    return fail(MakeError(ErrorKind::kUnsupported,
                          "this build has no valgrind header (valgrind/callgrind.h): install "
                          "Debian's valgrind package (scripts/setup.sh does) and build again"));
  }
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::canonical("/proc/self/exe", ec);
  if (ec) return fail(MakeError(ErrorKind::kSystem, "count: cannot name this binary"));
  const std::string dir = f.out_dir.empty()
                              ? fmt::format("results/count-{}", scenario::UtcCompact(UnixNowNs()))
                              : f.out_dir;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return fail(MakeError(ErrorKind::kIo, fmt::format("--out {}: {}", dir, ec.message())));
  }
  std::optional<OutputFile> json_out;
  if (!f.json_path.empty()) {
    auto out = OutputFile::Create(f.json_path, kPublicFile, "--json");
    if (!out) return fail(out.error());
    json_out = std::move(*out);
  }

  CountSetup setup;
  setup.exe = exe.string();
  setup.dir = dir;
  setup.warmup = f.warmup;
  setup.handshakes = f.handshakes;
  setup.client_args = ArmArgs(f);
  scenario::CertStore certs(dir + "/certs");
  std::vector<target::ServerCert> files;
  for (const ChainSpec& spec : scenario::ServedChains(s)) {
    auto stored = certs.Get(spec.text);
    if (!stored) return fail(stored.error());
    files.push_back({(*stored)->files.chain_pem, (*stored)->files.leaf_key_pem});
    setup.ca_files.push_back((*stored)->files.root_pem);
  }
  const target::ServerConfig config = [&] {
    target::ServerConfig c = scenario::MakeServerConfig(s, std::move(files));
    c.threads = 1;
    c.cpus.clear();
    return c;
  }();
  setup.serve_argv = target::EmbeddedServeArgv(setup.exe, config, target::Placement{});

  std::cerr << fmt::format("count: the primitives alone ({} calls each) under callgrind…\n",
                           f.floor_calls);
  auto floor_ops = CountFloor(setup, f.floor_calls);
  if (!floor_ops) return fail(floor_ops.error());
  const speed::FloorArm floor_arm = FloorArmOf(s);
  auto floor = speed::PredictHandshakeCrypto(*floor_ops, floor_arm.group, floor_arm.key_shares,
                                             floor_arm.chain, floor_arm.resumed);
  if (!floor) return fail(floor.error());

  std::vector<Repetition> reps;
  count::CountReport report;
  for (int i = 1; i <= f.repeat; ++i) {
    std::cerr << fmt::format(
        "count: repetition {} of {}: {} + {} connections, client and server "
        "under callgrind…\n",
        i, f.repeat, f.warmup, f.handshakes);
    auto r = CountOnce(setup, i);
    if (!r) return fail(r.error());
    report.wall_s.push_back(r->wall_s);
    reps.push_back(std::move(*r));
  }
  report.arm = fmt::format("{}:{} {} {}", s.group, s.chain.text, ConnModeName(s.mode.front().mode),
                           ProtocolName(s.protocol));
  report.openssl = CurrentOpenSslBuild().version_text;
  report.handshakes = f.handshakes;
  report.warmup = f.warmup;
  report.floor_calls = f.floor_calls;
  report.dir = dir;
  for (const speed::SpeedEntry& e : floor_ops->entries) {
    report.floor_ops.push_back(
        {e.algorithm, std::string(speed::SpeedOpName(e.op)), e.us_per_op, e.iterations});
  }
  std::vector<const SideCount*> client, server;
  for (const Repetition& r : reps) {
    client.push_back(&r.client);
    server.push_back(&r.server);
  }
  const double n = f.handshakes;
  report.sides.push_back(SummarizeSide("client", client, n));
  report.sides.push_back(SummarizeSide("server", server, n));
  AddFloors(*floor, false, report.sides[0].stages);
  AddFloors(*floor, true, report.sides[1].stages);
  if (f.time > 0) {
    std::cerr << fmt::format("count: the same arm natively for {:.0f} s (CPU per handshake)…\n",
                             static_cast<double>(f.time) / 1e9);
    auto native = TimeNatively(s, setup, config, f.time);
    if (!native) return fail(native.error());
    report.sides[0].cpu_us = native->client_cpu_us;
    report.sides[1].cpu_us = native->server_cpu_us;
    report.native_connections = native->connections;
    report.handshake_p50_us = native->handshake_p50_us;
  }
  WriteCountTables(std::cout, report);
  const nlohmann::json j = count::CountReportJson(report);
  {
    std::ofstream out(dir + "/count.json");
    out << j.dump(2) << "\n";
  }
  if (json_out) {
    json_out->stream() << j.dump(2) << "\n";
    if (Status st = json_out->Commit(); !st) return fail(st.error());
  }
  return kExitOk;
}

}  // namespace

int CountMain(int argc, char** argv) {
  CLI::App app{
      "Instructions per handshake of one arm, client and embedded server, stage by "
      "stage (key share, key exchange, signing, verification, chain, key schedule, "
      "tickets, record layer, HTTP, kernel boundary), under callgrind, beside the crypto "
      "floor counted alone.",
      "pqc-bench count"};
  CountFlags flags;
  AddCountFlags(app, flags);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  auto arm = CountArm(flags);
  if (!arm) return ReportError("count", arm.error());
  if (flags.floor_child || !flags.client_of.empty()) {
    if (!UnderCallgrind()) {
      return ReportError("count", MakeError(ErrorKind::kUsage,
                                            "--client-of and --floor-child are count's own "
                                            "processes, run under callgrind"));
    }
    if (Status st = LoadProviders(flags.providers); !st) return ReportError("count", st.error());
    return flags.floor_child ? CountFloorChild(*arm, flags) : CountClientChild(*arm, flags);
  }
  return CountParent(*arm, flags);
}

}  // namespace pqc::cli
