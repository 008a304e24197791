// h1_exchange — HTTP/1.1's half of a connection: the request bytes built once per thread
// (ConnectionEnv), the last asking the server to close; responses read by the tool's own
// parser (http/response_parser.h).
#pragma once

#include <string>

#include "client/http_exchange.h"
#include "http/response_parser.h"

namespace pqc {

class H1Exchange final : public HttpExchange {
 public:
  explicit H1Exchange(const ConnectionEnv& env) : env_(env) {}

  Status BeginRequest(bool last) override;
  std::string_view Output() override;
  void Wrote(size_t n) override { offset_ += n; }
  void Rewind() override { offset_ = 0; }
  ExchangeStep Feed(std::string_view in) override;
  ExchangeStep FeedEof() override;

  bool keep_alive() const override { return parser_.keep_alive(); }
  const std::string& error() const override { return error_; }

 private:
  const ConnectionEnv& env_;
  // Step: an event for the request in flight, `began` and `completed` as the bytes did.
  ExchangeStep Step(ExchangeStep::Status status, bool began, bool completed);

  const std::string* request_ = nullptr;
  size_t requests_ = 0;  // begun, the one in flight the last
  size_t offset_ = 0;
  bool awaiting_ = false;  // a request sent whose response has not ended
  bool began_ = false;
  ResponseParser parser_;
  RequestEvent event_;  // what the last Feed or FeedEof did
  std::string error_;
};

}  // namespace pqc
