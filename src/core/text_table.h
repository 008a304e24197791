// text_table — a grid of already formatted cells, printed aligned for a terminal or as a
// Markdown table (padded to align in a terminal too, or not), so that every table the tool
// prints — load's phase table, the reports' terminal and Markdown tables — is one layout.
// (A dozen lines of padding; a table library would add a dependency for no gain.)
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace pqc {

struct Table {
  std::vector<std::string> headers;
  std::vector<bool> right;  // per column: right-aligned (numbers)
  std::vector<std::vector<std::string>> rows;
};

// MarkdownCell: text as one table cell, kept text: a cell can hold what a stranger sent (a
// client's User-Agent in `serve --clients`). Control characters (a newline would end the row)
// become '?'; escaped are '|' (it would end the cell), the backslash (it would escape that
// escape), '<' (raw HTML, autolinks) and the ']' of "](" or "][" (links, images). Emphasis
// stays possible: it changes how a cell looks, not what it is.
std::string MarkdownCell(std::string_view text);

void WriteTextTable(std::ostream& out, const Table& t);
// WriteMarkdownTable: `aligned` pads every cell to its column's width (a Markdown table that
// reads as a table in a terminal too, as load prints it).
void WriteMarkdownTable(std::ostream& out, const Table& t, bool aligned = false);

}  // namespace pqc
