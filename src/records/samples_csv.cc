#include "records/samples_csv.h"

#include <fmt/format.h>

#include <optional>
#include <type_traits>
#include <vector>

#include "core/csv.h"
#include "records/connection_columns.h"
#include "records/summary.h"
#include "tls/algorithms.h"

namespace pqc {
namespace {

// The columns derived from the stored ones, after them.
constexpr std::string_view kDerived =
    "lag_us,connect_us,handshake_us,ttfb_us,response_us,total_us,sigalg,"
    "req_sent_us,req_first_byte_us,req_last_byte_us,req_status,req_body_bytes";

// Micros3: a value in µs with 3 decimals (nanosecond resolution), empty when undefined.
std::string Micros3(std::optional<double> us) {
  return us ? fmt::format("{:.3f}", *us) : std::string();
}

// Stamp: a timestamp relative to the run's start, empty when it did not happen.
std::string Stamp(Nanos t, Nanos run_start) {
  if (t == 0) return {};
  return Micros3(NanosToMicros(t - run_start));
}

// HeaderNames: the stored columns' CSV names (keys the store supplies are not a connection's).
struct HeaderNames {
  std::vector<std::string> names;
  void Key(const Column& /*c*/) {}
  template <class T>
  void operator()(const Column& c, const T& /*member*/) {
    const std::string_view name = c.csv.empty() ? c.name : c.csv;
    names.push_back(c.role == ColumnRole::kTimestamp ? fmt::format("{}_us", name)
                                                     : std::string(name));
  }
};

// RowFields: one connection's stored columns as CSV fields.
struct RowFields {
  Nanos run_start = 0;
  std::string& line;
  void Key(const Column& /*c*/) {}
  template <class T>
  void operator()(const Column& c, const T& member) {
    if constexpr (std::is_same_v<T, std::string>) {
      line += CsvField(member);
    } else if constexpr (std::is_same_v<T, const char*>) {
      line += CsvField(member != nullptr ? member : "");
    } else if constexpr (TextEnum<T>) {
      line += ColumnEnum<T>::Name(member);
    } else if constexpr (std::is_same_v<T, bool>) {
      line += member ? '1' : '0';
    } else if (c.role == ColumnRole::kTimestamp) {
      line += Stamp(static_cast<Nanos>(member), run_start);
    } else {
      line += std::to_string(member);
    }
    line += ',';
  }
};

std::string MakeHeader() {
  HeaderNames h;
  const ConnectionRecord shape;
  ConnectionColumns(shape, h);
  return fmt::format("{},{}", fmt::join(h.names, ","), kDerived);
}

}  // namespace

const std::string& SamplesCsvHeader() {
  static const std::string header = MakeHeader();
  return header;
}

void WriteSamplesCsv(std::ostream& out, const LoadResult& result) {
  out << SamplesCsvHeader() << '\n';
  const Nanos t0 = result.run_start;
  const RequestRecord none;
  std::string line;
  for (const ConnectionRecord& c : result.connections) {
    const auto requests = RequestsOf(c, result.requests);
    const RequestRecord& r = requests.empty() ? none : requests.front();
    const bool has_request = !requests.empty();
    line.clear();
    RowFields fields{t0, line};
    ConnectionColumns(c, fields);
    line += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{}\n", Micros3(LagMicros(c)), Micros3(ConnectMicros(c)),
        Micros3(HandshakeMicros(c)), Micros3(has_request ? TtfbMicros(r) : std::nullopt),
        Micros3(has_request ? ResponseMicros(r) : std::nullopt), Micros3(TotalMicros(c, requests)),
        CsvField(c.signature_scheme == 0 ? std::string()
                                         : std::string(SignatureSchemeName(c.signature_scheme))),
        Stamp(r.sent, t0), Stamp(r.first_byte, t0), Stamp(r.last_byte, t0),
        has_request ? std::to_string(r.status) : std::string(),
        has_request ? std::to_string(r.body_bytes) : std::string());
    out << line;
  }
}

}  // namespace pqc
