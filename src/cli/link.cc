// link — `pqc-bench link`: the emulated WAN around one command. Flag wiring, then
// RunOverLink (src/link); prints the mover's statistics at the end and exits with the
// command's status.
#include <fmt/core.h>
#include <unistd.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/command.h"
#include "core/file_output.h"
#include "link/run_over_link.h"
#include "link/user_namespace.h"

namespace pqc::cli {
namespace {

std::vector<std::string> SplitWords(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

Status WriteStatsJson(const std::string& path, const link::LinkProfile& profile,
                      const link::LinkRunResult& r) {
  nlohmann::ordered_json j = json_fields::Write(r.stats);
  j["profile"] = profile.Describe();
  j["exit_code"] = r.exit_code;
  j["interrupted"] = r.interrupted;
  return WriteFileAtomically(path, j.dump(2) + "\n", kPublicFile, "--stats-json");
}

void PrintMoverStats(const link::MoverStats& s) {
  fmt::print(
      stderr,
      "link: {} packets ({} bytes) moved, dropped {} by loss, {} by the queue{}; release "
      "error p50 {:.1f} us, p99 {:.1f} us, max {:.1f} us{}{}\n",
      s.packets, s.bytes, s.dropped_loss, s.dropped_queue,
      s.dropped_ingress ? fmt::format(", {} by the mover's input buffer", s.dropped_ingress) : "",
      s.release_error_p50_us, s.release_error_p99_us, s.release_error_max_us,
      s.realtime ? "" : " (no real-time priority: expect larger errors on a busy machine)",
      s.kernel_timestamps ? ""
                          : " (departures stamped when read, not by the kernel: delays "
                            "include the mover's wake-up)");
  if (const link::UdpFlowStats& q = s.quic; q.flows > 0) {
    // QUIC as the wire saw it (link/udp_flows.h): what the client's first flight allowed the
    // server before the client replied (RFC 9000 §8.1: three times its bytes).
    fmt::print(stderr,
               "link: {} UDP flows (QUIC), {} datagrams to the server and {} to the clients; "
               "first flights {} datagrams ({} B), the servers' first rounds {} B, at most "
               "{:.3f}× a first flight, {} of {} answered flows at that 3× budget\n",
               q.flows, q.datagrams_to_server, q.datagrams_to_client, q.first_flight_datagrams,
               q.first_flight_bytes, q.first_round_bytes, q.first_round_ratio_max,
               q.at_budget_flows, q.answered_flows);
  }
}

}  // namespace

int LinkMain(int argc, char** argv) {
  // Everything after the first "--" is the command, untouched by flag parsing.
  int split = argc;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) {
      split = i;
      break;
    }
  }
  CLI::App app{
      "Runs CMD in a client network namespace joined to a server namespace by an emulated WAN "
      "(delay, jitter, loss, rate, queue), with this binary's `serve` listening on "
      "198.18.0.1:PORT. CMD sees PQC_TARGET, PQC_CA, PQC_SERVER_NETNS and PQC_CLIENT_NETNS. Needs "
      "root.",
      "pqc-bench link [flags] -- CMD [ARGS...]"};
  link::LinkProfileText text;
  text.rtt = "0ms";
  std::string server_args, stats_json;
  bool no_server = false;
  uint16_t port = 8443;
  int mover_threads = 1;
  app.add_option("--rtt", text.rtt, "round-trip time (each direction delays half)")
      ->capture_default_str();
  app.add_option("--jitter", text.jitter, "per-packet delay variation, uniform ± (e.g. 1ms)");
  app.add_option("--loss", text.loss, "random loss per packet and direction (e.g. 0.5%)");
  app.add_option("--burst-loss", text.burst_loss,
                 "Gilbert–Elliott burst loss P,R[,LOSS_BAD]: p(good→bad), p(bad→good), loss "
                 "while bad (e.g. 1%,30%)");
  app.add_option("--rate", text.rate, "bandwidth per direction (e.g. 100mbit, 1gbit)");
  app.add_option("--queue", text.queue, "packets waiting for the rate limiter at most (1000)");
  app.add_flag("--reorder", text.reorder, "let jitter reorder packets");
  app.add_option("--seed", text.seed, "random seed of loss and jitter (1)");
  app.add_option("--server", server_args,
                 "extra `serve` flags as one string, e.g. --server='--cert ml-dsa-87 --groups "
                 "X25519'");
  app.add_flag("--no-server", no_server, "start no server (CMD brings its own)");
  app.add_option("--port", port, "port serve listens on at 198.18.0.1")->capture_default_str();
  app.add_option("--mover-threads", mover_threads,
                 "1: both directions on one thread (most faithful delays); 2: one per direction "
                 "(more packets/s)")
      ->capture_default_str()
      ->check(CLI::Range(1, 2));
  app.add_option("--stats-json", stats_json, "write the mover's statistics here as JSON");
  if (int rc = ParseArgs(app, split, argv); rc >= 0) return rc;
  if (split >= argc - 1) {
    return ReportError("link", MakeError(ErrorKind::kUsage,
                                         "no command: pqc-bench link [flags] -- CMD [ARGS...]"));
  }

  auto profile = link::ParseLinkProfile(text);
  if (!profile) return ReportError("link", profile.error());
  // Not root: become root of a user namespace of our own (this process has one thread yet).
  if (geteuid() != 0) {
    if (Status s = link::EnterUnprivilegedUserNamespace(); !s)
      return ReportError("link", s.error());
  }
  link::LinkRunOptions options;
  options.profile = *profile;
  options.start_server = !no_server;
  options.server_args = SplitWords(server_args);
  options.port = port;
  options.mover_threads = mover_threads;
  options.command.assign(argv + split + 1, argv + argc);

  auto result = link::RunOverLink(options, stderr);
  if (!result) return ReportError("link", result.error());
  PrintMoverStats(result->stats);
  if (!stats_json.empty()) {
    if (Status st = WriteStatsJson(stats_json, *profile, *result); !st) {
      return ReportError("link", st.error());
    }
  }
  return result->exit_code;
}

}  // namespace pqc::cli
