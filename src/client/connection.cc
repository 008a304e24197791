#include "client/connection.h"

#include "tls/algorithms.h"

namespace pqc {

void RecordNegotiated(const HandshakeFacts& facts, SSL* ssl, ConnectionRecord& record) {
  record.client_hello_bytes = facts.client_hello_bytes;
  record.server_hello_bytes = facts.server_hello_bytes;
  record.certificate_bytes = facts.certificate_bytes;
  record.certificate_verify_bytes = facts.certificate_verify_bytes;
  record.signature_scheme = facts.signature_scheme;
  record.hrr = facts.hrr();
  record.resumed = SSL_session_reused(ssl) == 1;
  if (const char* group = SSL_get0_group_name(ssl)) record.group = CanonicalGroupName(group);
  if (const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl)) {
    record.cipher = SSL_CIPHER_get_name(cipher);
  }
}

}  // namespace pqc
