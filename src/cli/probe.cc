// probe — `pqc-bench probe [--json] [--only NAMES] [--compare A.json [B.json]]`: the three-layer
// support table with the build it was measured on, or a comparison of two builds' probes.
#include "tls/probe.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "cli/command.h"
#include "cli/probe_compare.h"
#include "cli/provider_flags.h"
#include "report/probe_doc.h"

namespace pqc::cli {
namespace {

// Cell: a layer's result with the provider that implements it ("ok @default").
std::string Cell(bool ok, const std::string& provider = "") {
  if (!ok) return "FAIL";
  return provider.empty() ? "ok" : fmt::format("ok @{}", provider);
}

void PrintBuild(const OpenSslBuildFacts& b) {
  fmt::print("{} — {}, built {}\n", b.version_text, b.platform, b.built_on);
  std::vector<std::string> providers;
  for (const ProviderFacts& p : b.providers) {
    providers.push_back(p.version.empty() ? p.name : fmt::format("{} {}", p.name, p.version));
  }
  fmt::print("providers: {}\n",
             providers.empty() ? "none loaded" : fmt::format("{}", fmt::join(providers, ", ")));
}

void PrintProbeTable(const ProbeReport& r) {
  PrintBuild(r.build);
  fmt::print(
      "each cell measured now: primitive (keygen + encap/decap or sign/verify),\n"
      "X.509 (issue, parse, verify), TLS (a real handshake that must negotiate it);\n"
      "@ names the provider that implements it; codepoint: the TLS layer lists a scheme\n\n");
  fmt::print("{:<20} {:<13} {:<18} {:<18} {}\n", "group", "family", "primitive", "tls", "note");
  for (const GroupProbe& g : r.groups) {
    fmt::print("{:<20} {:<13} {:<18} {:<18} {}\n", g.group->name, FamilyName(g.group->family),
               Cell(g.primitive, g.provider), Cell(g.tls, g.tls_provider), g.error);
  }
  fmt::print("\n{:<20} {:<8} {:<18} {:<18} {:<18} {:<9} {}\n", "signature", "family", "primitive",
             "x509", "tls", "codepoint", "note");
  for (const SignatureProbe& s : r.signatures) {
    std::string note = s.error.empty() ? s.negotiated : s.error;
    fmt::print("{:<20} {:<8} {:<18} {:<18} {:<18} {:<9} {}\n", s.sig->name,
               FamilyName(s.sig->family), Cell(s.primitive, s.provider), Cell(s.x509, s.provider),
               Cell(s.tls, s.tls_provider), s.tls_listed ? "listed" : "none", note);
  }
}

}  // namespace

int ProbeMain(int argc, char** argv) {
  CLI::App app{"Which groups and signature types this OpenSSL supports, layer by layer.",
               "pqc-bench probe"};
  bool json = false;
  std::vector<std::string> only;
  ProbeCompareRequest compare;
  app.add_flag("--json", json, "print JSON instead of a table");
  app.add_option("--only", only, "probe only these names (groups or signature types)")
      ->delimiter(',');
  auto* compare_opt =
      app.add_option("--compare", compare.files,
                     "compare two probe documents (--json outputs), or one with this build")
          ->expected(1, 2)
          ->excludes("--json");
  app.add_option("--format", compare.format, "with --compare: table | md | json")
      ->capture_default_str()
      ->needs(compare_opt);
  app.add_option("--output,-o", compare.output, "with --compare: write to this file")
      ->needs(compare_opt);
  ProviderFlags providers;
  AddProviderFlags(app, providers);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (Status st = LoadProviders(providers); !st) return ReportError("probe", st.error());
  for (const std::string& name : only) {
    if (!FindGroup(name) && !FindSignature(name)) {
      return ReportError("probe", FindSignature(name).error());
    }
  }
  if (!compare.files.empty()) {
    compare.live = [&only] { return report::MakeProbeDocument(RunProbe(only)); };
    return CompareProbeFiles("probe", compare);
  }
  ProbeReport report = RunProbe(only);
  if (json) {
    fmt::print("{}\n", report::ProbeToJson(report::MakeProbeDocument(report)).dump(2));
  } else {
    PrintProbeTable(report);
  }
  return kExitOk;
}

}  // namespace pqc::cli
