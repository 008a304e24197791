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
  ExchangeStep::Status FeedEof() override;

  uint32_t status() const override { return static_cast<uint32_t>(parser_.status_code()); }
  uint64_t body_bytes() const override { return parser_.body_bytes(); }
  bool keep_alive() const override { return parser_.keep_alive(); }
  const std::string& error() const override { return error_; }

 private:
  const ConnectionEnv& env_;
  const std::string* request_ = nullptr;
  size_t offset_ = 0;
  bool awaiting_ = false;  // a request sent whose response has not ended
  bool began_ = false;
  ResponseParser parser_;
  std::string error_;
};

}  // namespace pqc
