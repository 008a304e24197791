// trial_table.cc — see the header. The column visitors below are the only place a trial's
// member meets SQLite: scalars bind as themselves, the rest as their JSON text.
#include "results/trial_table.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <string>
#include <string_view>
#include <type_traits>

namespace pqc::results {
namespace {

// Scalar columns: stored as SQLite integers, reals or text; everything else as JSON text.
template <class T>
constexpr bool kScalar = std::is_arithmetic_v<T> || std::is_same_v<T, std::string>;
template <class T>
constexpr bool kNullableScalar = false;
template <class T>
constexpr bool kNullableScalar<std::optional<T>> = std::is_arithmetic_v<T>;

// Names: the column list, and the SELECT expression of each for a file of `version` (a
// column added later reads as NULL from an older file).
struct Names {
  int version = 0;
  std::string insert, select;
  int count = 0;
  template <class T>
  void operator()(const char* column, const T& /*member*/, int since) {
    const char* sep = count++ == 0 ? "" : ", ";
    insert += fmt::format("{}{}", sep, column);
    select += fmt::format("{}{}", sep, version >= since ? column : "NULL");
  }
};

template <class T>
std::string JsonText(const T& member) {
  // replace: a stray non-UTF-8 byte in a reason or a target's log must not lose the trial.
  return json_fields::Writer::Value(member).dump(-1, ' ', false,
                                                 nlohmann::ordered_json::error_handler_t::replace);
}

struct Binder {
  Stmt& s;
  int i = 0;
  template <class T>
  void operator()(const char* column, const T& member, int /*since*/) {
    ++i;
    if constexpr (std::is_same_v<T, std::string>) {
      s.Bind(i, std::string_view(member));
    } else if constexpr (std::is_floating_point_v<T>) {
      s.Bind(i, static_cast<double>(member));
    } else if constexpr (std::is_arithmetic_v<T>) {
      // id 0: let SQLite choose (INTEGER PRIMARY KEY: the next free id).
      if (std::string_view(column) == "id" && member == 0) {
        s.BindNull(i);
      } else {
        s.Bind(i, static_cast<int64_t>(member));
      }
    } else if constexpr (kNullableScalar<T>) {
      if (!member) {
        s.BindNull(i);
      } else if constexpr (std::is_floating_point_v<typename T::value_type>) {
        s.Bind(i, static_cast<double>(*member));
      } else {
        s.Bind(i, static_cast<int64_t>(*member));
      }
    } else if constexpr (std::is_same_v<T, std::vector<ShardView>>) {
      if (member.empty()) {
        s.BindNull(i);  // not a merged run
      } else {
        s.Bind(i, std::string_view(JsonText(member)));
      }
    } else {
      s.Bind(i, std::string_view(JsonText(member)));
    }
  }
};

struct Loader {
  const Stmt& s;
  int64_t trial = 0;
  int i = 0;
  std::string error;  // the first column that did not read
  template <class T>
  void operator()(const char* column, T& member, int /*since*/) {
    const int col = i++;
    if (!error.empty() || s.IsNull(col)) {
      if constexpr (!kScalar<T>) member = T{};
      return;
    }
    if constexpr (std::is_same_v<T, std::string>) {
      member = s.Text(col);
    } else if constexpr (std::is_floating_point_v<T>) {
      member = s.Real(col);
    } else if constexpr (std::is_same_v<T, bool>) {
      member = s.Int(col) != 0;
    } else if constexpr (std::is_arithmetic_v<T>) {
      member = static_cast<T>(s.Int(col));
    } else if constexpr (kNullableScalar<T>) {
      using V = typename T::value_type;
      if constexpr (std::is_floating_point_v<V>) {
        member = s.Real(col);
      } else {
        member = static_cast<V>(s.Int(col));
      }
    } else {
      // ordered: a mode mix keeps the order it was written in.
      const auto j =
          nlohmann::ordered_json::parse(s.TextView(col), nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded()) {
        error = fmt::format("trial {}'s {} is not JSON", trial, column);
        return;
      }
      if (Status st = json_fields::Read(j, member, fmt::format("trial {}'s {}", trial, column));
          !st) {
        error = st.error().message;
      }
    }
  }
};

}  // namespace

Result<int64_t> InsertTrial(Db& db, const TrialRecord& trial) {
  Names names;
  TrialColumns(trial, names);
  std::string params;
  for (int k = 1; k <= names.count; ++k) params += fmt::format("{}?{}", k == 1 ? "" : ", ", k);
  auto ins = db.Prepare(fmt::format("INSERT INTO trials ({}) VALUES ({})", names.insert, params));
  if (!ins) return ins.error();
  Binder bind{*ins};
  TrialColumns(trial, bind);
  if (Status st = ins->Run(); !st) return st.error();
  return sqlite3_last_insert_rowid(db.get());
}

Result<std::vector<TrialRecord>> ReadTrials(Db& db, int version) {
  Names names{.version = version};
  const TrialRecord shape;
  TrialColumns(shape, names);
  auto sel = db.Prepare(fmt::format("SELECT {} FROM trials ORDER BY seq", names.select));
  if (!sel) return sel.error();
  std::vector<TrialRecord> trials;
  for (;;) {
    auto more = sel->Step();
    if (!more) return more.error();
    if (!*more) break;
    TrialRecord& t = trials.emplace_back();
    Loader load{*sel, sel->Int(0)};
    TrialColumns(t, load);
    if (!load.error.empty()) {
      return MakeError(ErrorKind::kConfig, "corrupt results database: " + load.error);
    }
  }
  return trials;
}

}  // namespace pqc::results
