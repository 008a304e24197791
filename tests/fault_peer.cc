#include "fault_peer.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>

#include "tls/context.h"

namespace pqc::test {
namespace {

// RecvExactly: blocking read of n bytes; false on end of stream, error or shutdown.
bool RecvExactly(int fd, char* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::recv(fd, buf + got, n - got, 0);
    if (r <= 0) {
      if (r < 0 && errno == EINTR) continue;
      return false;
    }
    got += static_cast<size_t>(r);
  }
  return true;
}

// ReadClientHello: the first TLS record (5-byte header, then its length), which holds a whole
// ClientHello for every group this project offers (the largest, ML-KEM-1024, fits in 16 KiB).
bool ReadClientHello(int fd) {
  unsigned char header[5];
  if (!RecvExactly(fd, reinterpret_cast<char*>(header), sizeof header)) return false;
  if (header[0] != 0x16) return false;  // not a handshake record: not a TLS client
  const size_t length = (static_cast<size_t>(header[3]) << 8) | header[4];
  std::string body(length, '\0');
  return RecvExactly(fd, body.data(), length);
}

// DrainUntilClosed: waits for the client to give up (end of stream, reset, or Stop's shutdown).
void DrainUntilClosed(int fd) {
  char buf[4096];
  while (true) {
    ssize_t r = ::recv(fd, buf, sizeof buf, 0);
    if (r == 0 || (r < 0 && errno != EINTR)) return;
  }
}

bool SendAll(SSL* ssl, std::string_view data) {
  size_t n = 0;
  return SSL_write_ex(ssl, data.data(), data.size(), &n) == 1 && n == data.size();
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

std::unique_ptr<FaultPeer> FaultPeer::Start(const FaultPeerOptions& options) {
  // A client that closes first (a run's one-handshake preflight) must not kill the test
  // process when the peer writes its session tickets.
  signal(SIGPIPE, SIG_IGN);
  auto peer = std::unique_ptr<FaultPeer>(new FaultPeer());
  peer->options_ = options;
  if (options.chain != nullptr) {
    ServerTlsConfig cfg;
    cfg.groups = "X25519MLKEM768:X25519";
    auto ctx = MakeServerContext(cfg, *options.chain);
    if (!ctx) {
      ADD_FAILURE() << "fault peer TLS context: " << ctx.error().message;
      return nullptr;
    }
    peer->ctx_ = std::move(*ctx);
  }
  // A blocking listener (accept blocks on its own thread; Stop's shutdown wakes it).
  peer->listener_.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  auto any = ParseAddress("127.0.0.1:0");
  if (!peer->listener_.valid() || !any || ::bind(peer->listener_.get(), any->sa(), any->len) != 0 ||
      ::listen(peer->listener_.get(), 1024) != 0) {
    ADD_FAILURE() << "fault peer listener: " << std::strerror(errno);
    return nullptr;
  }
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  ::getsockname(peer->listener_.get(), reinterpret_cast<sockaddr*>(&ss), &len);
  peer->address_ = AddressFromSockaddr(reinterpret_cast<sockaddr*>(&ss), len);
  FaultPeer* raw = peer.get();
  peer->acceptor_ = std::thread([raw] { raw->AcceptLoop(); });
  return peer;
}

FaultPeer::~FaultPeer() {
  stopping_ = true;
  ::shutdown(listener_.get(), SHUT_RDWR);  // wakes accept()
  if (acceptor_.joinable()) acceptor_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (ScopedFd& fd : fds_) {
      if (fd.valid()) ::shutdown(fd.get(), SHUT_RDWR);  // wakes a blocked recv or SSL call
    }
  }
  // No lock while joining: a handler may be about to close its slot.
  for (std::thread& t : handlers_) t.join();
}

void FaultPeer::AcceptLoop() {
  uint64_t index = 0;
  while (!stopping_) {
    int fd = ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // shut down (or out of descriptors: the test will see connect errors)
    }
    ScopedFd owned(fd);
    accepted_.fetch_add(1);
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    const size_t slot = fds_.size();
    fds_.push_back(std::move(owned));
    handlers_.emplace_back([this, slot, i = index++] { Serve(slot, i); });
  }
}

void FaultPeer::CloseSlot(size_t slot, bool reset) {
  std::lock_guard<std::mutex> lock(mu_);
  ScopedFd& fd = fds_[slot];
  if (!fd.valid()) return;
  if (reset) {
    linger l{1, 0};  // close() then sends an RST instead of a FIN
    ::setsockopt(fd.get(), SOL_SOCKET, SO_LINGER, &l, sizeof l);
  }
  fd.reset();
}

void FaultPeer::Serve(size_t slot, uint64_t index) {
  int fd;
  {
    std::lock_guard<std::mutex> lock(mu_);
    fd = fds_[slot].get();
  }
  const bool fault = options_.fault != Fault::kNone && index % options_.every == 0;
  const Fault f = fault ? options_.fault : Fault::kNone;
  if (f == Fault::kResetAfterHello || f == Fault::kStallAfterHello ||
      f == Fault::kGarbageAfterHello) {
    if (!ReadClientHello(fd)) return CloseSlot(slot);
    faults_.fetch_add(1);
    if (f == Fault::kResetAfterHello) return CloseSlot(slot, /*reset=*/true);
    if (f == Fault::kGarbageAfterHello) {
      // Plain HTTP where a ServerHello belongs: no valid TLS record type or version.
      static constexpr std::string_view kGarbage =
          "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n\x01\x02\x03\x04";
      (void)::send(fd, kGarbage.data(), kGarbage.size(), MSG_NOSIGNAL);
    }
    DrainUntilClosed(fd);
    return CloseSlot(slot);
  }
  ServeTls(slot, fault);
}

void FaultPeer::ServeTls(size_t slot, bool fault) {
  int fd;
  {
    std::lock_guard<std::mutex> lock(mu_);
    fd = fds_[slot].get();
  }
  if (!ctx_) return CloseSlot(slot);
  SslPtr ssl(SSL_new(ctx_.get()));
  if (!ssl || SSL_set_fd(ssl.get(), fd) != 1 || SSL_accept(ssl.get()) != 1) {
    return CloseSlot(slot);
  }
  std::string in;
  while (true) {
    size_t end;
    while ((end = in.find("\r\n\r\n")) == std::string::npos) {
      char buf[4096];
      size_t n = 0;
      if (SSL_read_ex(ssl.get(), buf, sizeof buf, &n) != 1) return CloseSlot(slot);
      in.append(buf, n);
    }
    const std::string head = in.substr(0, end + 4);
    in.erase(0, end + 4);
    const size_t sp = head.find(' ');
    const std::string path = head.substr(sp + 1, head.find(' ', sp + 1) - sp - 1);
    const bool wants_close = Lower(head).find("connection: close") != std::string::npos;
    const bool hit =
        fault && (options_.path_prefix.empty() || path.rfind(options_.path_prefix, 0) == 0);
    const Fault f = hit ? options_.fault : Fault::kNone;
    if (hit) faults_.fetch_add(1);
    switch (f) {
      case Fault::kCloseBeforeResponse:
        return CloseSlot(slot);  // a FIN, no close_notify: as a crashed server's kernel does
      case Fault::kShortBody:
        (void)SendAll(ssl.get(),
                      "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n"
                      "0123456789");
        return CloseSlot(slot);
      case Fault::kLongBody:
        // One write, so one record: the extra bytes arrive with the announced body.
        (void)SendAll(ssl.get(),
                      "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: keep-alive\r\n\r\n"
                      "OK\nTWENTY-EXTRA-BYTES!!");
        DrainUntilClosed(fd);
        return CloseSlot(slot);
      default: {
        // Healthy: `/` and /payload/<n> alike get "OK\n" (the tests never check the size).
        const std::string response =
            std::string("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n") +
            (wants_close ? "Connection: close" : "Connection: keep-alive") + "\r\n\r\nOK\n";
        if (!SendAll(ssl.get(), response)) return CloseSlot(slot);
        if (wants_close) {
          SSL_shutdown(ssl.get());
          return CloseSlot(slot);
        }
      }
    }
  }
}

SocketAddress ClosedPort() {
  ScopedFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  auto any = ParseAddress("127.0.0.1:0");
  EXPECT_TRUE(any.ok());
  EXPECT_EQ(::bind(fd.get(), any->sa(), any->len), 0);
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&ss), &len);
  return AddressFromSockaddr(reinterpret_cast<sockaddr*>(&ss), len);
}

}  // namespace pqc::test
