// nginx_config — the nginx configuration of one arm, generated so that nginx serves exactly
// what the embedded server serves (TLS 1.3 only, the arm's groups, tickets and session cache,
// `/` → "OK\n", `/payload/<size>` → the same bytes from files via sendfile) and keeps every
// file it touches (pid, logs, temp paths) inside the trial's work directory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "target/server_files.h"
#include "target/target.h"

namespace pqc::target {

// NginxFiles: where one arm's nginx keeps its files, all under work_dir.
struct NginxFiles {
  std::string conf, error_log, pid, www, temp;
  std::string openssl_conf;  // the providers' openssl.cnf (OPENSSL_CONF), written when used
};
NginxFiles NginxFilesIn(const std::string& work_dir);

// NginxConfigText: nginx.conf for the arm, listening on `listen` (nginx spells it as
// SocketAddress::ToString does), with worker_connections sized to `max_fds` (the workers'
// file-descriptor limit).
std::string NginxConfigText(const ServerConfig& config, const SocketAddress& listen,
                            const NginxFiles& files, uint64_t max_fds);

// WriteNginxFiles: creates the directories, the payload files (www/payload/<name>, body byte i
// = PayloadByte(i), the embedded server's bytes) and nginx.conf.
Status WriteNginxFiles(const ServerConfig& config, const SocketAddress& listen,
                       const NginxFiles& files);

}  // namespace pqc::target
