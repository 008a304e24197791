// probe_diff — two probe documents compared: the two builds' facts side by side, and which
// algorithms changed at which layer ("slh-dsa-sha2-128f: tls FAIL → ok") — the original
// study's monthly "has SLH-DSA reached TLS yet?" as one command. Data only; the reporters are
// in probe_diff_output.h.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "report/probe_doc.h"

namespace pqc::report {

// ProbeFact: one fact of both builds ("version", "compiler flags", "provider default").
struct ProbeFact {
  std::string fact;
  std::array<std::string, 2> values;  // "not recorded" for a schema 0 document
  bool differs = false;
};

enum class ProbeLayer { kPrimitive, kX509, kTls };
std::string_view LayerName(ProbeLayer layer);  // "primitive", "x509", "tls"

// LayerChange: one layer of one algorithm that passed in one build and failed in the other.
struct LayerChange {
  ProbeLayer layer;
  bool from = false;  // in the first build
  bool to = false;    // in the second
};

// AlgorithmChange: an algorithm present in both whose layers or whose failure reason differ.
struct AlgorithmChange {
  std::string kind;  // "group" or "signature"
  std::string name;
  std::vector<LayerChange> layers;    // empty: same layers, another reason
  std::array<std::string, 2> errors;  // each build's first failure ("" if none)
};

// OnlyIn: an algorithm one build's probe lists and the other's does not (another pqc-bench's
// table, or a probe run with --only).
struct OnlyIn {
  size_t build = 0;  // 0 or 1
  std::string kind;
  std::string name;
};

struct ProbeDiff {
  std::array<std::string, 2> labels;  // how the two builds are named (their files)
  std::vector<ProbeFact> facts;
  std::vector<AlgorithmChange> changes;
  std::vector<OnlyIn> only_in;
  size_t common = 0;  // algorithms present in both

  // AnyLayerChanged: some algorithm passes a layer in one build and fails it in the other.
  bool AnyLayerChanged() const;
};

ProbeDiff DiffProbes(const ProbeDocument& a, const ProbeDocument& b,
                     std::array<std::string, 2> labels);

}  // namespace pqc::report
