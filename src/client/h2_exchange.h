// h2_exchange — HTTP/2's half of a connection (h2/client_session.h): the connection preface,
// the client's SETTINGS and window with the first request (as early data too, when the mode
// asks), one stream per request (as many open at once as the arm's streams), the server's own
// frames between responses answered, a GOAWAY at the end.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "client/http_exchange.h"
#include "h2/client_session.h"

namespace pqc {

class H2Exchange final : public HttpExchange {
 public:
  H2Exchange(const ConnectionEnv& env, ConnectionRecord& record,
             std::unique_ptr<h2::ClientSession> session)
      : env_(env), record_(record), session_(std::move(session)) {}

  Status BeginRequest(bool last) override;
  std::string_view Output() override;
  void Wrote(size_t n) override;
  void Rewind() override;
  ExchangeStep Feed(std::string_view in) override;
  ExchangeStep FeedEof() override;
  void Close() override { session_->Terminate(); }

  bool keep_alive() const override { return !session_->goaway(); }
  const std::string& error() const override { return error_; }
  const h2::ClientSession& session() const { return *session_; }

 private:
  const ConnectionEnv& env_;
  ConnectionRecord& record_;  // the connection's: its HTTP/2 fields are filled here
  std::unique_ptr<h2::ClientSession> session_;
  std::string out_;      // framed, not yet written
  size_t offset_ = 0;    // of out_, written
  std::string written_;  // written before the server's first byte: what Rewind sends again
  bool heard_ = false;   // the server's first bytes arrived (Rewind no longer possible)
  std::vector<RequestEvent> events_;  // the last Feed's
  std::string error_;
};

}  // namespace pqc
