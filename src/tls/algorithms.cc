#include "tls/algorithms.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "core/split.h"

namespace pqc {
namespace {

using enum GroupFamily;
constexpr std::array<GroupInfo, 8> kGroups{{
    {"X25519", kClassical, "X25519", "", false, 0x001d},
    {"secp256r1", kClassical, "EC", "P-256", false, 0x0017},
    {"X25519MLKEM768", kHybrid, "X25519MLKEM768", "", true, 0x11ec},
    {"SecP256r1MLKEM768", kHybrid, "SecP256r1MLKEM768", "", true, 0x11eb},
    {"SecP384r1MLKEM1024", kHybrid, "SecP384r1MLKEM1024", "", true, 0x11ed},
    {"MLKEM512", kPostQuantum, "ML-KEM-512", "", true, 0x0200},
    {"MLKEM768", kPostQuantum, "ML-KEM-768", "", true, 0x0201},
    {"MLKEM1024", kPostQuantum, "ML-KEM-1024", "", true, 0x0202},
}};

using enum SignatureFamily;
constexpr std::array<SignatureInfo, 23> kSignatures{{
    {"ecdsa-p256", kEcdsa, "EC", "P-256", 0, "SHA256", "ecdsa_secp256r1_sha256", 0x0403},
    {"ecdsa-p384", kEcdsa, "EC", "P-384", 0, "SHA384", "ecdsa_secp384r1_sha384", 0x0503},
    {"rsa-2048", kRsa, "RSA", "", 2048, "SHA256", "rsa_pss_rsae_sha256", 0x0804},
    {"rsa-3072", kRsa, "RSA", "", 3072, "SHA256", "rsa_pss_rsae_sha256", 0x0804},
    {"rsa-4096", kRsa, "RSA", "", 4096, "SHA256", "rsa_pss_rsae_sha256", 0x0804},
    {"ed25519", kEdDsa, "ED25519", "", 0, "", "ed25519", 0x0807},
    {"ml-dsa-44", kMlDsa, "ML-DSA-44", "", 0, "", "mldsa44", 0x0904},
    {"ml-dsa-65", kMlDsa, "ML-DSA-65", "", 0, "", "mldsa65", 0x0905},
    {"ml-dsa-87", kMlDsa, "ML-DSA-87", "", 0, "", "mldsa87", 0x0906},
    // SLH-DSA has no TLS 1.3 SignatureScheme in OpenSSL 3.5: probe shows the TLS failure.
    {"slh-dsa-sha2-128s", kSlhDsa, "SLH-DSA-SHA2-128s", "", 0, "", "", 0},
    {"slh-dsa-sha2-128f", kSlhDsa, "SLH-DSA-SHA2-128f", "", 0, "", "", 0},
    {"slh-dsa-sha2-192s", kSlhDsa, "SLH-DSA-SHA2-192s", "", 0, "", "", 0},
    {"slh-dsa-sha2-192f", kSlhDsa, "SLH-DSA-SHA2-192f", "", 0, "", "", 0},
    {"slh-dsa-sha2-256s", kSlhDsa, "SLH-DSA-SHA2-256s", "", 0, "", "", 0},
    {"slh-dsa-sha2-256f", kSlhDsa, "SLH-DSA-SHA2-256f", "", 0, "", "", 0},
    {"slh-dsa-shake-128s", kSlhDsa, "SLH-DSA-SHAKE-128s", "", 0, "", "", 0},
    {"slh-dsa-shake-128f", kSlhDsa, "SLH-DSA-SHAKE-128f", "", 0, "", "", 0},
    {"slh-dsa-shake-192s", kSlhDsa, "SLH-DSA-SHAKE-192s", "", 0, "", "", 0},
    {"slh-dsa-shake-192f", kSlhDsa, "SLH-DSA-SHAKE-192f", "", 0, "", "", 0},
    {"slh-dsa-shake-256s", kSlhDsa, "SLH-DSA-SHAKE-256s", "", 0, "", "", 0},
    {"slh-dsa-shake-256f", kSlhDsa, "SLH-DSA-SHAKE-256f", "", 0, "", "", 0},
    // Not a certificate type of ours, but a scheme peers may negotiate; kept for naming.
    {"ed448", kEdDsa, "ED448", "", 0, "", "ed448", 0x0808},
    {"ecdsa-p521", kEcdsa, "EC", "P-521", 0, "SHA512", "ecdsa_secp521r1_sha512", 0x0603},
}};

struct SchemeName {
  uint16_t codepoint;
  std::string_view name;
};
// Schemes a peer may pick that no certificate type above maps to one-to-one.
constexpr std::array<SchemeName, 8> kExtraSchemes{{
    {0x0805, "rsa_pss_rsae_sha384"},
    {0x0806, "rsa_pss_rsae_sha512"},
    {0x0809, "rsa_pss_pss_sha256"},
    {0x080a, "rsa_pss_pss_sha384"},
    {0x080b, "rsa_pss_pss_sha512"},
    {0x0401, "rsa_pkcs1_sha256"},
    {0x0501, "rsa_pkcs1_sha384"},
    {0x0601, "rsa_pkcs1_sha512"},
}};

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

template <typename Info>
Result<const Info*> Find(std::span<const Info> table, std::string_view name,
                         std::string_view what) {
  std::vector<std::string_view> names;
  for (const Info& info : table) {
    if (info.name == name) return &info;
    names.push_back(info.name);
  }
  std::string msg = fmt::format("unknown {} '{}'", what, name);
  if (auto near = NearestName(name, names)) msg += fmt::format(" (did you mean {}?)", *near);
  msg += fmt::format("; valid: {}", fmt::join(names, ", "));
  return MakeError(ErrorKind::kUsage, std::move(msg));
}

}  // namespace

std::span<const GroupInfo> AllGroups() {
  return kGroups;
}

// The last two rows are naming aids only, not certificate types we make.
std::span<const SignatureInfo> AllSignatures() {
  return std::span<const SignatureInfo>(kSignatures).first(kSignatures.size() - 2);
}

Result<const GroupInfo*> FindGroup(std::string_view name) {
  return Find(AllGroups(), name, "group");
}

Result<const SignatureInfo*> FindSignature(std::string_view name) {
  return Find(AllSignatures(), name, "signature type");
}

Result<std::vector<std::string>> ParseGroupList(std::string_view list) {
  std::vector<std::string> out;
  for (std::string_view item : Split(list, ":,")) {
    if (item.empty()) {
      return MakeError(
          ErrorKind::kUsage,
          fmt::format("empty group name in list '{}' (separate names with ':')", list));
    }
    auto found = FindGroup(item);
    if (!found) return found.error();
    out.emplace_back(item);
  }
  return out;
}

std::string SignatureSchemeName(uint16_t codepoint) {
  for (const SignatureInfo& s : kSignatures) {
    if (s.codepoint == codepoint && codepoint != 0) return std::string(s.tls_sigalg);
  }
  for (const SchemeName& s : kExtraSchemes) {
    if (s.codepoint == codepoint) return std::string(s.name);
  }
  return fmt::format("0x{:04x}", codepoint);
}

std::string CanonicalGroupName(std::string_view openssl_name) {
  for (const GroupInfo& g : kGroups) {
    if (Lower(g.name) == Lower(openssl_name)) return std::string(g.name);
  }
  return std::string(openssl_name);
}

std::string GroupName(uint16_t codepoint) {
  for (const GroupInfo& g : kGroups) {
    if (g.codepoint == codepoint) return std::string(g.name);
  }
  return fmt::format("0x{:04x}", codepoint);
}

std::string_view FamilyName(GroupFamily family) {
  switch (family) {
    case kClassical:
      return "classical";
    case kHybrid:
      return "hybrid";
    case kPostQuantum:
      return "post-quantum";
  }
  return "?";
}

std::string_view FamilyName(SignatureFamily family) {
  switch (family) {
    case kEcdsa:
      return "ECDSA";
    case kRsa:
      return "RSA";
    case kEdDsa:
      return "EdDSA";
    case kMlDsa:
      return "ML-DSA";
    case kSlhDsa:
      return "SLH-DSA";
  }
  return "?";
}

std::optional<std::string_view> NearestName(std::string_view typed,
                                            const std::vector<std::string_view>& candidates) {
  std::string low = Lower(typed);
  std::optional<std::string_view> best;
  size_t best_d = SIZE_MAX;
  for (std::string_view c : candidates) {
    size_t d = EditDistance(low, Lower(c));
    if (d < best_d) best_d = d, best = c;
  }
  // Farther than a third of the name is a guess, not a suggestion.
  if (best && best_d <= std::max<size_t>(2, typed.size() / 3)) return best;
  return std::nullopt;
}

std::string TolerantGroupList(std::string_view list) {
  std::string out;
  size_t start = 0;
  // Bounded: each pass consumes one group and its separator.
  while (start <= list.size()) {
    const size_t end = std::min(list.find_first_of(":/", start), list.size());
    std::string_view item = list.substr(start, end - start);
    if (!item.empty() && item.front() != '?') out += '?';
    out += item;
    if (end < list.size()) out += list[end];
    start = end + 1;
  }
  return out;
}

}  // namespace pqc
