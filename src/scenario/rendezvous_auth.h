// rendezvous_auth — the shared secret of one study's shards and the tags that prove it.
//
// The rendezvous port may be open to a whole cluster; the digests a shard presents are hashes
// of files anyone with the scenario can compute. So when the shards are given a key
// (`run --rendezvous-key FILE`, the same file on every shard), each control connection starts
// with two nonces, one from each side, and from then on every message carries
// HMAC-SHA256(session key, direction, message counter, message, payload), the session key being
// HMAC-SHA256(key, both nonces). A stranger without the key cannot join, cannot speak for
// shard 0, and cannot replay a message recorded on another connection (other nonces) or on
// this one (another counter). The messages themselves stay readable text: the key
// authenticates, it does not hide (nothing in them is secret).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"

namespace pqc::scenario {

// RendezvousKey: the bytes of the key file as they are (any content: 16 to 4096 bytes).
struct RendezvousKey {
  std::string bytes;
};

constexpr size_t kMinKeyBytes = 16;
constexpr size_t kMaxKeyBytes = 4096;
constexpr size_t kNonceHex = 32;  // 16 random bytes
constexpr size_t kTagHex = 64;    // HMAC-SHA256

// LoadRendezvousKey: the file at `path`, which must be a regular file (a FIFO or device is
// refused without blocking) owned by this user or root, that no other user can read (mode 0600
// or 0400: a key others can read proves nothing), of 16 to 4096 bytes. Errors say how to make
// one.
Result<RendezvousKey> LoadRendezvousKey(const std::string& path);

// KeyRequired: the error of a rendezvous at a non-loopback `address` without a key, `what`
// naming it ("--rendezvous 10.0.0.5:7000"), with how to make and give one.
Error KeyRequired(std::string_view what);

// NewNonce: 16 bytes from OpenSSL's random generator, as 32 lowercase hex digits.
Result<std::string> NewNonce();

// SessionKey: HMAC-SHA256(key, "pqc-bench rendezvous 1" | leader nonce | follower nonce); an
// error where OpenSSL has no SHA-256 (never an empty key).
Result<std::string> SessionKey(const RendezvousKey& key, std::string_view leader_nonce,
                               std::string_view follower_nonce);

// Direction: who sent a message; in the tag, so that a message cannot be reflected back.
enum class Direction : char { kFromLeader = 'L', kFromFollower = 'F' };

// MessageTag: HMAC-SHA256(session, direction | counter | line | '\n' | payload), 64 hex digits;
// an error where OpenSSL has no SHA-256.
Result<std::string> MessageTag(std::string_view session, Direction from, uint64_t counter,
                               std::string_view line, std::string_view payload);

// SameTag: a constant-time comparison (the time a wrong tag takes tells nothing).
bool SameTag(std::string_view a, std::string_view b);

// Tagged: a line as sent on an authenticated connection, "<message> mac=<64 hex>".
struct Tagged {
  std::string_view message;
  std::string_view tag;
};
// SplitTag: the message and its tag, or nullopt when the line does not end in a tag.
std::optional<Tagged> SplitTag(std::string_view line);

}  // namespace pqc::scenario
