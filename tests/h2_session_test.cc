// The client's HTTP/2 session (h2/client_session.h) against nghttp2's own server session,
// joined in memory: the bytes each writes are the other's input, as over a TLS stream.
#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <string>

#include "h2/client_session.h"

namespace pqc::h2 {
namespace {

// Server: nghttp2's server session answering every request's end with `status` and a body of
// `body` bytes, or with a reset when `reset` is set.
class Server {
 public:
  Server(uint32_t status, size_t body, bool reset = false)
      : status_(std::to_string(status)), body_(body, 'x'), reset_(reset) {
    nghttp2_session_callbacks* cb = nullptr;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, &Server::FrameReceived);
    nghttp2_session_server_new(&session_, cb, this);
    nghttp2_session_callbacks_del(cb);
    const nghttp2_settings_entry streams{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100};
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, &streams, 1);
  }
  ~Server() { nghttp2_session_del(session_); }

  // Exchange: reads what the client wrote, returns what the server writes back.
  std::string Exchange(std::string_view in) {
    const ssize_t n =
        nghttp2_session_mem_recv(session_, reinterpret_cast<const uint8_t*>(in.data()), in.size());
    EXPECT_EQ(n, static_cast<ssize_t>(in.size())) << nghttp2_strerror(static_cast<int>(n));
    std::string out;
    for (;;) {
      const uint8_t* data = nullptr;
      const ssize_t k = nghttp2_session_mem_send(session_, &data);
      if (k <= 0) break;
      out.append(reinterpret_cast<const char*>(data), static_cast<size_t>(k));
    }
    return out;
  }
  void GoAway() {
    nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, 0, NGHTTP2_NO_ERROR, nullptr, 0);
  }

 private:
  static int FrameReceived(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
    auto* self = static_cast<Server*>(user);
    if ((frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) ||
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0) {
      return 0;
    }
    if (self->reset_) {
      return nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id,
                                       NGHTTP2_REFUSED_STREAM);
    }
    nghttp2_nv status{reinterpret_cast<uint8_t*>(const_cast<char*>(":status")),
                      reinterpret_cast<uint8_t*>(self->status_.data()), 7, self->status_.size(),
                      NGHTTP2_NV_FLAG_NONE};
    self->sent_[frame->hd.stream_id] = 0;
    nghttp2_data_provider body{};
    body.source.ptr = self;
    body.read_callback = &Server::ReadBody;
    return nghttp2_submit_response(session, frame->hd.stream_id, &status, 1, &body);
  }
  static ssize_t ReadBody(nghttp2_session*, int32_t stream, uint8_t* buf, size_t length,
                          uint32_t* flags, nghttp2_data_source* source, void*) {
    auto* self = static_cast<Server*>(source->ptr);
    size_t& sent = self->sent_[stream];
    const size_t n = std::min(length, self->body_.size() - sent);
    std::copy_n(self->body_.data() + sent, n, buf);
    sent += n;
    if (sent == self->body_.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }

  nghttp2_session* session_ = nullptr;
  std::string status_, body_;
  std::map<int32_t, size_t> sent_;  // body bytes sent, per stream
  bool reset_;
};

std::unique_ptr<ClientSession> Client() {
  auto c = ClientSession::Make();
  EXPECT_TRUE(c.ok()) << c.error().message;
  return c.ok() ? std::move(*c) : nullptr;
}

std::string OutputOf(ClientSession& c) {
  std::string out;
  EXPECT_TRUE(c.Output(out).ok());
  return out;
}

TEST(H2ClientSession, RequestsOneAfterAnotherGetTheirStatusBodyAndEnd) {
  auto client = Client();
  ASSERT_TRUE(client);
  Server server(200, 100'000);  // more than the server's default 64 KiB window: ours is larger
  for (int request = 0; request < 3; ++request) {
    SCOPED_TRACE(request);
    ASSERT_TRUE(client->SubmitGet("localhost", "/payload/100K").ok());
    std::string out = OutputOf(*client);
    if (request == 0) {
      // The connection preface, then the client's SETTINGS.
      EXPECT_EQ(out.substr(0, 24), "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
      EXPECT_EQ(out[24 + 3], NGHTTP2_SETTINGS);
    }
    bool began = false;
    FeedResult r;
    for (int round = 0; round < 10 && r.status == FeedStatus::kNeedMore; ++round) {
      const std::string answer = server.Exchange(out);
      if (answer.empty() && out.empty()) break;
      r = client->Feed(answer);
      began = began || r.response_began;
      out = OutputOf(*client);
    }
    ASSERT_EQ(r.status, FeedStatus::kComplete) << client->error();
    EXPECT_TRUE(began);
    EXPECT_TRUE(client->response_complete());
    EXPECT_EQ(client->status(), 200u);
    EXPECT_EQ(client->body_bytes(), 100'000u);
    EXPECT_FALSE(client->goaway());
  }
  // The server's SETTINGS (and its acknowledgement of ours) came before the first response.
  EXPECT_GE(client->frames_before_response(), 1u);
  client->Terminate();
  const std::string bye = OutputOf(*client);
  ASSERT_GE(bye.size(), 9u);
  EXPECT_EQ(bye[3], NGHTTP2_GOAWAY);
}

TEST(H2ClientSession, RequestsSideBySideEachGetTheirOwnAnswerAndEvents) {
  auto client = Client();
  ASSERT_TRUE(client);
  Server server(200, 100'000);  // responses interleave: each body spans several DATA frames
  constexpr size_t kStreams = 4;
  for (size_t i = 0; i < kStreams; ++i) {
    ASSERT_TRUE(client->SubmitGet("localhost", "/payload/100K").ok());
  }
  ASSERT_EQ(client->responses(), kStreams);
  std::string out = OutputOf(*client);
  std::array<int, kStreams> began{}, completed{};
  for (int round = 0; round < 20 && !client->all_complete(); ++round) {
    const std::string answer = server.Exchange(out);
    if (answer.empty() && out.empty()) break;
    const FeedResult r = client->Feed(answer);
    ASSERT_NE(r.status, FeedStatus::kError) << client->error();
    bool any_completed = false;
    for (const StreamEvent& e : r.events) {
      ASSERT_LT(e.request, kStreams);
      began[e.request] += e.began ? 1 : 0;
      completed[e.request] += e.completed ? 1 : 0;
      any_completed = any_completed || e.completed;
      // Each request at most once in a feed's events.
      EXPECT_EQ(std::count_if(r.events.begin(), r.events.end(),
                              [&](const StreamEvent& o) { return o.request == e.request; }),
                1);
    }
    EXPECT_EQ(r.status == FeedStatus::kComplete, any_completed);
    out = OutputOf(*client);
  }
  ASSERT_TRUE(client->all_complete()) << client->error();
  for (size_t i = 0; i < kStreams; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(began[i], 1);
    EXPECT_EQ(completed[i], 1);
    EXPECT_EQ(client->response(i).stream, static_cast<int32_t>(2 * i + 1));
    EXPECT_EQ(client->response(i).status, 200u);
    EXPECT_EQ(client->response(i).body_bytes, 100'000u);
  }
}

TEST(H2ClientSession, AResetStreamABrokenStreamAndAGoawayFailTheResponseSayingWhy) {
  {
    auto client = Client();
    Server server(200, 10, /*reset=*/true);
    ASSERT_TRUE(client->SubmitGet("localhost", "/").ok());
    const FeedResult r = client->Feed(server.Exchange(OutputOf(*client)));
    EXPECT_EQ(r.status, FeedStatus::kError);
    EXPECT_NE(client->error().find("reset stream 1 (REFUSED_STREAM)"), std::string::npos)
        << client->error();
  }
  {
    auto client = Client();
    ASSERT_TRUE(client->SubmitGet("localhost", "/").ok());
    OutputOf(*client);
    const FeedResult r = client->Feed("HTTP/1.1 200 OK\r\n\r\n");
    EXPECT_EQ(r.status, FeedStatus::kError);
    EXPECT_NE(client->error().find("the server broke HTTP/2"), std::string::npos)
        << client->error();
  }
  {
    auto client = Client();
    Server server(200, 10);
    server.GoAway();  // last stream 0: the request is not taken
    ASSERT_TRUE(client->SubmitGet("localhost", "/").ok());
    const FeedResult r = client->Feed(server.Exchange(OutputOf(*client)));
    EXPECT_EQ(r.status, FeedStatus::kError);
    EXPECT_TRUE(client->goaway());
    EXPECT_NE(client->error().find("went away (GOAWAY NO_ERROR) before answering stream 1"),
              std::string::npos)
        << client->error();
  }
}

TEST(H2ClientSession, ANonOkStatusIsTheResponses) {
  auto client = Client();
  Server server(404, 9);
  ASSERT_TRUE(client->SubmitGet("localhost", "/nope").ok());
  FeedResult r = client->Feed(server.Exchange(OutputOf(*client)));
  for (int round = 0; round < 5 && r.status == FeedStatus::kNeedMore; ++round) {
    r = client->Feed(server.Exchange(OutputOf(*client)));
  }
  ASSERT_EQ(r.status, FeedStatus::kComplete) << client->error();
  EXPECT_EQ(client->status(), 404u);
  EXPECT_EQ(client->body_bytes(), 9u);
}

}  // namespace
}  // namespace pqc::h2
