#include "tls/client_hello.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <array>
#include <optional>

#include "tls/algorithms.h"

namespace pqc {
namespace {

// Reader: bounds-checked big-endian reads over a span; the first failure sticks, with the
// offset and the field it was reading.
class Reader {
 public:
  Reader(std::span<const uint8_t> data, size_t base) : data_(data), base_(base) {}
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  size_t left() const { return data_.size() - pos_; }
  size_t offset() const { return base_ + pos_; }

  std::optional<uint32_t> Int(size_t bytes, const char* what) {
    if (!Need(bytes, what)) return std::nullopt;
    uint32_t v = 0;
    for (size_t i = 0; i < bytes; ++i) v = (v << 8) | data_[pos_ + i];
    pos_ += bytes;
    return v;
  }
  // Vector: a length-prefixed field (prefix of `len_bytes`), as a reader of its own.
  std::optional<Reader> Vector(size_t len_bytes, const char* what) {
    auto len = Int(len_bytes, what);
    if (!len || !Need(*len, what)) return std::nullopt;
    Reader sub(data_.subspan(pos_, *len), offset());
    pos_ += *len;
    return sub;
  }
  bool Skip(size_t n, const char* what) {
    if (!Need(n, what)) return false;
    pos_ += n;
    return true;
  }
  std::span<const uint8_t> Rest() {
    auto r = data_.subspan(pos_);
    pos_ = data_.size();
    return r;
  }
  void Fail(std::string message) {
    if (error_.empty()) error_ = fmt::format("{} at byte {}", message, offset());
  }

 private:
  bool Need(size_t n, const char* what) {
    if (!ok()) return false;
    if (left() < n) {
      Fail(fmt::format("{}: {} bytes needed, {} left", what, n, left()));
      return false;
    }
    return true;
  }

  std::span<const uint8_t> data_;
  size_t base_;
  size_t pos_ = 0;
  std::string error_;
};

// List16: a vector of 16-bit values (cipher suites, groups, schemes, versions), GREASE
// dropped and counted. `prefix` is the vector's length-prefix size.
bool List16(Reader& r, size_t prefix, const char* what, std::vector<uint16_t>& out,
            uint16_t& grease) {
  auto v = r.Vector(prefix, what);
  if (!v) return false;
  if (v->left() % 2 != 0) {
    v->Fail(fmt::format("{}: odd length {}", what, v->left()));
    r.Fail(v->error());
    return false;
  }
  while (v->left() > 0) {
    const auto x = static_cast<uint16_t>(*v->Int(2, what));
    if (IsGrease(x)) {
      ++grease;
    } else {
      out.push_back(x);
    }
  }
  return true;
}

enum : uint16_t {
  kServerName = 0,
  kSupportedGroups = 10,
  kSignatureAlgorithms = 13,
  kAlpn = 16,
  kPreSharedKey = 41,
  kEarlyData = 42,
  kSupportedVersions = 43,
  kKeyShare = 51,
};

// Extension: one extension's body into `h`; false (with body's error) when malformed.
bool Extension(uint16_t type, Reader& body, ClientHelloInfo& h) {
  auto done = [&body](const char* what) {
    if (body.ok() && body.left() != 0)
      body.Fail(fmt::format("{}: {} trailing bytes", what, body.left()));
    return body.ok();
  };
  switch (type) {
    case kServerName: {
      auto list = body.Vector(2, "server_name list");
      while (list && list->ok() && list->left() > 0) {
        auto kind = list->Int(1, "server_name type");
        auto name = list->Vector(2, "server_name");
        if (!kind || !name) break;
        auto bytes = name->Rest();
        if (*kind == 0 && h.sni.empty()) h.sni.assign(bytes.begin(), bytes.end());
      }
      if (list && !list->ok()) body.Fail(list->error());
      return done("server_name");
    }
    case kSupportedGroups:
      List16(body, 2, "supported_groups", h.groups, h.grease);
      return done("supported_groups");
    case kSignatureAlgorithms:
      List16(body, 2, "signature_algorithms", h.sigalgs, h.grease);
      return done("signature_algorithms");
    case kSupportedVersions:
      List16(body, 1, "supported_versions", h.versions, h.grease);
      return done("supported_versions");
    case kAlpn: {
      auto list = body.Vector(2, "ALPN list");
      while (list && list->ok() && list->left() > 0) {
        auto name = list->Vector(1, "ALPN protocol");
        if (!name) break;
        auto bytes = name->Rest();
        h.alpn.emplace_back(bytes.begin(), bytes.end());
      }
      if (list && !list->ok()) body.Fail(list->error());
      return done("ALPN");
    }
    case kKeyShare: {
      auto list = body.Vector(2, "key_share list");
      while (list && list->ok() && list->left() > 0) {
        auto group = list->Int(2, "key_share group");
        if (!group || !list->Vector(2, "key_share key_exchange")) break;
        if (IsGrease(static_cast<uint16_t>(*group))) {
          ++h.grease;
        } else {
          h.key_shares.push_back(static_cast<uint16_t>(*group));
        }
      }
      if (list && !list->ok()) body.Fail(list->error());
      return done("key_share");
    }
    case kEarlyData:
      h.early_data = true;
      return done("early_data");
    case kPreSharedKey:
      h.psk = true;
      body.Rest();
      return true;
    default:
      body.Rest();
      return true;
  }
}

}  // namespace

Result<ClientHelloInfo> ParseClientHello(std::span<const uint8_t> message) {
  auto bad = [](const std::string& what) {
    return MakeError(ErrorKind::kTls, "malformed ClientHello: " + what);
  };
  if (message.size() > kMaxClientHelloBytes) {
    return MakeError(ErrorKind::kTls, fmt::format("ClientHello of {} bytes, over the {}-byte limit",
                                                  message.size(), kMaxClientHelloBytes));
  }
  ClientHelloInfo h;
  h.bytes = static_cast<uint32_t>(message.size());
  Reader msg(message, 0);
  auto type = msg.Int(1, "handshake type");
  if (type && *type != 1) return bad(fmt::format("handshake type {}, not 1", *type));
  auto body = msg.Vector(3, "ClientHello body");
  if (!body) return bad(msg.error());
  if (msg.left() != 0) return bad(fmt::format("{} bytes after the message", msg.left()));
  Reader& r = *body;
  if (auto v = r.Int(2, "legacy_version")) h.legacy_version = static_cast<uint16_t>(*v);
  r.Skip(32, "random");
  r.Vector(1, "legacy_session_id");
  List16(r, 2, "cipher_suites", h.ciphers, h.grease);
  r.Vector(1, "legacy_compression_methods");
  if (!r.ok()) return bad(r.error());
  if (r.left() == 0) return h;  // no extensions (before TLS 1.2's were mandatory)
  auto exts = r.Vector(2, "extensions");
  if (!exts) return bad(r.error());
  if (r.left() != 0) return bad(fmt::format("{} bytes after the extensions", r.left()));
  while (exts->left() > 0) {
    auto ext_type = exts->Int(2, "extension type");
    auto ext_body = exts->Vector(2, "extension body");
    if (!ext_type || !ext_body) return bad(exts->error());
    const auto t = static_cast<uint16_t>(*ext_type);
    if (IsGrease(t)) {
      ++h.grease;
      continue;
    }
    h.extensions.push_back(t);
    if (!Extension(t, *ext_body, h))
      return bad(fmt::format("extension {}: {}", t, ext_body->error()));
  }
  return h;
}

std::string ClientHelloFingerprint(const ClientHelloInfo& h) {
  std::string text;
  auto list = [&text](const std::vector<uint16_t>& v) {
    for (uint16_t x : v) text += fmt::format("{:04x},", x);
    text += '|';
  };
  list(h.versions);
  list(h.ciphers);
  list(h.groups);
  list(h.key_shares);
  list(h.sigalgs);
  for (const std::string& a : h.alpn) text += a + ",";
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  EVP_Digest(text.data(), text.size(), md.data(), &len, EVP_sha256(), nullptr);
  std::string out;
  for (unsigned int i = 0; i < 6 && i < len; ++i) out += fmt::format("{:02x}", md[i]);
  return out;
}

std::string OfferedGroupName(uint16_t codepoint) {
  switch (codepoint) {
    case 0x6399:
      return "X25519Kyber768Draft00";
    case 0x639A:
      return "SecP256r1Kyber768Draft00";
    default:
      return GroupName(codepoint);
  }
}

bool IsPostQuantumGroupName(std::string_view name) {
  if (name == "X25519Kyber768Draft00" || name == "SecP256r1Kyber768Draft00") return true;
  auto g = FindGroup(name);
  return g.ok() && (*g)->family != GroupFamily::kClassical;
}

std::string CipherSuiteName(uint16_t codepoint) {
  switch (codepoint) {
    case 0x1301:
      return "TLS_AES_128_GCM_SHA256";
    case 0x1302:
      return "TLS_AES_256_GCM_SHA384";
    case 0x1303:
      return "TLS_CHACHA20_POLY1305_SHA256";
    case 0x1304:
      return "TLS_AES_128_CCM_SHA256";
    case 0x1305:
      return "TLS_AES_128_CCM_8_SHA256";
    default:
      return fmt::format("0x{:04x}", codepoint);
  }
}

std::string VersionName(uint16_t codepoint) {
  switch (codepoint) {
    case 0x0304:
      return "TLSv1.3";
    case 0x0303:
      return "TLSv1.2";
    case 0x0302:
      return "TLSv1.1";
    case 0x0301:
      return "TLSv1.0";
    default:
      return fmt::format("0x{:04x}", codepoint);
  }
}

}  // namespace pqc
