// csv — CsvField: one field of RFC 4180 CSV, quoted only when it must be (a comma, a quote or
// a line break in it), quotes doubled. One quoter for every CSV the tool writes (per-connection
// samples, the report's rows), so that a spreadsheet reads them alike.
#pragma once

#include <string>
#include <string_view>

namespace pqc {

inline std::string CsvField(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
  return out;
}

}  // namespace pqc
