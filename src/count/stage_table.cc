#include "count/stage_table.h"

namespace pqc::count {

namespace {

// kTable: built once, never changed. Why each list is where it is:
// - keyshare, kex, sign: the EVP calls OpenSSL's TLS code makes for them; what a provider does
//   inside (an ML-KEM encapsulation's own key generation) stays in the outer stage, priorities
//   being equal.
// - keyshare also holds a share's encoding for the wire and the reading of the peer's: a
//   server reading an ML-KEM client share parses its public key and expands its matrix (about
//   as many instructions as the encapsulation), which is key share work, not the floor's
//   encapsulation, and not "the rest".
// - verify: the EVP calls of CertificateVerify, and ASN1_item_verify_ex for each certificate's
//   signature (X509_verify → ASN1_item_verify_ex → ASN1_item_verify_ctx → EVP_DigestVerify*):
//   the lowest level that holds the whole check (the EVP_MD_CTX and EVP_PKEY_CTX set up and
//   freed, the TBS encoding, the verification) and none of the certificate's parsing, which
//   d2i did before. Above the chain (6 > 4): the chain's signatures are verification.
// - schedule: above the signatures (7 > 6 > 5): OpenSSL computes HMACs with EVP_DigestSign
//   (a PSK binder, tls_psk_do_binder), which is key schedule work, not a CertificateVerify;
//   and nothing of a signature or a key exchange runs inside a schedule entry.
// - schedule over QUIC: also the Initial keys QUIC derives from the connection ID before TLS
//   starts (ossl_quic_provide_initial_secret); every level's keys then come from TLS's own
//   schedule, and both derive packet protection keys the same way. ssl_set_new_record_layer
//   installs a record layer for new keys (and the first, keyless one as a connection starts:
//   without it, the keys' installation over QUIC would be reached from two stages).
// - record: TLS's records over TCP; over QUIC, the packets as they are protected and framed
//   (ossl_qtx_write_pkt) and read and unprotected (ossl_qrx_read_pkt).
// - http: our parsers, writers, routes and payload, the server's per-request response, and
//   nghttp3 (HTTP/3 framing and QPACK).
// - kernel: above everything, so that a system call's wrapper is kernel work whoever calls it
//   (its entries come from the profile: stage_attribution.h).
const std::vector<StageInfo>& Table() {
  static const std::vector<StageInfo> kTable = {
      {Stage::kKeyShare,
       "keyshare",
       "key shares (made, encoded, read)",
       5,
       {"EVP_PKEY_keygen", "EVP_PKEY_generate", "EVP_PKEY_get1_encoded_public_key",
        "EVP_PKEY_set1_encoded_public_key"}},
      {Stage::kKeyExchange,
       "kex",
       "key exchange (encaps, decaps, ECDH)",
       5,
       {"EVP_PKEY_encapsulate", "EVP_PKEY_decapsulate", "EVP_PKEY_derive"}},
      {Stage::kSign,
       "sign",
       "signing (CertificateVerify)",
       5,
       {"EVP_DigestSign", "EVP_DigestSignInit_ex", "EVP_DigestSignUpdate", "EVP_DigestSignFinal"}},
      {Stage::kVerify,
       "verify",
       "verification (CertificateVerify, chain)",
       6,
       {"EVP_DigestVerify", "EVP_DigestVerifyInit_ex", "EVP_DigestVerifyUpdate",
        "EVP_DigestVerifyFinal", "ASN1_item_verify_ex"}},
      {Stage::kChain,
       "chain",
       "certificate chain (parse, path)",
       4,
       {"ssl_verify_cert_chain", "tls_process_server_certificate",
        "tls_construct_server_certificate", "tls_process_client_certificate",
        "ssl3_output_cert_chain"}},
      {Stage::kSchedule,
       "schedule",
       "transcript and key schedule",
       7,
       {"ssl3_finish_mac", "ssl3_digest_cached_records", "ssl_handshake_hash", "ssl_gensecret",
        "tls13_generate_secret", "tls13_generate_handshake_secret", "tls13_generate_master_secret",
        "tls13_hkdf_expand", "tls13_hkdf_expand_ex", "tls13_derive_key", "tls13_derive_iv",
        "tls13_derive_finishedkey", "tls13_change_cipher_state", "tls13_final_finish_mac",
        "tls13_setup_key_block", "tls_psk_do_binder", "ossl_quic_provide_initial_secret",
        "ssl_set_new_record_layer"}},
      {Stage::kTickets,
       "tickets",
       "session tickets",
       3,
       {"tls_construct_new_session_ticket", "tls_process_new_session_ticket", "tls_decrypt_ticket",
        "ssl_get_prev_session"}},
      {Stage::kRecord,
       "record",
       "record layer (TLS records, QUIC packets)",
       3,
       {"tls_write_records", "tls_read_record", "tls_get_more_records", "tls_retry_write_records",
        "ossl_qtx_write_pkt", "ossl_qrx_read_pkt"}},
      {Stage::kHttp,
       "http",
       "HTTP exchange",
       2,
       {"pqc::RequestParser::*", "pqc::ResponseParser::*", "pqc::http::*", "pqc::BuildGetRequest*",
        "pqc::ValidateRequestPath*", "pqc::StatusForRequestError*", "pqc::HttpErrorName*",
        "pqc::ResolveRoute*", "pqc::ErrorRoute*", "pqc::ReasonPhrase*", "pqc::AppendResponseHead*",
        "pqc::MakePayloadBuffer*", "pqc::PayloadChunk*",
        "pqc::server::Connection::PrepareResponse*", "nghttp3_*"}},
      {Stage::kKernel, "kernel", "kernel boundary (syscalls)", 9, {}},
      {Stage::kRest, "rest", "the rest", 0, {}},
  };
  return kTable;
}

// BaseName: a name without callgrind's recursion level ("'2": --separate-recs) and, for C++,
// without its parameter list — up to the first '(' that does not open "(anonymous namespace)".
std::string_view BaseName(std::string_view name) {
  const size_t quote = name.rfind('\'');
  if (quote != std::string_view::npos && quote + 1 < name.size() &&
      name.find_first_not_of("0123456789", quote + 1) == std::string_view::npos) {
    name = name.substr(0, quote);
  }
  constexpr std::string_view kAnonymous = "(anonymous namespace)";
  size_t from = 0;
  for (;;) {
    const size_t open = name.find('(', from);
    if (open == std::string_view::npos) return name;
    if (name.substr(open, kAnonymous.size()) != kAnonymous) return name.substr(0, open);
    from = open + kAnonymous.size();
  }
}

bool Matches(std::string_view entry, std::string_view name) {
  if (!entry.empty() && entry.back() == '*') {
    return name.starts_with(entry.substr(0, entry.size() - 1));
  }
  return BaseName(name) == entry;
}

}  // namespace

const std::vector<StageInfo>& Stages() {
  return Table();
}

const StageInfo& StageOf(Stage stage) {
  return Table()[static_cast<size_t>(stage)];
}

std::optional<Stage> ParseStageId(std::string_view id) {
  for (const StageInfo& info : Table()) {
    if (info.id == id) return info.stage;
  }
  return std::nullopt;
}

std::optional<Stage> EntryStage(std::string_view function_name) {
  for (const StageInfo& info : Table()) {
    for (std::string_view entry : info.entries) {
      if (Matches(entry, function_name)) return info.stage;
    }
  }
  return std::nullopt;
}

}  // namespace pqc::count
