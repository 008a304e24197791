// table — a grid of already formatted cells, printed aligned for a terminal or as a
// Markdown table, so that the terminal and Markdown reports are one layout written twice.
// (A dozen lines of padding; a table library would add a dependency for no gain.)
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace pqc::report {

struct Table {
  std::vector<std::string> headers;
  std::vector<bool> right;  // per column: right-aligned (numbers)
  std::vector<std::vector<std::string>> rows;
};

void WriteTextTable(std::ostream& out, const Table& t);
void WriteMarkdownTable(std::ostream& out, const Table& t);

}  // namespace pqc::report
