// udp_flows_test — the emulated link's view of QUIC flows on hand-made IP packets: UDP found in
// IPv4 and IPv6 and nothing else (fragments, bad lengths, TCP), the client's first flight and
// the server's first round told apart by what had reached whom, the 3× ratio, and a new
// connection on a reused port split into a flow of its own.
#include "link/udp_flows.h"

#include <gtest/gtest.h>

#include <vector>

namespace pqc::link {
namespace {

constexpr uint16_t kClientPort = 40000, kServerPort = 8443;

// Ipv4Udp: an IPv4 packet 198.18.0.2 → 198.18.0.1 (or back) carrying `payload` over UDP.
std::vector<unsigned char> Ipv4Udp(bool to_server, const std::vector<unsigned char>& payload) {
  const size_t total = 20 + 8 + payload.size();
  std::vector<unsigned char> p(total, 0);
  p[0] = 0x45;
  p[2] = static_cast<unsigned char>(total >> 8);
  p[3] = static_cast<unsigned char>(total);
  p[6] = 0x40;  // don't fragment
  p[8] = 64;
  p[9] = 17;
  const unsigned char client[4] = {198, 18, 0, 2}, server[4] = {198, 18, 0, 1};
  std::copy(to_server ? client : server, (to_server ? client : server) + 4, &p[12]);
  std::copy(to_server ? server : client, (to_server ? server : client) + 4, &p[16]);
  const uint16_t src = to_server ? kClientPort : kServerPort;
  const uint16_t dst = to_server ? kServerPort : kClientPort;
  p[20] = static_cast<unsigned char>(src >> 8);
  p[21] = static_cast<unsigned char>(src);
  p[22] = static_cast<unsigned char>(dst >> 8);
  p[23] = static_cast<unsigned char>(dst);
  const size_t udp_len = 8 + payload.size();
  p[24] = static_cast<unsigned char>(udp_len >> 8);
  p[25] = static_cast<unsigned char>(udp_len);
  std::copy(payload.begin(), payload.end(), p.begin() + 28);
  return p;
}

// Initial: a client Initial's first bytes naming `dcid`, padded to `size` with `fill`.
std::vector<unsigned char> Initial(unsigned char dcid, size_t size, unsigned char fill) {
  std::vector<unsigned char> d = {0xc0, 0,    0,    0,    1,    8,    dcid, dcid,
                                  dcid, dcid, dcid, dcid, dcid, dcid, 0};
  d.resize(size, fill);
  return d;
}

// ServerInitial: the server's first datagram, choosing `scid` as its connection ID.
std::vector<unsigned char> ServerInitial(unsigned char scid, size_t size) {
  std::vector<unsigned char> d = {0xc0, 0,    0,    0,    1,    0,    8,   scid,
                                  scid, scid, scid, scid, scid, scid, scid};
  d.resize(size, 0x5a);
  return d;
}

std::vector<unsigned char> Short(size_t size, unsigned char fill) {
  std::vector<unsigned char> d(size, fill);
  d[0] = 0x40;
  return d;
}

// Send: departed, then delivered (a wire that loses nothing).
void Send(UdpFlowTally& t, bool to_server, const std::vector<unsigned char>& payload) {
  const auto ip = Ipv4Udp(to_server, payload);
  t.Departed(ip, to_server);
  t.Delivered(ip, to_server);
}

TEST(UdpFlows, UdpIsFoundInIpv4AndIpv6AndNothingElse) {
  const auto v4 = Ipv4Udp(true, {1, 2, 3});
  auto d = ParseUdpDatagram(v4);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->src_port, kClientPort);
  EXPECT_EQ(d->dst_port, kServerPort);
  EXPECT_EQ(d->payload.size(), 3u);
  auto tcp = v4;
  tcp[9] = 6;
  EXPECT_FALSE(ParseUdpDatagram(tcp));
  auto fragment = v4;
  fragment[6] = 0x20;  // more fragments
  EXPECT_FALSE(ParseUdpDatagram(fragment));
  auto long_udp = v4;
  long_udp[25] = 40;  // a UDP length past the packet
  EXPECT_FALSE(ParseUdpDatagram(long_udp));
  EXPECT_FALSE(ParseUdpDatagram(std::span(v4).first(27)));
  std::vector<unsigned char> v6(40 + 8 + 2, 0);
  v6[0] = 0x60;
  v6[5] = 10;  // payload length
  v6[6] = 17;
  v6[40] = 0x9c;
  v6[41] = 0x40;  // port 40000
  v6[45] = 10;
  auto d6 = ParseUdpDatagram(v6);
  ASSERT_TRUE(d6);
  EXPECT_EQ(d6->src_port, 40000);
  EXPECT_EQ(d6->payload.size(), 2u);
}

TEST(UdpFlows, FirstFlightAndFirstRoundFollowWhatReachedWhom) {
  UdpFlowTally t;
  // Two Initials (a hybrid ClientHello), then the server's 3× budget in six datagrams.
  Send(t, true, Initial(0x11, 1200, 1));
  Send(t, true, Initial(0x11, 1200, 2));
  for (int i = 0; i < 6; ++i) {
    const auto d = i == 0 ? ServerInitial(0x22, 1200) : Short(1200, static_cast<unsigned char>(i));
    const auto ip = Ipv4Udp(false, d);
    t.Departed(ip, false);
    if (i < 5) t.Delivered(ip, false);  // the sixth is still on the wire
  }
  // The client replies (an ACK): until it reaches the server, the server's bytes are round 1.
  const auto reply = Ipv4Udp(true, Short(60, 7));
  t.Departed(reply, true);
  const auto late = Ipv4Udp(false, Short(1000, 9));
  t.Departed(late, false);  // still round 1: the reply has not arrived
  t.Delivered(reply, true);
  Send(t, false, Short(1200, 10));  // round 2
  t.Delivered(Ipv4Udp(false, Short(1200, 5)), false);
  t.Delivered(late, false);
  const UdpFlowStats s = t.Stats();
  EXPECT_EQ(s.flows, 1u);
  EXPECT_EQ(s.first_flight_datagrams, 2u);
  EXPECT_EQ(s.first_flight_bytes, 2400u);
  EXPECT_EQ(s.first_round_datagrams, 7u);
  EXPECT_EQ(s.first_round_bytes, 6 * 1200u + 1000u);
  EXPECT_EQ(s.datagrams_to_server, 3u);
  EXPECT_EQ(s.datagrams_to_client, 8u);
  EXPECT_EQ(s.answered_flows, 1u);
  EXPECT_DOUBLE_EQ(s.first_round_ratio_max, 8200.0 / 2400.0);  // over 3: a server breaking §8.1
  EXPECT_EQ(s.at_budget_flows, 1u);
}

TEST(UdpFlows, ASmallFlightIsNotAtTheBudgetAndANewConnectionOnThePortIsANewFlow) {
  UdpFlowTally t;
  Send(t, true, Initial(0x11, 1200, 1));
  Send(t, false, ServerInitial(0x22, 1200));
  // The client's next Initial names the server's connection ID: the same flow.
  Send(t, true, Initial(0x22, 1200, 3));
  Send(t, false, Short(300, 4));
  // A new ClientHello from the same port, new connection IDs: a second flow.
  Send(t, true, Initial(0x33, 1200, 5));
  const UdpFlowStats s = t.Stats();
  EXPECT_EQ(s.flows, 2u);
  EXPECT_EQ(s.first_flight_datagrams, 2u);  // one per flow
  EXPECT_EQ(s.answered_flows, 1u);
  // The client's second Initial answered the server's first and reached it before the 300
  // bytes left: those are the second round.
  EXPECT_EQ(s.first_round_bytes, 1200u);
  EXPECT_DOUBLE_EQ(s.first_round_ratio_max, 1.0);
  EXPECT_EQ(s.at_budget_flows, 0u);
  EXPECT_EQ(s.datagrams_to_server, 3u);
}

}  // namespace
}  // namespace pqc::link
