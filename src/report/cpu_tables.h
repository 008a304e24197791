// cpu_tables — CPU per handshake as tables shared by every reporter (terminal, Markdown,
// HTML): measured next to the crypto floor with the overhead ratio, and the capacity view
// (handshakes/s per server core, server CPU per handshake with its interval over trials, and
// "X % more server CPU per handshake than classical"). Formatting only: the numbers are the
// summary's arms[].cpu and capacity (summary.h).
#pragma once

#include <string>
#include <vector>

#include "core/text_table.h"
#include "report/summary.h"

namespace pqc::report {

struct TitledTable {
  std::string id;                  // HTML element id
  std::string title;               // heading
  std::string note;                // one sentence under the heading: where the numbers come from
  Table table;                     // no rows = nothing to show
  std::vector<std::string> lines;  // sentences after the table
};

// FloorTable: per arm, server CPU µs per handshake, the server floor and their ratio, then the
// same for the client (per connection).
TitledTable FloorTable(const Summary& summary);

// CapacityTable: per arm of "capacity", grouped by target; lines: "<arm>: X % more server CPU
// per handshake than classical (<baseline>) [CI]".
TitledTable CapacityTable(const Summary& summary);

}  // namespace pqc::report
