#include "server/client_observer.h"

#include <sys/socket.h>

#include "core/clock.h"
#include "net/address.h"
#include "tls/algorithms.h"

namespace pqc::server {

ClientObserver::ClientObserver(SSL* ssl, int fd, ClientRecordSink* sink) : sink_(sink) {
  record_.time_unix_ns = UnixNowNs();
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) == 0) {
    record_.peer = AddressFromSockaddr(reinterpret_cast<const sockaddr*>(&ss), len).ToString();
  }
  AttachHelloCapture(ssl, &capture_);
}

void ClientObserver::HandshakeDone(SSL* ssl) {
  record_.outcome = ClientOutcome::kOk;
  if (const char* group = SSL_get0_group_name(ssl)) record_.group = CanonicalGroupName(group);
  record_.cipher = SSL_CIPHER_get_name(SSL_get_current_cipher(ssl));
  record_.resumed = SSL_session_reused(ssl) == 1;
  record_.early_data_accepted = SSL_get_early_data_status(ssl) == SSL_EARLY_DATA_ACCEPTED;
}

void ClientObserver::HandshakeFailed(std::string reason) {
  if (record_.failure.empty()) record_.failure = std::move(reason);
}

void ClientObserver::FirstRequest(std::string_view user_agent) {
  record_.user_agent.assign(user_agent);
  Finish();
}

void ClientObserver::Finish() {
  if (done_) return;
  done_ = true;
  if (capture_.hello) record_.hello = std::move(*capture_.hello);
  record_.hello_segments = capture_.segments;
  record_.hrr = capture_.facts.hrr();
  record_.signature_scheme = capture_.facts.signature_scheme;
  // A ClientHello OpenSSL refused before the ClientHello callback ran (too short to hold its
  // fields, say) is still judged by our parser: malformed is malformed, whoever noticed.
  if (!capture_.hello && capture_.refused.empty() && capture_.first_hello_bytes > 0) {
    if (capture_.first_hello_bytes > kMaxClientHelloBytes) {
      capture_.refused = "ClientHello of " + std::to_string(capture_.first_hello_bytes) +
                         " bytes, over the " + std::to_string(kMaxClientHelloBytes) + "-byte limit";
    } else if (auto parsed = ParseClientHello(capture_.first_hello); !parsed) {
      capture_.refused = parsed.error().message;
    } else {
      record_.hello = std::move(*parsed);
    }
  }
  record_.hello.bytes = capture_.first_hello_bytes;
  if (!capture_.refused.empty()) {
    record_.outcome = capture_.first_hello_bytes > kMaxClientHelloBytes ? ClientOutcome::kOversize
                                                                        : ClientOutcome::kMalformed;
    record_.failure = capture_.refused;
  } else if (record_.outcome != ClientOutcome::kOk && record_.failure.empty()) {
    record_.failure = capture_.first_hello_bytes == 0 ? "closed before a ClientHello"
                                                      : "closed during the handshake";
  }
  sink_->Add(std::move(record_));
}

}  // namespace pqc::server
