// server_session — the embedded server's side of HTTP/2 (RFC 9113) as bytes in and bytes out:
// nghttp2's server session with no I/O of its own, answering every GET as the HTTP/1.1 server
// does (http/routes.h), bodies out of the shared payload buffer. The known HTTP/2 attacks meet
// nghttp2's limits, set here explicitly: a rapid reset (CVE-2023-44487) exhausts a token
// bucket of stream resets, a CONTINUATION flood (CVE-2024-28182) a count of CONTINUATION
// frames per header block, a SETTINGS or PING flood a cap on queued acknowledgements; each ends
// the session with a GOAWAY. What the session holds is bounded by them, by the streams a client
// may open at once and by the caller taking output in pieces (Output's `limit`).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/error.h"

struct nghttp2_session;

namespace pqc::h2 {

// The limits the server announces and keeps (docs/guide.md, "HTTP/2").
inline constexpr uint32_t kMaxConcurrentStreams = 100;
inline constexpr uint32_t kMaxHeaderListBytes = 16 * 1024;
inline constexpr uint64_t kResetBurst = 1000;  // stream resets at once, then kResetRate a second
inline constexpr uint64_t kResetRate = 33;
inline constexpr size_t kMaxContinuations = 8;     // CONTINUATION frames after one HEADERS
inline constexpr size_t kMaxOutboundAcks = 1000;   // SETTINGS and PING acknowledgements queued
inline constexpr size_t kMaxSettingsEntries = 32;  // entries in one SETTINGS frame

// ServerCounts: what the session did since the caller last took them.
struct ServerCounts {
  uint64_t requests = 0;
  uint64_t not_found = 0;
  uint64_t bad_requests = 0;  // a method other than GET or HEAD, or no :path
};

class ServerSession {
 public:
  // Make: a session whose first output is the server's SETTINGS. `payload` is the shared
  // payload buffer (http/payload.h); borrowed, it outlives the session.
  static Result<std::unique_ptr<ServerSession>> Make(std::span<const char> payload);
  ServerSession(const ServerSession&) = delete;
  ServerSession& operator=(const ServerSession&) = delete;
  ~ServerSession();

  // Feed: bytes from the client; false when the connection is to end (the client broke the
  // protocol or hit a limit: error() says which; a GOAWAY is queued in Output).
  bool Feed(std::string_view in);
  // Output: appends frames to `out` until it holds `limit` bytes or more or none are due.
  Status Output(std::string& out, size_t limit);
  // Done: neither side has anything more to say (after a GOAWAY either way).
  bool Done() const;
  // Ending: the client broke the protocol or a limit; only the session's GOAWAY remains to send.
  bool Ending() const { return !error_.empty(); }
  // Failed: the session ended for the client's fault — Ending, or ended by nghttp2 at one of
  // its limits (meaningful once Done).
  bool Failed() const;
  // Quiet: the client has said GOAWAY or has no stream open: nothing it asked for is pending.
  bool Quiet() const { return peer_goaway_ || streams_.empty(); }
  // Shutdown: a GOAWAY (no error) for a server stopping or timing a connection out.
  void Shutdown();

  ServerCounts TakeCounts();
  const std::string& error() const { return error_; }

  // nghttp2's callbacks' entry points.
  void OnBeginHeaders(int32_t stream);
  void OnHeader(int32_t stream, std::string_view name, std::string_view value);
  int OnRequestEnd(int32_t stream);
  void OnStreamClose(int32_t stream, uint32_t code);
  void OnLibraryError(std::string_view message);
  void OnPeerGoaway() { peer_goaway_ = true; }
  // ReadBody: the next body bytes of `stream` into buf; sets *eof at the end.
  size_t ReadBody(int32_t stream, uint8_t* buf, size_t length, bool* eof);

 private:
  struct Stream {
    std::string path;
    bool head = false;
    bool get = false;
    // The answer: text, or payload bytes [offset, size).
    std::string_view text;
    bool is_payload = false;
    uint64_t offset = 0, size = 0;
  };
  ServerSession() = default;

  nghttp2_session* session_ = nullptr;
  std::span<const char> payload_;
  std::unordered_map<int32_t, Stream> streams_;
  ServerCounts counts_;
  std::string error_;
  bool peer_goaway_ = false;
};

}  // namespace pqc::h2
