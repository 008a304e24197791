#include "scenario/merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <thread>

#include "records/summary.h"
#include "records/summary_output.h"
#include "results/run_writer.h"
#include "results/trial_copy.h"
#include "scenario/arm_options.h"
#include "scenario/merged_trial.h"
#include "scenario/plan.h"
#include "scenario/run_facts.h"

namespace pqc::scenario {
namespace {

namespace fs = std::filesystem;

struct Shard {
  std::string source;
  results::Db db;
  results::StoredRun run;
  std::map<uint32_t, const results::StoredTrial*> by_seq;
  int64_t offset_ns = 0;  // shard 0's wall clock minus this shard's
};

Error Refuse(std::string message) {
  return MakeError(ErrorKind::kConfig, std::move(message) +
                                           " (merge takes the run directories of one sharded "
                                           "study, one per shard)");
}

// CheckAlike: every shard ran the same study with the same build, and together they are
// shards 0..N-1 of N, each once. The first difference is named with both sources.
Status CheckAlike(const std::vector<Shard>& shards) {
  const results::RunInfo& lead = shards.front().run.info;
  const std::string& first = shards.front().source;
  for (const Shard& s : shards) {
    const results::RunInfo& i = s.run.info;
    if (i.merged) return Refuse(fmt::format("{} is a merged database already", s.source));
    if (i.shard.count != shards.size()) {
      return Refuse(fmt::format("{} is shard {} of {}, but {} database(s) were given", s.source,
                                i.shard.index, i.shard.count, shards.size()));
    }
    auto differ = [&](std::string_view what, const std::string& a, const std::string& b) {
      return Refuse(fmt::format("{} and {} differ in {}: '{}' vs '{}'", first, s.source, what,
                                a.substr(0, 60), b.substr(0, 60)));
    };
    if (i.tool_version != lead.tool_version || i.git_commit != lead.git_commit) {
      return differ("the pqc-bench that ran them", lead.tool_version + " " + lead.git_commit,
                    i.tool_version + " " + i.git_commit);
    }
    if (i.scenario_text != lead.scenario_text) {
      return differ("the scenario text", lead.scenario_file, i.scenario_file);
    }
    const std::string options = json_fields::Writer::Value(i.options).dump();
    const std::string lead_options = json_fields::Writer::Value(lead.options).dump();
    if (options != lead_options) return differ("the run's options", lead_options, options);
    if (i.seed != lead.seed) {
      return differ("the seed", std::to_string(lead.seed), std::to_string(i.seed));
    }
    const auto& a = shards.front().run.arms;
    const auto& b = s.run.arms;
    if (a.size() != b.size()) {
      return differ("their arms", fmt::format("{} arms", a.size()), fmt::format("{}", b.size()));
    }
    for (size_t k = 0; k < a.size(); ++k) {
      if (a[k].label != b[k].label || a[k].settings != b[k].settings) {
        return differ(fmt::format("arm {}", a[k].id), a[k].label, b[k].label);
      }
    }
    for (const auto& [seq, t] : s.by_seq) {
      auto it = shards.front().by_seq.find(seq);
      if (it != shards.front().by_seq.end() &&
          (it->second->arm != t->arm || it->second->block != t->block)) {
        return differ(fmt::format("the plan's trial {}", seq),
                      fmt::format("arm {} block {}", it->second->arm, it->second->block),
                      fmt::format("arm {} block {}", t->arm, t->block));
      }
    }
  }
  return {};
}

// ArmLoadOptions: the arm's LoadOptions as every shard ran it (the whole arm's rate), for the
// statistics and validity checks of the union.
Result<std::vector<LoadOptions>> ArmLoadOptions(const results::RunInfo& info,
                                                const std::vector<results::StoredArm>& stored) {
  ParseOptions po;
  auto sc = StoredScenario(info, po);
  if (!sc) return sc.error();
  auto arms = ExpandArms(*sc);
  if (!arms) return arms.error();
  if (arms->size() != stored.size()) {
    return MakeError(ErrorKind::kConfig,
                     fmt::format("the stored scenario plans {} arms, the database holds {}",
                                 arms->size(), stored.size()));
  }
  std::vector<LoadOptions> out;
  for (const Arm& a : *arms) {
    // What the tool's own targets listen on is known only when a trial starts them: no address.
    out.push_back(MakeLoadOptions(a.settings, a.settings.address.socket, 0));
  }
  return out;
}

// ReadAll: every shard's records of trial `seq`, read side by side (one SQLite connection per
// shard), at most one reader per core but the copy's.
Result<std::vector<results::TrialRecords>> ReadAll(const std::vector<Shard*>& shards,
                                                   uint32_t seq) {
  std::vector<std::optional<Result<results::TrialRecords>>> got(shards.size());
  // One core is the copy's (MergeShards copies the trial's rows beside this): the readers
  // take the others, so that neither half waits for the other's CPU.
  const size_t width = std::max(2u, std::thread::hardware_concurrency()) - 1;
  for (size_t first = 0; first < shards.size(); first += width) {
    std::vector<std::thread> readers;
    for (size_t k = first; k < std::min(shards.size(), first + width); ++k) {
      readers.emplace_back([&, k] {
        got[k].emplace(results::ReadTrialRecords(shards[k]->db, shards[k]->by_seq.at(seq)->id));
      });
    }
    for (std::thread& t : readers) t.join();
  }
  std::vector<results::TrialRecords> out;
  for (auto& g : got) {
    if (!*g) return g->error();
    out.push_back(std::move(**g));
  }
  return out;
}

// TrialOf: shard `s`'s trial `seq` as the merged trial's arithmetic sees it (no records yet).
ShardTrial TrialOf(const Shard& s, uint32_t seq) {
  const auto& facts = s.run.info.shard_facts;
  return {.shard = s.run.info.shard.index,
          .host = s.run.info.hostname,
          .source = s.source,
          .boot_id = facts ? facts->boot_id : "",
          .offset_ns = s.offset_ns,
          .trial = s.by_seq.at(seq),
          .records = {}};
}

// MergeTrial: trial `seq` of the shards that stored it (`shards`, shard 0 first); the others,
// `missing`, ended during it or before (killed, lost): the merged trial keeps every connection
// that was stored and is invalid, naming them.
Result<MergedTrial> MergeTrial(const std::vector<Shard*>& shards,
                               const std::vector<uint32_t>& missing, uint32_t seq,
                               const LoadOptions& options) {
  auto records = ReadAll(shards, seq);
  if (!records) return records.error();
  std::vector<ShardTrial> trials;
  for (size_t k = 0; k < shards.size(); ++k) {
    trials.push_back(TrialOf(*shards[k], seq));
    trials.back().records = std::move((*records)[k]);
  }
  const auto& lead_facts = shards.front()->run.info.shard_facts;
  return CombineTrial(std::move(trials), missing,
                      lead_facts.value_or(results::ShardFacts{}).max_start_late_ns, options);
}

Result<std::vector<Shard>> OpenShards(const std::vector<std::string>& inputs) {
  std::vector<Shard> shards;
  for (const std::string& in : inputs) {
    // Merge reads every row of every shard (a damaged page is an error then): the length
    // check finds a truncated copy without reading every page once more first.
    auto db = results::OpenResults(in, results::Integrity::kLength);
    if (!db) return db.error();
    auto run = results::ReadRun(*db);
    if (!run) return run.error();
    shards.push_back({in, std::move(*db), std::move(*run), {}, 0});
  }
  std::sort(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) {
    return a.run.info.shard.index < b.run.info.shard.index;
  });
  for (size_t k = 0; k < shards.size(); ++k) {
    Shard& s = shards[k];
    if (s.run.info.shard.index != k) {
      if (k > 0 && s.run.info.shard.index == k - 1) {
        return Refuse(fmt::format("shard {} is given twice: {} and {}", k - 1, shards[k - 1].source,
                                  s.source));
      }
      return Refuse(fmt::format("shard {} of {} is missing", k, shards.size()));
    }
    for (const auto& t : s.run.trials) s.by_seq[t.seq] = &t;
    s.offset_ns = s.run.info.shard_facts ? s.run.info.shard_facts->clock_offset_ns : 0;
  }
  return shards;
}

}  // namespace

Result<MergeOutcome> MergeShards(const MergeOptions& o) {
  if (o.inputs.size() < 2) {
    return MakeError(
        ErrorKind::kUsage,
        fmt::format("merge: {} database given; give every shard's run directory", o.inputs.size()));
  }
  auto shards = OpenShards(o.inputs);
  if (!shards) return shards.error();
  if (Status st = CheckAlike(*shards); !st) return st.error();
  const Shard& lead = shards->front();
  auto options = ArmLoadOptions(lead.run.info, lead.run.arms);
  if (!options) return options.error();

  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  const std::string db_path = (fs::path(o.out_dir) / "results.sqlite").string();
  results::RunInfo info = lead.run.info;
  info.merged = true;
  info.shard = {0, static_cast<uint32_t>(shards->size())};
  results::ShardFacts& facts = info.shard_facts.emplace();
  for (const Shard& s : *shards) {
    facts.shards.push_back({.shard = s.run.info.shard.index,
                            .host = s.run.info.hostname,
                            .source = fs::absolute(s.source, ec).string(),
                            .started = s.run.info.started,
                            .complete = s.run.complete,
                            .facts = s.run.info.shard_facts.value_or(results::ShardFacts{})});
  }
  facts.max_start_late_ns =
      lead.run.info.shard_facts.value_or(results::ShardFacts{}).max_start_late_ns;
  std::vector<results::ArmRow> arms;
  for (const results::StoredArm& a : lead.run.arms) {
    arms.push_back({a.id, a.label, a.factors, a.settings, a.floor});
  }
  auto writer = results::RunWriter::Create(db_path, info, arms);
  if (!writer) return writer.error();
  // No journal: the merged file is made anew from inputs that stay as they are, so a merge cut
  // short loses nothing measured (its run is marked incomplete; merge again into a new
  // directory), and every row is written once instead of once to the WAL and again at its
  // checkpoint.
  // A large page cache: the copy appends millions of rows, and a page written out and read
  // back for the next row costs more than the memory (18 % of a copy's time here).
  if (Status st = writer->db().Exec(
          "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-1048576");
      !st) {
    return st.error();
  }
  for (const results::StoredArm& a : lead.run.arms) {
    if (a.status != results::ArmStatus::kFailed) continue;
    if (Status st = writer->MarkArmFailed(a.id, a.failure); !st) return st.error();
  }
  MergeOutcome out;
  out.dir = o.out_dir;
  out.shards = static_cast<uint32_t>(shards->size());
  out.complete = true;
  for (const Shard& s : *shards) out.complete = out.complete && s.run.complete;
  uint64_t kept = 0;  // connections held in out.loaded
  for (const results::StoredTrial& t0 : lead.run.trials) {
    // The shards that stored this trial (shard 0 always: the iteration is over its trials).
    std::vector<Shard*> present;
    std::vector<uint32_t> missing;
    for (Shard& s : *shards) {
      if (s.by_seq.count(t0.seq) > 0) {
        present.push_back(&s);
      } else {
        missing.push_back(s.run.info.shard.index);
      }
    }
    if (!missing.empty()) {
      fmt::print(o.log,
                 "trial {}: shard(s) {} stored no record of it: merged from the others, "
                 "invalid\n",
                 t0.seq, fmt::join(missing, ", "));
      out.complete = false;
    }
    // The merged trial takes shard 0's trial id, so that its rows can be copied (inside
    // SQLite, on the merged file's connection) while its statistics are computed from the
    // shards' rows read beside it (their own connections): the two halves of a merge's work
    // overlap instead of adding up.
    const int64_t id = t0.id;
    std::vector<results::TrialCopy> plans;
    int64_t id_offset = 0, request_offset = 0;
    for (Shard* shard : present) {
      Shard& s = *shard;
      const results::StoredTrial& t = *s.by_seq.at(t0.seq);
      auto extent = results::ReadTrialExtent(s.db, t.id);
      if (!extent) return extent.error();
      plans.push_back({.file = s.db.path(),
                       .version = s.run.schema_version,
                       .from = t.id,
                       .connection_offset = id_offset,
                       .request_offset = request_offset,
                       .shift = ShiftNs(TrialOf(s, t0.seq), TrialOf(lead, t0.seq)),
                       .shard = s.run.info.shard.index});
      // Ids after every id of the shards before (ids need not be dense; the reader orders).
      id_offset += extent->next_id;
      request_offset += extent->requests;
    }
    const Nanos start = MonotonicNow();
    Status copied;
    Nanos copy_end = 0;
    std::thread copier([&] {
      for (const results::TrialCopy& p : plans) {
        if (copied = results::CopyTrialRows(writer->db(), p, id); !copied) break;
      }
      copy_end = MonotonicNow();
    });
    auto m = MergeTrial(present, missing, t0.seq, (*options)[t0.arm - 1]);
    const Nanos read_end = MonotonicNow();
    copier.join();
    if (!m) return m.error();
    if (!copied) return copied.error();
    m->row.id = id;
    if (auto written = writer->WriteTrial(m->row); !written) return written.error();
    if (auto rows = results::CountConnections(writer->db(), id);
        !rows || *rows != m->load.connections.size()) {
      return rows ? MakeError(ErrorKind::kIo,
                              fmt::format("merge: trial {}: {} connections copied, {} read", t0.seq,
                                          *rows, m->load.connections.size()))
                  : rows.error();
    }
    fmt::print(o.log,
               "trial {}: {} connections read and summarised in {:.2f} s, copied in {:.2f} s "
               "(side by side)\n",
               t0.seq, m->load.connections.size(), static_cast<double>(read_end - start) / 1e9,
               static_cast<double>(copy_end - start) / 1e9);
    const uint64_t n = m->load.connections.size();
    kept += n;
    if (kept <= kMaxKeptConnections) {
      out.loaded[id] =
          std::make_unique<MergedLoad>(MergedLoad{std::move(m->load), std::move(m->records)});
    }
    ++out.trials;
    out.connections += n;
    if (!m->row.valid) ++out.trials_invalid;
  }
  for (const Shard& s : *shards) {
    if (s.run.trials.size() != lead.run.trials.size()) out.complete = false;
  }
  // The last shard's end. UtcIso writes one fixed-width UTC form, so text order is time order
  // (and an unfinished shard's "" sorts first).
  std::string ended;
  for (const Shard& s : *shards) ended = std::max(ended, s.run.ended);
  if (Status st = writer->Finish(ended, out.complete); !st) return st.error();
  return out;
}

}  // namespace pqc::scenario
