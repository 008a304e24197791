// haproxy_config — the HAProxy configuration of one arm, generated so that HAProxy serves
// exactly what the embedded server serves: TLS 1.3 only, the arm's groups (`curves`), cipher
// suites, chains, tickets, session cache and 0-RTT; `/` → "OK\n" and `/payload/<size>` → the
// embedded server's bytes; `threads` threads; no logging. HAProxy answers from its own
// configuration only with a body that fits one buffer (16 KiB), so the payloads come from a
// Lua service (one Lua state per thread, the bodies read once at start from files) — HAProxy's
// own way of answering without a backend.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "target/server_files.h"
#include "target/target.h"

namespace pqc::target {

// HaproxyFiles: where one arm's HAProxy keeps its files, all under work_dir.
struct HaproxyFiles {
  std::string conf, lua, ok_body, payload_dir, cert_dir;
  std::string openssl_conf;  // the providers' openssl.cnf (OPENSSL_CONF), written when used
};
HaproxyFiles HaproxyFilesIn(const std::string& work_dir);

// HaproxyCertFile: the PEM HAProxy reads for the i-th chain (chain then key, one file).
std::string HaproxyCertFile(const HaproxyFiles& files, size_t i);

// HaproxyConfigText: haproxy.cfg for the arm, listening on `listen`, with maxconn sized to
// `max_fds` (the process's file-descriptor limit).
std::string HaproxyConfigText(const ServerConfig& config, const SocketAddress& listen,
                              const HaproxyFiles& files, uint64_t max_fds);

// HaproxyLuaText: the payload service: the body of every name of every size, read from
// payload_dir when HAProxy starts.
std::string HaproxyLuaText(const std::vector<uint64_t>& sizes, const HaproxyFiles& files);

// WriteHaproxyFiles: the certificate files, the "/" body, the payload files and service, and
// haproxy.cfg (and openssl.cnf when the arm loads providers).
Status WriteHaproxyFiles(const ServerConfig& config, const SocketAddress& listen,
                         const HaproxyFiles& files);

}  // namespace pqc::target
