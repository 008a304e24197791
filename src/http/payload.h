// payload — the bytes of every /payload/<size> body come out of one read-only buffer filled
// once per server and shared by all threads, so a 1M response allocates nothing and copies
// nothing beyond what SSL_write encrypts. Body byte i is PayloadByte(i), a fixed pattern, so
// tests can check content and not only length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace pqc {

// kWriteChunk: the most one SSL_write is given: one full TLS record (2^14 bytes of plaintext).
inline constexpr size_t kWriteChunk = 16 * 1024;

// PayloadByte: body byte i ('a'..'z', period kWriteChunk).
inline char PayloadByte(uint64_t i) {
  return static_cast<char>('a' + (i % kWriteChunk) % 26);
}

// MakePayloadBuffer: 2 * kWriteChunk bytes, so that the kWriteChunk bytes of a body starting
// at any offset are contiguous at PayloadChunk(buffer, offset, ...).
std::vector<char> MakePayloadBuffer();

// PayloadChunk: body bytes [offset, offset + min(left, kWriteChunk)) as a view into buffer.
inline std::span<const char> PayloadChunk(std::span<const char> buffer, uint64_t offset,
                                          uint64_t left) {
  size_t len = left < kWriteChunk ? static_cast<size_t>(left) : kWriteChunk;
  return buffer.subspan(static_cast<size_t>(offset % kWriteChunk), len);
}

}  // namespace pqc
