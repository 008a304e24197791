#include "tls/hello_capture.h"

#include "net/tcp_info.h"

namespace pqc {
namespace {

void OnCaptureMessage(int write_p, int /*version*/, int content_type, const void* buf, size_t len,
                      SSL* ssl, void* arg) {
  auto* c = static_cast<HelloCapture*>(arg);
  if (c == nullptr || content_type != SSL3_RT_HANDSHAKE || len < 4) return;
  const auto* msg = static_cast<const uint8_t*>(buf);
  const bool from_client = write_p == 0;
  if (from_client && msg[0] == 1 && c->facts.client_hellos == 0) {
    c->first_hello_bytes = static_cast<uint32_t>(len);
    if (len <= kMaxClientHelloBytes) c->first_hello.assign(msg, msg + len);
    c->segments = DataSegmentsIn(SSL_get_fd(ssl));
  }
  ObserveHandshakeMessage(c->facts, !from_client, msg, len);
}

int CheckHello(SSL* ssl, int* alert, void* /*arg*/) {
  auto* c = static_cast<HelloCapture*>(SSL_get_app_data(ssl));
  if (c == nullptr || c->hello || !c->refused.empty()) return SSL_CLIENT_HELLO_SUCCESS;
  if (c->first_hello_bytes > kMaxClientHelloBytes) {
    c->refused = "ClientHello of " + std::to_string(c->first_hello_bytes) + " bytes, over the " +
                 std::to_string(kMaxClientHelloBytes) + "-byte limit";
  } else if (auto parsed = ParseClientHello(c->first_hello); !parsed) {
    c->refused = parsed.error().message;
  } else {
    c->hello = std::move(*parsed);
    c->first_hello.clear();
    c->first_hello.shrink_to_fit();
    return SSL_CLIENT_HELLO_SUCCESS;
  }
  *alert = SSL_AD_DECODE_ERROR;
  return SSL_CLIENT_HELLO_ERROR;
}

}  // namespace

void AttachHelloCapture(SSL* ssl, HelloCapture* capture) {
  SSL_set_msg_callback(ssl, OnCaptureMessage);
  SSL_set_msg_callback_arg(ssl, capture);
  SSL_set_app_data(ssl, capture);
}

void InstallHelloCheck(SSL_CTX* ctx) {
  SSL_CTX_set_client_hello_cb(ctx, CheckHello, nullptr);
}

}  // namespace pqc
