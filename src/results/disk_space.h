// disk_space — room for results: what a filesystem has free, what a trial needs to be
// stored, and the error that says so when a results directory runs out of it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.h"

namespace pqc::results {

// FreeBytes: the bytes an unprivileged writer may still use on the filesystem holding `dir`
// (statvfs: f_bavail blocks).
Result<uint64_t> FreeBytes(const std::string& dir);

// kBytesPerConnection: a stored connection with its one request and their index entries
// (measured on a quick study: 3.85 MB for 19,200 connections, about 200 B; rounded up).
inline constexpr uint64_t kBytesPerConnection = 256;
// kTrialFileBytes: what a trial writes besides its rows (target configuration and logs).
inline constexpr uint64_t kTrialFileBytes = 1 << 20;

// TrialBytes: the room a trial of `connections` needs while it is stored: its rows twice
// (SQLite's write-ahead log holds them until a checkpoint copies them into the database) and
// its files.
uint64_t TrialBytes(uint64_t connections);

// NoRoom: the error for a results directory that cannot take `what` (e.g. "trial 3 of 6"):
// how much it needs, how much is free, that the `stored` trials before it are intact and
// readable, and how to finish (free space, then `run --resume DIR`). ErrorKind::kNoSpace.
// kUnknownStored when the count is not known (the database could not be read yet).
inline constexpr size_t kUnknownStored = static_cast<size_t>(-1);
Error NoRoom(const std::string& dir, uint64_t needed, size_t stored, std::string_view what);

}  // namespace pqc::results
