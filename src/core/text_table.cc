#include "core/text_table.h"

#include <algorithm>

namespace pqc {
namespace {

// Width: display columns of UTF-8 text (every code point counts one: "·" and "µ" are
// narrow), so that labels with them stay aligned.
size_t Width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

bool Right(const Table& t, size_t col) {
  return col < t.right.size() && t.right[col];
}

}  // namespace

void WriteTextTable(std::ostream& out, const Table& t) {
  std::vector<size_t> w(t.headers.size(), 0);
  for (size_t c = 0; c < t.headers.size(); ++c) w[c] = Width(t.headers[c]);
  for (const auto& row : t.rows) {
    for (size_t c = 0; c < row.size() && c < w.size(); ++c) w[c] = std::max(w[c], Width(row[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (size_t c = 0; c < w.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      const std::string pad(w[c] - Width(cell), ' ');
      if (c > 0) text += "  ";
      text += Right(t, c) ? pad + cell : cell + pad;
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << '\n';
  };
  line(t.headers);
  for (const auto& row : t.rows) line(row);
}

void WriteMarkdownTable(std::ostream& out, const Table& t, bool aligned) {
  auto escape = [](const std::string& s) {
    std::string e;
    for (char ch : s) {
      if (ch == '|') e += '\\';
      e += ch;
    }
    return e;
  };
  std::vector<size_t> w(t.headers.size(), 3);
  if (aligned) {
    for (size_t c = 0; c < t.headers.size(); ++c)
      w[c] = std::max(w[c], Width(escape(t.headers[c])));
    for (const auto& row : t.rows) {
      for (size_t c = 0; c < row.size() && c < w.size(); ++c) {
        w[c] = std::max(w[c], Width(escape(row[c])));
      }
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    out << '|';
    for (size_t c = 0; c < t.headers.size(); ++c) {
      const std::string cell = escape(c < cells.size() ? cells[c] : "");
      const std::string pad(aligned ? w[c] - Width(cell) : 0, ' ');
      out << ' ' << (Right(t, c) ? pad + cell : cell + pad) << " |";
    }
    out << '\n';
  };
  line(t.headers);
  out << '|';
  for (size_t c = 0; c < t.headers.size(); ++c) {
    const std::string dashes(aligned ? w[c] - 1 : 3, '-');
    out << (Right(t, c) ? " " + dashes + ": |" : (aligned ? " :" : " ") + dashes + " |");
  }
  out << '\n';
  for (const auto& row : t.rows) line(row);
}

}  // namespace pqc
