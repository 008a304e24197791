// results_db_fuzz — libFuzzer target for the results-database reader: the input's bytes are
// written as a results.sqlite and read the way `report` reads one (OpenResults, ReadRun, then
// ReadTrialRecords per trial). A truncated, foreign or corrupt file must end in an Error that
// says so, never a crash; the seed corpus holds a real small database that the fuzzer mutates.
//
// Input: the file's bytes.
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "results/run_reader.h"
#include "split_input.h"

namespace {

using pqc::fuzz::Check;

// ScratchDir: one private directory per process for the database file (and SQLite's -wal
// and -shm companions), removed at exit so that repeated runs leave nothing behind.
class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/pqc-results-fuzz-XXXXXX";
    Check(mkdtemp(pattern.data()) != nullptr);
    dir_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& dir() const { return dir_; }
  std::string file() const { return dir_ + "/results.sqlite"; }

  // Write: the database file holds exactly these bytes, with no journal left from the
  // previous input (a stale -wal would be replayed over it and hide the input's own bytes).
  void Write(const uint8_t* data, size_t size) const {
    std::error_code ec;
    std::filesystem::remove(file() + "-wal", ec);
    std::filesystem::remove(file() + "-shm", ec);
    std::ofstream out(file(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    Check(out.good());
  }

 private:
  std::string dir_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ScratchDir scratch;
  scratch.Write(data, size);

  // Both ways `report` is given a run: its directory, or the file itself.
  auto db = pqc::results::OpenResults((size % 2 == 0) ? scratch.dir() : scratch.file());
  if (!db) {
    Check(!db.error().message.empty());
    return 0;
  }
  auto run = pqc::results::ReadRun(*db);
  if (!run) {
    Check(!run.error().message.empty());
    return 0;
  }
  size_t read = 0;
  for (const auto& trial : run->trials) {
    if (++read > 64) break;  // enough to cover every shape a small database has
    auto records = pqc::results::ReadTrialRecords(*db, trial.id);
    if (!records) {
      Check(!records.error().message.empty());
      continue;
    }
    for (const auto& c : records->load.connections) {
      Check(c.cipher != nullptr);
      Check(static_cast<size_t>(c.first_request) + c.request_count <=
            records->load.requests.size());
    }
  }
  // A trial id that no row has reads as an empty trial, not an error.
  auto none = pqc::results::ReadTrialRecords(*db, -1);
  Check(!none.ok() || none->load.connections.empty());
  return 0;
}
