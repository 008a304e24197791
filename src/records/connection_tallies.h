// connection_tallies — the counts Summarize (summary.h) takes over a trial's measured
// connections, one tally per question a summary answers: how many failed and why, what the
// handshakes negotiated and whether resumption and early data did what the arm asked, what
// QUIC's datagrams did, whether reuse connections completed their requests, and whether the
// load generator kept its schedule. Each tally adds connections and then says what it found:
// its part of the summary and its reasons for calling the trial invalid.
// pqc: internal (Summarize is the records layer's interface)
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "records/summary.h"

namespace pqc::tally {

// Ratio: numerator / denominator, undefined (NaN) over nothing.
inline double Ratio(double numerator, double denominator) {
  return denominator > 0 ? numerator / denominator : PhaseStats::kUndefined;
}

// Errors: measured connections, those that failed by class, and the first one's own words.
class Errors {
 public:
  void Add(const ConnectionRecord& c);
  void Fill(LoadSummary& s) const;
  void Reasons(const LoadSummary& s, const LoadOptions& o, std::vector<std::string>& why) const;

 private:
  uint64_t connections_ = 0, errors_ = 0;
  std::map<std::string, uint64_t> by_class_;
  const ConnectionRecord* first_ = nullptr;
};

// Negotiation: what completed handshakes agreed on, and whether resumption and early data
// went as the arm's modes ask (a resume connection that offered a session and did a full
// handshake, a fresh one that resumed, early data refused where it was expected and so on).
class Negotiation {
 public:
  void Add(const ConnectionRecord& c);
  const NegotiatedCounts& counts() const { return n_; }
  void Reasons(const LoadOptions& o, std::vector<std::string>& why) const;

 private:
  NegotiatedCounts n_;
  uint64_t resume_judged_ = 0, resume_missed_ = 0;
  uint64_t early_unoffered_ = 0;  // early connections whose session allowed no early data
  std::map<std::string, uint64_t> resumed_by_mode_;  // mode name → unexpected resumptions
};

// Quic: over QUIC, the first flight's Initials, the datagrams each way, the amplification
// limit and Retry (QuicCounts).
class Quic {
 public:
  void Add(const ConnectionRecord& c);  // a connection whose handshake completed
  QuicCounts Counts() const;

 private:
  QuicCounts q_;
  uint64_t sent_ = 0, received_ = 0;
};

// Reuse: reuse connections that succeeded, and those that completed fewer requests than the
// arm asked.
class Reuse {
 public:
  void Add(const ConnectionRecord& c, uint32_t requests);
  void Reasons(const LoadOptions& o, std::vector<std::string>& why) const;

 private:
  uint64_t ok_ = 0, short_ = 0;
};

// Schedule: when measured connections started against when they were meant to, and the
// load generator's CPU: LoadgenHealth, and its reasons (saturation, skipped arrivals, a late
// start).
class Schedule {
 public:
  void Add(const ConnectionRecord& c);
  LoadgenHealth Health(const LoadResult& result, uint64_t connections);
  static void Reasons(const LoadResult& result, const LoadgenHealth& g,
                      std::vector<std::string>& why);

 private:
  uint64_t started_ = 0;
  std::vector<double> lags_;
};

}  // namespace pqc::tally
