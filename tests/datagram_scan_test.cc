// datagram_scan_test — the QUIC header walk on hand-built datagrams (RFC 9000 §17): coalesced
// Initial + Handshake, a 1-RTT tail, a Retry, and lengths that run past the end.
#include "quic/datagram_scan.h"

#include <gtest/gtest.h>

#include <vector>

namespace pqc::quic {
namespace {

// LongPacket: a long-header packet of `type` with 8-byte connection IDs, an empty token for
// an Initial, and a 2-byte Length covering `payload` bytes that follow.
std::vector<unsigned char> LongPacket(uint8_t type, size_t payload) {
  std::vector<unsigned char> p = {static_cast<unsigned char>(0xc0 | (type << 4)), 0, 0, 0, 1, 8};
  p.insert(p.end(), 8, 0xaa);
  p.push_back(8);
  p.insert(p.end(), 8, 0xbb);
  if (type == 0) p.push_back(0);  // token length
  p.push_back(static_cast<unsigned char>(0x40 | (payload >> 8)));
  p.push_back(static_cast<unsigned char>(payload & 0xff));
  p.insert(p.end(), payload, 0x11);
  return p;
}

TEST(DatagramScan, CoalescedPacketsAreWalkedByTheirLengths) {
  auto d = LongPacket(0, 1100);
  const auto hs = LongPacket(2, 40);
  d.insert(d.end(), hs.begin(), hs.end());
  d.insert(d.end(), {0x40, 1, 2, 3, 4});  // a 1-RTT packet to the end
  const DatagramPackets p = ScanDatagram(d);
  EXPECT_EQ(p.initial, 1);
  EXPECT_EQ(p.handshake, 1);
  EXPECT_TRUE(p.short_header);
  EXPECT_FALSE(p.malformed);
}

TEST(DatagramScan, ARetryEndsTheDatagram) {
  std::vector<unsigned char> d = {0xf0, 0, 0, 0, 1, 0, 4, 1, 2, 3, 4};
  d.insert(d.end(), 40, 0x22);  // token and integrity tag
  const DatagramPackets p = ScanDatagram(d);
  EXPECT_EQ(p.retry, 1);
  EXPECT_FALSE(p.malformed);
}

TEST(DatagramScan, ALengthPastTheEndIsMalformed) {
  auto d = LongPacket(0, 100);
  d.resize(d.size() - 1);
  EXPECT_TRUE(ScanDatagram(d).malformed);
  const std::vector<unsigned char> cut = {0xc0, 0, 0};
  EXPECT_TRUE(ScanDatagram(cut).malformed);
  std::vector<unsigned char> long_cid = {0xc0, 0, 0, 0, 1, 21};
  long_cid.insert(long_cid.end(), 30, 0);
  EXPECT_TRUE(ScanDatagram(long_cid).malformed);
}

TEST(DatagramScan, VarintsOfEveryWidth) {
  const std::vector<unsigned char> d = {0x25, 0x7b, 0xbd, 0x9d, 0x7f, 0x3e, 0x7d, 0xc2,
                                        0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c};
  size_t pos = 0;
  uint64_t v = 0;
  ASSERT_TRUE(ReadVarint(d, &pos, &v));
  EXPECT_EQ(v, 37u);  // RFC 9000 §A.1's examples
  ASSERT_TRUE(ReadVarint(d, &pos, &v));
  EXPECT_EQ(v, 15293u);
  ASSERT_TRUE(ReadVarint(d, &pos, &v));
  EXPECT_EQ(v, 494878333u);
  ASSERT_TRUE(ReadVarint(d, &pos, &v));
  EXPECT_EQ(v, 151288809941952652u);
  EXPECT_EQ(pos, d.size());
  EXPECT_FALSE(ReadVarint(d, &pos, &v));
}

}  // namespace
}  // namespace pqc::quic
