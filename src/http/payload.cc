#include "http/payload.h"

namespace pqc {

std::vector<char> MakePayloadBuffer() {
  std::vector<char> buffer(2 * kWriteChunk);
  for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = PayloadByte(i);
  return buffer;
}

}  // namespace pqc
