// count_session — one repetition of `pqc-bench count`: the arm's embedded server and its client
// each in a process of its own under callgrind, and the window between them. The order makes
// both windows hold the same connections, whole: the client warms up and says so; the server
// zeroes once it holds no connection; the client zeroes and makes the measured connections and
// dumps; the server dumps once it holds no connection again. Every step is bounded in time.
#include <fcntl.h>
#include <fmt/core.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>

#include "cli/count_run.h"
#include "core/child_process.h"
#include "core/fd.h"
#include "count/callgrind_profile.h"

namespace pqc::cli {
namespace {

// Valgrind's start and the server's chain loading; a handshake under callgrind takes tens of
// milliseconds, these bounds are a hundred times that.
constexpr Nanos kStartBound = 300 * kSecond;
constexpr Nanos kPerConnectionBound = 5 * kSecond;
constexpr Nanos kStopGrace = 120 * kSecond;  // the exit dump of a large profile

constexpr const char* kSplitDispatchers[] = {"tls_construct_extensions", "tls_parse_all_extensions",
                                             "tls_parse_extension", "tls_collect_extensions",
                                             "ossl_quic_tls_tick"};

struct Pipe {
  ScopedFd read, write;
};

Result<Pipe> MakePipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return MakeError(ErrorKind::kSystem, fmt::format("pipe2: {}", strerror(errno)));
  }
  return Pipe{ScopedFd(fds[0]), ScopedFd(fds[1])};
}

// Child: a process under callgrind that count talks to by lines.
struct Child {
  std::string name;  // "server", "client"
  ChildProcess process;
  ScopedFd to, from;  // its stdin, its stdout
  std::string buffered, seen;

  Status Send(std::string_view line) {
    const std::string text = std::string(line) + "\n";
    if (write(to.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
      return MakeError(ErrorKind::kSystem,
                       fmt::format("count: writing to the {}: {}", name, strerror(errno)));
    }
    return {};
  }

  // Next: the child's next line, within `bound`; an error if it ends or stays silent.
  Result<std::string> Next(Nanos bound, std::string_view waiting_for) {
    const Nanos until = MonotonicNow() + bound;
    while (true) {
      if (size_t end = buffered.find('\n'); end != std::string::npos) {
        std::string line = buffered.substr(0, end);
        buffered.erase(0, end + 1);
        seen += line + "\n";
        return line;
      }
      const Nanos left = until - MonotonicNow();
      if (left <= 0) {
        return MakeError(ErrorKind::kSystem,
                         fmt::format("count: the {} did not say '{}' within {} s; it said:\n{}",
                                     name, waiting_for, bound / kSecond, seen));
      }
      pollfd p{from.get(), POLLIN, 0};
      const int r = poll(&p, 1, static_cast<int>(std::min<Nanos>(left / 1'000'000 + 1, 1000)));
      if (r < 0 && errno != EINTR) {
        return MakeError(ErrorKind::kSystem, fmt::format("poll: {}", strerror(errno)));
      }
      if (r <= 0) continue;
      char buf[4096];
      const ssize_t n = read(from.get(), buf, sizeof buf);
      if (n <= 0) {
        return MakeError(ErrorKind::kSystem,
                         fmt::format("count: the {} ended before saying '{}'; it said:\n{}", name,
                                     waiting_for, seen + buffered));
      }
      buffered.append(buf, static_cast<size_t>(n));
    }
  }

  // Expect: the next line starts with `prefix` (anything else is what went wrong).
  Result<std::string> Expect(std::string_view prefix, Nanos bound) {
    auto line = Next(bound, prefix);
    if (!line) return line.error();
    if (!line->starts_with(prefix)) {
      return MakeError(ErrorKind::kSystem,
                       fmt::format("count: the {} said '{}', not '{}'", name, *line, prefix));
    }
    return line;
  }
};

Result<Child> Start(std::string name, std::vector<std::string> argv) {
  auto in = MakePipe();
  if (!in) return in.error();
  auto out = MakePipe();
  if (!out) return out.error();
  SpawnOptions o;
  o.argv = std::move(argv);
  o.stdin_fd = in->read.get();
  o.stdout_fd = out->write.get();
  o.process_group = true;
  auto process = ChildProcess::Spawn(o);
  if (!process) return process.error();
  Child c;
  c.name = std::move(name);
  c.process = std::move(*process);
  c.to = std::move(in->write);
  c.from = std::move(out->read);
  return c;
}

Result<SideCount> ReadSide(const std::string& out) {
  // The window is the first dump (OUT.1); OUT itself holds what came after it.
  const std::string path = out + ".1";
  auto text = ReadWholeFile(path);
  if (!text) {
    return MakeError(ErrorKind::kSystem,
                     fmt::format("count: callgrind wrote no window dump {}", path));
  }
  auto profile = count::ParseCallgrind(*text, path);
  if (!profile) return profile.error();
  return SideCount{count::Attribute(*profile), path};
}

}  // namespace

std::vector<std::string> ValgrindArgv(const std::string& out, const std::string& log) {
  std::vector<std::string> argv = {"valgrind", "--tool=callgrind", "--collect-systime=yes",
                                   "--callgrind-out-file=" + out, "--log-file=" + log};
  // OpenSSL's extension dispatchers run in several stages (a ServerHello's, a Certificate's, a
  // NewSessionTicket's extensions): told apart by their callers, the key exchange below the
  // ServerHello's key_share has one context, and its cost one source (count/stage_attribution.h).
  for (const char* dispatcher : kSplitDispatchers) {
    argv.push_back(fmt::format("--separate-callers2={}", dispatcher));
  }
  return argv;
}

Result<Repetition> CountOnce(const CountSetup& setup, int index) {
  const Nanos started = MonotonicNow();
  const std::string server_out = fmt::format("{}/server-{}.out", setup.dir, index);
  const std::string client_out = fmt::format("{}/client-{}.out", setup.dir, index);
  std::vector<std::string> argv =
      ValgrindArgv(server_out, fmt::format("{}/server-{}.valgrind.log", setup.dir, index));
  argv.insert(argv.end(), setup.serve_argv.begin(), setup.serve_argv.end());
  argv.push_back("--count-control");
  auto server = Start("server", std::move(argv));
  if (!server) return server.error();
  auto listening = server->Expect("listening on ", kStartBound);
  if (!listening) return listening.error();
  const std::string address = listening->substr(13, listening->find(' ', 13) - 13);

  argv = ValgrindArgv(client_out, fmt::format("{}/client-{}.valgrind.log", setup.dir, index));
  argv.insert(argv.end(), {setup.exe, "count"});
  argv.insert(argv.end(), setup.client_args.begin(), setup.client_args.end());
  argv.insert(argv.end(),
              {"--client-of", address, "--warmup-connections", std::to_string(setup.warmup),
               "--handshakes", std::to_string(setup.handshakes)});
  for (const std::string& ca : setup.ca_files) argv.insert(argv.end(), {"--ca", ca});
  auto client = Start("client", std::move(argv));
  if (!client) return client.error();

  const Nanos warm_bound = kStartBound + setup.warmup * kPerConnectionBound;
  const Nanos window_bound = kStartBound + setup.handshakes * kPerConnectionBound;
  if (auto l = client->Expect("count warm", warm_bound); !l) return l.error();
  if (Status st = server->Send("zero"); !st) return st.error();
  if (auto l = server->Expect("count zeroed", kStartBound); !l) return l.error();
  if (Status st = client->Send("go"); !st) return st.error();
  if (auto l = client->Expect("count done", window_bound); !l) return l.error();
  if (Status st = server->Send("dump"); !st) return st.error();
  if (auto l = server->Expect("count dumped", kStartBound); !l) return l.error();
  server->to.reset();
  client->to.reset();
  auto client_exit = client->process.WaitExit(kStopGrace);
  if (!client_exit) return client_exit.error();
  auto server_exit = server->process.Terminate(kStopGrace);
  if (!server_exit) return server_exit.error();
  if (client_exit->ShellCode() != 0) {
    return MakeError(ErrorKind::kSystem,
                     fmt::format("count: the client ended with {}", client_exit->Describe()));
  }
  Repetition r;
  auto c = ReadSide(client_out);
  if (!c) return c.error();
  auto s = ReadSide(server_out);
  if (!s) return s.error();
  r.client = std::move(*c);
  r.server = std::move(*s);
  r.wall_s = static_cast<double>(MonotonicNow() - started) / 1e9;
  return r;
}

}  // namespace pqc::cli
