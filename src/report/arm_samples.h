// arm_samples — a stored run's arms with their trials' connections pooled: the raw material of
// every statistic a report draws from an arm (study_summary) or compares across runs
// (compare), read from the database once per arm.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "records/summary.h"
#include "core/error.h"
#include "results/run_reader.h"
#include "results/sqlite_db.h"
#include "stats/pooled_samples.h"

namespace pqc::report {

// SiteData: the measured connections of one client site (connections.site), pooled over the
// same trials as the arm's.
struct SiteData {
  uint64_t connections = 0, errors = 0;
  PhaseSamples samples;
};

// ArmData: one arm's valid trials, prepared once for every statistic drawn from them.
struct ArmData {
  const results::StoredArm* arm = nullptr;
  std::vector<const results::StoredTrial*> trials;  // all, in run order
  std::vector<const results::StoredTrial*> valid;
  // used: the trials the statistics come from — the valid ones, or, when an arm has none,
  // all of its finished trials, so that the numbers are shown (marked invalid) rather than
  // withheld: a saturated load generator still measured something worth seeing.
  std::vector<const results::StoredTrial*> used;
  // blocks: the block of each used trial, in order — the replicate unit of every interval
  // (stats/trial_jackknife.h: the input trials of `phases` are the used ones, in this order).
  std::vector<uint64_t> blocks;
  bool from_invalid() const { return valid.empty() && !used.empty(); }
  std::array<std::unique_ptr<PooledSamples>, kAllPhases.size()> phases;  // the used trials
  uint64_t connections = 0, errors = 0;
  HandshakeBytesTally bytes;  // the completed handshakes' byte counts
  // Per client site, indexed by site: filled only for an arm whose network has several sites
  // (run.networks_json), so that the common case pays no second copy of its samples.
  bool split_sites = false;
  std::vector<SiteData> sites;
  double server_cpu_s = 0, client_cpu_s = 0;
  uint64_t server_handshakes = 0;
  // One value per used trial (NaN where the trial has none): the server's CPU per handshake
  // from its own rusage, and the load generator's per measured connection (none when it
  // busy-polls, which spends CPU waiting by design). CPU is accounted per trial, so trials,
  // not connections, are its observations.
  std::vector<double> server_us_per_handshake, client_us_per_connection;
};

// LoadedTrials: trials whose records the caller holds already (trial id → its load), so that
// they are not read back from the database (merge has just computed the union of each).
using LoadedTrials = std::map<int64_t, const LoadResult*>;

// PoolArms: one ArmData per stored arm, in the run's order, its trials grouped and its
// connections pooled (from `loaded` where it has the trial, else read from `db`).
Result<std::vector<ArmData>> PoolArms(results::Db& db, const results::StoredRun& run,
                                      const LoadedTrials* loaded = nullptr);

}  // namespace pqc::report
