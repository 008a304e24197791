// split_input — turns the first bytes of a fuzz input into the sizes of the pieces that the
// rest is fed in. The real parsers get data in whatever pieces read() returns, so a fuzz
// target that only fed whole inputs would never reach the code that joins a line or a
// chunk-size split across reads; letting the fuzzer choose the splits lets it aim there.
//
// Layout: byte 0 = flags (the low 3 bits are n, the count of size bytes; the other bits are
// the target's own); bytes 1..n = piece sizes, used in turn, each (byte + 1); the rest is
// the message stream. n = 0 feeds one byte at a time, the finest split.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace pqc::fuzz {

class SplitInput {
 public:
  SplitInput(const uint8_t* data, size_t size) {
    if (size == 0) return;
    flags_ = data[0];
    const size_t n = data[0] & 0x07u;
    const size_t header = 1 + (n < size - 1 ? n : size - 1);
    sizes_ = std::string_view(reinterpret_cast<const char*>(data + 1), header - 1);
    stream_ = std::string_view(reinterpret_cast<const char*>(data + header), size - header);
  }

  uint8_t flags() const { return flags_; }
  std::string_view stream() const { return stream_; }

  // PieceSize: the size of the i-th piece (0-based).
  size_t PieceSize(size_t i) const {
    if (sizes_.empty()) return 1;
    return static_cast<uint8_t>(sizes_[i % sizes_.size()]) + 1u;
  }

 private:
  uint8_t flags_ = 0;
  std::string_view sizes_;
  std::string_view stream_;
};

// Check: the fuzz targets' assertion. A trap, not abort(), so that the replay tests and
// libFuzzer both report it as a crash with the failing input, in every build type.
inline void Check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace pqc::fuzz
