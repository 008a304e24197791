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

std::string MarkdownCell(std::string_view text) {
  std::string e;
  e.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u == 0x7f) {
      e += '?';
      continue;
    }
    const bool link =
        ch == ']' && i + 1 < text.size() && (text[i + 1] == '(' || text[i + 1] == '[');
    if (ch == '|' || ch == '\\' || ch == '<' || link) e += '\\';
    e += ch;
  }
  return e;
}

void WriteMarkdownTable(std::ostream& out, const Table& t, bool aligned) {
  auto escape = [](const std::string& s) { return MarkdownCell(s); };
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
