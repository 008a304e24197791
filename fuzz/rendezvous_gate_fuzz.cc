// rendezvous_gate_fuzz — libFuzzer target for what a stranger can send to shard 0's port
// before it has proven anything: the bytes of one connection, as they arrive, served by the
// gate (rendezvous_gate.h) through a real socket pair until the gate drops or admits the
// connection. Besides crashes it checks what the gate promises: the connection is served in
// bounded steps; what shard 0 logs and what it answers is printable text in lines; a
// connection admitted without a key said exactly the plan's identity, and with a key none is
// admitted (no input can prove a key it does not hold).
//
// Input: split_input.h's layout — byte 0's bit 3 chooses the key (set: with one), the piece
// sizes say how the stream arrives (the gate serves what has come after each piece).
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "net/address.h"
#include "scenario/rendezvous_gate.h"
#include "split_input.h"

using pqc::fuzz::Check;

namespace {

bool Printable(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return c == '\n' || (c >= 0x20 && c < 0x7f); });
}

const pqc::scenario::PlanIdentity kIdentity{"0.1.0-fuzz", "aaaa", "bbbb", "cccc"};
const pqc::scenario::RendezvousKey kKey{"0123456789abcdef0123456789abcdef"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const pqc::fuzz::SplitInput input(data, size);
  const bool keyed = (input.flags() & 0x08u) != 0;
  const std::string_view sent = input.stream();
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) != 0) return 0;
  pqc::ScopedFd stranger(fds[1]);
  char* log_text = nullptr;
  size_t log_size = 0;
  std::FILE* log = open_memstream(&log_text, &log_size);
  {
    pqc::scenario::JoinGate gate({0, 3}, kIdentity, keyed ? &kKey : nullptr, log);
    gate.Add(pqc::ScopedFd(fds[0]), *pqc::ParseAddress("198.18.0.7:40000"));
    std::string answers;
    bool refused_plan = false;
    auto serve = [&] {
      refused_plan = !gate.Serve().ok();  // a HELLO of another plan (no key: loopback's rule)
      char buf[4096];
      for (ssize_t n; (n = ::recv(stranger.get(), buf, sizeof buf, MSG_DONTWAIT)) > 0;) {
        answers.append(buf, static_cast<size_t>(n));
      }
    };
    // Piece by piece, served after each, as the bytes would arrive; then the end.
    std::string_view rest = sent;
    for (size_t i = 0; !rest.empty() && gate.joining() > 0 && !refused_plan; ++i) {
      const size_t n = std::min(rest.size(), input.PieceSize(i));
      (void)::send(stranger.get(), rest.data(), n, MSG_DONTWAIT | MSG_NOSIGNAL);
      rest.remove_prefix(n);
      serve();
    }
    ::shutdown(stranger.get(), SHUT_WR);
    for (int step = 0; step < 10'000 && gate.joining() > 0 && !refused_plan; ++step) serve();
    // Bounded: at most 4 messages per step, and a closed connection ends it.
    Check(gate.joining() == 0 || refused_plan);
    for (const auto& j : gate.TakeJoined()) {
      Check(!keyed);
      Check(j.shard >= 1 && j.shard < 3);
      Check(sent.find(kIdentity.plan) != std::string_view::npos);
    }
    // With a key, shard 0 never welcomes (a refusal may quote the word, never begin with it).
    Check(refused_plan || !keyed ||
          (!answers.starts_with("WELCOME") && answers.find("\nWELCOME") == std::string::npos));
    Check(Printable(answers));
  }
  std::fclose(log);
  Check(Printable({log_text, log_size}));
  std::free(log_text);
  return 0;
}
