// certs — `pqc-bench certs --sig <chain> [--out DIR] [--json]`: makes a chain and prints
// what it costs on the wire, flagging chains that overflow the initial congestion window, and
// the round trips of a fresh handshake over TCP and over QUIC with a classical and a hybrid
// key exchange.
#include <fmt/core.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "cli/command.h"
#include "core/quic_flight.h"
#include "core/slow_start.h"
#include "core/text_table.h"
#include "tls/algorithms.h"
#include "tls/cert_chain.h"
#include "tls/cert_files.h"
#include "tls/chain_sizes.h"
#include "tls/quic_messages.h"

namespace pqc::cli {
namespace {

// The key exchanges whose QUIC handshakes are modelled: a classical ClientHello fits one
// Initial datagram, a hybrid one needs two (and so buys the server twice the budget).
constexpr const char* kQuicGroups[] = {"X25519", "X25519MLKEM768"};

// TcpRoundTrips: connect, then the server's flight in slow start (core/slow_start.h).
struct TcpRoundTrips {
  uint32_t slow_start = 0;
  uint32_t handshake() const { return 1 + slow_start; }
  uint32_t first_byte() const { return handshake() + 1; }
};

TcpRoundTrips TcpFor(const ChainSizes& sizes) {
  return {SlowStartRoundTrips(SegmentsFor(sizes.cert_plus_verify()))};
}

Result<std::vector<QuicHandshakeModel>> ModelQuic(const ChainSizes& sizes) {
  std::vector<QuicHandshakeModel> out;
  for (const char* name : kQuicGroups) {
    auto group = FindGroup(name);
    if (!group) return group.error();
    auto model = ModelQuicHandshake(**group, sizes);
    if (!model) return model.error();
    out.push_back(std::move(*model));
  }
  return out;
}

nlohmann::json QuicJson(const std::vector<QuicHandshakeModel>& models) {
  nlohmann::json groups = nlohmann::json::array();
  for (const QuicHandshakeModel& m : models) {
    const QuicFlightRounds& r = m.rounds;
    groups.push_back({{"group", m.group},
                      {"client_hello_bytes", m.client_hello.bytes},
                      {"client_initial_datagrams", r.client_initial_datagrams},
                      {"received_before_validation_bytes", r.received_before_validation},
                      {"amplification_budget_bytes", r.amplification_budget},
                      {"server_hello_bytes", m.server.server_hello},
                      {"encrypted_extensions_bytes", m.server.encrypted_extensions},
                      {"finished_bytes", m.server.finished},
                      {"flight_wire_bytes", r.flight_wire_bytes},
                      {"flight_datagrams", r.flight_datagrams},
                      {"bytes_per_round", r.bytes_per_round},
                      {"round_one_bytes", r.round_one_bytes()},
                      {"round_one_limit", QuicRoundOneLimitName(r.round_one_limit)},
                      {"amplification_limited", r.amplification_limited()},
                      {"handshake_round_trips", r.handshake_round_trips},
                      {"first_byte_round_trips", r.first_byte_round_trips}});
  }
  const QuicWire wire;
  return {{"max_datagram_bytes", wire.max_datagram_bytes},
          {"initial_window_bytes", QuicInitialWindow(wire.max_datagram_bytes)},
          {"groups", groups}};
}

nlohmann::json ToJson(const CertChain& chain, const ChainSizes& sizes, const ChainFiles* files,
                      const std::vector<QuicHandshakeModel>& quic) {
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
  const TcpRoundTrips tcp = TcpFor(sizes);
  j["tcp"] = {{"connect_round_trips", 1},
              {"handshake_round_trips", tcp.handshake()},
              {"first_byte_round_trips", tcp.first_byte()}};
  j["quic"] = QuicJson(quic);
  if (files != nullptr) {
    j["files"] = {{"chain", files->chain_pem},
                  {"key", files->leaf_key_pem},
                  {"trust_anchor", files->root_pem}};
  }
  return j;
}

void PrintQuic(const ChainSizes& sizes, const std::vector<QuicHandshakeModel>& quic) {
  const QuicWire wire;
  const TcpRoundTrips tcp = TcpFor(sizes);
  fmt::print(
      "\nround trips of a fresh handshake (no loss), TCP and QUIC\n"
      "  TCP, either group: connect 1 + slow start {} = {} to the handshake's end, {} to the "
      "first response byte\n",
      tcp.slow_start, tcp.handshake(), tcp.first_byte());
  fmt::print(
      "  QUIC: until the client's address is validated the server sends at most 3x the bytes "
      "received (RFC 9000 8.1); then a {}-byte window in slow start (RFC 9002 7.2)\n\n",
      QuicInitialWindow(wire.max_datagram_bytes));
  Table t{.headers = {"group", "ClientHello", "Initials", "budget", "flight", "datagrams",
                      "round 1", "held back by", "handshake", "first byte"},
          .right = {false, true, true, true, true, true, true, false, true, true}};
  for (const QuicHandshakeModel& m : quic) {
    const QuicFlightRounds& r = m.rounds;
    t.rows.push_back(
        {m.group, std::to_string(m.client_hello.bytes), std::to_string(r.client_initial_datagrams),
         std::to_string(r.amplification_budget), std::to_string(r.flight_wire_bytes),
         std::to_string(r.flight_datagrams), std::to_string(r.round_one_bytes()),
         r.round_one_limit == QuicRoundOneLimit::kNone
             ? "-"
             : std::string(QuicRoundOneLimitName(r.round_one_limit)),
         std::to_string(r.handshake_round_trips), std::to_string(r.first_byte_round_trips)});
  }
  std::ostringstream table;
  WriteTextTable(table, t);
  fmt::print("{}", table.str());
  fmt::print(
      "  ClientHello: bytes, as OpenSSL's QUIC client sends it offering the group alone (ALPN h3)\n"
      "  Initials: its Initial datagrams of {} bytes; budget: 3x their bytes\n"
      "  flight: the server's handshake flight on the wire (bytes, datagrams); round 1: what it "
      "sends before the client's first reply\n"
      "  handshake, first byte: round trips to the flight's last byte, and to the first byte of a "
      "response to a request sent with the client's Finished\n",
      wire.max_datagram_bytes);
}

void PrintChainTable(const CertChain& chain, const ChainSizes& sizes, const ChainFiles* files,
                     const std::vector<QuicHandshakeModel>& quic) {
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
  PrintQuic(sizes, quic);
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
  auto quic = ModelQuic(*sizes);
  if (!quic) return ReportError("certs", quic.error());
  std::optional<ChainFiles> files;
  if (!out.empty()) {
    auto written = WriteChainFiles(*chain, out);
    if (!written) return ReportError("certs", written.error());
    files = std::move(*written);
  }
  const ChainFiles* fp = files ? &*files : nullptr;
  if (json) {
    fmt::print("{}\n", ToJson(*chain, *sizes, fp, *quic).dump(2));
  } else {
    PrintChainTable(*chain, *sizes, fp, *quic);
  }
  return kExitOk;
}

}  // namespace pqc::cli
