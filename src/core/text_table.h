// text_table — a grid of already formatted cells, printed aligned for a terminal or as a
// Markdown table (padded to align in a terminal too, or not), so that every table the tool
// prints — load's phase table, the reports' terminal and Markdown tables — is one layout.
// (A dozen lines of padding; a table library would add a dependency for no gain.)
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace pqc {

struct Table {
  std::vector<std::string> headers;
  std::vector<bool> right;  // per column: right-aligned (numbers)
  std::vector<std::vector<std::string>> rows;
};

void WriteTextTable(std::ostream& out, const Table& t);
// WriteMarkdownTable: `aligned` pads every cell to its column's width (a Markdown table that
// reads as a table in a terminal too, as load prints it).
void WriteMarkdownTable(std::ostream& out, const Table& t, bool aligned = false);

}  // namespace pqc
