// speed_table — what each primitive behind a handshake costs on this machine, measured in this
// process through the same EVP calls the TLS stack makes, so that measured handshake CPU can
// be compared with a floor built from the same OpenSSL (crypto_floor). Data only; printing is
// speed_output.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/error.h"

namespace pqc::speed {

enum class SpeedOp { kKeygen, kEncaps, kDecaps, kDerive, kSign, kVerify };
std::string_view SpeedOpName(SpeedOp op);  // "keygen", "encaps", ...

struct SpeedEntry {
  std::string algorithm;  // group name (X25519MLKEM768) or signature type (ml-dsa-65)
  bool is_group = false;
  SpeedOp op = SpeedOp::kKeygen;
  double us_per_op = 0;  // this thread's CPU time per op (user + sys), median over the batches
  double ops_per_s = 0;  // 1e6 / us_per_op
  uint64_t iterations = 0;
  int batches = 0;
};

struct SpeedTable {
  std::vector<SpeedEntry> entries;
  // Micros: µs per op, if the table has it.
  std::optional<double> Micros(std::string_view algorithm, SpeedOp op) const;
};

struct SpeedOptions {
  std::vector<std::string> only;  // group or signature names; empty = every one in the table
  Nanos per_op = 200'000'000;     // time budget of each operation (split into batches)
  int batches = 5;                // the median of this many batches is reported
  // meter: measures each operation instead of the timing above, given its algorithm, its op and
  // one call of it (`count` runs a fixed number of calls in a callgrind window instead).
  std::function<Result<SpeedEntry>(std::string_view algorithm, SpeedOp op,
                                   const std::function<Status()>& call)>
      meter;
  // signature_keygen: a signature key is made before any handshake, never in one; `count`
  // skips it (an RSA-4096 key takes seconds under valgrind).
  bool signature_keygen = true;
};

// OpsFor: the operations measured for a group (keygen + encaps/decaps for a KEM, keygen +
// derive for ECDH) or a signature type (keygen, sign, verify).
std::vector<SpeedOp> OpsFor(bool is_group, bool is_kem);

// kSignedMessageBytes: the message signed and verified: the size of a TLS 1.3 CertificateVerify
// input (64 spaces, the 33-byte context string, a zero byte and a SHA-256 transcript hash).
inline constexpr size_t kSignedMessageBytes = 130;

// MeasureSpeed: every operation of every selected algorithm, each repeated for per_op of CPU
// time in `batches` batches of per_op/batches (at least one operation per batch; a batch stops
// early once the whole budget is spent, so a 1-second RSA-4096 keygen costs one run).
// Names in `only` are validated (the error suggests the nearest name).
Result<SpeedTable> MeasureSpeed(const SpeedOptions& options);

}  // namespace pqc::speed
