// run_facts — what a result depends on besides the scenario: this build (version, commit),
// the OpenSSL it runs on, and the machine (CPU model, cores, kernel, host). Stored with every
// run, because a number without its machine cannot be compared with anything.
#pragma once

#include <string>

#include "core/clock.h"
#include "results/run_writer.h"
#include "scenario/scenario.h"

namespace pqc::scenario {

// FillRunFacts: the build, OpenSSL and machine fields of `info`.
void FillRunFacts(results::RunInfo& info);

// NetworkFacts: every network profile of the scenario, name → {"rtt_ms", "describe"}
// ("loopback (no emulation)" for loopback), stored with the run (RunInfo::networks).
results::Networks NetworkFacts(const Scenario& s);
// FillStoredNetworkFacts: for a run stored before schema version 3, the same facts from its
// stored scenario text (parsed as it was run); left null if that no longer parses.
void FillStoredNetworkFacts(results::RunInfo& info);

// StoredScenario: the scenario exactly as a stored run parsed it (its text and options), so
// that its plan is the run's (run --resume, merge).
Result<Scenario> StoredScenario(const results::RunInfo& info, ParseOptions& po);

// BootId: this kernel's boot id (/proc/sys/kernel/random/boot_id): two shards with the same
// one read the same CLOCK_MONOTONIC, so their timestamps merge without translation.
std::string BootId();

// UtcNow / UtcIso: "2026-11-30T03:04:05Z"; UtcCompact: "20261130T030405Z" (directory names).
std::string UtcIso(int64_t unix_ns);
std::string UtcCompact(int64_t unix_ns);
using pqc::UnixNowNs;  // core/clock.h

}  // namespace pqc::scenario
