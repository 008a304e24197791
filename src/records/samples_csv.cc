#include "records/samples_csv.h"

#include <fmt/format.h>

#include <optional>

#include "core/csv.h"
#include "records/summary.h"
#include "tls/algorithms.h"

namespace pqc {
namespace {

constexpr std::string_view kHeader =
    "id,thread,mode,measured,offered_session,"
    "intended_start_us,actual_start_us,tcp_established_us,tls_done_us,closed_us,"
    "lag_us,connect_us,handshake_us,ttfb_us,response_us,total_us,"
    "handshake_bytes_written,handshake_bytes_read,handshake_segments_read,client_hello_bytes,"
    "server_hello_bytes,"
    "certificate_bytes,certificate_verify_bytes,"
    "group,sigalg,cipher,resumed,hrr,error,error_detail,"
    "req_sent_us,req_first_byte_us,req_last_byte_us,req_status,req_body_bytes,"
    "first_request,request_count,"
    "protocol,initial_datagrams,handshake_datagrams_sent,handshake_datagrams_received,"
    "amplification_limited,retried";

// Micros3: a value in µs with 3 decimals (nanosecond resolution), empty when undefined.
std::string Micros3(std::optional<double> us) {
  return us ? fmt::format("{:.3f}", *us) : std::string();
}

// Stamp: a timestamp relative to the run's start, empty when it did not happen.
std::string Stamp(Nanos t, Nanos run_start) {
  if (t == 0) return {};
  return Micros3(NanosToMicros(t - run_start));
}

}  // namespace

std::string_view SamplesCsvHeader() {
  return kHeader;
}

void WriteSamplesCsv(std::ostream& out, const LoadResult& result) {
  out << kHeader << '\n';
  const Nanos t0 = result.run_start;
  const RequestRecord none;
  for (const ConnectionRecord& c : result.connections) {
    const auto requests = RequestsOf(c, result.requests);
    const RequestRecord& r = requests.empty() ? none : requests.front();
    const bool has_request = !requests.empty();
    const std::string sigalg =
        c.signature_scheme == 0 ? std::string() : SignatureSchemeName(c.signature_scheme);
    out << fmt::format(
        "{},{},{},{:d},{:d},"
        "{},{},{},{},{},"
        "{},{},{},{},{},{},"
        "{},{},{},{},{},{},{},"
        "{},{},{},{:d},{:d},{},{},"
        "{},{},{},{},{},"
        "{},{},"
        "{},{},{},{},{:d},{:d}\n",
        c.id, c.thread, ConnModeName(c.mode), c.measured, c.offered_session,  //
        Stamp(c.intended_start, t0), Stamp(c.actual_start, t0), Stamp(c.tcp_established, t0),
        Stamp(c.tls_done, t0), Stamp(c.closed, t0),  //
        Micros3(LagMicros(c)), Micros3(ConnectMicros(c)), Micros3(HandshakeMicros(c)),
        Micros3(has_request ? TtfbMicros(r) : std::nullopt),
        Micros3(has_request ? ResponseMicros(r) : std::nullopt),
        Micros3(TotalMicros(c, requests)),  //
        c.handshake_bytes_written, c.handshake_bytes_read, c.handshake_segments_read,
        c.client_hello_bytes, c.server_hello_bytes, c.certificate_bytes,
        c.certificate_verify_bytes,  //
        CsvField(c.group), CsvField(sigalg), CsvField(c.cipher != nullptr ? c.cipher : ""),
        c.resumed, c.hrr, ErrorClassName(c.error), CsvField(c.error_detail),  //
        Stamp(r.sent, t0), Stamp(r.first_byte, t0), Stamp(r.last_byte, t0),
        has_request ? std::to_string(r.status) : std::string(),
        has_request ? std::to_string(r.body_bytes) : std::string(),  //
        c.first_request, c.request_count,                            //
        ProtocolName(c.protocol), c.initial_datagrams, c.handshake_datagrams_sent,
        c.handshake_datagrams_received, c.amplification_limited, c.retried);
  }
}

}  // namespace pqc
