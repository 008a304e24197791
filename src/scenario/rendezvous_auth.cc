#include "scenario/rendezvous_auth.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "core/fd.h"

namespace pqc::scenario {
namespace {

constexpr std::string_view kHowToMake =
    "make one with: (umask 077; head -c 32 /dev/urandom > FILE), the same file for every shard";

std::string Hex(const unsigned char* p, size_t n) {
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) out += fmt::format("{:02x}", p[i]);
  return out;
}

bool IsLowerHex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// Mac: HMAC-SHA256 of the concatenated parts under `key`, raw bytes. It fails where SHA-256
// cannot be fetched (a configuration without it, default properties no provider meets): an
// error, never an empty tag or key, which would leave a channel unauthenticated or every tag
// the same.
Result<std::string> Mac(std::string_view key, std::initializer_list<std::string_view> parts) {
  std::string data;
  for (std::string_view p : parts) data += p;
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int len = 0;
  // One-shot HMAC: no context to own.
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(),
           &len) == nullptr ||
      len != kTagHex / 2) {
    ERR_clear_error();
    return MakeError(ErrorKind::kTls,
                     "rendezvous: HMAC-SHA256 is not available from OpenSSL here (its "
                     "configuration or default properties leave no provider with SHA-256): the "
                     "rendezvous key cannot be used; check OPENSSL_CONF and OPENSSL_MODULES");
  }
  return std::string(reinterpret_cast<const char*>(out.data()), len);
}

}  // namespace

Result<RendezvousKey> LoadRendezvousKey(const std::string& path) {
  auto fail = [&](std::string_view why) {
    return MakeError(ErrorKind::kUsage, fmt::format("--rendezvous-key {}: {}", path, why));
  };
  // O_NONBLOCK: a FIFO planted at the path must not block the open before fstat can tell it
  // is not a regular file (for a regular file the flag changes nothing).
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!fd.valid()) {
    return fail(fmt::format("cannot open it: {}; {}", std::strerror(errno), kHowToMake));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return fail(fmt::format("not a regular file; {}", kHowToMake));
  }
  // Its owner: this user, or root (a Kubernetes Secret's files are root's). A key another
  // user owns is one they can rewrite or chmod at will, whatever its mode says now.
  if (st.st_uid != ::geteuid() && st.st_uid != 0) {
    return fail(
        fmt::format("it belongs to user {}, not to this user ({}) or root: another user "
                    "could change it; chown it to the user running the shards",
                    st.st_uid, ::geteuid()));
  }
  if ((st.st_mode & 077) != 0) {
    return fail(fmt::format(
        "other users can read or write it (mode {:04o}): a key others can read proves nothing; "
        "chmod 600 it (a Kubernetes Secret: defaultMode 0400)",
        st.st_mode & 07777));
  }
  if (st.st_size < static_cast<off_t>(kMinKeyBytes) ||
      st.st_size > static_cast<off_t>(kMaxKeyBytes)) {
    return fail(fmt::format("{} bytes; a key has {} to {}; {}", st.st_size, kMinKeyBytes,
                            kMaxKeyBytes, kHowToMake));
  }
  RendezvousKey key;
  key.bytes.resize(static_cast<size_t>(st.st_size));
  size_t off = 0;
  while (off < key.bytes.size()) {
    const ssize_t n = ::read(fd.get(), key.bytes.data() + off, key.bytes.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(n == 0 ? "it shrank while read" : std::strerror(errno));
    off += static_cast<size_t>(n);
  }
  return key;
}

Error KeyRequired(std::string_view what) {
  return MakeError(ErrorKind::kUsage,
                   fmt::format("{}: not a loopback address, and no --rendezvous-key: on a network "
                               "every shard must prove a shared key (--rendezvous-key FILE on "
                               "every shard; {}), or use 127.0.0.1 for shards on this machine",
                               what, kHowToMake));
}

Result<std::string> NewNonce() {
  std::array<unsigned char, kNonceHex / 2> raw{};
  if (RAND_bytes(raw.data(), static_cast<int>(raw.size())) != 1) {
    return MakeError(ErrorKind::kTls, "rendezvous: OpenSSL's random generator failed");
  }
  return Hex(raw.data(), raw.size());
}

Result<std::string> SessionKey(const RendezvousKey& key, std::string_view leader_nonce,
                               std::string_view follower_nonce) {
  return Mac(key.bytes, {"pqc-bench rendezvous 1\n", leader_nonce, "\n", follower_nonce});
}

Result<std::string> MessageTag(std::string_view session, Direction from, uint64_t counter,
                               std::string_view line, std::string_view payload) {
  const char dir = static_cast<char>(from);
  const std::string head = fmt::format("{} {}\n", dir, counter);
  auto mac = Mac(session, {head, line, "\n", payload});
  if (!mac) return mac.error();
  return Hex(reinterpret_cast<const unsigned char*>(mac->data()), mac->size());
}

bool SameTag(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::optional<Tagged> SplitTag(std::string_view line) {
  constexpr std::string_view kField = " mac=";
  if (line.size() < kField.size() + kTagHex) return std::nullopt;
  const size_t at = line.size() - kTagHex - kField.size();
  if (line.substr(at, kField.size()) != kField) return std::nullopt;
  const std::string_view tag = line.substr(at + kField.size());
  if (!IsLowerHex(tag)) return std::nullopt;
  return Tagged{line.substr(0, at), tag};
}

}  // namespace pqc::scenario
