// mover_stats_json — see the header.
#include "link/mover_stats_json.h"

namespace pqc::link {

nlohmann::json MoverStatsJson(const MoverStats& s) {
  return {
      {"packets", s.packets},
      {"bytes", s.bytes},
      {"dropped_loss", s.dropped_loss},
      {"dropped_queue", s.dropped_queue},
      {"dropped_ingress", s.dropped_ingress},
      {"write_errors", s.write_errors},
      {"realtime", s.realtime},
      {"kernel_timestamps", s.kernel_timestamps},
      {"release_error_us",
       {{"p50", s.release_error_p50_us},
        {"p99", s.release_error_p99_us},
        {"max", s.release_error_max_us}}},
  };
}

}  // namespace pqc::link
