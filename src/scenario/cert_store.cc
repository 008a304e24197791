#include "scenario/cert_store.h"

#include <filesystem>

namespace pqc::scenario {

Result<const StoredChain*> CertStore::Get(const std::string& spec) {
  if (auto it = chains_.find(spec); it != chains_.end()) return &it->second;
  auto parsed = ParseChainSpec(spec);
  if (!parsed) return parsed.error();
  auto chain = MakeChain(*parsed);
  if (!chain) return chain.error();
  std::string name = spec;
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  const std::string dir = (std::filesystem::path(dir_) / name).string();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  auto files = WriteChainFiles(*chain, dir);
  if (!files) return files.error();
  auto [it, inserted] = chains_.emplace(spec, StoredChain{std::move(*chain), std::move(*files)});
  return &it->second;
}

}  // namespace pqc::scenario
