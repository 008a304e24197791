// json_fields — a record's JSON form from its one field list. A record type T declares
//
//   template <class R, class V> requires json_fields::Of<R, T>
//   void Fields(R& r, V& v) { v("key", r.member); v.Group("nested", [&](auto& g) { … });
//                             v.Computed("valid", r.valid()); }
//
// next to it (found by argument-dependent lookup), and `Write` and `Read` below walk that one
// list, so that the writer and the reader cannot disagree on a key, its nesting or its type
// (the shape Google Benchmark's reporters share; report/summary_fields.h is the study
// document's own, stricter variant). `Group` is an object in the JSON with no struct of its
// own; `Computed` is written and never read back.
//
// Read is lenient about absence and strict about type: a key the object lacks leaves the
// member at its default (files written before the key existed still read), a key it does not
// know is ignored, and a present value of the wrong type is an error naming its path
// ("loadgen.threads: expected a non-negative integer, got string"). Numbers JSON cannot hold
// (NaN: "not measured") are written as null and read back as NaN.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <concepts>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"

namespace pqc::json_fields {

// Of: R is the record T, const (for the writer) or not (for the reader).
template <class R, class T>
concept Of = std::same_as<std::remove_const_t<R>, T>;

using Json = nlohmann::ordered_json;

template <class T>
using IsBasicJson = nlohmann::detail::is_basic_json<T>;

class Writer;

// A named value: an enum written as its name, with `ToText(e)` and `FromText(text, e)` (false:
// not one of its names) declared beside it (argument-dependent lookup), e.g. core/protocol.h.
template <class T>
concept Named = std::is_enum_v<T> && requires(T t, std::string_view text) {
  { ToText(t) } -> std::convertible_to<std::string_view>;
  { FromText(text, t) } -> std::same_as<bool>;
};

// A record: a type with a field list.
template <class T>
concept Record = requires(const T& t, Writer& w) {
  Fields(t, w);
};

// ---- writing ----

class Writer {
 public:
  template <class T>
  void operator()(const char* key, const T& value) {
    out_[key] = Value(value);
  }
  template <class F>
  void Group(const char* key, F&& fields) {
    Writer nested;
    fields(nested);
    out_[key] = std::move(nested.out_);
  }
  template <class T>
  void Computed(const char* key, const T& value) {
    out_[key] = Value(value);
  }
  Json Take() && { return std::move(out_); }

  template <class T>
  static Json Value(const T& v) {
    if constexpr (Record<T>) {
      Writer w;
      Fields(v, w);
      return std::move(w).Take();
    } else if constexpr (std::is_floating_point_v<T>) {
      return std::isfinite(v) ? Json(v) : Json(nullptr);
    } else if constexpr (IsBasicJson<T>::value) {
      return Json(v);  // an echo of other JSON (target details, say), as it is
    } else if constexpr (Named<T>) {
      return Json(std::string(ToText(v)));
    } else {
      return Json(v);  // bool, integer, string
    }
  }
  template <class T>
  static Json Value(const std::optional<T>& v) {
    return v ? Value(*v) : Json(nullptr);
  }
  template <class T>
  static Json Value(const std::vector<T>& items) {
    Json out = Json::array();
    for (const T& item : items) out.push_back(Value(item));
    return out;
  }
  template <class T>
  static Json Value(const std::map<std::string, T>& items) {
    Json out = Json::object();
    for (const auto& [k, item] : items) out[k] = Value(item);
    return out;
  }
  // Weighted names in their order (a mode mix): an object.
  template <class T>
  static Json Value(const std::vector<std::pair<std::string, T>>& items) {
    Json out = Json::object();
    for (const auto& [k, item] : items) out[k] = Value(item);
    return out;
  }

 private:
  Json out_ = Json::object();
};

// Write: `record` as a JSON object, keys in its field list's order.
template <Record T>
Json Write(const T& record) {
  return Writer::Value(record);
}

// ---- reading ----

// FormatError: a malformed value; its path grows from the value outwards as it travels up.
class FormatError : public std::runtime_error {
 public:
  explicit FormatError(const std::string& problem)
      : std::runtime_error(problem), problem_(problem) {}
  void Within(std::string_view step) {
    path_ = path_.empty() || path_.front() == '[' ? std::string(step) + path_
                                                  : std::string(step) + "." + path_;
  }
  std::string Message() const { return path_.empty() ? problem_ : path_ + ": " + problem_; }

 private:
  std::string problem_, path_;
};

template <class J>
[[noreturn]] void Fail(std::string_view expected, const J& v) {
  throw FormatError(fmt::format("expected {}, got {}", expected, v.type_name()));
}

template <class F>
void Step(std::string_view step, F&& read) {
  try {
    read();
  } catch (FormatError& e) {
    e.Within(step);
    throw;
  }
}

template <class J>
class Reader {
 public:
  explicit Reader(const J& in) : in_(in) {
    if (!in.is_object()) Fail("an object", in);
  }
  template <class T>
  void operator()(const char* key, T& member) const {
    auto it = in_.find(key);
    if (it == in_.end()) return;
    Step(key, [&] { Value(*it, member); });
  }
  template <class F>
  void Group(const char* key, F&& fields) const {
    auto it = in_.find(key);
    if (it == in_.end()) return;
    Step(key, [&] {
      Reader nested(*it);
      fields(nested);
    });
  }
  template <class T>
  void Computed(const char* /*key*/, const T& /*value*/) const {}

  template <class T>
  static void Value(const J& v, T& out) {
    if constexpr (Record<T>) {
      Reader r(v);
      Fields(out, r);
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!v.is_boolean()) Fail("true or false", v);
      out = v.template get<bool>();
    } else if constexpr (std::is_floating_point_v<T>) {
      if (v.is_null()) {
        out = std::numeric_limits<T>::quiet_NaN();
        return;
      }
      if (!v.is_number()) Fail("a number or null", v);
      out = v.template get<T>();
    } else if constexpr (std::is_unsigned_v<T>) {
      if (!v.is_number_unsigned() || v.template get<uint64_t>() > std::numeric_limits<T>::max())
        Fail(fmt::format("an integer from 0 to {}", std::numeric_limits<T>::max()), v);
      out = v.template get<T>();
    } else if constexpr (std::is_integral_v<T>) {
      if (!v.is_number_integer()) Fail("an integer", v);
      out = v.template get<T>();
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!v.is_string()) Fail("a string", v);
      out = v.template get<std::string>();
    } else if constexpr (Named<T>) {
      if (!v.is_string()) Fail("a name", v);
      const auto& text = v.template get_ref<const std::string&>();
      if (!FromText(text, out)) throw FormatError(fmt::format("unknown name \"{}\"", text));
    } else {
      static_assert(IsBasicJson<T>::value, "json_fields: no reader for this member type");
      out = T(v);
    }
  }
  template <class T>
  static void Value(const J& v, std::optional<T>& out) {
    if (v.is_null()) {
      out.reset();
      return;
    }
    Value(v, out.emplace());
  }
  template <class T>
  static void Value(const J& v, std::vector<T>& out) {
    if (!v.is_array()) Fail("an array", v);
    out.assign(v.size(), T{});
    for (size_t i = 0; i < v.size(); ++i)
      Step(fmt::format("[{}]", i), [&] { Value(v[i], out[i]); });
  }
  template <class T>
  static void Value(const J& v, std::map<std::string, T>& out) {
    if (!v.is_object()) Fail("an object", v);
    out.clear();
    for (auto it = v.begin(); it != v.end(); ++it)
      Step(it.key(), [&] { Value(it.value(), out[it.key()]); });
  }
  template <class T>
  static void Value(const J& v, std::vector<std::pair<std::string, T>>& out) {
    if (!v.is_object()) Fail("an object", v);
    out.clear();
    for (auto it = v.begin(); it != v.end(); ++it) {
      out.emplace_back(it.key(), T{});
      Step(it.key(), [&] { Value(it.value(), out.back().second); });
    }
  }

 private:
  const J& in_;
};

// Read: `record` (a record, or a list or optional of them) from `j` (see the top of the file
// for what it accepts);
// `what` names the document in an error ("results trial 7's summary").
template <class T, class J>
Status Read(const J& j, T& record, std::string_view what) {
  try {
    Reader<J>::Value(j, record);
  } catch (const FormatError& e) {
    return MakeError(ErrorKind::kConfig, fmt::format("{}: {}", what, e.Message()));
  }
  return {};
}

}  // namespace pqc::json_fields
