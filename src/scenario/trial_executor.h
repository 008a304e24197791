// trial_executor — measures one trial of an arm. `Run`: starts the arm's target (on the arm's
// network: a fresh emulated link per trial, like a fresh target, so no queue or TCP metrics
// carry over), tells the barrier it is up, runs the load (from every site of the link at
// once when it has several), waits for the other shards, stops the target and judges the
// trial (target died, followers invalid, link late). `Follow`: a shard other than 0 loads the
// target shard 0 started, from the instant it announced. The targets and the providers' library
// contexts are made when an arm first needs them and kept for the run.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "client/load_runner.h"
#include "core/error.h"
#include "link/link.h"
#include "results/run_writer.h"
#include "scenario/cert_store.h"
#include "scenario/plan.h"
#include "scenario/rendezvous.h"
#include "scenario/run_options.h"
#include "scenario/scenario.h"
#include "scenario/trial_barrier.h"
#include "target/target.h"
#include "tls/providers.h"

namespace pqc::scenario {

// TrialOutput: a measured trial, its row not yet pointing at its load (the output moves).
struct TrialOutput {
  results::TrialRow row;
  LoadResult load;
  // The text the connections point to (their cipher name), when they were read back from
  // another build's results (build_trial.h); empty for a trial measured here.
  std::set<std::string> strings;
};

class TrialExecutor {
 public:
  // `dir`: the run's directory (certificates under certs/, the target's files under trials/).
  TrialExecutor(const Scenario& scenario, const RunOptions& options, const std::string& dir);

  Result<TrialOutput> Run(const Arm& arm, const PlannedTrial& t, TrialBarrier& barrier);
  Result<TrialOutput> Follow(const Arm& arm, const PlannedTrial& t, const TrialStart& start);

  // ExplainFailure: why an arm could not run; for a certificate type the TLS layer refuses,
  // the three layers of the probe say how far it gets (SLH-DSA: primitive and X.509 work).
  static std::string ExplainFailure(const ArmSettings& s, const Error& e);

 private:
  Result<target::Target*> TargetFor(const ArmSettings& s);
  results::BuildRecord BuildFacts(const std::string& name);
  Result<TrialOutput> RunInBuild(const Arm& arm, const PlannedTrial& t, const Build& build,
                                 const std::string& work);
  Result<const LibraryContext*> ClientLibrary(const ProviderSpec& spec);
  Status ApplyShard(const ArmSettings& s, int64_t start_at, LoadOptions& options);
  std::vector<link::LinkSite> LinkSitesFor(const NetworkProfile& n) const;
  Result<LoadResult> RunSites(const link::Link& net, const LoadOptions& options);
  Result<LoadResult> RunLoadIn(const std::string& netns, const LoadOptions& options);
  void JudgeWire(const ArmSettings& s, const NetworkProfile& network, const link::Link& net,
                 results::TrialRow& row) const;

  const Scenario& s_;
  const RunOptions& o_;
  std::string dir_;
  CertStore certs_;
  std::map<std::string, std::unique_ptr<target::Target>> targets_;
  std::map<std::string, std::unique_ptr<LibraryContext>> libraries_;  // by providers' label
  std::map<std::string, results::BuildRecord> build_facts_;           // by build name
  std::string scenario_copy_;  // the scenario text for other builds (RunInBuild)
};

}  // namespace pqc::scenario
