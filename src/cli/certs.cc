// certs — `pqc-bench certs --sig <chain> [--out DIR] [--json]`: makes a chain and prints
// what it costs on the wire, flagging chains that overflow the initial congestion window.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/slow_start.h"
#include "tls/cert_chain.h"
#include "tls/cert_files.h"
#include "tls/chain_sizes.h"

namespace pqc::cli {
namespace {

nlohmann::json ToJson(const CertChain& chain, const ChainSizes& sizes, const ChainFiles* files) {
  nlohmann::json certs = nlohmann::json::array();
  for (size_t i = 0; i < sizes.certs.size(); ++i) {
    const CertSize& c = sizes.certs[i];
    nlohmann::json e{{"role", c.role},
                     {"type", c.type},
                     {"public_key_bytes", c.public_key_bytes},
                     {"signature_bytes", c.signature_bytes},
                     {"der_bytes", c.der_bytes},
                     {"sent", c.sent}};
    if (files != nullptr) e["der_file"] = files->cert_der[i];
    certs.push_back(std::move(e));
  }
  nlohmann::json j{{"chain", chain.spec.text},
                   {"certificates", certs},
                   {"sent_der_bytes", sizes.sent_der_bytes},
                   {"certificate_message_bytes", sizes.certificate_message_bytes},
                   {"certificate_verify_bytes", sizes.certificate_verify_bytes},
                   {"certificate_plus_verify_bytes", sizes.cert_plus_verify()},
                   {"initial_window_bytes", kInitialWindowBytes},
                   {"exceeds_initial_window", sizes.exceeds_initial_window()},
                   {"min_segments", SegmentsFor(sizes.cert_plus_verify())},
                   {"round_trips", SlowStartRoundTrips(SegmentsFor(sizes.cert_plus_verify()))}};
  if (files != nullptr) {
    j["files"] = {{"chain", files->chain_pem},
                  {"key", files->leaf_key_pem},
                  {"trust_anchor", files->root_pem}};
  }
  return j;
}

void PrintTable(const CertChain& chain, const ChainSizes& sizes, const ChainFiles* files) {
  fmt::print("chain {} (leaf first)\n\n", chain.spec.text);
  fmt::print("{:<20} {:<20} {:>11} {:>10} {:>9} {}\n", "certificate", "key type", "public key",
             "signature", "DER", "sent");
  for (const CertSize& c : sizes.certs) {
    fmt::print("{:<20} {:<20} {:>11} {:>10} {:>9} {}\n", c.role, c.type, c.public_key_bytes,
               c.signature_bytes, c.der_bytes, c.sent ? "yes" : "no (trust anchor)");
  }
  fmt::print("\nbytes the server sends\n");
  fmt::print("  certificates (DER)         {:>7}\n", sizes.sent_der_bytes);
  fmt::print("  Certificate message        {:>7}\n", sizes.certificate_message_bytes);
  fmt::print("  CertificateVerify message  {:>7}\n", sizes.certificate_verify_bytes);
  fmt::print("  together                   {:>7}  {} the {}-byte initial window (10 segments)\n",
             sizes.cert_plus_verify(), sizes.exceeds_initial_window() ? "EXCEEDS" : "fits in",
             kInitialWindowBytes);
  const uint32_t segments = SegmentsFor(sizes.cert_plus_verify());
  const uint32_t rtts = SlowStartRoundTrips(segments);
  fmt::print(
      "  -> at least {} segments of {} bytes: the handshake takes {} round trip{} in slow "
      "start ({} extra; the window starts at {} segments and doubles each round trip)\n",
      segments, kMssTimestamps, rtts, rtts == 1 ? "" : "s", rtts - 1, kInitialWindowSegments);
  if (files != nullptr) {
    fmt::print("\nfiles: {} (server chain), {} (key, 0600), {} (trust anchor)\n", files->chain_pem,
               files->leaf_key_pem, files->root_pem);
  }
}

}  // namespace

int CertsMain(int argc, char** argv) {
  CLI::App app{"Make keys and a certificate chain; print their sizes on the wire.",
               "pqc-bench certs"};
  std::string sig;
  std::string out;
  bool json = false;
  app.add_option("--sig", sig,
                 "chain, leaf first: ml-dsa-65, ml-dsa-65/ml-dsa-87, ecdsa-p256/rsa-2048/rsa-4096")
      ->required();
  app.add_option("--out", out, "write PEM/DER files and keys (0600) into this directory");
  app.add_flag("--json", json, "print JSON instead of a table");
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;

  auto spec = ParseChainSpec(sig);
  if (!spec) return ReportError("certs", spec.error());
  auto chain = MakeChain(*spec);
  if (!chain) return ReportError("certs", chain.error());
  if (Status s = VerifyChain(*chain); !s) return ReportError("certs", s.error());
  auto sizes = MeasureChain(*chain);
  if (!sizes) return ReportError("certs", sizes.error());
  std::optional<ChainFiles> files;
  if (!out.empty()) {
    auto written = WriteChainFiles(*chain, out);
    if (!written) return ReportError("certs", written.error());
    files = std::move(*written);
  }
  const ChainFiles* fp = files ? &*files : nullptr;
  if (json) {
    fmt::print("{}\n", ToJson(*chain, *sizes, fp).dump(2));
  } else {
    PrintTable(*chain, *sizes, fp);
  }
  return kExitOk;
}

}  // namespace pqc::cli
