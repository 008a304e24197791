// client_summary — `report --clients FILE`: the observatory's rows summarised by client, the
// answer a platform engineer needs before switching a fleet to post-quantum key exchange:
// for each client (its User-Agent, else its ClientHello fingerprint), how many of its
// connections sent a post-quantum key share at once, got one only after a HelloRetryRequest,
// fell back to a classical group, or failed; how many offered an ML-DSA signature scheme (could
// verify an ML-DSA certificate); how large its ClientHello was and how often it took more than
// one TCP segment. As a terminal or Markdown table, JSON, or a self-contained HTML page with a
// chart.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "results/client_log.h"

namespace pqc::report {

struct ClientSummaryRow {
  std::string client;  // the User-Agent, or "fingerprint <hex>" when none was sent
  std::vector<std::string> fingerprints;  // the ClientHello fingerprints seen under it
  uint64_t connections = 0;
  uint64_t completed = 0;      // handshakes that completed
  uint64_t pq_offered = 0;     // a PQ group in supported_groups
  uint64_t pq_key_share = 0;   // a PQ key share in the first ClientHello
  uint64_t pq_after_hrr = 0;   // completed on a PQ group after a HelloRetryRequest
  uint64_t pq_negotiated = 0;  // completed on a PQ group (with or without HRR)
  uint64_t classical = 0;      // completed on a classical group
  uint64_t mldsa_capable = 0;  // offered an ML-DSA signature scheme
  uint64_t multi_segment = 0;  // the ClientHello took more than one TCP segment
  uint64_t malformed = 0;      // malformed or oversized ClientHello
  double hello_bytes_mean = 0;
  std::map<std::string, uint64_t> groups;  // negotiated group → connections
  // The first connection's offer, as the client sent it.
  std::string offered_groups, key_shares, sigalgs, alpn;
};

struct ClientSummary {
  std::string file;
  ClientSummaryRow all;                   // every connection together
  std::vector<ClientSummaryRow> clients;  // most connections first
};

ClientSummary SummarizeClients(const std::vector<results::ClientLogRow>& rows, std::string file);

nlohmann::json ClientSummaryJson(const ClientSummary& s);
void WriteClientSummaryTable(std::ostream& out, const ClientSummary& s, bool markdown);
void WriteClientSummaryHtml(std::ostream& out, const ClientSummary& s);

}  // namespace pqc::report
