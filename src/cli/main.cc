// main — the subcommand table. Each subcommand lives in its own file and parses its own
// flags; main only dispatches (as BoringSSL's tool/ does).
#include <fmt/core.h>

#include <csignal>
#include <cstdio>
#include <string_view>

#include "cli/command.h"
#include "core/build_commit.h"

namespace {

struct Command {
  std::string_view name;
  std::string_view summary;
  int (*run)(int argc, char** argv);
};

constexpr Command kCommands[] = {
    {"probe", "which groups and signature types work: primitive, X.509 and TLS layers",
     pqc::cli::ProbeMain},
    {"certs", "make a certificate chain and print its sizes on the wire", pqc::cli::CertsMain},
    {"serve", "the embedded HTTPS target: TLS 1.3, / and /payload/<size>", pqc::cli::ServeMain},
    {"load", "open-loop load against a TLS target, every connection timed", pqc::cli::LoadMain},
    {"run", "run a scenario file: every arm × trial, stored, summarised, reported",
     pqc::cli::RunMain},
    {"merge", "the databases of a sharded study's shards as one, every connection kept",
     pqc::cli::MergeMain},
    {"report", "a run's results as a table, Markdown, CSV, JSON or HTML", pqc::cli::ReportMain},
    {"compare", "stored runs of the same arms side by side, with intervals and CI gates",
     pqc::cli::CompareMain},
    {"speed", "cost of each primitive here and the crypto floor of an arm's handshake",
     pqc::cli::SpeedMain},
    {"count", "instructions per handshake, client and server, stage by stage (callgrind)",
     pqc::cli::CountMain},
    {"link", "run a command over an emulated WAN (delay, loss, rate) to the embedded server",
     pqc::cli::LinkMain},
};

void Usage(std::FILE* out) {
  fmt::print(out,
             "pqc-bench {} — post-quantum TLS 1.3 benchmark\n\nusage: pqc-bench <command> "
             "[flags]\n\ncommands:\n",
             PQC_VERSION);
  for (const Command& c : kCommands) fmt::print(out, "  {:<8} {}\n", c.name, c.summary);
  fmt::print(out, "\n'pqc-bench <command> --help' lists a command's flags.\n");
}

}  // namespace

int main(int argc, char** argv) {
  // A peer that closes first turns our next write into SIGPIPE, which would end a whole run
  // for one connection's fault; ignored, the write fails with EPIPE and is recorded as that
  // connection's error. (Children get the default back before exec: core/child_process.cc.)
  std::signal(SIGPIPE, SIG_IGN);
  if (argc < 2) {
    Usage(stderr);
    return pqc::cli::kExitUsage;
  }
  std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    Usage(stdout);
    return pqc::cli::kExitOk;
  }
  if (name == "--version") {
    fmt::print("pqc-bench {} ({})\n", PQC_VERSION, pqc::BuildCommit());
    return pqc::cli::kExitOk;
  }
  for (const Command& c : kCommands) {
    if (c.name == name) return c.run(argc - 1, argv + 1);
  }
  fmt::print(stderr, "pqc-bench: unknown command '{}'\n\n", name);
  Usage(stderr);
  return pqc::cli::kExitUsage;
}
