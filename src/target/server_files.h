// server_files — the files every server the tool configures is given, whatever its syntax
// (nginx, HAProxy): the /payload/<size> bodies with the embedded server's bytes under each
// name the embedded server accepts for that size, and an openssl.cnf that loads the arm's
// providers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/file_output.h"
#include "target/target.h"

namespace pqc::target {

// PayloadNames: the request names that mean `size` bytes, as the embedded server parses them
// (units.h: binary, K = 1024): the canonical "10K", the bare "10240" and "10240B".
std::vector<std::string> PayloadNames(uint64_t size);

// WritePayloadFiles: dir/<name> for every name of every size (body byte i = PayloadByte(i));
// the first name is the file, the others hard links to it. A size above the largest the
// embedded server serves is refused.
Status WritePayloadFiles(const std::vector<uint64_t>& sizes, const std::string& dir);

// OpensslConfigText: an openssl.cnf that loads the arm's providers (the FIPS module through
// its fipsmodule.cnf) and sets their property query; a server reads it through OPENSSL_CONF
// when it starts, before its configuration. "" when the arm has no providers of its own.
std::string OpensslConfigText(const ServerConfig& config);

// MaxServerFds: the file descriptors a server child may open (the hard limit, at most 65,536),
// which its configuration sizes its connection limit by.
uint64_t MaxServerFds();

// WriteOpensslConfig: OpensslConfigText(config) into `path` when the arm has providers of its
// own (nothing otherwise); `what` names the server in the error.
Status WriteOpensslConfig(const std::string& what, const ServerConfig& config,
                          const std::string& path);

// WriteTextFile: `text` as the whole of `path`, created with `mode` (kSecretFile for one with
// a private key in it) and renamed into place (core/file_output.h); `what` names the file in
// the error.
Status WriteTextFile(const std::string& what, const std::string& path, const std::string& text,
                     mode_t mode = kPublicFile);

}  // namespace pqc::target
