#include "server/worker.h"

#include <pthread.h>

#include <csignal>
#include <utility>

#include "net/socket.h"
#include "server/cpu_time.h"
#include "tls/ssl_error.h"

namespace pqc::server {
namespace {

// kAcceptsPerWake: a burst of new connections yields to established ones after this many.
constexpr int kAcceptsPerWake = 64;
// kAcceptPause: after accept fails (out of fds), how long to stop watching the listener;
// level-triggered readiness would otherwise spin.
constexpr Nanos kAcceptPause = 100'000'000;

// BlockSigpipe: a write to a connection the client has reset raises SIGPIPE (OpenSSL's
// socket BIO uses write(2)); blocked in this thread, the write fails with EPIPE instead,
// and the process's signal dispositions stay the embedding program's business.
void BlockSigpipe() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

}  // namespace

Result<std::unique_ptr<Worker>> Worker::Create(ScopedFd listener, SSL_CTX* ctx,
                                               std::span<const char> payload,
                                               const WorkerSettings& settings) {
  auto loop = EventLoop::Create();
  if (!loop) return loop.error();
  std::unique_ptr<Worker> w(
      new Worker(std::move(*loop), std::move(listener), ctx, payload, settings));
  Worker* self = w.get();
  if (Status s =
          w->loop_->Add(w->listener_.get(), kIoRead, [self](uint32_t) { self->OnAcceptable(); });
      !s) {
    return s.error();
  }
  return w;
}

Worker::Worker(std::unique_ptr<EventLoop> loop, ScopedFd listener, SSL_CTX* ctx,
               std::span<const char> payload, const WorkerSettings& settings)
    : loop_(std::move(loop)),
      listener_(std::move(listener)),
      ctx_(ctx),
      settings_(settings),
      scratch_(16 * 1024) {
  env_.handshake_timeout = settings.handshake_timeout;
  env_.idle_timeout = settings.idle_timeout;
  env_.handshake_cpu = settings.handshake_cpu;
  env_.payload = payload;
  env_.scratch = scratch_;
  env_.stats = &stats_;
  env_.clients = settings.clients;
}

Worker::~Worker() {
  slots_.clear();
}

void Worker::Run() {
  BlockSigpipe();
  const CpuTime cpu_start = ThreadCpu();
  if (Status s = loop_->Run(); !s) stats_.loop_error = s.error().message;
  stopped_at_ = MonotonicNow();
  stats_.open_at_stop = slots_.size();
  for (auto& [fd, slot] : slots_) loop_->Remove(fd);
  slots_.clear();
  loop_->Remove(listener_.get());
  listener_.reset();
  summary_.accepted = stats_.accepted;
  summary_.handshakes = stats_.handshakes();
  summary_.requests = stats_.requests;
  summary_.cpu = ThreadCpu() - cpu_start;
}

void Worker::OnAcceptable() {
  for (int i = 0; i < kAcceptsPerWake; ++i) {
    SocketAddress peer;
    auto fd = AcceptNonBlocking(listener_.get(), &peer);
    if (!fd) {
      ++stats_.accept_errors;
      PauseAccepting();
      return;
    }
    if (!fd->valid()) return;  // nothing pending
    Admit(std::move(*fd), peer);
  }
}

void Worker::PauseAccepting() {
  if (!loop_->Modify(listener_.get(), 0)) return;
  loop_->AddTimer(MonotonicNow() + kAcceptPause,
                  [this] { (void)loop_->Modify(listener_.get(), kIoRead); });
}

void Worker::Admit(ScopedFd fd, const SocketAddress& peer) {
  ++stats_.accepted;
  if (slots_.size() >= settings_.max_connections) {
    ++stats_.refused;
    return;  // fd closes here
  }
  std::optional<SourceLimiter::Hold> hold;
  if (settings_.per_source != nullptr) {
    hold = settings_.per_source->Acquire(peer);
    if (!hold) {
      ++stats_.refused_per_source;
      return;  // fd closes here
    }
  }
  // Best effort: a handshake is a sequence of small flights that Nagle would delay.
  (void)SetNoDelay(fd.get());
  SslPtr ssl(SSL_new(ctx_));
  if (!ssl || SSL_set_fd(ssl.get(), fd.get()) != 1) {
    stats_.last_tls_error = SslError("creating a server connection").message;
    ++stats_.handshake_failures.other;
    return;
  }
  SSL_set_accept_state(ssl.get());
  const int raw = fd.get();
  Slot* slot = &slots_.try_emplace(raw).first->second;
  open_.store(slots_.size(), std::memory_order_release);
  slot->conn = std::make_unique<Connection>(std::move(fd), std::move(ssl), &env_, MonotonicNow());
  slot->source = std::move(hold);
  if (Status s = loop_->Add(raw, kIoRead, [this, slot](uint32_t) { Drive(slot); }); !s) {
    ++stats_.handshake_failures.other;
    slots_.erase(raw);
    open_.store(slots_.size(), std::memory_order_release);
    return;
  }
  ArmDeadline(slot);
}

void Worker::Drive(Slot* slot) {
  Connection& c = *slot->conn;
  switch (c.OnReady(MonotonicNow())) {
    case Connection::Next::kClose:
      Close(slot);
      return;
    case Connection::Next::kYield:
      if (slot->resume_timer == 0) {
        slot->resume_timer = loop_->AddTimer(MonotonicNow(), [this, slot] {
          slot->resume_timer = 0;
          Drive(slot);
        });
      }
      break;
    case Connection::Next::kWait:
      break;
  }
  if (!loop_->Modify(c.fd(), c.interest())) {
    Close(slot);
    return;
  }
  // The deadline usually moves later, which the armed timer handles lazily when it fires;
  // only an earlier one (a lingering close) needs the timer moved.
  if (c.deadline() < slot->armed_for) ArmDeadline(slot);
}

void Worker::ArmDeadline(Slot* slot) {
  if (slot->deadline_timer != 0) loop_->CancelTimer(slot->deadline_timer);
  slot->armed_for = slot->conn->deadline();
  slot->deadline_timer = loop_->AddTimer(slot->armed_for, [this, slot] { OnDeadline(slot); });
}

void Worker::OnDeadline(Slot* slot) {
  slot->deadline_timer = 0;
  if (MonotonicNow() < slot->conn->deadline()) {
    ArmDeadline(slot);  // progress since the timer was set: wait for the new deadline
    return;
  }
  slot->conn->OnDeadline();
  Close(slot);
}

void Worker::Close(Slot* slot) {
  const int fd = slot->conn->fd();
  loop_->Remove(fd);
  if (slot->deadline_timer != 0) loop_->CancelTimer(slot->deadline_timer);
  if (slot->resume_timer != 0) loop_->CancelTimer(slot->resume_timer);
  slots_.erase(fd);  // closes the socket, frees the SSL
  open_.store(slots_.size(), std::memory_order_release);
}

}  // namespace pqc::server
