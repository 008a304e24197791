// probe — `pqc-bench probe [--json] [--only NAMES]`: the three-layer support table.
#include "tls/probe.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "cli/command.h"

namespace pqc::cli {
namespace {

const char* Cell(bool ok) {
  return ok ? "ok" : "FAIL";
}

nlohmann::json ToJson(const ProbeReport& r) {
  nlohmann::json j{{"openssl", r.openssl_version},
                   {"groups", nlohmann::json::array()},
                   {"signatures", nlohmann::json::array()}};
  for (const GroupProbe& g : r.groups) {
    j["groups"].push_back(
        {{"name", g.group->name},
         {"family", FamilyName(g.group->family)},
         {"primitive", g.primitive},
         {"tls", g.tls},
         {"negotiated", g.negotiated},
         {"error", g.error.empty() ? nlohmann::json() : nlohmann::json(g.error)}});
  }
  for (const SignatureProbe& s : r.signatures) {
    j["signatures"].push_back(
        {{"name", s.sig->name},
         {"family", FamilyName(s.sig->family)},
         {"primitive", s.primitive},
         {"x509", s.x509},
         {"tls", s.tls},
         {"negotiated", s.negotiated},
         {"error", s.error.empty() ? nlohmann::json() : nlohmann::json(s.error)}});
  }
  return j;
}

void PrintTable(const ProbeReport& r) {
  fmt::print(
      "OpenSSL {} — each cell measured now: primitive (keygen + encap/decap or sign/verify),\n"
      "X.509 (issue, parse, verify), TLS (a real handshake that must negotiate it)\n\n",
      r.openssl_version);
  fmt::print("{:<20} {:<13} {:<10} {:<5} {}\n", "group", "family", "primitive", "tls", "note");
  for (const GroupProbe& g : r.groups) {
    fmt::print("{:<20} {:<13} {:<10} {:<5} {}\n", g.group->name, FamilyName(g.group->family),
               Cell(g.primitive), Cell(g.tls), g.error);
  }
  fmt::print("\n{:<20} {:<8} {:<10} {:<5} {:<5} {}\n", "signature", "family", "primitive", "x509",
             "tls", "note");
  for (const SignatureProbe& s : r.signatures) {
    std::string note = s.error.empty() ? s.negotiated : s.error;
    fmt::print("{:<20} {:<8} {:<10} {:<5} {:<5} {}\n", s.sig->name, FamilyName(s.sig->family),
               Cell(s.primitive), Cell(s.x509), Cell(s.tls), note);
  }
}

}  // namespace

int ProbeMain(int argc, char** argv) {
  CLI::App app{"Which groups and signature types this OpenSSL supports, layer by layer.",
               "pqc-bench probe"};
  bool json = false;
  std::vector<std::string> only;
  app.add_flag("--json", json, "print JSON instead of a table");
  app.add_option("--only", only, "probe only these names (groups or signature types)")
      ->delimiter(',');
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  for (const std::string& name : only) {
    if (!FindGroup(name) && !FindSignature(name)) {
      return ReportError("probe", FindSignature(name).error());
    }
  }
  ProbeReport report = RunProbe(only);
  if (json) {
    fmt::print("{}\n", ToJson(report).dump(2));
  } else {
    PrintTable(report);
  }
  return kExitOk;
}

}  // namespace pqc::cli
