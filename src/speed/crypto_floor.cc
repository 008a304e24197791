#include "speed/crypto_floor.h"

#include <fmt/format.h>

#include <algorithm>

#include "tls/algorithms.h"

namespace pqc::speed {
namespace {

class FloorBuilder {
 public:
  explicit FloorBuilder(const SpeedTable& table) : table_(table) {}

  Status Add(bool server, std::string_view algorithm, SpeedOp op, int count, std::string why) {
    auto us = table_.Micros(algorithm, op);
    if (!us) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("crypto floor: the speed table has no {} {} (measure it: "
                                   "pqc-bench speed --only {})",
                                   algorithm, SpeedOpName(op), algorithm));
    }
    FloorTerm t{server, std::string(algorithm), op, count, *us * count, std::move(why)};
    (server ? floor_.server_us : floor_.client_us) += t.us;
    floor_.terms.push_back(std::move(t));
    return {};
  }
  CryptoFloor Take() { return std::move(floor_); }

 private:
  const SpeedTable& table_;
  CryptoFloor floor_;
};

}  // namespace

Result<CryptoFloor> PredictHandshakeCrypto(const SpeedTable& table, std::string_view group,
                                           const std::vector<std::string>& key_shares,
                                           const ChainSpec& chain, bool resumed) {
  auto g = FindGroup(group);
  if (!g) return g.error();
  if (chain.links.empty()) {
    return MakeError(ErrorKind::kUsage, "crypto floor: the chain has no certificate");
  }
  std::vector<std::string> shares = key_shares;
  if (shares.empty()) shares.push_back(std::string(group));
  FloorBuilder b(table);
  for (const std::string& share : shares) {
    if (Status s = b.Add(false, share, SpeedOp::kKeygen, 1, "key share"); !s) return s.error();
  }
  if (std::find(shares.begin(), shares.end(), group) == shares.end()) {
    if (Status s = b.Add(false, group, SpeedOp::kKeygen, 1, "key share after HelloRetryRequest");
        !s) {
      return s.error();
    }
  }
  const bool kem = (*g)->is_kem;
  if (Status s = b.Add(false, group, kem ? SpeedOp::kDecaps : SpeedOp::kDerive, 1, "shared secret");
      !s) {
    return s.error();
  }
  if (!kem) {
    if (Status s = b.Add(true, group, SpeedOp::kKeygen, 1, "key share"); !s) return s.error();
  }
  if (Status s = b.Add(true, group, kem ? SpeedOp::kEncaps : SpeedOp::kDerive, 1, "shared secret");
      !s) {
    return s.error();
  }
  if (!resumed) {
    const std::string leaf(chain.links.front()->name);
    if (Status s = b.Add(true, leaf, SpeedOp::kSign, 1, "CertificateVerify"); !s) {
      return s.error();
    }
    if (Status s = b.Add(false, leaf, SpeedOp::kVerify, 1, "CertificateVerify"); !s) {
      return s.error();
    }
    for (size_t i = 0; i + 1 < chain.links.size(); ++i) {
      const std::string issuer(chain.links[i + 1]->name);
      std::string why = fmt::format("certificate {} signed by {}", i, issuer);
      if (Status s = b.Add(false, issuer, SpeedOp::kVerify, 1, std::move(why)); !s) {
        return s.error();
      }
    }
  }
  return b.Take();
}

Result<FloorArm> ParseFloorArm(std::string_view text) {
  FloorArm arm;
  arm.text = std::string(text);
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("--arm {}: expected GROUP:CHAIN[:resume], e.g. "
                                 "X25519MLKEM768:ml-dsa-65 or X25519:ecdsa-p256:resume",
                                 text));
  }
  std::string_view chain_text = text.substr(colon + 1);
  if (chain_text.ends_with(":resume")) {
    arm.resumed = true;
    chain_text.remove_suffix(std::string_view(":resume").size());
  } else if (chain_text.ends_with(":fresh")) {
    chain_text.remove_suffix(std::string_view(":fresh").size());
  }
  auto g = FindGroup(text.substr(0, colon));
  if (!g) return MakeError(ErrorKind::kUsage, fmt::format("--arm {}: {}", text, g.error().message));
  arm.group = std::string((*g)->name);
  arm.key_shares = {arm.group};
  auto chain = ParseChainSpec(chain_text);
  if (!chain) {
    return MakeError(ErrorKind::kUsage, fmt::format("--arm {}: {}", text, chain.error().message));
  }
  arm.chain = std::move(*chain);
  return arm;
}

std::vector<std::string> AlgorithmsFor(const FloorArm& arm) {
  std::vector<std::string> names = arm.key_shares;
  names.push_back(arm.group);
  for (const SignatureInfo* s : arm.chain.links) names.emplace_back(s->name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace pqc::speed
