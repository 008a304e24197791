// measured — the measured connections of a load result (warm-up left out), as the load tests
// judge them.
#pragma once

#include <vector>

#include "records/load_result.h"

namespace pqc::test {

inline std::vector<const ConnectionRecord*> Measured(const LoadResult& r) {
  std::vector<const ConnectionRecord*> out;
  for (const ConnectionRecord& c : r.connections) {
    if (c.measured) out.push_back(&c);
  }
  return out;
}

}  // namespace pqc::test
