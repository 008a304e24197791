// client_hello_fuzz — libFuzzer target for ParseClientHello, the observatory's reader of the
// first bytes every client sends. Checks, besides crashes: a parsed hello counts the input's
// bytes, its lists hold no GREASE value, its extension list has no GREASE either, the
// fingerprint is 12 hex digits, and the stored row (names for every codepoint) can be made.
//
// Input: one handshake message (type 1, 3-byte length, body), as the server's message
// callback sees it.
#include <cstddef>
#include <cstdint>
#include <span>

#include "results/client_log.h"
#include "split_input.h"
#include "tls/client_hello.h"

namespace {

using pqc::fuzz::Check;

void CheckNoGrease(const std::vector<uint16_t>& v) {
  for (uint16_t x : v) Check(!pqc::IsGrease(x));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto hello = pqc::ParseClientHello(std::span<const uint8_t>(data, size));
  if (!hello) {
    Check(!hello.error().message.empty());
    return 0;
  }
  Check(hello->bytes == size);
  Check(size <= pqc::kMaxClientHelloBytes);
  for (const auto* v : {&hello->versions, &hello->ciphers, &hello->groups, &hello->key_shares,
                        &hello->sigalgs, &hello->extensions}) {
    CheckNoGrease(*v);
  }
  const std::string fp = pqc::ClientHelloFingerprint(*hello);
  Check(fp.size() == 12 && fp.find_first_not_of("0123456789abcdef") == std::string::npos);
  pqc::ClientRecord record;
  record.hello = *hello;
  const pqc::results::ClientLogRow row = pqc::results::ClientLogRowOf(record);
  Check(row.hello_bytes == static_cast<int64_t>(size));
  return 0;
}
