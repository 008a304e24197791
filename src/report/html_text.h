// html_text — the only ways text and numbers enter the HTML report. Everything inserted into
// the page goes through one of these, because the summary carries user text (a scenario title
// may well contain "</script>" or "<b>") and the page must show it, never run it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace pqc::report {

// HtmlEscape: text for an element's content or a quoted attribute value (& < > " ').
std::string HtmlEscape(std::string_view text);

// ScriptJson: `value` as JSON text that is safe inside a <script> element: '<', '>' and '&'
// are written as \u003c, \u003e, \u0026 (valid JSON, the same value once parsed), so no
// "</script" or "<!--" can appear; invalid UTF-8 is replaced rather than thrown on.
std::string ScriptJson(const nlohmann::json& value);

// FormatCount: an integer count with thousands separators ("9,000"); "–" if absent.
std::string FormatCount(std::optional<double> count);

}  // namespace pqc::report
